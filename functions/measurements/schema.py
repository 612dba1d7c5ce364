"""The DeviceMeasurements table as data (the CDK, the functional tests and the local runtime build it from here), and
the bin arithmetic every layer shares.

Seed 002 draws Device-measurements as one item per reading (`DeviceId`, `epoch`; Temperature, pressure), then, for
time series, asks to "group multiple data points into a single item" to save writes and to age data out by TTL.
Here an item is one device's **bin** of BIN_MS milliseconds:

    DeviceId (PK, S)   bin (SK, N: the bin's first epoch millisecond)   expiresAt (TTL, N: epoch seconds)   r000 … r399

and each reading lives in its own top-level attribute `r<MMM>` (MMM = milliseconds since the bin's start, zero-padded)
holding `{"t": temperature, "p": pressure}`. A device has at most one reading per millisecond; re-sending a reading
SETs the same attribute again, so a retried ingest never duplicates (a nested map path could not be SET on an item
that has no map yet, and a list append would duplicate).

Why 400 ms (docs/adr/0108-measurements-bins-of-400-ms-within-one-write-unit.md): an UpdateItem costs write units by
the item's whole size (the larger of before and after, per 1 KB), so a bin must stay within 1 KB for every write to
cost one unit. A reading is at most 22 bytes (a 4-byte slot name, a map of two numbers of at most 8 and 10
significant digits) and a bin's keys and TTL at most 97 bytes (a 64-character device id), so a bin of a device
reporting every 10 ms (40 readings, 42 with jitter) is at most 1,021 bytes: one write unit, whatever it holds.

The layout before this one (docs/adr/0044-measurements-readings-binned.md) binned 5 minutes per item with one slot a
second, its `bin` an epoch second. Those bins stay in a deployed table until TTL deletes them, and reads serve them
(LEGACY_BINS): an epoch second is below 10^11 (MAX_EPOCH) and a millisecond bin of any reading the clock accepts
(within 90 days of now) is above 10^12, so the two layouts' sort keys never meet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from functions.shared.table_spec import KeyAttribute, TableSpec

MS_PER_SECOND = 1000
BIN_MS = 400
RETENTION_DAYS = 90
RETENTION_SECONDS = RETENTION_DAYS * 24 * 3600
# A reading may be stamped this far in the future (device clocks drift); further is a 409.
MAX_SKEW_SECONDS = 5 * 60
# Readings SET by one UpdateItem: keeps its expression (~13 characters a reading) far under DynamoDB's 4 KB and its
# 300 operators. A bin's readings beyond this in one request take a second write (a bin has BIN_MS slots).
MAX_READINGS_PER_WRITE = 100
# Readings of one ingest request (any devices, any bins): ~90 bytes each in JSON, under the 64 KB body limit.
MAX_READINGS_PER_BATCH = 500
# Epoch seconds are bounded so that a number never exceeds what DynamoDB stores (year 5138); milliseconds likewise.
MAX_EPOCH = 10**11
MAX_EPOCH_MS = MAX_EPOCH * MS_PER_SECOND
# The fastest a device reports with every write of its bin within one write unit: a reading every 10 ms.
READINGS_PER_SECOND_IN_ONE_UNIT = 100

TEMPERATURE = "t"
PRESSURE = "p"
EXPIRES_AT = "expiresAt"
_SLOT = re.compile(r"^r\d{3}$")

MEASUREMENTS_TABLE = TableSpec(
    "DeviceMeasurementsTable",
    partition_key=KeyAttribute("DeviceId"),
    sort_key=KeyAttribute("bin", "N"),
    ttl_attribute=EXPIRES_AT,
)

TABLES = (MEASUREMENTS_TABLE,)


@dataclass(frozen=True)
class BinLayout:
    """How a bin's sort key and slot names map to instants: both count in `unit_ms` milliseconds, and a bin is `span`
    units wide."""

    name: str
    unit_ms: int
    span: int

    def bin_of(self, epoch_ms: int) -> int:
        """The sort key of the bin holding the instant `epoch_ms`: its first unit."""
        unit = epoch_ms // self.unit_ms
        return unit - unit % self.span

    def slot_of(self, epoch_ms: int) -> str:
        """The attribute holding the reading taken at `epoch_ms` inside its bin."""
        return f"r{epoch_ms // self.unit_ms % self.span:03d}"

    def instant_of(self, bin_start: int, slot: str) -> int:
        """The epoch millisecond of a slot."""
        return (bin_start + int(slot[1:])) * self.unit_ms

    def end_of(self, bin_start: int) -> int:
        """The first epoch millisecond after the bin."""
        return (bin_start + self.span) * self.unit_ms

    def expires_at(self, bin_start: int) -> int:
        """The bin's TTL (epoch seconds): RETENTION_DAYS after its last instant, so no reading of it is younger than the
        retention when it expires."""
        return -(-self.end_of(bin_start) // MS_PER_SECOND) + RETENTION_SECONDS


# Written by this code: 400 ms of one device, one slot a millisecond (r000 … r399), `bin` an epoch millisecond.
BINS = BinLayout("400 ms", unit_ms=1, span=BIN_MS)
# Written before it (docs/adr/0044-measurements-readings-binned.md), read until TTL deletes them: 5 minutes of one
# device, one slot a second (r000 … r299), `bin` an epoch second.
LEGACY_BINS = BinLayout("5 min", unit_ms=MS_PER_SECOND, span=300)
LAYOUTS = (BINS, LEGACY_BINS)


def layout_of(bin_start: int) -> BinLayout:
    """Which layout a stored bin has, from its sort key alone: an epoch second (≤ MAX_EPOCH) or an epoch millisecond."""
    return LEGACY_BINS if bin_start <= MAX_EPOCH else BINS


def bin_of(epoch_ms: int) -> int:
    """The sort key of the bin a reading taken at `epoch_ms` is written to."""
    return BINS.bin_of(epoch_ms)


def slot_of(epoch_ms: int) -> str:
    """The attribute a reading taken at `epoch_ms` is written to: r000 … r399."""
    return BINS.slot_of(epoch_ms)


def is_slot(name: str) -> bool:
    return bool(_SLOT.match(name))


def expires_at(bin_start: int) -> int:
    return BINS.expires_at(bin_start)
