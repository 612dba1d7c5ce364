"""Workloads of the seeds' shape, through our own key code: for each seed claim, our design and the design the seed
warns against (or argues for), as operations, rates and key distributions. Keys come from each domain's key builders
(functions/<domain>/schema.py and repository.py), item sizes from the items its repository builds, and units from
functions/shared/capacity.py, the rules the local runtime bills by: a change to a key design, a projection or an
item changes these rows. Rates the seeds do not give are marked "plausible" where they are used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.cart import ITEM_OVERHEAD  # bytes DynamoDB adds per stored item and index entry
from bench.scale.model import Keys, Load, Op, Table, Touch, simulate, uniform, zipf
from functions.shared.capacity import item_size, read_units, write_units
from functions.shared.table_spec import TableSpec


def projected(item: Mapping[str, Any], spec: TableSpec, index_name: str) -> dict[str, Any]:
    """The entry an index holds for an item, from the table spec's projection (what an index write is billed by)."""
    index = spec.index(index_name)
    keys = {a.name for a in (*spec.key_attributes, *index.key_attributes)}
    if index.projection == "ALL":
        return dict(item)
    extra = set() if index.projection == "KEYS_ONLY" else set(index.projection)
    return {k: v for k, v in item.items() if k in keys | extra}


# --- the cart: 100 million carts, 10,000 reads and 10,000 writes a second ------------------------------------------
# docs/adr/0107-cart-one-item-holders-from-the-stream.md: the cart is one item; "which carts hold SKU x" is a holder
# index kept from the Carts stream under keys `<sku>#<n>`. The write mix, its sources and each request's units are
# bench/cart.py's (`write_mix`, `unit_costs`): `make cost`'s monthly figure and these rows are the same sums.

CARTS = 100_000_000
CART_RATE = 10_000
SKUS = 100_000  # plausible: a catalogue of 100,000 SKUs, asked Zipf-popular (the seed gives no figure)
SEED_JOB = "~1,200 RCU and WCU for 24 h: ~$22 a run"
CART_DAY = "2026-11-22"  # the day the abandoned carts are counted on: one key, whatever the day


def cart_items(cart_id: str, sku: str) -> dict[str, dict[str, Any]]:
    """Our cart as bench/cart.py builds it (the repository's shape): five lines with `sku` among them, the same cart
    before `sku` was added, its holder for `sku`; the seed's one item; a price."""
    from bench.cart import SKUS_PER_CART, _holders, _our_cart, _price_item, _seed_item

    skus = [sku, *[f"SKU-{n:06d}" for n in range(1, SKUS_PER_CART)]]
    return {"cart": _our_cart(cart_id, "user-000001", skus, 1_800_000_000),
            "before": _our_cart(cart_id, "user-000001", skus[1:], 1_800_000_000),
            "holder": _holders(cart_id, [sku], 1_800_000_000)[0],
            "seed": _seed_item(cart_id, set(skus)), "price": _price_item(sku)}


def line_change_units(before: Mapping[str, Any], after: Mapping[str, Any], price: Mapping[str, Any],
                      holder: Mapping[str, Any]) -> dict[str, float]:
    """Units of one `set_line` that adds a SKU (functions/cart/repository.py): the price's GetItem (eventually
    consistent), the cart's UpdateItem (the larger of before and after), and the holder the Carts stream's consumer
    then writes (holder_index.py)."""
    return {"price_rru": read_units([item_size(price)]), "cart_wru": write_units(max(item_size(before),
                                                                                        item_size(after))),
            "holder_wru": write_units(item_size(holder))}


def cart_read_units(cart: Mapping[str, Any]) -> float:
    """`get_cart`: one GetItem, eventually consistent."""
    return read_units([item_size(cart)])


def _holder_touches(sku: str, wcu: float = 0.0, rcu: float = 0.0) -> list[Touch]:
    """A SKU's holder writes or reads, spread evenly over its N shards (each cart hashes to one)."""
    from functions.cart.schema import HOLDER_SHARDS, holder_key

    return [Touch("CartHolders", holder_key(sku, n), rcu=rcu / HOLDER_SHARDS, wcu=wcu / HOLDER_SHARDS,
                  one_item=False) for n in range(HOLDER_SHARDS)]


def cart_ops(skus: Keys, carts: Keys, cart_id: Callable[[int], str], sku: Callable[[int], str]) -> list[Op]:
    """Ours at the seed's rate: each kind of request of bench/cart.py's mix, on the keys it touches. A request on a
    cart and a SKU is two operations, one over each population (they are independent)."""
    from bench.cart import unit_costs, write_mix
    from functions.cart.schema import abandoned_pk, day_pk

    mix, u = write_mix(CART_RATE, CARTS), unit_costs()
    holders_per_sku = u["price change"]["cart_rru"] / u["read"]["cart_rru"]

    def cart_write(name: str, rate: float, wcu: float) -> Op:
        return Op(name, rate, carts, lambda i: [Touch("Cart", cart_id(i), wcu=wcu)])

    return [
        Op("read", mix.reads, carts, lambda i: [Touch("Cart", cart_id(i), rcu=u["read"]["cart_rru"])]),
        cart_write("create", mix.creates, u["create"]["cart_wru"]),
        cart_write("add a SKU: cart", mix.adds, u["add"]["cart_wru"]),
        Op("add a SKU: price, holder", mix.adds, skus,
           lambda i: [Touch("Price", sku(i), rcu=u["add"]["price_rru"]),
                      *_holder_touches(sku(i), wcu=u["add"]["holder_wru"])]),
        cart_write("remove a SKU", mix.removes, u["remove"]["cart_wru"]),
        cart_write("change a quantity: cart", mix.quantities, u["quantity"]["cart_wru"]),
        Op("change a quantity: price", mix.quantities, skus,
           lambda i: [Touch("Price", sku(i), rcu=u["quantity"]["price_rru"])]),
        cart_write("check out", mix.checkouts, u["checkout"]["cart_wru"]),
        Op("abandoned: counted once", mix.abandoned, carts,
           lambda i: [Touch("CartStats", abandoned_pk(cart_id(i)), wcu=u["abandoned"]["marker_wru"], transact=True),
                      Touch("CartStats", day_pk(CART_DAY), wcu=u["abandoned"]["day_wru"], transact=True)]),
        Op("holders of a cart moved to a later week", mix.refreshed_holders, skus,
           lambda i: _holder_touches(sku(i), wcu=u["refresh"]["holder_wru"])),
        # price changes: SKUs drawn evenly (a plausible assumption); every holder and its cart read, each live
        # holder's owner notified once (marker + notification: one transaction on the owner's key)
        Op("price change: holders", mix.price_changes, uniform(SKUS),
           lambda i: _holder_touches(sku(i), rcu=u["price change"]["holder_query_rru"])),
        Op("price change: holders' carts", mix.price_changes * holders_per_sku, carts,
           lambda i: [Touch("Cart", cart_id(i), rcu=u["read"]["cart_rru"])]),
        Op("price change: notify an owner", mix.notifications, carts,
           lambda i: [Touch("CartNotifications", f"user-{i:09d}", rcu=u["notification"]["marker_rru"],
                            wcu=u["notification"]["marker_wru"] + u["notification"]["note_wru"], transact=True)]),
    ]


def cart_rows() -> list[Load]:
    from bench.cart import monthly_estimate, ours_stored_bytes, unit_costs

    def cart_id(i: int) -> str:
        return f"{i:032x}"  # a uuid4().hex-shaped id, as create_cart makes them

    def sku(i: int) -> str:
        return f"SKU-{i:06d}"

    seed_size = unit_costs()["_sizes"]["seed"]
    seed_bytes = CARTS * (seed_size + ITEM_OVERHEAD)
    estimate = monthly_estimate(echo=False)
    carts = uniform(CARTS)
    seed = simulate(
        "cart", "100M carts, 10K reads + 10K writes/s", "seed: one item per cart (GetItem, PutItem)",
        [Op("read", CART_RATE, carts, lambda i: [Touch("Cart", cart_id(i), rcu=read_units([seed_size]))]),
         Op("write", CART_RATE, carts, lambda i: [Touch("Cart", cart_id(i), wcu=write_units(seed_size))])],
        [Table("Cart", seed_bytes)], rate=CART_RATE, seed_figure="~$6,300/month (provisioned)")
    rows = [seed]
    stored = [Table(name, size) for name, size in ours_stored_bytes().items()]
    for label, skus in (("SKUs uniform", uniform(SKUS)), ("SKUs Zipf s=1 (plausible)", zipf(SKUS))):
        rows.append(simulate("cart", "100M carts, 10K reads + 10K writes/s",
                             f"ours: one item, holders by SKU over 20 shards, from the stream; {label}",
                             cart_ops(skus, carts, cart_id, sku), stored, rate=CART_RATE,
                             seed_figure="~$6,300/month (provisioned)",
                             note="half the writes add or remove a SKU; consumers' writes counted (bench/cart.py)"))
    for row in rows[1:]:
        row.extra["make_cost_ours_month"] = round(estimate["ours_month"], 2)
        row.extra["times_seed_on_demand"] = round(row.monthly_usd / seed.monthly_usd, 3)
    seed.extra["make_cost_seed_month"] = round(estimate["seed_month"], 2)
    # The seed's daily price job: a Scan and update of every cart over 24 h, at the seed's own ~1,200 RCU and WCU.
    job = simulate("cart", "daily price-notification job", "seed: Scan + update 100M carts over 24 h",
                   [Op("scan+update", CARTS / 86_400, carts,
                       lambda i: [Touch("Cart", cart_id(i), rcu=seed_size / 4096 / 2, wcu=write_units(seed_size))])],
                   rate=CARTS / 86_400, seed_figure=SEED_JOB,
                   note="monthly = 30 daily runs")
    job.extra["seed_run_usd_provisioned"] = round(1_200 * 24 * (0.00065 + 0.00013), 2)
    rows.append(job)
    return rows


def cart_break_even(rows: list[Load]) -> dict[str, float]:
    """When ours, which notifies a price change to its holders as it happens, costs no more than the seed's one-item
    cart plus its price job (a Scan and update of every cart, whose interval is how stale a notification may be).
    Per capacity mode: the extra a month at the seed's rate, a job run, how many runs a month (and so how many
    minutes between runs) cost that extra, and the read + write rate below which ours costs less than the seed's
    design with a daily job (throughput scales with the rate, storage does not)."""
    from bench.scale.model import monthly_on_demand, monthly_provisioned

    seed, ours, job = rows[0], rows[1], rows[-1]
    out: dict[str, float] = {}
    for mode, month, total in (("on_demand", monthly_on_demand, "monthly_usd"),
                               ("provisioned", monthly_provisioned, "provisioned_monthly_usd")):
        throughput = month(ours.table_rcu, ours.table_wcu) - month(seed.table_rcu, seed.table_wcu)
        storage = (getattr(ours, total) - month(ours.table_rcu, ours.table_wcu)) - (
            getattr(seed, total) - month(seed.table_rcu, seed.table_wcu))
        run = getattr(job, total) / 30
        extra = throughput + storage
        out[f"extra_per_month_{mode}"] = extra
        out[f"job_run_{mode}"] = run
        out[f"jobs_per_month_{mode}"] = extra / run
        out[f"minutes_between_jobs_{mode}"] = 30 * 24 * 60 / (extra / run)
        out[f"rate_for_daily_job_{mode}"] = max(0.0, (30 * run - storage) / (throughput / CART_RATE))
    return out


# --- time series: 100,000 data points a second ------------------------------------------------------------------------

POINTS = 100_000
SENSORS = 1_000  # the seed's "1000's of sensors": the fewest it allows, so the most readings a sensor (100 a second)
READING_EVERY_MS = 1_000 * SENSORS // POINTS  # 10 ms: "a sensor can send readings every 10 ms"
SECONDS_PER_WRITE = 0.1  # the seed's "10x less": a batching stage hands each sensor's 100 ms (10 readings) to one write
SEED_STORED_PER_MONTH = 2.5e12  # bytes: the seed's "1 month's worth = ~2.5TB" (TB as 10^12 bytes)
RETENTION_S = 90 * 24 * 3600  # the seed's "Store for 90 days"


def _sensor_reading(epoch_ms: int) -> Any:
    from functions.measurements.models import Reading

    return Reading(device_id="sensor-0001", epoch_ms=epoch_ms, temperature=21.4, pressure=1013.2)


def bin_update(item: dict[str, Any] | None, readings: list[Any]) -> tuple[dict[str, Any], int]:
    """One ingest UpdateItem of a device's bin (functions/measurements/repository.py `_write_bin`): the bin after it
    (each reading's slot and the bin's `expiresAt` SET) and its write units, billed by the larger of the item before
    and after."""
    from functions.measurements.repository import slot_value
    from functions.measurements.schema import BINS, EXPIRES_AT

    first = readings[0]
    start = BINS.bin_of(first.instant_ms)
    after = dict(item or {"DeviceId": first.device_id, "bin": start})
    after[EXPIRES_AT] = BINS.expires_at(start)
    for reading in readings:
        after[BINS.slot_of(reading.instant_ms)] = slot_value(reading)
    return after, write_units(max(item_size(item or {}), item_size(after)))


def _filled_bin(readings_per_write: int) -> tuple[dict[str, Any], list[int]]:
    """A 400 ms bin filled by a sensor reporting every READING_EVERY_MS, in writes of `readings_per_write` readings (a
    write never spans two bins: the repository writes each bin apart): the full bin and each write's units."""
    from functions.measurements.schema import BIN_MS, BINS

    start = BINS.bin_of(1_790_000_000_000)
    times = list(range(start, start + BIN_MS, READING_EVERY_MS))
    item: dict[str, Any] = {}
    units = []
    for first in range(0, len(times), readings_per_write):
        item, cost = bin_update(item or None, [_sensor_reading(t) for t in times[first:first + readings_per_write]])
        units.append(cost)
    return item, units


def bin_write_units(readings_per_write: int) -> float:
    """Average write units of one ingest write as a bin fills at a reading every READING_EVERY_MS."""
    _, units = _filled_bin(readings_per_write)
    return sum(units) / len(units)


def measurement_storage() -> dict[str, float]:
    """What 90 days of the workload store: our bins (item and DynamoDB's per-item overhead) and the seed's figure."""
    from bench.cart import SECONDS_PER_MONTH
    from functions.measurements.schema import BIN_MS

    item, _ = _filled_bin(1)
    bins_per_s = SENSORS * 1000 / BIN_MS
    ours = (item_size(item) + ITEM_OVERHEAD) * bins_per_s * RETENTION_S
    seed = SEED_STORED_PER_MONTH / SECONDS_PER_MONTH * RETENTION_S
    return {"bin_bytes": item_size(item), "readings_per_bin": BIN_MS // READING_EVERY_MS,
            "ours_bytes": ours, "ours_bytes_per_point": ours / (POINTS * RETENTION_S),
            "seed_bytes": seed, "seed_bytes_per_point": seed / (POINTS * RETENTION_S)}


def measurement_rows() -> list[Load]:
    """The seed's unbinned and binned estimates (storage: its 2.5 TB a month, 90 days kept) and ours: 400 ms bins of
    SENSORS sensors reporting every 10 ms, written a bin at a time or in the seed's 10 readings a write."""
    from functions.measurements.schema import BIN_MS

    keys = uniform(SENSORS)
    claim = "100,000 data points/s"
    storage = measurement_storage()
    seed_table, our_table = Table("Measurements", storage["seed_bytes"]), Table("Measurements", storage["ours_bytes"])

    def sensor(i: int) -> str:
        return f"sensor-{i:04d}"

    def bin_writes(units: float) -> Callable[[int], list[Touch]]:
        return lambda i: [Touch("Measurements", sensor(i), wcu=units)]

    rows = [
        simulate("measurements", claim, "seed: unbinned, one item per data point",
                 [Op("put", POINTS, keys, lambda i: [Touch("Measurements", sensor(i), wcu=1)])], [seed_table],
                 rate=POINTS, seed_figure="100,000 WCU, ~$50K/month"),
        simulate("measurements", claim, "seed: binned, 10 data points per write",
                 [Op("put", POINTS / 10, keys, lambda i: [Touch("Measurements", sensor(i), wcu=1)])], [seed_table],
                 rate=POINTS, seed_figure="10,000 WCU, ~$5,000/month"),
    ]
    per_bin = BIN_MS // READING_EVERY_MS
    # Our design writes a bin a write; a client that sends 10 readings a request (the seed's batching) is shown
    # beside it as a use of our design, not as the design: it pays a write unit per 10 readings, as the seed does.
    for per_write, what in ((per_bin, f"ours: {BIN_MS} ms bins, a sensor every {READING_EVERY_MS} ms, a bin a write "
                                      f"({per_bin} readings, the stage holds {BIN_MS} ms a sensor)"),
                            (round(SECONDS_PER_WRITE * 1000 / READING_EVERY_MS),
                             f"a client of ours sending 10 readings a write (the seed's batching) to {BIN_MS} ms "
                             "bins")):
        units = bin_write_units(per_write)
        rows.append(simulate(
            "measurements", claim, what,
            [Op("update bin", POINTS / per_write, keys, bin_writes(units))], [our_table],
            rate=POINTS, seed_figure="10,000 WCU, ~$5,000/month",
            note=f"{units:.2f} WCU a write ({storage['bin_bytes']:.0f} B bin), {units / per_write:.3f} a data point; "
                 f"stores {storage['ours_bytes_per_point']:.1f} B a point (the seed's 2.5 TB a month: "
                 f"{storage['seed_bytes_per_point']:.1f})"))
        rows[-1].extra["wcu_per_write"] = round(units, 3)
        rows[-1].extra["readings_per_write"] = per_write
    return rows


# --- voting: one candidate's counter is one partition key -----------------------------------------------------------

CANDIDATES = 10  # plausible: a poll of 10 candidates, asked Zipf-popular (s = 1: the favourite takes 34%)
VOTE_RATE = 10_000  # plausible: a televised poll's peak, votes a second (the seed gives no figure)
VOTERS = 10_000_000  # plausible: the poll's voters, each voting once (a ballot's key depends on its voter)
STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/RawVotes/stream/2026-11-28T00:00:00.000"


def voter(i: int) -> str:
    """A voter's id as the API keys ballots by it: the caller's `sub`, a UUID."""
    return f"{i:08x}-0000-4000-8000-000000000000"


def ballot_units() -> float:
    """`cast_vote`: an UpdateItem of the voter's RawVotes item (their bucket of the poll, userId), billed by its
    size."""
    from functions.voting.schema import DEFAULT_BUCKETS, ballot_pk

    item = {"pollBucket": ballot_pk("favourite-feature", DEFAULT_BUCKETS - 1), "userId": voter(1),
            "pollId": "favourite-feature", "candidate": "TTL", "votedAt": "2026-11-27T02:00:00+00:00",
            "updatedAt": "2026-11-27T02:00:00+00:00", "version": 1}
    return write_units(item_size(item))


def seed_dedupe_units() -> float:
    """The seed's "Record vote and de-dupe": a put of its RawVotes item (UserId, Candidate, Date) per vote."""
    return write_units(item_size({"UserId": voter(1), "Candidate": "A", "Date": "2016-10-02"}))


def stream_shards(rate: float) -> int:
    """Shards of RawVotes' stream at `rate` ballots a second: one per partition, and a partition takes at most
    1,000 write units a second, so at least this many (functions/voting/schema.py sizes B for the same limit)."""
    from math import ceil

    from bench.scale.model import KEY_WCU

    return max(1, ceil(rate * ballot_units() / KEY_WCU - 1e-9))


def flushes_per_shard(records_per_second: float) -> float:
    """Aggregator invocations a second on one stream shard, as the deployed mapping makes them
    (functions/voting/schema.py AGGREGATOR_BATCH_SIZE / AGGREGATOR_BATCHING_WINDOW_SECONDS, which
    infra/domains/voting.py deploys): Lambda invokes when a batch is full or the window has passed, whichever comes
    first, one batch of a shard at a time; each invocation flushes once."""
    from functions.voting.schema import AGGREGATOR_BATCH_SIZE, AGGREGATOR_BATCHING_WINDOW_SECONDS

    return max(records_per_second / AGGREGATOR_BATCH_SIZE, 1 / AGGREGATOR_BATCHING_WINDOW_SECONDS)


def voting_rows(rate: float = VOTE_RATE) -> list[Load]:
    from functions.voting.schema import (
        APPLIED_SK,
        DEFAULT_BUCKETS,
        ballot_pk,
        bucket_of,
        checkpoint_pk,
        segment_pk,
        total_sk,
    )

    poll = "favourite-feature"
    candidates = zipf(CANDIDATES)
    voters = uniform(VOTERS)
    claim = "one candidate's counter is one partition key"
    counter = write_units(item_size({"Segment": "A_1", "Votes": 123_456}))
    dedupe = seed_dedupe_units()

    def seed(shards: int) -> Load:
        # The seed's two writes a vote: the RawVotes put that de-duplicates (keyed by the voter), then the increment
        # of one of the candidate's counters (spread evenly over its shards).
        return simulate("voting", claim, f"seed: RawVotes put + counter per candidate, {shards} shard(s), per vote",
                        [Op("dedupe", rate, voters, lambda i: [Touch("RawVotes", voter(i), wcu=dedupe)]),
                         Op("increment", rate, candidates,
                            lambda i: [Touch("Votes", f"{'ABCDEFGHIJ'[i]}_{s + 1}", wcu=counter / shards)
                                       for s in range(shards)])],
                        rate=rate, seed_figure="shards trade read cost for write scalability")

    # Ours: the ballot (RawVotes, under the voter's bucket of the poll) and the stream aggregator's flushes (Votes):
    # a stream shard carries its partition's buckets, and each of its flushes is one transaction adding, for each of
    # those buckets, every changed candidate's delta and the applied counter to the bucket's segment (a partition
    # key of its own), plus the shard's checkpoint. All transactional writes: 2 units an item.
    buckets = DEFAULT_BUCKETS
    shards = stream_shards(rate)
    per_shard = flushes_per_shard(rate / shards)
    buckets_per_shard = -(-buckets // shards)
    segment = {"pollId": segment_pk(poll, buckets - 1), "sk": total_sk("candidate-10"), "candidate": "candidate-10",
               "votes": 1_234_567}
    applied = {"pollId": segment_pk(poll, buckets - 1), "sk": APPLIED_SK, "changes": 1_234_567}
    checkpoint = {"pollId": checkpoint_pk(STREAM_ARN, "shardId-00000001764288000000-0123abcd"), "sk": "#checkpoint",
                  "sequenceNumber": "0" * 40, "updatedAt": "2026-11-28T00:00:00+00:00", "expiresAt": 1_796_000_000,
                  "appliedRecords": 1_234_567, "itemWrites": 1_234_567, "flushes": 1_234_567}
    segment_wcu = 2 * (CANDIDATES * write_units(item_size(segment)) + write_units(item_size(applied)))
    checkpoint_wcu = 2 * write_units(item_size(checkpoint))

    def flush(shard: int) -> list[Touch]:
        # Bucket b's partition key is on shard b mod shards: each segment is written by one shard, one batch at a time
        return [*(Touch("Votes", segment_pk(poll, b), wcu=segment_wcu, one_item=False)
                  for b in range(shard, buckets, shards)),
                Touch("Votes", checkpoint_pk(STREAM_ARN, f"shard-{shard}"), wcu=checkpoint_wcu, transact=True)]

    ours = simulate(
        "voting", claim, f"ours: ballots in {buckets} buckets per poll, an aggregate segment per bucket",
        [Op("ballot", rate, voters,
            lambda i: [Touch("RawVotes", ballot_pk(poll, bucket_of(voter(i), buckets)), wcu=ballot_units(),
                             one_item=False)]),
         Op("flush", shards * per_shard, uniform(shards), flush)],
        rate=rate, seed_figure="shards trade read cost for write scalability",
        note=(f"B = {buckets}: a poll's ballots and aggregates over {buckets} keys each; {shards * per_shard:g} "
              f"flushes/s ({shards} stream shards x {per_shard:g}), {buckets_per_shard} bucket(s) each"))
    ours.extra.update(buckets=buckets, stream_shards=shards, flushes_per_s=round(shards * per_shard, 2),
                      buckets_per_flush=buckets_per_shard)
    return [seed(1), seed(CANDIDATES), ours]


# --- order entry: GSI2 over N shards, the OPEN orders read at once ------------------------------------------------

ORDERS = 3_000_000
OPEN_SHARE = 0.20
# plausible: the OPEN orders are gathered once an hour (the seed: "relatively infrequently so that you can use burst
# capacity"), a one-second burst billed for 730 seconds a month, not as a rate held all month
OPEN_BURSTS_PER_MONTH = 730


def order_header(order_id: str, shards: int) -> dict[str, Any]:
    """An order's header as `place_order` writes it (GSI2PK = the order's shard), from the repository's builder."""
    from functions.order_entry.models import Order
    from functions.order_entry.repository import OrderEntryRepository
    from functions.order_entry.schema import customer_key, shard_of, shard_pk
    from functions.shared.settings import Settings

    order = Order(order_id=order_id, customer_id="C1042", rep_id="180", status="OPEN", order_date="2026-03-14",
                  total_cents=12_950)
    header = OrderEntryRepository(Settings({}), shards=shards)._order_item(order, customer_key(order.customer_id),
                                                                          "order")
    header.update(GSI2PK=shard_pk(shard_of(order_id, shards)), GSI2SK=header["Data"])
    return header


def order_entry_rows() -> list[Load]:
    from functions.order_entry.schema import GSI2, ORDER_ENTRY_TABLE, SEED_WORKLOAD, shard_count, shard_of, shard_pk

    open_orders = round(ORDERS * OPEN_SHARE)

    def entry_read(shards: int, size: int) -> Callable[[int], list[Touch]]:
        return lambda i: [Touch("OrderEntry", shard_pk(shard_of(f"O-{i:07d}", shards)), rcu=size / 4096 / 2,
                                index=GSI2, one_item=False)]

    rows = []
    for shards in (1, shard_count(SEED_WORKLOAD)):
        size = item_size(projected(order_header("O-0000001", shards), ORDER_ENTRY_TABLE, GSI2))
        # The burst: every OPEN order read within one second (the seed's MaxRequiredIO), eventually consistent (an
        # index Query cannot be strongly consistent), one order's entry at a time; every 6th order's id is hashed
        # to its shard (a shard's share is then known to about 1%).
        rows.append(simulate(
            "order-entry", "3M orders, 20% OPEN, read at once through GSI2",
            f"{'seed warns: one status key' if shards == 1 else 'ours'}: GSI2 over N = {shards}",
            [Op("OPEN orders burst", open_orders, uniform(open_orders, sample=100_000), entry_read(shards, size),
                seconds_per_month=OPEN_BURSTS_PER_MONTH)],
            rate=open_orders, seed_figure="N = 13 for 3,000 RCU per partition, padded to 15",
            note=f"{size} B per GSI2 entry (the seed: 250 B)"))
    return rows


# --- messaging: an inbox page of 50 with bodies, or headers only ---------------------------------------------------

INBOX_RATE = 10_000  # plausible: inbox pages a second
RECIPIENTS = 20_000  # plausible: a Zipf-popular population (shared mailboxes at the head), enumerated whole
PAGE = 50
BODY_BYTES = 256 * 1024  # the seed's 256 KB messages


def inbox_page_units(messages: list[Any], *, headers_only: bool) -> float:
    """Read units of one inbox page of these messages: the Inbox index's entries (our projection) or the whole
    messages (the seed's v.1), one Query, eventually consistent."""
    from functions.messaging.repository import message_item
    from functions.messaging.schema import INBOX_INDEX, MESSAGES_TABLE

    items = [message_item(message) for message in messages]
    return read_units([item_size(projected(item, MESSAGES_TABLE, INBOX_INDEX) if headers_only else item)
                       for item in items])


def inbox_page_rcu(body_bytes: int = BODY_BYTES, *, headers_only: bool) -> float:
    """One page of 50 of the seed's messages (256 KB bodies)."""
    from functions.messaging.models import Message

    start = datetime(2014, 10, 1, tzinfo=UTC)
    return inbox_page_units([Message(msg_id=f"m{n:04x}", sender="bob", recipient="david",
                                     date=(start + timedelta(minutes=n)).isoformat(timespec="milliseconds"),
                                     subject=f"Re: the plan, part {n}", body="x" * body_bytes)
                             for n in range(PAGE)], headers_only=headers_only)


def messaging_rows() -> list[Load]:
    from functions.messaging.schema import INBOX_INDEX

    recipients = zipf(RECIPIENTS)

    def page_read(rcu: float, index: str | None) -> Callable[[int], list[Touch]]:
        return lambda i: [Touch("Messages", f"user-{i:05d}", rcu=rcu, index=index, one_item=False)]

    rows = []
    for label, rcu, index in (("seed v.1: bodies in the queried items", inbox_page_rcu(headers_only=False), None),
                              ("ours: header-only Inbox index", inbox_page_rcu(headers_only=True), INBOX_INDEX)):
        rows.append(simulate("messaging", "inbox page of 50: 1,600 RCU against 1", label,
                             [Op("inbox page", INBOX_RATE, recipients, page_read(rcu, index))],
                             seed_figure="1,600 RCU (bodies) / 1 RCU (headers) a page",
                             note=f"{rcu:g} RCU a page"))
        rows[-1].extra["rcu_per_page"] = rcu
    return rows


# --- connected car: a status index with few values -----------------------------------------------------------------

CUSTOMERS = 10_000_000  # plausible
# plausible: customer writes a second (functions/connected_car/schema.py sizes the shards by it)
CUSTOMER_WRITES = 2_000
REGISTRATION_SHARE = 0.5  # plausible: the share of them that are registration writes (a transaction bumping regVersion)
ACTIVE_SHARE = 0.6  # plausible


def customer_item(username: str, shard: str | None, *, retired: bool = False) -> dict[str, Any]:
    """A customer as the repository stores it (put_customer, the isActive sync), before ADR 0109 (`retired`: the
    one-key `activeFlag`) or after it (`activeShard`, None for an inactive customer)."""
    from functions.connected_car.schema import ACTIVE_FLAG, ACTIVE_SHARD, RETIRED_ACTIVE_FLAG

    item: dict[str, Any] = {"username": username, "name": "Alice Liddell", "email": "alice@example.com",
                            "isActive": shard is not None, "regVersion": 3}
    if shard is not None:
        item[RETIRED_ACTIVE_FLAG if retired else ACTIVE_SHARD] = ACTIVE_FLAG if retired else shard
    return item


def connected_car_rows() -> list[Load]:
    """The seed's warning, our design before ADR 0109 and after it, under one mix of customer writes: registration
    writes (a TransactWriteItems of customer, vehicle and registration: two units an item) and writes that change what
    the active-customer index answers (a profile change or an isActive sync: UpdateItem, and an entry if active)."""
    from functions.connected_car.schema import (
        ACTIVE_CUSTOMER_INDEX,
        ACTIVE_SHARDS,
        CUSTOMER_TABLE,
        RETIRED_ACTIVE_CUSTOMER_INDEX,
        VEHICLE_REGISTRATION_INDEX,
        active_shard_of,
    )
    from tools.migrations.connected_car import OLD_CUSTOMER_TABLE

    sample = customer_item("customer-0000001", active_shard_of("customer-0000001"))
    base = write_units(item_size(sample))
    entry = write_units(item_size(projected(sample, CUSTOMER_TABLE, ACTIVE_CUSTOMER_INDEX)))
    old_sample = customer_item("customer-0000001", "1", retired=True)
    old_entry = write_units(item_size(projected(old_sample, OLD_CUSTOMER_TABLE, RETIRED_ACTIVE_CUSTOMER_INDEX.name)))
    registration = {"username": "customer-0000001", "vin": "1HGCM82633A004352", "statusCode": "active",
                    "createdAt": "2026-11-27T12:00:00+00:00", "updatedAt": "2026-11-27T12:00:00+00:00"}
    vehicle = {"vin": "1HGCM82633A004352", "make": "Honda", "model": "Accord", "year": 2003,
               "activeUsername": "customer-0000001"}
    reg_units, vehicle_units = write_units(item_size(registration)), write_units(item_size(vehicle))
    customers = uniform(CUSTOMERS)
    active_cut = int(CUSTOMERS * ACTIVE_SHARE)
    claim = "a status index with few values makes a hot partition"
    figure = "no figure: 'partition keys are GUIDs or long strings'"
    registrations = CUSTOMER_WRITES * REGISTRATION_SHARE
    answers = CUSTOMER_WRITES - registrations

    def name(i: int) -> str:
        return f"customer-{i:07d}"

    def registration_write(index_key: Callable[[int], str | None], index: str, units: int) -> Op:
        """TransactWriteItems: ADD regVersion on the customer, the vehicle's holder, the registration (each twice
        the units: transactional), the registration's VehicleRegistrationIndex entry; the customer's active-customer
        entry only where the index projects regVersion (`index_key` says under which key, None: not rewritten)."""
        def touches(i: int) -> list[Touch]:
            out = [Touch("Customer", name(i), wcu=2 * base, transact=True),
                   Touch("Vehicle", f"vin-of-{i:07d}", wcu=2 * vehicle_units, transact=True),
                   Touch("Registration", name(i), wcu=2 * reg_units, transact=True),
                   Touch("Registration", f"vin-of-{i:07d}", wcu=reg_units, index=VEHICLE_REGISTRATION_INDEX,
                         one_item=False)]
            if (key := index_key(i)) is not None:
                out.append(Touch("Customer", key, wcu=units, index=index, one_item=False))
            return out
        return Op("registration write", registrations, customers, touches)

    def answer_write(index_key: Callable[[int], str | None], index: str, units: int) -> Op:
        """A profile change or an isActive sync: UpdateItem on the customer, and its entry if it is in the index."""
        def touches(i: int) -> list[Touch]:
            out = [Touch("Customer", name(i), wcu=base)]
            if (key := index_key(i)) is not None:
                out.append(Touch("Customer", key, wcu=units, index=index, one_item=False))
            return out
        return Op("profile change or isActive sync", answers, customers, touches)

    # Customers are spread evenly over ids; the first ACTIVE_SHARE of them are the active ones.
    status = simulate("connected-car", claim, "seed warns: status index (active / inactive)",
                      [Op("customer write", CUSTOMER_WRITES, customers, lambda i: [
                          Touch("Customer", name(i), wcu=base),
                          Touch("Customer", "active" if i < active_cut else "inactive", wcu=old_entry,
                                index="StatusIndex", one_item=False)])],
                      seed_figure=figure)
    retired = RETIRED_ACTIVE_CUSTOMER_INDEX.name
    one_key = simulate("connected-car", claim, "before ADR 0109: sparse activeFlag = '1', ALL projected",
                       [registration_write(lambda i: "1" if i < active_cut else None, retired, old_entry),
                        answer_write(lambda i: "1" if i < active_cut else None, retired, old_entry)],
                       seed_figure=figure, note="every active customer's write, a registration's too, is one key")
    ours = simulate("connected-car", claim,
                    f"ours: activeShard = '1#<n>' over N = {ACTIVE_SHARDS}, name/email/isActive projected",
                    [registration_write(lambda i: None, ACTIVE_CUSTOMER_INDEX, entry),
                     answer_write(lambda i: active_shard_of(name(i)) if i < active_cut else None,
                                  ACTIVE_CUSTOMER_INDEX, entry)],
                    seed_figure=figure,
                    note=f"a registration write rewrites no entry (regVersion not projected); {entry} WCU an entry")
    return [status, one_key, ours]


# --- contacts' type index and the patterns' singleton: no seed figure, a plausible load ----------------------------

PERSON_CREATIONS = 2_000  # plausible: persons created a second (functions/contacts/schema.py sizes the shards by it)
PERSONS = 10_000_000  # plausible
FEATURED_READS = 10_000  # plausible: featured reads a second (functions/patterns/schema.py sizes the replicas by it)
FEATURED_WRITES = 1  # plausible: an admin's change a second at most


def _person(person_id: str = "1302c80a-7c61-4920-93a4-23c44c931945") -> Any:
    from functions.contacts.models import Person

    return Person(id=person_id, first_name="Bob", last_name="Smith")


def contacts_rows() -> list[Load]:
    """Persons created: PutItem on the Contact table (a new Id) and an entry in the type index, under the seed's one
    `Type` key, or under our `Person#<n>` shards."""
    import uuid

    from functions.contacts.repository import person_item
    from functions.contacts.schema import PERSON, RETIRED_TYPE_INDEX, TYPE_INDEX, TYPE_SHARDS, type_shard

    item = person_item(_person())
    units = write_units(item_size(item))  # ALL projected: the entry is the item
    persons = uniform(PERSONS)

    def person_id(i: int) -> str:
        return str(uuid.UUID(int=i * 0x9E3779B97F4A7C15 % (1 << 128)))

    def creations(index: str, key: Callable[[int], str]) -> Op:
        return Op("create a person", PERSON_CREATIONS, persons, lambda i: [
            Touch("Contacts", person_id(i), wcu=units),
            Touch("Contacts", key(i), wcu=units, index=index, one_item=False)])

    claim = f"plausible: {PERSON_CREATIONS:,} persons created/s"
    return [
        simulate("contacts", claim, f"seed: {RETIRED_TYPE_INDEX.name} partition key `Type`",
                 [creations(RETIRED_TYPE_INDEX.name, lambda i: PERSON)], seed_figure="none (plausible load)"),
        simulate("contacts", claim, f"ours: {TYPE_INDEX} `Type#<n>` over N = {TYPE_SHARDS}",
                 [creations(TYPE_INDEX, lambda i: type_shard(PERSON, person_id(i)))],
                 seed_figure="none (plausible load)",
                 note=f"{units} WCU an entry; a list reads the {TYPE_SHARDS} shards"),
    ]


def patterns_rows() -> list[Load]:
    """The featured repos: reads (GetItem, eventually consistent) and an admin's writes, on the one item the book
    draws, or on our replicas (a read takes one at random; a write Puts every replica and Deletes the retired item
    in one TransactWriteItems: two units an item)."""
    from functions.patterns.schema import FEATURED_KEY, FEATURED_REPLICAS, featured_key

    item = {**featured_key(0), "type": "featured", "repos": ["alexdebrie/dynamodb-book"] * 10,
            "updatedAt": "2026-11-27T12:00:00.000000Z"}
    rcu, wcu = read_units([item_size(item)]), write_units(item_size(item))
    one = "#".join(FEATURED_KEY.values())

    def replica(r: int) -> str:
        return "#".join(featured_key(r).values())

    claim = f"plausible: {FEATURED_READS:,} featured reads/s"
    return [
        simulate("patterns", claim, "seed: the singleton's one fixed key",
                 [Op("read", FEATURED_READS, uniform(1), lambda _: [Touch("Patterns", one, rcu=rcu)]),
                  Op("write", FEATURED_WRITES, uniform(1), lambda _: [Touch("Patterns", one, wcu=wcu)])],
                 seed_figure="none (plausible load)"),
        simulate("patterns", claim, f"ours: R = {FEATURED_REPLICAS} replicas written in one transaction",
                 [Op("read", FEATURED_READS, uniform(FEATURED_REPLICAS),
                     lambda r: [Touch("Patterns", replica(r), rcu=rcu)]),
                  Op("write", FEATURED_WRITES, uniform(1), lambda _: [
                      *(Touch("Patterns", replica(r), wcu=2 * wcu, transact=True) for r in range(FEATURED_REPLICAS)),
                      Touch("Patterns", one, wcu=2, transact=True)])],
                 seed_figure="none (plausible load)", note=f"a read: {rcu:g} RCU on one of {FEATURED_REPLICAS} keys"),
    ]


def other_rows() -> list[Load]:
    """Domains whose seed gives no rate: contacts' type index and the patterns' singleton under a plausible load."""
    return [*contacts_rows(), *patterns_rows()]


def _now() -> datetime:
    return datetime(2026, 11, 27, tzinfo=UTC)


def games_rows() -> list[Load]:
    """Joins, Zipf-popular games: a transaction on the game item and the membership, and its index entry."""
    from functions.games.models import Game, Membership
    from functions.games.repository import game_item, membership_item
    from functions.games.schema import GAME_USERS_INDEX

    game = game_item(Game(game_id="game-00001", name="Friday night", max_players=100, player_count=42))
    member = membership_item(Membership(user_id="user-0000001", game_id="game-00001", joined_at=_now()))
    # A join (functions/games/repository.py): Update the game's playerCount and Put the membership in one transaction
    # (base units doubled), plus the membership's GameUsersIndex entry under the game.
    join = [2 * write_units(item_size(game)), 2 * write_units(item_size(member)), write_units(item_size(member))]
    games = zipf(10_000)
    return [
        simulate("games", "plausible: 1,000 joins/s, 10,000 games Zipf s=1", "ours: playerCount on the game item",
                 [Op("join", 1_000, games, lambda i: [
                     Touch("Games", f"game-{i:05d}", wcu=join[0], transact=True),
                     Touch("UserGames", f"user-of-game-{i:05d}", wcu=join[1] / 1_000),  # members: many users
                     Touch("UserGames", f"game-{i:05d}", wcu=join[2], index=GAME_USERS_INDEX, one_item=False)])],
                 seed_figure="none (plausible load)"),
    ]


def sessions_rows() -> list[Load]:
    """Session reads by token and sign-ins (the session and its UserIndex entry)."""
    from functions.sessions.models import Session
    from functions.sessions.repository import session_item
    from functions.sessions.schema import USER_INDEX

    now = _now()
    session = session_item(Session(session_token="t" * 43, username="user-0000001", created_at=now,
                                   expires_at=now + timedelta(days=7)), 1_800_000_000)
    return [
        simulate("sessions", "plausible: 20,000 reads + 1,000 sign-ins/s, 10M sessions",
                 "ours: token key; UserIndex (KEYS_ONLY) by username",
                 [Op("read", 20_000, uniform(10_000_000),
                     lambda i: [Touch("Sessions", f"token-{i:08d}", rcu=read_units([item_size(session)]))]),
                  Op("sign-in", 1_000, uniform(1_000_000), lambda i: [
                      Touch("Sessions", f"token-of-{i:07d}", wcu=write_units(item_size(session))),
                      Touch("Sessions", f"user-{i:07d}", wcu=1, index=USER_INDEX, one_item=False)])],
                 seed_figure="none (plausible load)"),
    ]


def users_rows() -> list[Load]:
    """A user by id: one GetItem, users uniform."""
    from functions.users.models import User
    from functions.users.repository import _user_item

    user = _user_item(User(user_id="user-0000001", email="user-0000001@example.com", join_date=_now().date()))
    return [
        simulate("users", "plausible: 10,000 reads/s, 10M users", "ours: UserId key",
                 [Op("read", 10_000, uniform(10_000_000),
                     lambda i: [Touch("Users", f"user-{i:07d}", rcu=read_units([item_size(user)]))])],
                 seed_figure="none (plausible load)"),
    ]


def rest_rows() -> list[Load]:
    """Domains whose seed quotes no rate: a plausible load on each one's entity keys, the popular ones Zipf."""
    return [*games_rows(), *sessions_rows(), *users_rows(), _catalog_row(), _ecommerce_row()]


def _catalog_row() -> Load:
    """A product's document read (`get_document`: one GetItem), Zipf-popular products; the item as `put_document`
    stores it, for the seed's album."""
    from functions.catalog.models import stored_json
    from functions.catalog.schema import DOCUMENT_ATTRIBUTES, PRODUCT_KEY
    from seeds.catalog import DOCUMENTS

    document = DOCUMENTS["2"]
    item = {PRODUCT_KEY: "2", **document.model_dump(by_alias=True, exclude_none=True, exclude={"attributes"}),
            DOCUMENT_ATTRIBUTES: stored_json(document.attributes)}
    rcu = read_units([item_size(item)])
    return simulate("catalog", "plausible: 10,000 document reads/s, 100,000 products Zipf s=1",
                    "ours: one document item per product",
                    [Op("read", 10_000, zipf(100_000),
                        lambda i: [Touch("Documents", str(i), rcu=rcu)])],
                    seed_figure="none (plausible load)", note=f"{item_size(item)} B document (the seed's album)")


def _ecommerce_row() -> Load:
    """The customer and 10 newest orders (one Query on `CUSTOMER#<username>`), customers uniform; items as the
    repository stores the seed's customer and orders."""
    from functions.ecommerce.schema import customer_key, order_key
    from functions.shared.models import to_item
    from seeds.ecommerce import ALEX, ORDERS

    customer = to_item(ALEX, **customer_key(ALEX.username), entityType="Customer")
    order = to_item(ORDERS[0][0], **order_key(ALEX.username, ORDERS[0][0].order_id), entityType="Order")
    rcu = read_units([item_size(customer)] + [item_size(order)] * 10)
    return simulate("ecommerce", "plausible: 10,000 customer pages/s, 10M customers",
                    "ours: customer + 10 newest orders in one Query",
                    [Op("read", 10_000, uniform(10_000_000),
                        lambda i: [Touch("Ecommerce", customer_key(f"user{i:08d}")["PK"], rcu=rcu)])],
                    seed_figure="none (plausible load)")


# Each model's rows (`make scale` prints them in this order), and what the model's rate counts: the rate of its claim,
# its first row's rate/s. The explorer's what-if asks for a rate in these words, and `make scale MODEL=<model>
# RATE=<n>` runs the model's rows at one (functions/platform/scale/what_if.py: every row's workload that many times
# over the seed's).
MODELS: dict[str, tuple[Callable[[], list[Load]], str]] = {
    "cart": (cart_rows, "cart reads a second, with as many cart writes"),
    "measurements": (measurement_rows, "data points a second"),
    "voting": (voting_rows, "votes a second"),
    "order-entry": (order_entry_rows, "OPEN orders read in the one-second burst"),
    "messaging": (messaging_rows, "inbox pages a second"),
    "connected-car": (connected_car_rows, "customer writes a second"),
    "contacts": (contacts_rows, "persons created a second"),
    "patterns": (patterns_rows, "featured reads a second, with the admin's write"),
    "games": (games_rows, "joins a second"),
    "sessions": (sessions_rows, "session reads and sign-ins a second (20 to 1)"),
    "users": (users_rows, "user reads a second"),
    "catalog": (lambda: [_catalog_row()], "document reads a second"),
    "ecommerce": (lambda: [_ecommerce_row()], "customer pages a second"),
}


def all_rows() -> list[Load]:
    return [row for rows, _ in MODELS.values() for row in rows()]
