"""GET /health, the OpenAPI description of every domain's routes with Swagger UI at GET /docs, and the model
explorer at GET /explorer, with its what-if of each model's scale rows at GET /explorer/scale/{model}?rate=.

/docs serves the description `make docs` generated from the domains' routers (functions/platform/docs.py): serving
it imports no domain, so no request of this function pays for loading thirteen domains (cold start). `every_domain()`
is what generates it (tools/openapi.py) and what tests compare it with; nothing here calls it while serving.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import Annotated, Any, cast

from aws_lambda_powertools.event_handler import Depends, Request, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from functions.platform import EXPLORER_ENV, docs
from functions.platform.domains import domain_names
from functions.platform.scale import MAX_RATE_PER_S
from functions.shared.handler import serve
from functions.shared.http import DomainRouter

router = DomainRouter.of(__file__)
_included: list[str] = []
_including = threading.Lock()


def every_domain() -> Any:
    """The resolver with every domain package's router (functions/<domain>/api.py) included, once: its
    `get_openapi_schema` is the description of every route. For the generator and the tests, not for serving."""
    with _including:
        if _included:
            return app
        domains = domain_names()
        for domain in domains:
            app.include_router(importlib.import_module(f"functions.{domain}.api").router)
        _included.extend(domains)
    return app


def _if_none_match(request: Request) -> str | None:
    return request.headers.get("If-None-Match")


def _base_path(request: Request) -> str:
    """"/dev" through API Gateway's stage URL, "" through a custom domain: the path begins with the stage or not
    (as Powertools' REST resolver tells, `APIGatewayRestResolver._get_base_path`)."""
    context = cast(APIGatewayProxyEvent, request.resolved_event).request_context
    stage = context.stage
    return f"/{stage}" if stage and stage != "$default" and context.path.startswith(f"/{stage}") else ""


IfNoneMatch = Annotated[str | None, Depends(_if_none_match)]
BasePath = Annotated[str, Depends(_base_path)]


@router.serve
def swagger_ui(base_path: BasePath, if_none_match: IfNoneMatch, format: Annotated[str | None, Query()] = None,
               domain: Annotated[str | None, Query()] = None) -> Response[str]:
    """Swagger UI with one domain's description inline (`?domain=voting`; `all`: every route); `?format=json`: the
    description alone (as Powertools' /docs), every route's."""
    if format == "json":
        return docs.cacheable(
            docs.description(base_path), content_types.APPLICATION_JSON, docs.REVALIDATE, if_none_match
        )
    return docs.cacheable(docs.page(base_path, domain), content_types.TEXT_HTML, docs.REVALIDATE, if_none_match)


@router.serve
def swagger_ui_script(if_none_match: IfNoneMatch, v: Annotated[str | None, Query()] = None) -> Response[str]:
    """Swagger UI's script; `?v=<Powertools version>` in the page's link makes a new version a new URL to caches."""
    return docs.cacheable(*docs.asset(docs.SCRIPT_PATH), docs.A_DAY, if_none_match)


@router.serve
def health() -> dict:
    return {"status": "ok"}


@router.serve
def links(base: BasePath) -> dict:
    """GET /: where to go from here, as paths of this stage (the explorer only where the stage has it)."""
    out = {"api": base + "/", "docs": f"{base}/docs", "openapi": f"{base}/docs?format=json", "health": f"{base}/health"}
    if os.environ.get(EXPLORER_ENV, "on") == "on":
        out["explorer"] = f"{base}/explorer"
    out["signIn"] = ("every other route needs a Cognito ID token: `make token USER=alice` for make run, "
                    "`make token STAGE=<stage> USER=<name>` for a deployed stage")
    return out


# The page's styles and its one script are inline, the script allowed by its hash, and it calls only this API:
# nothing else may load or run, from anywhere.
EXPLORER_POLICY = (
    "default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@router.serve
def explorer() -> Response[str]:
    """The model explorer (functions/platform/explorer.py): public, like /docs; its runs send the caller's token."""
    from functions.platform.explorer import page, script_hashes

    policy = EXPLORER_POLICY.format(scripts=script_hashes())
    return Response(
        status_code=200,
        content_type=content_types.TEXT_HTML,
        body=page(),
        headers={"Content-Security-Policy": policy, "Cache-Control": "no-cache"},
    )


@router.serve
def explorer_scale(model: str, rate: Annotated[int, Query(ge=1, le=MAX_RATE_PER_S)]) -> dict:
    """The explorer's what-if: the model's rows of `make scale` (`voting`, `order-entry`) with its workload at `rate` a
    second instead of the seed's, judged by the code `make scale` judges with (functions/platform/scale/what_if.py,
    imported on the first call: no other route pays for it). An unknown model is a 404 MODEL_NOT_FOUND."""
    from functions.platform.scale import what_if

    return what_if.answer(model, rate)


app, lambda_handler = serve(router, public=True)
