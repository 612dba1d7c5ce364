"""Users (seed 002, "1:1 relationships or key-values"): the Users table with its email index, routes and grants."""

from __future__ import annotations

from constructs import Construct

from functions.shared.domain import load
from functions.users.schema import TABLES
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/users/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("users")


def users(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Users", shared=shared, service="users", package="functions.users",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES), idempotency=False,
    )
