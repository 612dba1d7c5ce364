"""GET /health, and the OpenAPI description of every domain's routes with Swagger UI at GET /docs.

The spec is generated from the domains' own routers, so it cannot drift from what they serve.
Swagger UI's assets are inlined by Powertools, so the page works offline too.
"""

from __future__ import annotations

import importlib
import pkgutil

import functions
from functions.shared.handler import api_handler
from functions.shared.http import build_resolver

NOT_DOMAINS = ("shared", "platform")

app = build_resolver(public=True)
# Every domain package's router (functions/<domain>/api.py), found rather than listed: a new domain needs no entry.
for domain in sorted(m.name for m in pkgutil.iter_modules(functions.__path__) if m.ispkg and m.name not in NOT_DOMAINS):
    app.include_router(importlib.import_module(f"functions.{domain}.api").router)
app.enable_swagger(
    path="/docs",
    title="Blueprints API",
    version="1.0.0",
    persist_authorization=True,  # Authorize with a token (`make token`) once; Swagger UI keeps it over reloads
    description=(
        "Classic DynamoDB data models as one serverless backend. Every route but /health and /docs needs "
        "`Authorization: Bearer <Cognito ID token>` (Authorize, then paste the token `make token` prints); writes to "
        "reference data need the `admin` group. Errors answer `{\"error\": {\"code\", \"message\", \"details\"?}}`: "
        "each operation lists its statuses and codes."
    ),
)


@app.get("/health", include_in_schema=False)
def health() -> dict:
    return {"status": "ok"}


lambda_handler = api_handler(app)
