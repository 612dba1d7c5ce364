"""Patterns (seed 003, The DynamoDB Book's patterns): one table with two GSIs, the API function, routes, grants."""

from __future__ import annotations

from constructs import Construct

from functions.patterns.schema import GSI1, GSI2, PATTERNS_TABLE, TABLES
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra
from infra.constructs.rest_api import Route

P = "/patterns"
REPO = f"{P}/repos/{{owner}}/{{repo}}"
ROUTES = [
    Route("PUT", REPO),
    Route("GET", REPO),
    Route("PUT", f"{REPO}/stars/{{username}}"),
    Route("DELETE", f"{REPO}/stars/{{username}}"),
    Route("GET", f"{REPO}/stars", paged=True),
    Route("POST", f"{REPO}/issues"),
    Route("GET", f"{REPO}/issues", paged=True),
    Route("GET", f"{REPO}/issues/{{number}}"),
    Route("PATCH", f"{REPO}/issues/{{number}}"),
    Route("GET", f"{REPO}/open-issues", paged=True),
    Route("GET", f"{REPO}/recently-updated-issues", paged=True),
    Route("PUT", f"{P}/orgs/{{org}}"),
    Route("GET", f"{P}/orgs/{{org}}", paged=True),
    Route("PUT", f"{P}/orgs/{{org}}/users/{{username}}"),
    Route("GET", f"{P}/orgs/{{org}}/admins", paged=True),
    Route("PUT", f"{P}/stores/{{country}}/{{state}}/{{city}}/{{zipCode}}/{{storeId}}"),
    Route("GET", f"{P}/stores/{{country}}", paged=True),
    Route("GET", f"{P}/stores/{{country}}/{{state}}", paged=True),
    Route("GET", f"{P}/stores/{{country}}/{{state}}/{{city}}", paged=True),
    Route("GET", f"{P}/stores/{{country}}/{{state}}/{{city}}/{{zipCode}}", paged=True),
    Route("PUT", f"{P}/customers/{{customer}}/orders/{{orderId}}"),
    Route("GET", f"{P}/customers/{{customer}}/orders", paged=True),
    Route("PUT", f"{P}/featured"),
    Route("GET", f"{P}/featured"),
]

# Exactly what functions/patterns/repository.py calls (the functional suite fails on a missing or unused grant).
GRANTS = [
    Grant(PATTERNS_TABLE, ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "ConditionCheckItem"),
          indexes=(GSI1, GSI2)),
]


def patterns(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Patterns", shared=shared, service="patterns", package="functions.patterns",
        tables=TABLES, routes=ROUTES, grants=GRANTS,
    )
