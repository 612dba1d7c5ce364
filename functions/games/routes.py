"""Games's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "games",
    # `by-user` is a static segment beside `{gameId}`: API Gateway prefers it, and the game id `by-user` is refused.
    games_of=Route("GET", "/games/by-user/{userId}", paged=True, responses={403: "403 FORBIDDEN"}),
    create_game=Route("POST", "/games", group=ADMIN, responses={201: "created", 409: "409 GAME_EXISTS"}),
    get_game=Route("GET", "/games/{gameId}", responses={404: "404 GAME_NOT_FOUND"}),
    players_of=Route("GET", "/games/{gameId}/players", paged=True, responses={404: "404 GAME_NOT_FOUND"}),
    join=Route("PUT", "/games/{gameId}/players/{userId}", responses={
        201: "joined",
        200: "was a player already: nothing changed",
        403: "403 FORBIDDEN",
        404: "404 GAME_NOT_FOUND",
        409: "409 GAME_FULL",
    }),
    leave=Route("DELETE", "/games/{gameId}/players/{userId}", responses={
        204: "left",
        403: "403 FORBIDDEN",
        404: "404 GAME_NOT_FOUND, NOT_A_PLAYER",
    }),
)
