"""Measurements (seed 002): the DeviceMeasurements table (TTL on expiresAt), its routes and grants, in its own nested
stack."""

from __future__ import annotations

from constructs import Construct

from functions.measurements.schema import TABLES
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/measurements/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("measurements")


def measurements(scope: Construct, shared: SharedInfra) -> ApiDomain:
    # No Idempotency-Key: an ingest is safe to repeat by construction (each reading SETs its own slot).
    return ApiDomain(
        scope, "Measurements", shared=shared, service="measurements", package="functions.measurements",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES), idempotency=False,
    )
