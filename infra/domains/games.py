"""Games (seed 002, N:M relationships): the Games and UserGames tables, the API function, routes and grants."""

from __future__ import annotations

from constructs import Construct

from functions.games.schema import (
    TABLES,
)
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, SharedInfra, pattern_grants

# The domain as functions/games/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("games")

# `by-user` first: a static segment beside `{gameId}` (API Gateway prefers it; the game id `by-user` is refused).


def games(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Games", shared=shared, service="games", package="functions.games",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES), idempotency=False,
    )
