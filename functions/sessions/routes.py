"""Sessions's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import Route, Routes

ROUTES = Routes(
    "sessions",
    create_session=Route("POST", "/sessions", responses={201: "created", 409: "409 TOKEN_TAKEN"}),
    get_session=Route("GET", "/sessions/{token}", responses={404: "404 SESSION_NOT_FOUND"}),
    delete_session=Route("DELETE", "/sessions/{token}", responses={
        204: "ended (or gone already)",
        404: "404 SESSION_NOT_FOUND",
    }),
    sessions_of=Route("GET", "/sessions/users/{username}", paged=True, responses={403: "403 NOT_YOUR_SESSIONS"}),
    delete_sessions_of=Route("DELETE", "/sessions/users/{username}", responses={
        204: "all ended",
        403: "403 NOT_YOUR_SESSIONS",
    }),
)
