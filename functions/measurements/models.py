"""Measurements API models (camelCase on the wire). Readings are stored in bins, not as items of their own: the
repository maps bins to these models (functions/measurements/schema.py)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import ConfigDict, Field, StringConstraints, WithJsonSchema, model_validator

from functions.measurements.schema import MAX_EPOCH, MAX_EPOCH_MS, MAX_READINGS_PER_BATCH, MS_PER_SECOND
from functions.shared.models import ApiModel, JsonInt, JsonNumber, PageOf, rounded

DEVICE_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,64}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
DevicePath = Annotated[str, Path(pattern=DEVICE_ID_PATTERN)]

MAX_DECIMALS = 4


DeviceId = Annotated[str, StringConstraints(pattern=DEVICE_ID_PATTERN)]
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
_ONE_INSTANT = "exactly one of `epoch` (whole seconds) and `epochMs` (whole milliseconds)"


# An instant a reading may name instead of the other. Its schema is stated whole: with a default (absent), pydantic
# would describe the bounds as `ge`/`le`, which JSON Schema does not know; and absent is no `null` (a null is refused).
EpochOrAbsent = Annotated[JsonInt, Field(strict=True, ge=0, le=MAX_EPOCH), WithJsonSchema(
    {"type": "integer", "minimum": 0, "maximum": MAX_EPOCH, "description": f"epoch seconds (UTC); {_ONE_INSTANT}"})]
EpochMsOrAbsent = Annotated[JsonInt, Field(strict=True, ge=0, le=MAX_EPOCH_MS), WithJsonSchema(
    {"type": "integer", "minimum": 0, "maximum": MAX_EPOCH_MS,
     "description": f"epoch milliseconds (UTC); {_ONE_INSTANT}"})]


class Reading(ApiModel):
    """A reading to ingest: its instant is `epoch` (whole seconds) or `epochMs` (whole milliseconds), exactly one."""

    # Exactly one of the two, stated in the description so that a generated client sends one
    # (docs/adr/0108-measurements-bins-of-400-ms-within-one-write-unit.md).
    model_config = ConfigDict(json_schema_extra={"oneOf": [{"required": ["epoch"]}, {"required": ["epochMs"]}]})

    device_id: DeviceId
    epoch: EpochOrAbsent = None  # type: ignore[assignment]
    epoch_ms: EpochMsOrAbsent = None  # type: ignore[assignment]
    temperature: Temperature
    pressure: Pressure

    @model_validator(mode="after")
    def _one_instant(self) -> Reading:
        if (self.epoch is None) == (self.epoch_ms is None):
            raise ValueError(f"give {_ONE_INSTANT}")
        return self

    @property
    def instant_ms(self) -> int:
        """The reading's instant in epoch milliseconds (named in seconds: that second's first millisecond)."""
        return self.epoch_ms if self.epoch is None else self.epoch * MS_PER_SECOND

    @property
    def instant_field(self) -> str:
        """The field that named the instant, as a refusal names it."""
        return "epoch" if self.epoch is not None else "epochMs"


class ReadingBatch(ApiModel):
    readings: Annotated[list[Reading], Field(min_length=1, max_length=MAX_READINGS_PER_BATCH)]


class IngestResult(ApiModel):
    readings: int = Field(description="distinct readings stored (a reading sent twice counts once)")
    writes: int = Field(description="DynamoDB writes it took: one per (device, bin)")


class StoredReading(ApiModel):
    """A reading as answered: its instant in both units."""

    device_id: str
    epoch: int = Field(description="epoch seconds (UTC), rounded down")
    epoch_ms: int = Field(description="epoch milliseconds (UTC)")
    temperature: float
    pressure: float

    @classmethod
    def at(cls, device_id: str, epoch_ms: int, temperature: float, pressure: float) -> StoredReading:
        return cls(device_id=device_id, epoch=epoch_ms // MS_PER_SECOND, epoch_ms=epoch_ms,
                   temperature=temperature, pressure=pressure)


class ReadingPage(PageOf[StoredReading]):
    pass
