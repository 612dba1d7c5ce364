"""Figures of the workshop domains, as the seed computes them, with our own data: in-process on moto, sizes and units by
DynamoDB's rules (functions/shared/capacity.py; moto's ConsumedCapacity is a constant, whatever the item sizes).

1. The inbox page: the size of the Inbox index items one page of 50 headers reads and the read units that Query
   consumes (4 KB per unit, eventually consistent = half), against the same 50 messages read with their bodies
   (the seed's Solution v.1); the seed's own figures next to them.
2. Binned ingest: DynamoDB writes (and write units) per reading at 1, 10 and 100 readings per device per bin.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

SEED_INBOX = ("seed: 50 × 256 KB bodies in the queried items = 1,600 RCU; 50 × 128 B headers in a projected index = "
              "1 RCU")
SEED_INGEST = "seed: 100,000 data points/s = 100,000 WCU unbinned, ~10,000 WCU binned (\"10x less\")"


def inbox_cost(messages: int = 50, body_bytes: int = 4096, echo: bool = True) -> dict:
    import boto3
    from moto import mock_aws

    from functions.messaging.models import Message
    from functions.messaging.repository import MessagingRepository, message_item
    from functions.messaging.schema import MESSAGES_TABLE
    from functions.shared import ddb
    from functions.shared.capacity import item_size, read_units
    from functions.shared.settings import Settings

    say = print if echo else (lambda *_, **__: None)
    say(f"\n4. Messaging: one inbox page of {messages} headers (Query on the Inbox GSI, newest first)")
    with mock_aws():
        ddb.resource.cache_clear()
        boto3.client("dynamodb").create_table(**MESSAGES_TABLE.create_table_kwargs("bench-messages"))
        repository = MessagingRepository(Settings({MESSAGES_TABLE.env_var: "bench-messages"}))
        start = datetime(2014, 10, 1, tzinfo=UTC)
        whole = []
        for n in range(messages):
            message = Message(msg_id=f"m{n:04x}", sender=("bob", "alice", "carol")[n % 3], recipient="david",
                              date=(start + timedelta(minutes=n)).isoformat(timespec="milliseconds"),
                              subject=f"Re: the plan, part {n}", body="x" * body_bytes)
            repository.put_message(message)
            whole.append(item_size(message_item(message)))
        page = repository.inbox_index_items("david", limit=messages)
        sizes = [item_size(item) for item in page]
        if len(page) != messages or any("Body" in item for item in page):
            raise RuntimeError(f"the inbox page holds {len(page)} items, or bodies: not {messages} headers")
    ddb.resource.cache_clear()
    say(f"   ours, index items:   {len(page)} items, {min(sizes)}–{max(sizes)} B each, {sum(sizes):,} B in all "
          f"-> {read_units(sizes):g} RCU")
    say(f"   ours, bodies in the queried items (v.1): {len(whole)} × {sum(whole) // len(whole):,} B "
          f"-> {read_units(whole):g} RCU")
    say(f"   the seed's arithmetic by the same rules: 50 × 256 KB -> {read_units([256 * 1024] * 50):g} RCU, "
          f"50 × 128 B -> {read_units([128] * 50):g} RCU")
    say(f"   ({SEED_INBOX})")
    return {"headers": len(page), "index_rcu": read_units(sizes), "bodies_rcu": read_units(whole),
            "seed_index_rcu": read_units([128] * 50), "seed_bodies_rcu": read_units([256 * 1024] * 50)}


def binned_ingest(devices: int = 10, bins: int = 10, per_bin: tuple[int, ...] = (1, 10, 40),
                  echo: bool = True) -> dict:
    import boto3
    from moto import mock_aws

    from functions.measurements.models import Reading
    from functions.measurements.repository import MeasurementsRepository
    from functions.measurements.schema import (
        BIN_MS,
        BINS,
        MAX_READINGS_PER_BATCH,
        MEASUREMENTS_TABLE,
    )
    from functions.shared import ddb
    from functions.shared.capacity import item_size, write_units
    from functions.shared.settings import Settings

    say = print if echo else (lambda *_, **__: None)
    say(f"\n5. Device measurements: binned ingest ({devices} devices × {bins} bins of {BIN_MS} ms, "
          f"batches of ≤ {MAX_READINGS_PER_BATCH} readings)")
    say(f"   {'readings/bin':>13} {'readings':>9} {'writes':>7} {'writes/reading':>15} {'WCU/reading':>12}")
    first_bin = BINS.bin_of((int(time.time()) - 86_400) * 1000)
    per_reading: dict[str, float] = {}  # readings per bin -> write units per reading
    with mock_aws():
        ddb.resource.cache_clear()
        for k in per_bin:
            name = f"bench-measurements-{k}"
            boto3.client("dynamodb").create_table(**MEASUREMENTS_TABLE.create_table_kwargs(name))
            repository = MeasurementsRepository(Settings({MEASUREMENTS_TABLE.env_var: name}))
            table = ddb.table(name)
            step = BIN_MS // k
            readings = [Reading(device_id=f"dev-{d}", epoch_ms=first_bin + b * BIN_MS + i * step,
                                temperature=20 + i % 10, pressure=90 + i % 7)
                        for d in range(devices) for b in range(bins) for i in range(k)]
            writes = units = 0
            size = MAX_READINGS_PER_BATCH - MAX_READINGS_PER_BATCH % k  # whole bins per batch
            for start in range(0, len(readings), size):
                batch = readings[start:start + size]
                keys = {(r.device_id, BINS.bin_of(r.instant_ms)) for r in batch}
                before = {key: _size(table, key, item_size) for key in keys}
                writes += repository.put_readings(batch)
                # an update is billed on the larger of the item before and after it
                units += sum(write_units(max(before[key], _size(table, key, item_size))) for key in keys)
            per_reading[str(k)] = units / len(readings)
            say(f"   {k:>13} {len(readings):>9} {writes:>7} {writes / len(readings):>15.2f} "
                  f"{units / len(readings):>12.2f}")
        # The same 10 readings per bin, but posted one per request as a sensor would without a batching stage.
        name = "bench-measurements-unbatched"
        boto3.client("dynamodb").create_table(**MEASUREMENTS_TABLE.create_table_kwargs(name))
        repository, table = MeasurementsRepository(Settings({MEASUREMENTS_TABLE.env_var: name})), ddb.table(name)
        k, step = 10, BIN_MS // 10
        readings = [Reading(device_id="dev-0", epoch_ms=first_bin + b * BIN_MS + i * step, temperature=20, pressure=90)
                    for b in range(bins) for i in range(k)]
        writes = units = 0
        for reading in readings:
            key = ("dev-0", BINS.bin_of(reading.instant_ms))
            size_before = _size(table, key, item_size)
            writes += repository.put_readings([reading])
            units += write_units(max(size_before, _size(table, key, item_size)))
        per_reading["10, unbatched"] = units / len(readings)
        say(f"   {'10, unbatched':>13} {len(readings):>9} {writes:>7} {writes / len(readings):>15.2f} "
              f"{units / len(readings):>12.2f}   (one reading per request: no saving without a batching stage)")
    ddb.resource.cache_clear()
    say(f"   ({SEED_INGEST}: a tenth of a write per data point is ~10 readings per bin)")
    return {"wcu_per_reading": per_reading}


def _size(table, key, item_size) -> int:
    item = table.get_item(Key={"DeviceId": key[0], "bin": key[1]}).get("Item")
    return item_size(item) if item else 0


def run() -> None:
    inbox_cost()
    binned_ingest()
