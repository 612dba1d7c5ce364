"""GET /health, the OpenAPI description of every domain's routes with Swagger UI at GET /docs, and the model
explorer at GET /explorer.

The spec is generated from the domains' own routers, so it cannot drift from what they serve. They are imported
when the description is first asked for (`every_domain()`), not when the function starts: /health, the route a
cold start most often serves, does not pay for importing every domain (issue 16, cold start).
Swagger UI's assets are inlined by Powertools, so the page works offline too.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types

from functions.platform.domains import domain_names
from functions.shared.handler import api_handler
from functions.shared.http import build_resolver

app = build_resolver(public=True)
_included: list[str] = []
_including = threading.Lock()


def every_domain() -> Any:
    """The resolver with every domain package's router (functions/<domain>/api.py) included, once. Called before the
    description is built."""
    with _including:
        if _included:
            return app
        domains = domain_names()
        for domain in domains:
            app.include_router(importlib.import_module(f"functions.{domain}.api").router)
        _included.extend(domains)
    return app


_describe = app.get_openapi_schema


def _describe_every_domain(**kwargs: Any) -> Any:
    every_domain()
    return _describe(**kwargs)


app.get_openapi_schema = _describe_every_domain  # type: ignore[method-assign]  # /docs and get_openapi_json_schema
app.enable_swagger(
    path="/docs",
    title="Blueprints API",
    version="1.0.0",
    persist_authorization=True,  # Authorize with a token (`make token`) once; Swagger UI keeps it over reloads
    description=(
        "Classic DynamoDB data models as one serverless backend. Every route but /health, /docs and /explorer needs "
        "`Authorization: Bearer <Cognito ID token>` (Authorize, then paste the token `make token` prints); writes to "
        "reference data need the `admin` group. Errors answer `{\"error\": {\"code\", \"message\", \"details\"?}}`: "
        "each operation lists its statuses and codes."
    ),
)


@app.get("/health", include_in_schema=False)
def health() -> dict:
    return {"status": "ok"}


# The page's styles and its one script are inline, the script allowed by its hash, and it calls only this API:
# nothing else may load or run, from anywhere.
EXPLORER_POLICY = ("default-src 'none'; script-src {scripts}; style-src 'unsafe-inline'; connect-src 'self'; "
                   "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


@app.get("/explorer", include_in_schema=False)
def explorer() -> Response[str]:
    """The model explorer (functions/platform/explorer.py): public, like /docs; its runs send the caller's token."""
    from functions.platform.explorer import page, script_hashes

    policy = EXPLORER_POLICY.format(scripts=script_hashes())
    return Response(status_code=200, content_type=content_types.TEXT_HTML, body=page(),
                    headers={"Content-Security-Policy": policy, "Cache-Control": "no-cache"})


lambda_handler = api_handler(app)
