"""Order entry (seed 004, the relational HR and order-entry schema): one adjacency-list table with an overloaded
GSI1 and a write-sharded GSI2, the API function, routes, grants. GSI2's shard count N is computed from the seed's
formula (functions/order_entry/schema.py) and handed to the function in its environment."""

from __future__ import annotations

from constructs import Construct

from functions.order_entry.schema import (
    SHARDS_ENV,
    TABLES,
    shard_count,
)
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/order_entry/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("order_entry")


def order_entry(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "OrderEntry", shared=shared, service="order-entry", package="functions.order_entry",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES),
        environment={SHARDS_ENV: str(shard_count())},
    )
