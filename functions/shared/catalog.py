"""Access patterns and entities declared once, as plain data (docs/adr/0075-access-patterns-declared-as-data.md).

Each domain writes them in functions/<domain>/domain.toml, read by functions/shared/domain.py `load` into the objects
below (`load("cart").patterns`, `.entities`, `.rules`...). tools/domain_template/functions/__name__/domain.toml.tmpl is
the smallest one; besides the handlers (functions/shared/routes.py) the file holds, each optional but the first two:
- `[entities]`: `columns` (the headers) and `rows` (one array of cells an entity): an `EntityTable`;
- `[[patterns]]`: one table an `AccessPattern`, keyed by its fields (`who` left out where the page has no "who"
  column), with the handlers serving it and the DynamoDB actions it needs (functions/shared/domain.py);
- `[columns]`: the keyword arguments of `columns()` (`who = false`, `source`, `key_condition`, `book_pattern`), when
  the domain words its table's headers its own way;
- `[[rules]]`: one table a `Rule`, `tests` an array of pytest node ids written whole;
- `[examples]`, `[[streams]]` (one table a `StreamDemo`, `params` and `body` inline tables) and a top-level `persona`
  (the seed's user, "alice" when left out): what the explorer (functions/platform/explorer.py) runs.

The patterns (one `AccessPattern` a row) and the columns (the table's headers, each with the field it shows) make the
"## Access patterns" table of docs/<domain>.md, rendered by `make docs` (tools/docs.py); tests/unit/test_docs.py checks
the rendered table against the page and every pattern against the routes served, the code under functions/ and the
tests under tests/.

The entities (an `EntityTable`): the page's entity chart (its items or tables with their keys, indexes and
attributes), headers worded the domain's own way, rendered by `make docs` too.

And the rules (one `Rule` a row): the page's "Rules and errors" table, each rule with where it is enforced, the refusal
a client sees and the tests that prove it (pytest node ids), rendered by `make docs`; tests/unit/test_docs.py fails
on a rule without a test, a test that does not exist, or a rule tabled on the page outside the rendered table.

The cells are markdown as the docs show them (backticked routes, method names and tests), with `|` written plainly:
the renderer escapes it. Standard library only: the explorer reads the domains at run time, in the function's asset
(functions/ whole, domain.toml files included: infra/constructs/function_asset.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# (header, field of AccessPattern) for each column, in order.
Columns = tuple[tuple[str, str], ...]


def columns(*, who: bool = True, source: str = "table / index", key_condition: str = "key condition",
            book_pattern: str | None = None) -> Columns:
    """A domain's table columns: the same seven everywhere, with the headers a domain words its own way (a page
    without a "who" column, "key condition / write", the book's pattern beside the name on docs/patterns.md)."""
    return (
        ("access pattern", "name"),
        *(((book_pattern, "book_pattern"),) if book_pattern else ()),
        ("route", "route"),
        *((("who", "who"),) if who else ()),
        (source, "source"),
        (key_condition, "key_condition"),
        ("repository method", "repository_method"),
        ("tests", "tests"),
    )


COLUMNS: Columns = columns()


@dataclass(frozen=True)
class AccessPattern:
    name: str
    route: str
    who: str | None  # None: the domain's table has no "who" column
    source: str  # the table or index read or written
    key_condition: str  # key condition, condition expression or write
    repository_method: str
    tests: str
    book_pattern: str | None = None  # docs/patterns.md only: the book's pattern and the seed's section


METHODS = ("GET", "PUT", "POST", "DELETE", "PATCH")
_TICKS = re.compile(r"`([^`]+)`")


def http_routes(route: str) -> list[tuple[str | None, str]]:
    """The (method, path) pairs a route cell names, in order: each backticked `METHOD /path`, or backticked methods
    followed by a backticked path (`` `PUT` (admin) / `GET` (signed in) `/x` ``: both). A path keeps its query
    (`/x?on=2010`) and may start with `…`, the previous pattern's path shortened (`…/events?type=error`); a path with
    no method before it has None."""
    found: list[tuple[str | None, str]] = []
    methods: list[str] = []
    for token in _TICKS.findall(route):
        method, _, path = token.partition(" ")
        if method in METHODS and not path:
            methods.append(method)
            continue
        if method in METHODS and path.startswith(("/", "…")):
            methods = [method]
        elif token.startswith(("/", "…")):
            path = token
        else:
            continue
        found += [(verb, path) for verb in methods] if methods else [(None, path)]
        methods = []
    return found


@dataclass(frozen=True)
class StreamDemo:
    """A stream-driven model shown working (the explorer): `write` (an access pattern's name, with `params` and
    `body`) changes a table whose stream a consumer reads; `read` (another pattern's name) answers what the consumer
    derived, once it has run. `what` says in a sentence what to watch."""

    name: str
    write: str
    read: str
    what: str
    params: Mapping[str, str] = field(default_factory=dict)
    body: Any = None
    query: str = ""


def _cell(value: str | None) -> str:
    """` text `, `|` escaped; an empty cell is one space (`| |`), as the docs write it."""
    return " " + value.replace("|", r"\|") + " " if value else " "


def _row(cells: Iterable[str | None]) -> str:
    return "|" + "|".join(_cell(cell) for cell in cells) + "|"


def markdown_table(patterns: Iterable[AccessPattern], columns: Columns = COLUMNS) -> str:
    """The table as the docs write it: a header row, `|---|` per column, one row a pattern; ends with a newline."""
    lines = [
        _row(header for header, _ in columns),
        "|" + "---|" * len(columns),
    ]
    for pattern in patterns:
        lines.append(_row(getattr(pattern, field) for _, field in columns))
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class EntityTable:
    """A page's entity chart: its headers and one row of cells an entity (an item, a table or an index), markdown as
    the docs write them. Pages word and choose their columns their own way (keys, indexes, TTL), so the headers are
    data too; an empty string is an empty cell."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        if not self.columns:
            raise ValueError("an entity table has columns")
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"{len(row)} cells for {len(self.columns)} columns {self.columns!r}: {row!r}")

    def markdown(self) -> str:
        """The table as the docs write it: a header row, `|---|` per column, one row an entity; ends with a newline."""
        lines = [_row(self.columns), "|" + "---|" * len(self.columns)]
        lines.extend(_row(row) for row in self.rows)
        return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Rule:
    """One row of a page's "Rules and errors" table: the rule in words, where it is enforced (a condition, a
    transaction, request validation, the service), the refusal a client sees (`409 \\`CODE\\``, markdown as the docs
    write it; "—" when nothing is refused) and the tests that prove it, as pytest node ids
    (`tests/functional/test_x_api.py::test_y`; a parametrized test by its function's name). tests/unit/test_docs.py
    fails when a rule names no test or a test that does not exist."""

    rule: str
    enforced_by: str
    refusal: str
    tests: tuple[str, ...]


RULE_COLUMNS = ("rule", "enforced by", "refusal", "tests")


def rules_table(rules: Iterable[Rule]) -> str:
    """The rules table as the docs write it: a header row, `|---|` per column, one row a rule (its tests backticked,
    one after the other); ends with a newline."""
    lines = [_row(RULE_COLUMNS), "|" + "---|" * len(RULE_COLUMNS)]
    for rule in rules:
        tests = ", ".join(f"`{test}`" for test in rule.tests)
        lines.append(_row((rule.rule, rule.enforced_by, rule.refusal, tests)))
    return "\n".join(lines) + "\n"

