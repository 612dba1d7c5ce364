"""Order entry (seed 004, the relational HR and order-entry schema): one adjacency-list table with an overloaded
GSI1 and a write-sharded GSI2, the API function, routes, grants. GSI2's shard count N is computed from the seed's
formula (functions/order_entry/schema.py) and handed to the function in its environment."""

from __future__ import annotations

from constructs import Construct

from functions.order_entry.routes import ROUTES
from functions.order_entry.schema import (
    GSI1,
    GSI2,
    ORDER_ENTRY_TABLE,
    SHARDS_ENV,
    TABLES,
    shard_count,
)
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/order_entry/repository.py calls (the functional suite fails on a missing or unused grant).
GRANTS = [
    Grant(ORDER_ENTRY_TABLE, ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "BatchGetItem",
                              "ConditionCheckItem"), indexes=(GSI1, GSI2)),
]


def order_entry(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "OrderEntry", shared=shared, service="order-entry", package="functions.order_entry",
        tables=TABLES, routes=ROUTES, grants=GRANTS, environment={SHARDS_ENV: str(shard_count())},
    )
