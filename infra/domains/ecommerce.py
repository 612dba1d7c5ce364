"""Ecommerce (seed 003, "e-Commerce Application"): the single table with GSI1, the API function, routes and grants."""

from __future__ import annotations

from constructs import Construct

from functions.ecommerce.routes import ROUTES
from functions.ecommerce.schema import ECOMMERCE_TABLE, GSI1, TABLES
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/ecommerce/repository.py calls: Put/Update/Delete/ConditionCheck inside TransactWriteItems
# need their own actions; Query on the table and on GSI1.
GRANTS = [
    Grant(ECOMMERCE_TABLE, ("GetItem", "PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem", "Query"),
          indexes=(GSI1,)),
]


def ecommerce(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Ecommerce", shared=shared, service="ecommerce", package="functions.ecommerce",
        tables=TABLES, routes=ROUTES, grants=GRANTS,
    )
