"""Connected car, ADR 0109: the active-customer index moves from `ActiveCustomerIndex` (`activeFlag` = "1" on every
active customer, ALL projected) to `ActiveCustomerShardIndex` (`activeShard` = "1#<n>", name/email/isActive only).

In place: the Customer table keeps its key; each customer that still carries `activeFlag` gets its `activeShard` and
loses `activeFlag` (one UpdateItem conditioned on both as scanned, tools/migrate.py `_rewrite`: a sync by the isActive
consumer meanwhile wins). A customer without `activeFlag` is inactive or already migrated: nothing to write. The
Customer table has no stream: the rewrite sets off no consumer.
"""

from __future__ import annotations

from typing import Any

from functions.connected_car.schema import (
    ACTIVE_SHARD,
    CUSTOMER_TABLE,
    RETIRED_ACTIVE_CUSTOMER_INDEX,
    RETIRED_ACTIVE_FLAG,
    active_shard_of,
)
from functions.shared.table_spec import TableSpec
from tools.migrations import Migration

# The Customer table before ADR 0109.
OLD_CUSTOMER_TABLE = TableSpec(CUSTOMER_TABLE.construct_id, partition_key=CUSTOMER_TABLE.partition_key,
                               indexes=(RETIRED_ACTIVE_CUSTOMER_INDEX,))


def sharded(item: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An active customer of the old layout in the new one: `activeShard` set, `activeFlag` gone."""
    if RETIRED_ACTIVE_FLAG not in item:
        return []  # inactive, or in the new layout already
    new = {name: value for name, value in item.items() if name != RETIRED_ACTIVE_FLAG}
    new[ACTIVE_SHARD] = active_shard_of(str(item["username"]))
    return [(CUSTOMER_TABLE.construct_id, new)]


MIGRATIONS = [
    Migration(name="connected car: active customers sharded", table=CUSTOMER_TABLE.construct_id,
              old=OLD_CUSTOMER_TABLE, transform=sharded, in_place=True,
              retires=(RETIRED_ACTIVE_CUSTOMER_INDEX.name,)),
]
