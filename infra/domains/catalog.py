"""Catalog (seed 002): the Products table (hierarchical items), the ProductDocuments table (one JSON document per
product), the API function, routes and grants, in its own nested stack."""

from __future__ import annotations

from constructs import Construct

from functions.catalog.schema import TABLES
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/catalog/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("catalog")


def catalog(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Catalog", shared=shared, service="catalog", package="functions.catalog",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES),
    )
