"""ConnectedCar (seed 001): seven tables, the API function, the isActive stream consumer, routes and grants."""

from __future__ import annotations

from aws_cdk import Duration
from constructs import Construct

from functions.connected_car.schema import (
    CUSTOMER_TABLE,
    CUSTOMER_TABLE_DURING_UPGRADE,
    DEFAULT_EVENT_RETENTION_DAYS,
    EVENT_RETENTION_ENV,
    REGISTRATION_TABLE,
    TABLES,
)
from functions.shared.domain import load
from functions.shared.table_spec import TableSpec
from infra.constructs.api_domain import ApiDomain, Consumer, Grant, SharedInfra, pattern_grants

# The domain as functions/connected_car/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("connected_car")


# Customer.isActive follows the registrations (functions/connected_car/active_customers.py).
ACTIVE_CUSTOMERS = Consumer(
    "ActiveCustomers",
    module="active_customers",
    source=REGISTRATION_TABLE,
    grants=(Grant(CUSTOMER_TABLE, ("GetItem", "UpdateItem")), Grant(REGISTRATION_TABLE, ("Query",))),
    batch_size=50,
    max_record_age=Duration.hours(6),
)


# `cdk deploy -c keepRetiredIndexes=true`: the first deploy of a stage deployed before ADRs 0109 / 0110. CloudFormation
# creates or deletes one GSI per table per update, so that deploy creates the new index and keeps the retired one;
# the next deploy (without the flag) deletes it.
KEEP_RETIRED_INDEXES = "keepRetiredIndexes"


def keep_retired_indexes(scope: Construct) -> bool:
    return str(scope.node.try_get_context(KEEP_RETIRED_INDEXES)).lower() == "true"


def tables(scope: Construct) -> tuple[TableSpec, ...]:
    """The domain's tables; on an upgrade's first deploy, the Customer table keeps its retired index (ADR 0109)."""
    if not keep_retired_indexes(scope):
        return TABLES
    return tuple(CUSTOMER_TABLE_DURING_UPGRADE if spec is CUSTOMER_TABLE else spec for spec in TABLES)


def connected_car(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "ConnectedCar", shared=shared, service="connected-car", package="functions.connected_car",
        tables=tables(scope), routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, tables(scope)),
        consumers=[ACTIVE_CUSTOMERS],
        environment={EVENT_RETENTION_ENV: str(DEFAULT_EVENT_RETENTION_DAYS)},
    )
