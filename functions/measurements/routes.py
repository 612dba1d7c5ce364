"""Measurements's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "measurements",
    ingest=Route("POST", "/measurements/readings", group=ADMIN, responses={
        400: "400 READING_CONFLICT",
        409: "409 READING_OUT_OF_RANGE",
    }),
    readings_of=Route("GET", "/measurements/devices/{deviceId}/readings", paged=True),
)
