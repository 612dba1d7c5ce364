"""Patterns (seed 003, The DynamoDB Book's patterns): one table with two GSIs, the API function, routes, grants."""

from __future__ import annotations

from constructs import Construct

from functions.patterns.routes import ROUTES
from functions.patterns.schema import GSI1, GSI2, PATTERNS_TABLE, TABLES
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

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
