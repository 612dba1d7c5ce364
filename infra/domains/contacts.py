"""Contacts (seed 000): the Contact table, its API function, its routes and its grants."""

from __future__ import annotations

from constructs import Construct

from functions.contacts.routes import ROUTES
from functions.contacts.schema import (
    CONTACT_TABLE,
    LAST_NAME_INDEX,
    PERSON_INDEX,
    TABLES,
    TYPE_INDEX,
)
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/contacts/repository.py calls, on the table and the indexes it queries.
GRANTS = [
    Grant(
        CONTACT_TABLE,
        ("GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "ConditionCheckItem"),
        indexes=(TYPE_INDEX, LAST_NAME_INDEX, PERSON_INDEX),
    ),
]


def contacts(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Contacts", shared=shared, service="contacts", package="functions.contacts",
        tables=TABLES, routes=ROUTES, grants=GRANTS,
    )
