"""Building blocks of every domain's API models: camelCase on the wire, strict calendar days."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# A calendar day (YYYY-MM-DD, year 0001-9999, 29 February in leap years only) as a regular expression: a parameter
# declared with it is refused by validation exactly when the OpenAPI description says it is invalid, and the
# description says it. No look-arounds: pydantic's Rust regex engine has none.
_YEAR = r"(?:[1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])"
_MONTH_DAY = r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
_LEAP = r"(?:0[48]|[2468][048]|[13579][26])"
_LEAP_DAY = rf"(?:\d\d{_LEAP}|{_LEAP}00)-02-29"
_DAY = rf"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_DAY})"
DAY_PATTERN = rf"^{_DAY}$"
HOUR_PATTERN = rf"^{_DAY}T(?:[01]\d|2[0-3])$"  # YYYY-MM-DDTHH


def parse_day(value: Any) -> date:
    """Only `YYYY-MM-DD` strings: pydantic alone would also take epoch numbers and datetimes."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not _ISO_DAY.match(value):
        raise ValueError("must be a date as YYYY-MM-DD")
    return date.fromisoformat(value)


Day = Annotated[date, BeforeValidator(parse_day)]


def _whole_number(value: Any) -> Any:
    """JSON Schema's integer: 1944.0 is one (the OpenAPI description says `integer`), "1944" and true are not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# An integer field of a request body: strict (no strings, no booleans) but, as JSON Schema says, 1944.0 is 1944.
# Use as `Annotated[JsonInt, Field(ge=..., strict=True)]`.
JsonInt = Annotated[int, BeforeValidator(_whole_number)]


def stripped(min_length: int, max_length: int) -> Any:
    """Text stripped of surrounding whitespace, then `min_length`..`max_length` characters long. The schema says so
    with a pattern (as many characters from the first non-space to the last), so "   " is invalid in the OpenAPI
    description as it is refused by validation."""
    between = rf"[\s\S]{{{min_length - 2},}}\S" if min_length > 1 else ""
    return Annotated[
        str,
        StringConstraints(strip_whitespace=True, min_length=min_length, max_length=max_length),
        Field(json_schema_extra={"pattern": rf"\S{between}"}),
    ]


class ApiModel(BaseModel):
    """camelCase aliases, unknown fields refused (a typo is a 400, not a silently ignored field)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


def dump(model: BaseModel) -> dict[str, Any]:
    """A model as the API sends it: camelCase, JSON types."""
    return model.model_dump(by_alias=True, mode="json")


Stored = TypeVar("Stored", bound=BaseModel)


def from_item(model: type[Stored], item: Mapping[str, Any]) -> Stored:
    """A stored item as its model, validated by pydantic. For tables whose attribute names are the models' camelCase
    aliases: the attributes the model does not show (index keys, counters, version numbers) are left out."""
    names = {field.alias or name for name, field in model.model_fields.items()}
    return model.model_validate({name: _number(value) for name, value in item.items() if name in names})


def _number(value: Any) -> Any:
    """boto3 reads every Number as a Decimal; the models (strict where input must be) take int or float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def to_item(model: BaseModel, **extra: Any) -> dict[str, Any]:
    """A model as a stored item: its camelCase fields (JSON types: times as ISO-8601 strings), plus `extra`
    attributes it does not show (index keys); None values are left out rather than stored."""
    return {**model.model_dump(by_alias=True, mode="json", exclude_none=True), **extra}
