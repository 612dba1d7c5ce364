"""Users (seed 002, "1:1 relationships or key-values"): the Users table with its email index, routes and grants."""

from __future__ import annotations

from constructs import Construct

from functions.users.routes import ROUTES
from functions.users.schema import TABLES, USERS_EMAIL_INDEX, USERS_TABLE
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/users/repository.py calls: the transactions' Puts, Update and Deletes (user and email
# markers), GetItem by id, and Query on the email index only (the table itself is never queried).
GRANTS = [Grant(USERS_TABLE, ("GetItem", "PutItem", "UpdateItem", "DeleteItem"), indexes=(USERS_EMAIL_INDEX,))]


def users(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Users", shared=shared, service="users", package="functions.users",
        tables=TABLES, routes=ROUTES, grants=GRANTS, idempotency=False,
    )
