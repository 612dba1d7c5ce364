"""Sessions (seed 003, "Session Store"): its table, routes and grants, built by ApiDomain in its own nested stack."""

from __future__ import annotations

from constructs import Construct

from functions.sessions.routes import ROUTES
from functions.sessions.schema import (
    DEFAULT_LIFETIME_SECONDS,
    LIFETIME_ENV,
    SESSION_TABLE,
    TABLES,
    USER_INDEX,
)
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/sessions/repository.py calls (the functional suite fails on a missing or unused grant):
# create (Put), get (Get), end one (Delete), a user's tokens (Query UserIndex), their times (BatchGet), end all
# (BatchWrite deletes).
GRANTS = [
    Grant(SESSION_TABLE, ("PutItem", "GetItem", "DeleteItem", "BatchGetItem", "BatchWriteItem"),
          indexes=(USER_INDEX,)),
]


def lifetime_seconds(scope: Construct) -> int:
    """A session's lifetime: `-c sessionLifetimeSeconds=…` (a stage can shorten it), else the seed's 7 days."""
    seconds = int(scope.node.try_get_context("sessionLifetimeSeconds") or DEFAULT_LIFETIME_SECONDS)
    if not 60 <= seconds <= 90 * 24 * 3600:
        raise ValueError(f"sessionLifetimeSeconds must be 60..7776000, not {seconds}")
    return seconds


def sessions(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Sessions", shared=shared, service="sessions", package="functions.sessions",
        tables=TABLES, routes=ROUTES, grants=GRANTS, idempotency=False,
        environment={LIFETIME_ENV: str(lifetime_seconds(scope))},
    )
