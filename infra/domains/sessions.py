"""Sessions (seed 003, "Session Store"): its table, routes and grants, built by ApiDomain in its own nested stack."""

from __future__ import annotations

from constructs import Construct

from functions.sessions.schema import (
    DEFAULT_LIFETIME_SECONDS,
    LIFETIME_ENV,
    TABLES,
)
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/sessions/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("sessions")


def lifetime_seconds(scope: Construct) -> int:
    """A session's lifetime: `-c sessionLifetimeSeconds=…` (a stage can shorten it), else the seed's 7 days."""
    seconds = int(scope.node.try_get_context("sessionLifetimeSeconds") or DEFAULT_LIFETIME_SECONDS)
    if not 60 <= seconds <= 90 * 24 * 3600:
        raise ValueError(f"sessionLifetimeSeconds must be 60..7776000, not {seconds}")
    return seconds


def sessions(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Sessions", shared=shared, service="sessions", package="functions.sessions",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES), idempotency=False,
        environment={LIFETIME_ENV: str(lifetime_seconds(scope))},
    )
