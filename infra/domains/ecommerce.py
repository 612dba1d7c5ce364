"""Ecommerce (seed 003, "e-Commerce Application"): the single table with GSI1, the API function, routes and grants."""

from __future__ import annotations

from constructs import Construct

from functions.ecommerce.schema import TABLES
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/ecommerce/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("ecommerce")


def ecommerce(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Ecommerce", shared=shared, service="ecommerce", package="functions.ecommerce",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES),
    )
