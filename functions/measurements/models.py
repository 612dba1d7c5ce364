"""Measurements API models (camelCase on the wire). Readings are stored in bins, not as items of their own: the
repository maps bins to these models (functions/measurements/schema.py)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import AfterValidator, Field, StringConstraints

from functions.measurements.schema import MAX_EPOCH, MAX_READINGS_PER_BATCH
from functions.shared.models import ApiModel, JsonInt, JsonNumber

DEVICE_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
MAX_DECIMALS = 4


def few_decimals(value: float) -> float:
    """At most MAX_DECIMALS decimals: a sensor's value, and a number DynamoDB can store (1e-200 it cannot)."""
    if Decimal(str(value)).as_tuple().exponent < -MAX_DECIMALS:  # type: ignore[operator]
        raise ValueError(f"at most {MAX_DECIMALS} decimals")
    return value


DeviceId = Annotated[str, StringConstraints(pattern=DEVICE_ID_PATTERN)]
Epoch = Annotated[JsonInt, Field(strict=True, ge=0, le=MAX_EPOCH, description="epoch seconds (UTC)")]
Temperature = Annotated[JsonNumber, Field(ge=-273.15, le=10_000), AfterValidator(few_decimals)]
Pressure = Annotated[JsonNumber, Field(ge=0, le=1_000_000), AfterValidator(few_decimals)]


class Reading(ApiModel):
    device_id: DeviceId
    epoch: Epoch
    temperature: Temperature
    pressure: Pressure


class ReadingBatch(ApiModel):
    readings: Annotated[list[Reading], Field(min_length=1, max_length=MAX_READINGS_PER_BATCH)]


class IngestResult(ApiModel):
    readings: int = Field(description="distinct readings stored (a reading sent twice counts once)")
    writes: int = Field(description="DynamoDB writes it took: one per (device, bin)")


class ReadingPage(ApiModel):
    items: list[Reading]
    next_cursor: str | None = None
