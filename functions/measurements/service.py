"""Measurements rules that are not storage: which readings an ingest accepts, the retention window of a read, and
the page position of a readings list."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from functions.measurements.models import IngestResult, Reading, ReadingBatch
from functions.measurements.repository import MeasurementsRepository
from functions.measurements.schema import (
    MAX_SKEW_SECONDS,
    RETENTION_DAYS,
    RETENTION_SECONDS,
)
from functions.shared.errors import ConflictError, InvalidInputError, check_range
from functions.shared.pagination import Page

StartKey = dict[str, Any] | None
# The page position in a readings cursor: the epoch second the next page starts at (functions/shared/pagination.py
# signs it and binds it to the device and the range).
RESUME_AT = "from"


def epoch_now() -> int:
    return int(time.time())


def distinct_readings(readings: Sequence[Reading]) -> list[Reading]:
    """One reading per (device, second): the same reading twice counts once; two different values for one device
    and second are a 400 (which one to keep would be a guess)."""
    kept: dict[tuple[str, int], Reading] = {}
    conflicts = []
    for index, reading in enumerate(readings):
        key = (reading.device_id, reading.epoch)
        if key in kept and kept[key] != reading:
            conflicts.append({"field": f"body.readings.{index}", "message": "another reading of this device and second"})
        kept.setdefault(key, reading)
    if conflicts:
        raise InvalidInputError("two different readings of one device at the same second", code="READING_CONFLICT",
                                details=conflicts)
    return list(kept.values())


class MeasurementsService:
    def __init__(self, repository: MeasurementsRepository, clock: Callable[[], int] = epoch_now) -> None:
        self.repository = repository
        self._clock = clock

    def ingest(self, batch: ReadingBatch) -> IngestResult:
        """Store a batch of readings (any devices): all or none are accepted, then one write per (device, bin)."""
        self.check_times(batch.readings, self._clock())
        readings = distinct_readings(batch.readings)
        return IngestResult(readings=len(readings), writes=self.repository.put_readings(readings))

    @staticmethod
    def check_times(readings: Sequence[Reading], now: int) -> None:
        """Readings older than the retention would be expired on arrival; readings from the future are a clock error.
        A 409: the readings are well formed and the clock refuses them, which no schema can state
        (docs/adr/0064-state-refusals-are-409-or-404-not-400.md)."""
        oldest, newest = now - RETENTION_SECONDS, now + MAX_SKEW_SECONDS
        details = [
            {"field": f"body.readings.{index}.epoch",
             "message": f"older than {RETENTION_DAYS} days" if reading.epoch < oldest else "in the future"}
            for index, reading in enumerate(readings)
            if not oldest <= reading.epoch <= newest
        ]
        if details:
            raise ConflictError(
                f"readings must lie between {RETENTION_DAYS} days ago and {MAX_SKEW_SECONDS} seconds from now",
                code="READING_OUT_OF_RANGE", details=details,
            )

    def readings_of(self, device_id: str, first: int, last: int, *, limit: int, start_key: StartKey) -> Page:
        """Readings of a device in [first, last], oldest first, never older than the retention (expired = absent)."""
        check_range(first, last)
        now = self._clock()
        start = max(first, now - RETENTION_SECONDS)
        if start_key is not None:
            start = max(start, int(start_key[RESUME_AT]))
        if start > last:  # nothing can match (and DynamoDB refuses a BETWEEN whose bounds are reversed)
            return Page(items=[])
        page = self.repository.readings_between(device_id, start, last, now=now, limit=limit)
        return Page(
            items=page.readings,  # type: ignore[arg-type]
            last_key=None if page.next_start is None else {RESUME_AT: page.next_start},
        )
