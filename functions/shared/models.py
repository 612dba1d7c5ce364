"""Building blocks of every domain's API models: camelCase on the wire, strict calendar days."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict
from pydantic.alias_generators import to_camel

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_day(value: Any) -> date:
    """Only `YYYY-MM-DD` strings: pydantic alone would also take epoch numbers and datetimes."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not _ISO_DAY.match(value):
        raise ValueError("must be a date as YYYY-MM-DD")
    return date.fromisoformat(value)


Day = Annotated[date, BeforeValidator(parse_day)]


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
