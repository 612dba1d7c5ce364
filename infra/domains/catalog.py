"""Catalog (seed 002): the Products table (hierarchical items), the ProductDocuments table (one JSON document per
product), the API function, routes and grants, in its own nested stack."""

from __future__ import annotations

from constructs import Construct

from functions.catalog.schema import DOCUMENTS_TABLE, PRODUCTS_TABLE, TABLES
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra
from infra.constructs.rest_api import Route

PREFIX = "/catalog"
CHILD = f"{PREFIX}/products/{{productId}}/children/{{childKind}}/{{childId}}"
ROUTES = [
    Route("PUT", f"{PREFIX}/products/{{productId}}"),
    Route("GET", f"{PREFIX}/products/{{productId}}", paged=True),
    Route("GET", f"{PREFIX}/products/{{productId}}/children/{{childKind}}", paged=True),
    Route("PUT", CHILD),
    Route("GET", CHILD),
    Route("DELETE", CHILD),
    Route("PUT", f"{PREFIX}/documents/{{productId}}"),
    Route("GET", f"{PREFIX}/documents/{{productId}}"),
    Route("POST", f"{PREFIX}/documents/{{productId}}/children"),
]

# Exactly what functions/catalog/repository.py calls (the functional suite fails on a missing or unused grant).
GRANTS = [
    Grant(PRODUCTS_TABLE, ("GetItem", "Query", "PutItem", "ConditionCheckItem", "DeleteItem")),
    Grant(DOCUMENTS_TABLE, ("GetItem", "PutItem", "UpdateItem")),
]


def catalog(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Catalog", shared=shared, service="catalog", package="functions.catalog",
        tables=TABLES, routes=ROUTES, grants=GRANTS,
    )
