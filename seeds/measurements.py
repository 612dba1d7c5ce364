"""Measurements example data: the seed's Device-measurements (DeviceId 1, epochs 0x5513A97C and 0x5513A9DB,
Temperature 30, pressure 90) and one second more of device 1, a reading every 10 ms, to show the binning.

The seed's instants are from March 2015, long past the 90 days of retention: they would be expired on arrival. So
every reading keeps its time of day and its spacing but moves to yesterday (UTC): whole days, so each stays in the
same place of its 400 ms bin. Loading twice on one day writes the same slots again and changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from functions.measurements.models import Reading
from functions.measurements.repository import MeasurementsRepository
from functions.shared.settings import Settings

DAY = 24 * 3600
DEVICE = "1"
SEED_EPOCHS = (0x5513A97C, 0x5513A9DB)  # 2015-03-26 06:38:52 and 06:40:27 UTC, 95 s apart
SEED_TEMPERATURE, SEED_PRESSURE = 30, 90
SEED_DAY = SEED_EPOCHS[0] - SEED_EPOCHS[0] % DAY  # 2015-03-26 00:00 UTC
# Then a reading every 10 ms from 06:45:00.000 to 06:45:00.990 of that day, named in milliseconds: 100 readings in
# three bins (40, 40 and 20).
EXTRA_FROM_MS, EXTRA_COUNT, EXTRA_EVERY_MS = (SEED_DAY + 6 * 3600 + 45 * 60) * 1000, 100, 10


def seed_day_shift(now: int) -> int:
    """Whole days from the seed's day to yesterday (UTC), in seconds."""
    return (now - now % DAY - DAY) - SEED_DAY


def readings(now: int) -> list[Reading]:
    shift = seed_day_shift(now)
    seeded = [
        Reading(device_id=DEVICE, epoch=epoch + shift, temperature=SEED_TEMPERATURE, pressure=SEED_PRESSURE)
        for epoch in SEED_EPOCHS
    ]
    extra = [
        Reading(device_id=DEVICE, epoch_ms=EXTRA_FROM_MS + shift * 1000 + i * EXTRA_EVERY_MS,
                temperature=SEED_TEMPERATURE + (i % 6) * 0.5, pressure=SEED_PRESSURE - (i % 3))
        for i in range(EXTRA_COUNT)
    ]
    return seeded + extra


def load(env: Mapping[str, str], now: int | None = None) -> int:
    """Writes the example readings; returns the writes it took (one per bin: 5 for 102 readings)."""
    return MeasurementsRepository(Settings(env)).put_readings(readings(int(time.time()) if now is None else now))
