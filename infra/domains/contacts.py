"""Contacts (seed 000): the Contact table, its API function, its routes and its grants."""

from __future__ import annotations

from constructs import Construct

from functions.contacts.routes import ROUTES
from functions.contacts.schema import (
    CONTACT_TABLE,
    CONTACT_TABLE_DURING_UPGRADE,
    LAST_NAME_INDEX,
    PERSON_INDEX,
    TABLES,
    TYPE_INDEX,
)
from functions.shared.table_spec import TableSpec
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra
from infra.domains.connected_car import keep_retired_indexes

# Exactly what functions/contacts/repository.py calls, on the table and the indexes it queries.
GRANTS = [
    Grant(
        CONTACT_TABLE,
        ("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "ConditionCheckItem"),
        indexes=(TYPE_INDEX, LAST_NAME_INDEX, PERSON_INDEX),
    ),
]


def tables(scope: Construct) -> tuple[TableSpec, ...]:
    """The domain's table; on an upgrade's first deploy (`-c keepRetiredIndexes=true`) it keeps the retired
    ContactTypeIndex beside the new one: CloudFormation creates or deletes one GSI per update (ADR 0110)."""
    return (CONTACT_TABLE_DURING_UPGRADE,) if keep_retired_indexes(scope) else TABLES


def contacts(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Contacts", shared=shared, service="contacts", package="functions.contacts",
        tables=tables(scope), routes=ROUTES, grants=GRANTS,
    )
