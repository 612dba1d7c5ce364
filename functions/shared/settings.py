"""A function's configuration: its environment, which the template sets, read in one place.

Table names come from the domain's `TableSpec`s (each names its environment variable), so no module spells a
variable name of its own. `settings()` reads the environment once per container (tests that change it call
`settings.cache_clear()`); `TableName` lets a domain's table-name holder resolve a name when it is first used,
so a function configured with only some of the domain's tables (a stream consumer) can use its repository.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from functions.shared import cost
from functions.shared.container import per_container
from functions.shared.table_spec import TableSpec


class MissingSettingError(RuntimeError):
    """The function's environment lacks a variable its code needs: a wiring defect in the template."""


@dataclass(frozen=True)
class Settings:
    environ: Mapping[str, str] = field(default_factory=dict)

    def text(self, name: str, default: str | None = None) -> str:
        value = self.environ.get(name) or default
        if value is None:
            raise MissingSettingError(f"{name} is not set in this function's environment")
        return value

    def integer(self, name: str, default: int) -> int:
        return int(self.environ.get(name) or default)

    def table(self, spec: TableSpec) -> str:
        name = self.text(spec.env_var)
        # the request's bill (functions/shared/cost.py) names the table as the model does, not by its physical name
        cost.name_table(name, spec.construct_id.removesuffix("Table"))
        return name


@per_container
def settings() -> Settings:
    return Settings(dict(os.environ))


class TableName:
    """A table-name attribute read from `self.settings` on use: `dealer = TableName(DEALER_TABLE)`."""

    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec

    def __get__(self, holder: Any, owner: type | None = None) -> Any:
        if holder is None:
            return self
        return holder.settings.table(self.spec)


class Tables:
    """A domain's table names, each a `TableName` attribute of a subclass, read from the function's settings when
    first used (a stream consumer's function has only some of them)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
