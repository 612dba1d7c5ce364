"""Messaging's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import Route, Routes

ROUTES = Routes(
    "messaging",
    send=Route("POST", "/messaging/messages", responses={201: "sent", 409: "409 MESSAGE_ID_TAKEN"}),
    inbox=Route("GET", "/messaging/inbox", paged=True),
    outbox=Route("GET", "/messaging/outbox", paged=True),
    get_message=Route("GET", "/messaging/messages/{msgId}", responses={404: "404 MESSAGE_NOT_FOUND"}),
)
