"""Public routes of the whole API: GET / (where to go), GET /health, the OpenAPI docs (Swagger UI at GET /docs) and
the model explorer (GET /explorer)."""

from __future__ import annotations

from constructs import Construct

from functions.platform import EXPLORER_ENV
from functions.shared.domain import load
from functions.shared.routes import Routes
from infra.constructs.api_domain import ApiDomain, SharedInfra


def routes(*, explorer: bool) -> Routes:
    """The platform's routes; without the explorer (prod, unless `-c explorer=true`) GET /explorer and its what-if,
    GET /explorer/scale/{model}, do not exist."""
    routes = load("platform").routes
    return routes if explorer else routes.without("explorer", "explorer_scale")


def platform(scope: Construct, shared: SharedInfra) -> ApiDomain:
    # No tables, no grants, no idempotency: it describes the other domains' routes and draws their model.
    return ApiDomain(
        scope, "Platform", shared=shared, service="platform", package="functions.platform",
        routes=routes(explorer=shared.explorer), idempotency=False,
        environment={EXPLORER_ENV: "on" if shared.explorer else "off"},  # GET / links the explorer only where it is
    )
