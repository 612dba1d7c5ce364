"""Contacts, ADR 0110: the type index moves from `ContactTypeIndex` (`Type`, `Id`) to `ContactTypeShardIndex`
(`TypeShard` = "<Type>#<n>", `Id`).

In place: the Contact table keeps its keys; every item without `TypeShard` gets it (one UpdateItem conditioned on
its absence, tools/migrate.py `_rewrite`); nothing else on the item is touched, so a link ended meanwhile stays
ended. The Contact table has no stream.
"""

from __future__ import annotations

from typing import Any

from functions.contacts.schema import (
    CONTACT_TABLE,
    LAST_NAME_INDEX,
    PERSON_INDEX,
    RETIRED_TYPE_INDEX,
    TYPE_SHARD,
    type_shard,
)
from functions.shared.table_spec import TableSpec
from tools.migrations import Migration

# The Contact table before ADR 0110: the seed's type index, the two sparse ones unchanged.
OLD_CONTACT_TABLE = TableSpec(
    CONTACT_TABLE.construct_id, env_var=CONTACT_TABLE.env_var, partition_key=CONTACT_TABLE.partition_key,
    sort_key=CONTACT_TABLE.sort_key,
    indexes=(RETIRED_TYPE_INDEX, *(i for i in CONTACT_TABLE.indexes if i.name in (LAST_NAME_INDEX, PERSON_INDEX))),
)


def sharded(item: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An item of the old layout with its type index shard."""
    if TYPE_SHARD in item:
        return []  # written by the new code, or migrated already
    return [(CONTACT_TABLE.construct_id, {**item, TYPE_SHARD: type_shard(str(item["Type"]), str(item["Id"]))})]


MIGRATIONS = [
    Migration(name="contacts: type index sharded", table=CONTACT_TABLE.construct_id, old=OLD_CONTACT_TABLE,
              transform=sharded, in_place=True,
              retires=(RETIRED_TYPE_INDEX.name,)),
]
