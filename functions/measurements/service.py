"""Measurements rules that are not storage: which readings an ingest accepts, the retention window of a read, and
the page position of a readings list."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from functions.measurements import models
from functions.measurements.repository import MeasurementsRepository
from functions.measurements.schema import (
    MAX_SKEW_SECONDS,
    MS_PER_SECOND,
    RETENTION_DAYS,
    RETENTION_SECONDS,
)
from functions.shared.errors import ConflictError, InvalidInputError, check_range
from functions.shared.pages import Page

StartKey = dict[str, Any] | None
# The page position in a readings cursor: the epoch millisecond the next page starts at (functions/shared/cursors.py
# signs it and binds it to the device and the range). A cursor signed before readings had milliseconds holds an epoch
# second under LEGACY_RESUME_AT, still read (docs/adr/0108-measurements-bins-of-400-ms-within-one-write-unit.md).
RESUME_AT = "fromMs"
LEGACY_RESUME_AT = "from"


def epoch_now() -> int:
    return int(time.time())


def distinct_readings(readings: Sequence[models.Reading]) -> list[models.Reading]:
    """One reading per (device, millisecond): the same reading twice counts once (named in seconds or milliseconds);
    two different values for one device and instant are a 400 (which one to keep would be a guess)."""
    kept: dict[tuple[str, int], models.Reading] = {}
    conflicts = []
    for index, reading in enumerate(readings):
        key = (reading.device_id, reading.instant_ms)
        if key in kept and _values(kept[key]) != _values(reading):
            conflicts.append({"field": f"body.readings.{index}",
                              "message": "another reading of this device and millisecond"})
        kept.setdefault(key, reading)
    if conflicts:
        raise InvalidInputError("two different readings of one device at the same millisecond", code="READING_CONFLICT",
                                details=conflicts)
    return list(kept.values())


def _values(reading: models.Reading) -> tuple[float, float]:
    return reading.temperature, reading.pressure


class MeasurementsService:
    def __init__(self, repository: MeasurementsRepository, clock: Callable[[], int] = epoch_now) -> None:
        self.repository = repository
        self._clock = clock

    def ingest(self, batch: models.ReadingBatch) -> models.IngestResult:
        """Store a batch of readings (any devices): all or none are accepted, then one write per (device, bin)."""
        self.check_times(batch.readings, self._clock())
        readings = distinct_readings(batch.readings)
        return models.IngestResult(readings=len(readings), writes=self.repository.put_readings(readings))

    @staticmethod
    def check_times(readings: Sequence[models.Reading], now: int) -> None:
        """Readings older than the retention would be expired on arrival; readings from the future are a clock error.
        Judged on the reading's epoch second (rounded down). A 409: the readings are well formed and the clock refuses
        them, which no schema can state (docs/adr/0064-state-refusals-are-409-or-404-not-400.md)."""
        oldest, newest = now - RETENTION_SECONDS, now + MAX_SKEW_SECONDS
        details = [
            {"field": f"body.readings.{index}.{reading.instant_field}",
             "message": f"older than {RETENTION_DAYS} days" if second < oldest else "in the future"}
            for index, reading in enumerate(readings)
            if not oldest <= (second := reading.instant_ms // MS_PER_SECOND) <= newest
        ]
        if details:
            raise ConflictError(
                f"readings must lie between {RETENTION_DAYS} days ago and {MAX_SKEW_SECONDS} seconds from now",
                code="READING_OUT_OF_RANGE", details=details,
            )

    def readings_of(self, device_id: str, first: int, last: int, *, limit: int, start_key: StartKey) -> Page:
        """Readings of a device in the seconds [first, last] (every millisecond of both), oldest first, never older
        than the retention (expired = absent)."""
        check_range(first, last)
        now = self._clock()
        start = max(first, now - RETENTION_SECONDS) * MS_PER_SECOND
        end = last * MS_PER_SECOND + MS_PER_SECOND - 1
        if start_key is not None:
            start = max(start, _resume_at(start_key))
        if start > end:  # nothing can match (and DynamoDB refuses a BETWEEN whose bounds are reversed)
            return Page(items=[])
        page = self.repository.readings_between(device_id, start, end, now=now, limit=limit)
        return Page(
            items=page.readings,
            last_key=None if page.next_start is None else {RESUME_AT: page.next_start},
        )


def _resume_at(start_key: dict[str, Any]) -> int:
    if RESUME_AT in start_key:
        return int(start_key[RESUME_AT])
    return int(start_key[LEGACY_RESUME_AT]) * MS_PER_SECOND
