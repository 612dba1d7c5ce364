"""The DeviceMeasurements table as data (the CDK, the functional tests and the local runtime build it from here), and
the bin arithmetic every layer shares.

Seed 002 draws Device-measurements as one item per reading (`DeviceId`, `epoch`; Temperature, pressure), then, for
time series, asks to "group multiple data points into a single item" to save writes and to age data out by TTL.
Here an item is one device's **bin** of BIN_SECONDS:

    DeviceId (PK, S)   bin (SK, N: the bin's first epoch second)   expiresAt (TTL, N)   r000 … r299

and each reading lives in its own top-level attribute `r<SSS>` (SSS = seconds since the bin's start, zero-padded)
holding `{"t": temperature, "p": pressure}`. A device has at most one reading per second; re-sending a reading SETs
the same attribute again, so a retried ingest never duplicates (a nested map path could not be SET on an item that
has no map yet, and a list append would duplicate).

Why 5 minutes: an UpdateItem costs write units by the item's whole size (the larger of before and after, per 1 KB),
so a bin must stay small for "one write per bin" to be cheap. A slot is ~14-20 bytes, so a full bin (one reading
every second: 300 slots) is about 6 KB, and a sensor reporting every 10-30 s fills 10-30 slots, well under 1 KB:
one write unit for 10-30 readings, the seed's "10x less". One device is one partition-key value, written at most
once per bin per ingest call, far below a partition's 1,000 writes per second.
"""

from __future__ import annotations

import re

from functions.shared.table_spec import KeyAttribute, TableSpec

BIN_SECONDS = 5 * 60
RETENTION_DAYS = 90
RETENTION_SECONDS = RETENTION_DAYS * 24 * 3600
# A reading may be stamped this far in the future (device clocks drift); further is a 400.
MAX_SKEW_SECONDS = 5 * 60
# Readings SET by one UpdateItem: keeps its expression (~13 characters a reading) far under DynamoDB's 4 KB and its
# 300 operators. A bin's readings beyond this in one request take a second write (a full bin has BIN_SECONDS slots).
MAX_READINGS_PER_WRITE = 100
# Readings of one ingest request (any devices, any bins): ~90 bytes each in JSON, under the 64 KB body limit.
MAX_READINGS_PER_BATCH = 500
# Epoch seconds are bounded so that a number never exceeds what DynamoDB stores (year 5138).
MAX_EPOCH = 10**11

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


def bin_of(epoch: int) -> int:
    """The first second of the bin holding `epoch` (the sort key)."""
    return epoch - epoch % BIN_SECONDS


def slot_of(epoch: int) -> str:
    """The attribute holding the reading taken at `epoch` inside its bin: r000 … r299."""
    return f"r{epoch % BIN_SECONDS:03d}"


def is_slot(name: str) -> bool:
    return bool(_SLOT.match(name))


def epoch_of(bin_start: int, slot: str) -> int:
    return bin_start + int(slot[1:])


def expires_at(bin_start: int) -> int:
    """The bin's TTL: RETENTION_DAYS after its last second, so no reading of it is younger than the retention."""
    return bin_start + BIN_SECONDS + RETENTION_SECONDS
