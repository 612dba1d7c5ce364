"""DeviceMeasurements access: one method per access pattern, the only module here that talks to DynamoDB.

- ingest: one UpdateItem per (device, 400 ms bin) carrying every reading of that bin in its UpdateExpression;
- readings between two instants: one Query on the device's bins, `bin BETWEEN`, oldest first, and while bins of the
  layout before (5 minutes, keyed by epoch second) can still be stored, one Query on those too, merged in time order.
Item layout and bin width: functions/measurements/schema.py; the reasoning: docs/measurements.md and
docs/adr/0108-measurements-bins-of-400-ms-within-one-write-unit.md.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Attr, Key

from functions.measurements import models
from functions.measurements.schema import (
    BINS,
    EXPIRES_AT,
    LAYOUTS,
    MAX_READINGS_PER_WRITE,
    MEASUREMENTS_TABLE,
    PRESSURE,
    TEMPERATURE,
    is_slot,
    layout_of,
)
from functions.shared import ddb
from functions.shared.settings import Settings, TableName

# A page's Query asks for 2 bins, then 4, 8 …: the bins read stay within about twice what the page needs, however
# many readings a bin holds, in a bounded number of round trips (2 + 4 + … + 256 bins > MAX_LIMIT + 1).
_FIRST_ROUND_BINS = 2
_MAX_ROUNDS = 8


@dataclass(frozen=True)
class ReadingsPage:
    readings: list[models.StoredReading]
    next_start: int | None  # the epoch millisecond the next page starts at; None: nothing more in the range


class MeasurementsRepository:
    measurements = TableName(MEASUREMENTS_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    # ingest

    def put_readings(self, readings: Sequence[models.Reading]) -> int:
        """Ingest a batch: UpdateItem once per (device, bin), SETting each reading's slot `r<MMM>` and the bin's
        `expiresAt` in one UpdateExpression (a bin with more than MAX_READINGS_PER_WRITE readings in the batch takes
        one more UpdateItem per MAX_READINGS_PER_WRITE). Every SET overwrites the same slot with the same value, so
        repeating the batch duplicates nothing. Returns the number of writes made (for the API's answer and
        `make bench`). The readings must be distinct per (device, instant): the service makes them so."""
        writes = 0
        for (device_id, bin_start), in_bin in _by_bin(readings).items():
            for start in range(0, len(in_bin), MAX_READINGS_PER_WRITE):
                self._write_bin(device_id, bin_start, in_bin[start : start + MAX_READINGS_PER_WRITE])
                writes += 1
        return writes

    def _write_bin(self, device_id: str, bin_start: int, readings: Sequence[models.Reading]) -> None:
        # Slot names are built from validated integers (r000 … r399), never from client text.
        slots = [BINS.slot_of(reading.instant_ms) for reading in readings]
        values: dict[str, Any] = {":expires": BINS.expires_at(bin_start)}
        values.update({f":{slot}": slot_value(reading) for slot, reading in zip(slots, readings, strict=True)})
        ddb.table(self.measurements).update_item(
            Key={"DeviceId": device_id, "bin": bin_start},
            UpdateExpression="SET #expires = :expires, " + ", ".join(f"{slot} = :{slot}" for slot in slots),
            ExpressionAttributeNames={"#expires": EXPIRES_AT},
            ExpressionAttributeValues=values,
        )

    # readings between two instants

    def readings_between(self, device_id: str, start: int, end: int, *, now: int, limit: int) -> ReadingsPage:
        """A device's readings with `start <= epochMs <= end`, in time order, up to `limit`: per bin layout, one
        Query `DeviceId = :d AND bin BETWEEN bin(start) AND bin(end)`, oldest bin first, with bins whose
        `expiresAt <= now` filtered out (TTL deletes within days, not at once); the first and last bins are trimmed to
        the range. The 400 ms bins and the 5-minute bins of the layout before them are merged in time order; where
        both hold a reading of one millisecond, the 400 ms bin's is the later write and is the one answered.

        The next page starts at the first reading not returned (`next_start`), an epoch millisecond: readings are
        unique per millisecond, so resuming there, even inside a bin, loses and repeats nothing."""
        streams = [self._readings(rank, device_id, start, end, now=now) for rank in range(len(LAYOUTS))]
        taken: list[models.StoredReading] = []
        last = None
        for at, _rank, reading in heapq.merge(*streams):
            if reading is None:  # a layout's rounds ran out at `at`: everything before it was read, in every layout
                return ReadingsPage(taken, at)
            if at == last:  # the same millisecond in the layout before: the newer layout's reading was answered
                continue
            if len(taken) == limit:
                return ReadingsPage(taken, at)
            taken.append(reading)
            last = at
        return ReadingsPage(taken, None)

    def _readings(self, rank: int, device_id: str, start: int, end: int, *,
                  now: int) -> Iterator[tuple[int, int, models.StoredReading | None]]:
        """(epochMs, rank, reading) of one layout's bins (LAYOUTS[rank]: the newest first) in [start, end], in time
        order; when its Query's rounds run out before the range's end, last (epochMs, -1 - rank, None) with the first
        instant not read (sorted before any reading of that instant, whatever the layout, and apart from the other
        layout's)."""
        layout = LAYOUTS[rank]
        first_bin, last_bin = layout.bin_of(start), layout.bin_of(end)
        for item in self._bins(device_id, first_bin, last_bin, now=now):
            if isinstance(item, _RoundsRanOut):
                yield layout.end_of(item.last_bin), -1 - rank, None
                return
            for reading in readings_of_bin(item):
                if start <= reading.epoch_ms <= end:
                    yield reading.epoch_ms, rank, reading

    def _bins(
        self, device_id: str, first_bin: int, last_bin: int, *, now: int
    ) -> Iterator[dict[str, Any] | _RoundsRanOut]:
        """The bins of one Query, read in rounds of growing Limit; ends with _RoundsRanOut if _MAX_ROUNDS did not
        reach the end of the range."""
        query: dict[str, Any] = {
            "KeyConditionExpression": Key("DeviceId").eq(device_id) & Key("bin").between(first_bin, last_bin),
            "FilterExpression": Attr(EXPIRES_AT).gt(now),
            "ScanIndexForward": True,
        }
        table = ddb.table(self.measurements)
        for round_ in range(_MAX_ROUNDS):
            response = table.query(**query, Limit=_FIRST_ROUND_BINS << round_)
            yield from response.get("Items", [])
            last_key: Mapping[str, Any] = response.get("LastEvaluatedKey") or {}
            if not last_key or int(last_key["bin"]) >= last_bin:
                return  # (a LastEvaluatedKey on the range's last bin: Limit stopped there, and nothing can follow it)
            query["ExclusiveStartKey"] = last_key
        yield _RoundsRanOut(int(query["ExclusiveStartKey"]["bin"]))


@dataclass(frozen=True)
class _RoundsRanOut:
    last_bin: int  # the last bin the Query evaluated (LastEvaluatedKey), returned or filtered out


# --- items <-> readings ------------------------------------------------------------------------------

def _by_bin(readings: Iterable[models.Reading]) -> dict[tuple[str, int], list[models.Reading]]:
    bins: dict[tuple[str, int], list[models.Reading]] = defaultdict(list)
    for reading in readings:
        bins[(reading.device_id, BINS.bin_of(reading.instant_ms))].append(reading)
    return bins


def slot_value(reading: models.Reading) -> dict[str, Decimal]:
    # str() first: Decimal(0.1) would store 0.1000000000000000055511151231257827…
    return {TEMPERATURE: Decimal(str(reading.temperature)), PRESSURE: Decimal(str(reading.pressure))}


def readings_of_bin(item: Mapping[str, Any]) -> list[models.StoredReading]:
    """A bin item's readings, in time order, whichever layout wrote it."""
    bin_start = int(item["bin"])
    layout = layout_of(bin_start)
    readings = [
        models.StoredReading.at(item["DeviceId"], layout.instant_of(bin_start, name),
                         float(value[TEMPERATURE]), float(value[PRESSURE]))
        for name, value in item.items()
        if is_slot(name)
    ]
    return sorted(readings, key=lambda reading: reading.epoch_ms)
