"""Building blocks of every domain's API models: camelCase on the wire, strict calendar days."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any

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
