"""Measurements (seed 002): the DeviceMeasurements table (TTL on expiresAt), its routes and grants, in its own nested
stack."""

from __future__ import annotations

from constructs import Construct

from functions.measurements.routes import ROUTES
from functions.measurements.schema import MEASUREMENTS_TABLE, TABLES
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# Exactly what functions/measurements/repository.py calls (the functional suite fails on a missing or unused grant).
GRANTS = [Grant(MEASUREMENTS_TABLE, ("UpdateItem", "Query"))]


def measurements(scope: Construct, shared: SharedInfra) -> ApiDomain:
    # No Idempotency-Key: an ingest is safe to repeat by construction (each reading SETs its own slot).
    return ApiDomain(
        scope, "Measurements", shared=shared, service="measurements", package="functions.measurements",
        tables=TABLES, routes=ROUTES, grants=GRANTS, idempotency=False,
    )
