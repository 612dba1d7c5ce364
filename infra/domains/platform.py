"""Public routes of the whole API: GET /health, the OpenAPI docs (Swagger UI at GET /docs) and the model explorer
(GET /explorer)."""

from __future__ import annotations

from constructs import Construct

from infra.constructs.api_domain import ApiDomain, SharedInfra
from infra.constructs.rest_api import Route

ROUTES = [Route("GET", "/health", public=True), Route("GET", "/docs", public=True),
          Route("GET", "/explorer", public=True)]


def platform(scope: Construct, shared: SharedInfra) -> ApiDomain:
    # No tables, no grants, no idempotency: it only describes the other domains' routes.
    return ApiDomain(
        scope, "Platform", shared=shared, service="platform", package="functions.platform", routes=ROUTES,
        idempotency=False,
    )
