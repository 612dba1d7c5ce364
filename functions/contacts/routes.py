"""Contacts's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "contacts",
    create_person=Route("POST", "/contacts/persons", group=ADMIN, responses={201: "created"}),
    list_persons=Route("GET", "/contacts/persons", paged=True),
    get_items=Route("GET", "/contacts/items/{id}", responses={404: "404 NOT_FOUND"}),
    create_address=Route("POST", "/contacts/addresses", group=ADMIN, responses={201: "created"}),
    link_address=Route("POST", "/contacts/persons/{personId}/addresses", group=ADMIN, responses={
        201: "created",
        404: "404 ADDRESS_NOT_FOUND, PERSON_NOT_FOUND",
    }),
    end_link=Route("PATCH", "/contacts/person-addresses/{linkId}", group=ADMIN, responses={
        404: "404 NOT_FOUND",
        409: "409 LINK_ALREADY_ENDED, END_BEFORE_START",
    }),
    addresses_of=Route("GET", "/contacts/persons/{personId}/addresses", paged=True, responses={
        404: "404 PERSON_NOT_FOUND",
    }),
)
