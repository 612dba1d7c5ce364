"""The Contact table (seed 000, "A Modeling Approach for AWS DynamoDB").

The seed's rules are kept: one table per domain, partition key `Id` (a UUID), sort key `Type`, and a type index,
write-sharded: `ContactTypeShardIndex` (`TypeShard` = "<Type>#<n>", `Id`), n a hash of the Id, so that no type's
creations share one partition key (docs/adr/0110-contact-type-index-sharded.md computes N); "every item of a type"
is one Query per shard, merged by Id. Two sparse GSIs are added so that the seed's filter-over-every-item
questions become key reads whose cost grows only with the answer:
- `ContactLastNameIndex` (`LastName`, `FirstName`): only Person items carry `LastName`.
- `ContactPersonIndex` (`PersonId`, `RelationshipStart` = "<Relationship>#<YYYY-MM-DD>"): only PersonAddress items
  carry them, so "where did Bob work on 2005-01-01" reads Bob's Business links that started on or before that day.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

PERSON = "Person"
ADDRESS = "Address"
PERSON_ADDRESS = "PersonAddress"

TYPE_INDEX = "ContactTypeShardIndex"
TYPE_SHARD = "TypeShard"  # its partition key attribute, on every item
# The seed's ContactTypeIndex (`Type`, `Id`): every person under one key. Named here for an upgrade's first deploy and
# the migration (tools/migrations/contacts.py); no code reads it.
RETIRED_TYPE_INDEX = IndexSpec("ContactTypeIndex", KeyAttribute("Type"), KeyAttribute("Id"))
LAST_NAME_INDEX = "ContactLastNameIndex"
PERSON_INDEX = "ContactPersonIndex"

CONTACT_TABLE = TableSpec(
    "ContactTable",
    env_var="CONTACTS_TABLE_NAME",
    partition_key=KeyAttribute("Id"),
    sort_key=KeyAttribute("Type"),
    indexes=(
        IndexSpec(TYPE_INDEX, KeyAttribute(TYPE_SHARD), KeyAttribute("Id")),
        IndexSpec(LAST_NAME_INDEX, KeyAttribute("LastName"), KeyAttribute("FirstName")),
        IndexSpec(PERSON_INDEX, KeyAttribute("PersonId"), KeyAttribute("RelationshipStart")),
    ),
)

TABLES = (CONTACT_TABLE,)
# The table during an upgraded stage's first deploy (ADR 0110): CloudFormation creates or deletes one GSI per update,
# so the retired index stays until the next deploy deletes it.
CONTACT_TABLE_DURING_UPGRADE = replace(CONTACT_TABLE, indexes=(*CONTACT_TABLE.indexes, RETIRED_TYPE_INDEX))


# --- the type index's shards (ADR 0110) -----------------------------------------------------------------------------

KEY_WCU = 1_000  # write units a second one partition key value takes


@dataclass(frozen=True)
class TypeIndexLoad:
    """The figures the shard count is computed from."""

    creations_per_s: int = 2_000  # the stated peak of one type: persons created a second (bench/scale/workloads.py)
    units_per_entry: int = 1  # a Person's entry (Id, Type, TypeShard, names <= 64 B each) stays under 1 KB
    target_utilisation: float = 0.5  # headroom for the hash's uneven spread and bursts


TYPE_INDEX_LOAD = TypeIndexLoad()


def type_shard_count(load: TypeIndexLoad = TYPE_INDEX_LOAD) -> int:
    """N = peak entries written / (one key's 1,000 WCU x target utilisation), rounded up: 2,000 / 500 = 4."""
    return max(1, math.ceil(load.creations_per_s * load.units_per_entry / (KEY_WCU * load.target_utilisation)))


TYPE_SHARDS = type_shard_count()


def type_shard(item_type: str, item_id: str, shards: int = TYPE_SHARDS) -> str:
    """An item's key in the type index, "<Type>#<n>": n from a hash of its Id (stable, even whatever the ids)."""
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    return f"{item_type}#{int.from_bytes(digest[:8], 'big') % shards}"


def type_shards(item_type: str, shards: int = TYPE_SHARDS) -> list[str]:
    """Every shard of a type, in order: "every item of a type" reads them all."""
    return [f"{item_type}#{n}" for n in range(shards)]
