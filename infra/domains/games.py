"""Games (seed 002, N:M relationships): the Games and UserGames tables, the API function, routes and grants."""

from __future__ import annotations

from constructs import Construct

from functions.games.routes import ROUTES
from functions.games.schema import (
    GAME_USERS_INDEX,
    GAMES_TABLE,
    TABLES,
    USER_GAMES_TABLE,
)
from infra.constructs.api_domain import ApiDomain, Grant, SharedInfra

# `by-user` first: a static segment beside `{gameId}` (API Gateway prefers it; the game id `by-user` is refused).

# Exactly what functions/games/repository.py calls: the join/leave transactions Update the game and Put/Delete the
# membership; GetItem for a game and for a repeated join's membership; Query on the table and on GameUsersIndex.
GRANTS = [
    Grant(GAMES_TABLE, ("GetItem", "PutItem", "UpdateItem")),
    Grant(USER_GAMES_TABLE, ("GetItem", "Query", "PutItem", "DeleteItem"), indexes=(GAME_USERS_INDEX,)),
]


def games(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Games", shared=shared, service="games", package="functions.games",
        tables=TABLES, routes=ROUTES, grants=GRANTS, idempotency=False,
    )
