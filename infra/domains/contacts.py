"""Contacts (seed 000): the Contact table, its API function, its routes and its grants."""

from __future__ import annotations

from constructs import Construct

from functions.contacts.schema import (
    CONTACT_TABLE_DURING_UPGRADE,
    TABLES,
)
from functions.shared.domain import load
from functions.shared.table_spec import TableSpec
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants
from infra.domains.connected_car import keep_retired_indexes

# The domain as functions/contacts/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("contacts")


def tables(scope: Construct) -> tuple[TableSpec, ...]:
    """The domain's table; on an upgrade's first deploy (`-c keepRetiredIndexes=true`) it keeps the retired
    ContactTypeIndex beside the new one: CloudFormation creates or deletes one GSI per update (ADR 0110)."""
    return (CONTACT_TABLE_DURING_UPGRADE,) if keep_retired_indexes(scope) else TABLES


def contacts(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Contacts", shared=shared, service="contacts", package="functions.contacts",
        tables=tables(scope), routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, tables(scope)),
    )
