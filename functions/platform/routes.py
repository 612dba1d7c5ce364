"""The platform's routes, each declared once (functions/shared/routes.py): public, outside the OpenAPI description.

Swagger UI's script and styles have routes of their own, so that a browser caches them (functions/platform/docs.py).
Without the explorer (prod, unless `-c explorer=true`) the stack routes no GET /explorer (infra/domains/platform.py).
"""

from __future__ import annotations

from functions.shared.routes import Route, Routes

ROUTES = Routes(
    "platform",
    health=Route("GET", "/health", public=True, in_schema=False),
    swagger_ui=Route("GET", "/docs", public=True, in_schema=False),
    swagger_ui_script=Route("GET", "/docs/swagger-ui.js", public=True, in_schema=False),
    swagger_ui_styles=Route("GET", "/docs/swagger-ui.css", public=True, in_schema=False),
    explorer=Route("GET", "/explorer", public=True, in_schema=False),
)
