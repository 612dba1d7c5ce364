"""Patterns (seed 003, The DynamoDB Book's patterns): one table with two GSIs, the API function, routes, grants."""

from __future__ import annotations

from constructs import Construct

from functions.patterns.schema import TABLES
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/patterns/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("patterns")


def patterns(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Patterns", shared=shared, service="patterns", package="functions.patterns",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES),
    )
