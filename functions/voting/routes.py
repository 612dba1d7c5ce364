"""Voting's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "voting",
    put_poll=Route("PUT", "/voting/polls/{pollId}", group=ADMIN, responses={
        200: "the same poll existed already",
        201: "created",
        409: "409 POLL_EXISTS",
    }),
    get_poll=Route("GET", "/voting/polls/{pollId}", responses={404: "404 POLL_NOT_FOUND"}),
    vote=Route("POST", "/voting/polls/{pollId}/votes", responses={
        201: "counted (results show it within a second or two)",
        404: "404 POLL_NOT_FOUND",
        409: "409 ALREADY_VOTED, UNKNOWN_CANDIDATE",
    }),
    my_vote=Route("GET", "/voting/polls/{pollId}/votes/me", responses={404: "404 NO_VOTE, POLL_NOT_FOUND"}),
    change_vote=Route("PUT", "/voting/polls/{pollId}/votes/me", responses={
        404: "404 NO_VOTE, POLL_NOT_FOUND",
        409: "409 UNKNOWN_CANDIDATE",
    }),
    withdraw_vote=Route("DELETE", "/voting/polls/{pollId}/votes/me", responses={
        204: "withdrawn",
        404: "404 NO_VOTE, POLL_NOT_FOUND",
    }),
    results=Route("GET", "/voting/polls/{pollId}/results", responses={404: "404 POLL_NOT_FOUND"}),
    recount=Route("POST", "/voting/polls/{pollId}/recount", group=ADMIN, responses={
        404: "404 POLL_NOT_FOUND",
        409: "409 RECOUNT_BUSY",
    }),
)
