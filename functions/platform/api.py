"""GET /health, and the OpenAPI description of every domain's routes with Swagger UI at GET /docs.

The spec is generated from the domains' own routers, so it cannot drift from what they serve.
Swagger UI's assets are inlined by Powertools, so the page works offline too.
"""

from __future__ import annotations

from functions.connected_car.api import router as connected_car_router
from functions.contacts.api import router as contacts_router
from functions.shared.handler import api_handler
from functions.shared.http import build_resolver
from functions.voting.api import router as voting_router

app = build_resolver(public=True)
app.include_router(contacts_router)
app.include_router(connected_car_router)
app.include_router(voting_router)
app.enable_swagger(
    path="/docs",
    title="Blueprints API",
    version="1.0.0",
    description=(
        "Classic DynamoDB data models as one serverless backend. Every route but /health and /docs needs "
        "`Authorization: Bearer <Cognito ID token>`; writes to reference data need the `admin` group."
    ),
)


@app.get("/health", include_in_schema=False)
def health() -> dict:
    return {"status": "ok"}


lambda_handler = api_handler(app)
