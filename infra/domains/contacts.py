"""Contacts (seed 000): the Contact table, its API function, its routes and its grants."""

from __future__ import annotations

from constructs import Construct

from functions.contacts.schema import (
    CONTACT_TABLE,
    LAST_NAME_INDEX,
    PERSON_INDEX,
    TABLES,
    TYPE_INDEX,
)
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra
from infra.constructs.rest_api import Route

ROUTES = [
    Route("POST", "/contacts/persons"),
    Route("GET", "/contacts/persons", paged=True),
    Route("GET", "/contacts/items/{id}"),
    Route("POST", "/contacts/addresses"),
    Route("POST", "/contacts/persons/{personId}/addresses"),
    Route("PATCH", "/contacts/person-addresses/{linkId}"),
    Route("GET", "/contacts/persons/{personId}/addresses", paged=True),
]

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
