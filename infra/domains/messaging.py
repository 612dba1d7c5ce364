"""Messaging (seed 002, "Messaging App"): the Messages table with its header-only Inbox and Outbox GSIs, the API
function, routes and grants, built by ApiDomain in its own nested stack."""

from __future__ import annotations

from constructs import Construct

from functions.messaging.schema import TABLES
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/messaging/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("messaging")


def messaging(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Messaging", shared=shared, service="messaging", package="functions.messaging",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES),
    )
