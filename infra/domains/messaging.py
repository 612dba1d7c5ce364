"""Messaging (seed 002, "Messaging App"): the Messages table with its header-only Inbox and Outbox GSIs, the API
function, routes and grants, built by ApiDomain in its own nested stack."""

from __future__ import annotations

from constructs import Construct

from functions.messaging.routes import ROUTES
from functions.messaging.schema import INBOX_INDEX, MESSAGES_TABLE, OUTBOX_INDEX, TABLES
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/messaging/repository.py calls (the functional suite fails on a missing or unused grant):
# PutItem (send), GetItem (read one), Query on the two indexes only (the table itself is never queried).
GRANTS = [Grant(MESSAGES_TABLE, ("GetItem", "PutItem"), indexes=(INBOX_INDEX, OUTBOX_INDEX))]


def messaging(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Messaging", shared=shared, service="messaging", package="functions.messaging",
        tables=TABLES, routes=ROUTES, grants=GRANTS,
    )
