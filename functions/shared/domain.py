"""A domain declared once: functions/<domain>/domain.toml, read by `load`
(docs/adr/0124-one-declaration-per-access-pattern.md).

One file a domain holds everything that was data about it: its OpenAPI tag, its entities, its access patterns (each
with the handlers that serve it and the DynamoDB actions it needs), its rules, the explorer's examples, stream demos
and persona. `load("cart")` (or `load(__file__)` from a module of the domain's package) reads it once per process:

    tag = "cart"                              # the OpenAPI tag of the domain's routes
    persona = "alice"                         # optional: the seed's user the explorer runs the patterns as

    [entities]                                # the page's entity chart: `columns` and one array of cells a `rows`
    [columns]                                 # optional: the headers of the access-pattern table (catalog.columns)

    [[patterns]]                              # one access pattern: a row of the page's table, in the page's order
    name = "create a cart"                    # the row's cells (functions/shared/catalog.py `AccessPattern`)
    route = "`POST /cart/carts` → 201"        # the "route" cell, markdown as the page shows it
    who = "signed in (owner)"                 # optional: None where the page has no "who" column
    source = "Carts"
    key_condition = "PutItem ..."
    repository_method = "`create_cart`"
    tests = "`test_...`"
    actions = { CartTable = ["PutItem"], "CartTable/ByOwner" = ["Query"] }   # optional: see below

    [patterns.handlers.create_cart]           # optional: a handler serving it, named like the handler function
    route = "POST /cart/carts"                # method and path, as API Gateway names them
    group = "admin"                           # optional: the Cognito group a caller must be in (403 otherwise)
    paged = true                              # optional: it answers a page and a signed cursor
    public = true                             # optional: no authorizer (health, docs)
    in_schema = false                         # optional: left out of the OpenAPI description
    responses = { 201 = "created" }           # optional: status -> description (OpenAPI)

    [handlers.get_order]                      # a handler no pattern row names (the same keys)
    [[rules]], [examples], [[streams]]        # as functions/shared/catalog.py describes them

`actions`: what the pattern's API handlers call, by table (its construct id, `TableSpec.construct_id`) or index
(`"<table>/<index>"`: Query only, the one action AWS authorizes on an index ARN). The API function's grants are their
union over the domain's patterns (`Domain.grants`, made IAM statements by infra/constructs/api_domain.py); a pattern
a stream consumer serves names no actions: its consumer's grants are infra/domains/<domain>.py's.

`route_order` (top level, optional): the handlers' order where it is not the order they are declared in: API
Gateway names a deployment by its methods in order, so the converted domains keep the order their methods were
created in; a handler it does not list comes after, in declaration order.

Standard library only: the stack reads it at synth, the explorer in Lambda (functions/ ships whole, the toml
included: infra/constructs/function_asset.py).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, StreamDemo, columns
from functions.shared.routes import Route, Routes

FUNCTIONS = Path(__file__).resolve().parents[1]
# the actions a pattern may name: DynamoDB's item and query actions (a typo fails the load, not the first call)
ACTIONS = frozenset({
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem",
    "ConditionCheckItem", "DescribeTable",
})
_DOMAIN_KEYS = {"tag", "persona", "entities", "columns", "patterns", "handlers", "rules", "examples", "streams",
                "route_order"}
_PATTERN_KEYS = {"name", "route", "who", "source", "key_condition", "repository_method", "tests", "book_pattern",
                 "actions", "handlers"}
_HANDLER_KEYS = {"route", "group", "public", "paged", "in_schema", "responses"}


@dataclass(frozen=True)
class Access:
    """`actions` on `table` (a construct id), or Query on its `index`."""

    table: str
    actions: tuple[str, ...]
    index: str | None = None


@dataclass(frozen=True)
class TableGrant:
    """The union of the patterns' actions on one table: `actions` on it, Query on `indexes` (sorted)."""

    table: str
    actions: tuple[str, ...]
    indexes: tuple[str, ...]


@dataclass(frozen=True)
class Domain:
    """A domain's domain.toml, read."""

    name: str
    tag: str
    routes: Routes
    entities: EntityTable | None  # None: no entity chart (the platform)
    columns: Columns
    patterns: tuple[AccessPattern, ...]
    rules: tuple[Rule, ...]
    examples: Mapping[str, str]
    streams: tuple[StreamDemo, ...]
    persona: str
    access: Mapping[str, tuple[Access, ...]]  # pattern name -> what its handlers call
    handlers: Mapping[str, tuple[str, ...]]  # pattern name -> the handlers declared under it

    def grants(self) -> tuple[TableGrant, ...]:
        """The union of every pattern's actions, a `TableGrant` a table, tables in the order first named."""
        actions: dict[str, set[str]] = {}
        indexes: dict[str, set[str]] = {}
        for accesses in self.access.values():
            for access in accesses:
                actions.setdefault(access.table, set())
                indexes.setdefault(access.table, set())
                if access.index is None:
                    actions[access.table] |= set(access.actions)
                else:
                    indexes[access.table].add(access.index)
        return tuple(TableGrant(table, tuple(sorted(actions[table])), tuple(sorted(indexes[table])))
                     for table in actions)


def path_of(domain: str | Path) -> Path:
    """The domain.toml of `domain`: a domain's name (`"cart"`) or a file of its package (a module's `__file__`)."""
    if isinstance(domain, str) and "/" not in domain and not domain.endswith(".py"):
        return FUNCTIONS / domain / "domain.toml"
    return Path(domain).resolve().with_name("domain.toml")


def names(root: Path = FUNCTIONS) -> list[str]:
    """Every domain with a domain.toml, sorted."""
    return sorted(path.parent.name for path in root.glob("*/domain.toml"))


def load(domain: str | Path) -> Domain:
    """The domain's domain.toml, read once per process (see this module's docstring)."""
    return _load(path_of(domain))


@functools.cache
def _load(path: Path) -> Domain:
    with path.open("rb") as file:
        data = tomllib.load(file)
    try:
        return _domain(path, data)
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{path}: {type(error).__name__} {error}") from error


def _domain(path: Path, data: dict[str, Any]) -> Domain:
    unknown = data.keys() - _DOMAIN_KEYS
    if unknown:
        raise ValueError(f"unknown keys {sorted(unknown)}: a domain holds {sorted(_DOMAIN_KEYS)}")
    tag = data.get("tag")
    if not isinstance(tag, str):
        raise TypeError('no `tag = "..."`')
    routes: dict[str, Route] = {}
    patterns, access, handlers = [], {}, {}
    for row in data.get("patterns", ()):
        unknown = row.keys() - _PATTERN_KEYS
        if unknown:
            raise ValueError(f"pattern {row.get('name')!r}: unknown keys {sorted(unknown)}")
        fields = {key: value for key, value in row.items() if key not in ("actions", "handlers")}
        pattern = AccessPattern(**{"who": None, **fields})
        if pattern.name in access:
            raise ValueError(f"two patterns named {pattern.name!r}")
        patterns.append(pattern)
        access[pattern.name] = tuple(_access(pattern.name, key, value) for key, value in row.get("actions", {}).items())
        handlers[pattern.name] = tuple(row.get("handlers", {}))
        _add_routes(routes, row.get("handlers", {}))
    _add_routes(routes, data.get("handlers", {}))
    order = list(data.get("route_order", ()))
    if set(order) - routes.keys():
        raise ValueError(f"route_order names no handler {sorted(set(order) - routes.keys())}")
    ordered = {name: routes[name] for name in order} | routes
    entities = data.get("entities")
    return Domain(
        name=path.parent.name,
        tag=tag,
        routes=Routes(tag, **ordered),
        entities=None if entities is None else EntityTable(columns=tuple(entities["columns"]),
                                                           rows=tuple(map(tuple, entities["rows"]))),
        columns=columns(**data.get("columns", {})),
        patterns=tuple(patterns),
        rules=tuple(Rule(**{**row, "tests": tuple(row["tests"])}) for row in data.get("rules", ())),
        examples=dict(data.get("examples", {})),
        streams=tuple(StreamDemo(**row) for row in data.get("streams", ())),
        persona=data.get("persona", "alice"),
        access=access,
        handlers=handlers,
    )


def _access(pattern: str, key: str, actions: Any) -> Access:
    if not isinstance(actions, list) or not actions or not set(actions) <= ACTIONS:
        raise ValueError(f"pattern {pattern!r}: actions.{key} must list DynamoDB actions of {sorted(ACTIONS)}")
    table, _, index = key.partition("/")
    if index and actions != ["Query"]:
        raise ValueError(f"pattern {pattern!r}: an index ({key}) is only queried: actions.{key} = [\"Query\"]")
    return Access(table, tuple(actions), index or None)


def _add_routes(routes: dict[str, Route], tables: Mapping[str, Any]) -> None:
    for name, table in tables.items():
        if name in routes:
            raise ValueError(f"handler {name} is declared twice")
        routes[name] = _route(name, table)


def _route(name: str, table: Any) -> Route:
    if not isinstance(table, dict) or not isinstance(table.get("route"), str):
        raise TypeError(f'handler {name} needs `route = "METHOD /path"`')
    unknown = set(table) - _HANDLER_KEYS
    if unknown:
        raise ValueError(f"handler {name} has unknown keys {sorted(unknown)} (known: {sorted(_HANDLER_KEYS)})")
    method, _, route_path = table["route"].partition(" ")
    responses = {int(status): str(text) for status, text in (table.get("responses") or {}).items()}
    return Route(method, route_path, group=table.get("group"), public=bool(table.get("public", False)),
                 paged=bool(table.get("paged", False)), responses=responses,
                 in_schema=bool(table.get("in_schema", True)), name=name)
