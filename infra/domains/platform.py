"""Public routes of the whole API: GET /health, the OpenAPI docs (Swagger UI at GET /docs) and the model explorer
(GET /explorer)."""

from __future__ import annotations

from constructs import Construct

from infra.constructs.api_domain import ApiDomain, SharedInfra
from infra.constructs.rest_api import Route

EXPLORER = Route("GET", "/explorer", public=True)
# Swagger UI's script and styles have routes of their own, so that a browser caches them (functions/platform/docs.py).
ROUTES = [Route("GET", "/health", public=True), Route("GET", "/docs", public=True),
          Route("GET", "/docs/swagger-ui.js", public=True), Route("GET", "/docs/swagger-ui.css", public=True), EXPLORER]


def routes(*, explorer: bool) -> list[Route]:
    """The platform's routes; without the explorer (prod, unless `-c explorer=true`) GET /explorer does not exist."""
    return [route for route in ROUTES if explorer or route != EXPLORER]


def platform(scope: Construct, shared: SharedInfra) -> ApiDomain:
    # No tables, no grants, no idempotency: it describes the other domains' routes and draws their model.
    return ApiDomain(
        scope, "Platform", shared=shared, service="platform", package="functions.platform",
        routes=routes(explorer=shared.explorer), idempotency=False,
    )
