"""Measurements API models (camelCase on the wire). Readings are stored in bins, not as items of their own: the
repository maps bins to these models (functions/measurements/schema.py)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from functions.measurements.schema import MAX_EPOCH, MAX_READINGS_PER_BATCH
from functions.shared.models import ApiModel, JsonInt, JsonNumber, PageOf, rounded

DEVICE_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"
MAX_DECIMALS = 4


DeviceId = Annotated[str, StringConstraints(pattern=DEVICE_ID_PATTERN)]
Epoch = Annotated[JsonInt, Field(strict=True, ge=0, le=MAX_EPOCH, description="epoch seconds (UTC)")]
# A value is kept to MAX_DECIMALS decimals: more are rounded (as stored and answered), so any JSON number in the
# bounds is valid, as the description says, and 1e-200 (which DynamoDB cannot hold) is 0. "At most 4 decimals" as a
# refusal cannot be described: JSON Schema's `multipleOf: 0.0001` on binary numbers is judged differently by each
# validator (python-jsonschema refuses 0.0003, jsonschema-rs refuses 3 * 0.0001):
# docs/adr/0095-readings-rounded-to-four-decimals.md.
Temperature = Annotated[
    JsonNumber, Field(ge=-273.15, le=10_000, description=f"kept to {MAX_DECIMALS} decimals (more are rounded)"),
    rounded(MAX_DECIMALS),
]
Pressure = Annotated[
    JsonNumber, Field(ge=0, le=1_000_000, description=f"kept to {MAX_DECIMALS} decimals (more are rounded)"),
    rounded(MAX_DECIMALS),
]


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


class ReadingPage(PageOf[Reading]):
    pass
