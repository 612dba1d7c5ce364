"""Games API (seed 002, N:M relationships): games, their players, a user's games; join and leave under a limit."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Path

from functions.games.models import (
    GAME_ID_PATTERN,
    USER_ID_PATTERN,
    Game,
    GameIn,
    Membership,
    MembershipPage,
)
from functions.games.repository import GamesRepository, TableNames
from functions.games.routes import ROUTES
from functions.games.service import GamesService
from functions.shared.auth import caller_of
from functions.shared.handler import api_handler
from functions.shared.http import DomainRouter, build_resolver
from functions.shared.models import dump
from functions.shared.observability import metrics
from functions.shared.pagination import DEFAULT_LIMIT, Cursor, Limit, paginate
from functions.shared.settings import settings

router = DomainRouter(ROUTES)

GameIdPath = Annotated[str, Path(pattern=GAME_ID_PATTERN)]
UserIdPath = Annotated[str, Path(pattern=USER_ID_PATTERN)]


@lru_cache(maxsize=1)
def service() -> GamesService:
    return GamesService(GamesRepository(TableNames(settings())))


def _json(status: int, body: dict) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


# First: API Gateway prefers the static `by-user` to `{gameId}`, and so must Powertools' first-match routing
# (`/games/by-user/players` is the games of user "players"; no game may be called "by-user").
@router.serve
def games_of(user_id: UserIdPath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> MembershipPage:
    """List the games a user plays in."""
    caller = caller_of(app)
    return paginate(
        MembershipPage, f"games.user-games/{user_id}", cursor,
        lambda start: service().games_of(caller, user_id, limit=limit, start_key=start),
    )


@router.serve
def create_game(game: GameIn) -> Response[Game]:
    """Create a game."""
    return _json(201, dump(service().create_game(game)))


@router.serve
def get_game(game_id: GameIdPath) -> Game:
    """Read a game."""
    return service().get_game(game_id)


@router.serve
def players_of(game_id: GameIdPath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> MembershipPage:
    """List the players of a game."""
    return paginate(
        MembershipPage, f"games.game-users/{game_id}", cursor,
        lambda start: service().players_of(game_id, limit=limit, start_key=start),
    )


@router.serve
def join(game_id: GameIdPath, user_id: UserIdPath) -> Response[Membership]:
    """Join a game as a player."""
    joined = service().join(caller_of(app), game_id, user_id)
    if joined.created:
        metrics.add_metric(name="GameJoined", unit="Count", value=1)
    return _json(201 if joined.created else 200, dump(joined.membership))


@router.serve
def leave(game_id: GameIdPath, user_id: UserIdPath) -> Response[None]:
    """Leave a game."""
    service().leave(caller_of(app), game_id, user_id)
    return Response(status_code=204)


app = build_resolver()
app.include_router(router)

lambda_handler = api_handler(app)
