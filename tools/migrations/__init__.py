"""Each domain whose key layout changed declares `MIGRATIONS` (a list of `Migration`) in a module here;
tools/migrate.py runs them (docs/adr/0113-key-changes-migrated-by-make-migrate.md). `Migration` lives here, not in
the engine, so that the engine can find these modules without them importing it back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from functions.shared.table_spec import TableSpec

Transform = Callable[[dict[str, Any]], list[tuple[str, dict[str, Any]]]]


@dataclass(frozen=True)
class Migration:
    """One table's move from an old key layout to the new one (see the module docstring)."""

    name: str
    table: str  # the construct id of the table that holds the old layout (for in_place, the new one too)
    old: TableSpec  # the old layout: its keys say which item an in-place run deletes
    transform: Transform
    in_place: bool = False
    # Index names the new layout drops once the items are migrated: while the stage's table still has one, its deploy
    # runs in two passes (tools/deploy.py): keep them (`-c keepRetiredIndexes=true`), migrate, then drop them.
    retires: tuple[str, ...] = ()
    # The transform is called as transform(old_item, source=<the source's boto3 Table>), to read the rest of the old
    # item's collection (the cart: a header and its line items become one item; docs/adr/0107-*.md).
    reads_source: bool = False

    def old_key(self, item: Mapping[str, Any]) -> dict[str, Any]:
        return {a.name: item[a.name] for a in self.old.key_attributes}
