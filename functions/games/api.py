"""Games API (seed 002, N:M relationships): games, their players, a user's games; join and leave under a limit."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Depends, Response, content_types
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
from functions.shared.container import per_container
from functions.shared.handler import api_handler
from functions.shared.http import DomainRouter, build_resolver
from functions.shared.models import dump
from functions.shared.observability import metrics
from functions.shared.pagination import DEFAULT_LIMIT, Cursor, Limit, paginate
from functions.shared.settings import settings

router = DomainRouter(ROUTES)

GameIdPath = Annotated[str, Path(pattern=GAME_ID_PATTERN)]
UserIdPath = Annotated[str, Path(pattern=USER_ID_PATTERN)]


@per_container
def service() -> GamesService:
    return GamesService(GamesRepository(TableNames(settings())))


Service = Annotated[GamesService, Depends(service)]


def _json(status: int, body: dict) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


# First: API Gateway prefers the static `by-user` to `{gameId}`, and so must Powertools' first-match routing
# (`/games/by-user/players` is the games of user "players"; no game may be called "by-user").
@router.serve
def games_of(user_id: UserIdPath, svc: Service, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> MembershipPage:
    """List the games a user plays in."""
    caller = caller_of(app)
    return paginate(
        app, MembershipPage, cursor, lambda start: svc.games_of(caller, user_id, limit=limit, start_key=start)
    )


@router.serve
def create_game(game: GameIn, svc: Service) -> Response[Game]:
    """Create a game."""
    return _json(201, dump(svc.create_game(game)))


@router.serve
def get_game(game_id: GameIdPath, svc: Service) -> Game:
    """Read a game."""
    return svc.get_game(game_id)


@router.serve
def players_of(
    game_id: GameIdPath, svc: Service, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
) -> MembershipPage:
    """List the players of a game."""
    return paginate(app, MembershipPage, cursor, lambda start: svc.players_of(game_id, limit=limit, start_key=start))


@router.serve
def join(game_id: GameIdPath, user_id: UserIdPath, svc: Service) -> Response[Membership]:
    """Join a game as a player."""
    joined = svc.join(caller_of(app), game_id, user_id)
    if joined.created:
        metrics.add_metric(name="GameJoined", unit="Count", value=1)
    return _json(201 if joined.created else 200, dump(joined.membership))


@router.serve
def leave(game_id: GameIdPath, user_id: UserIdPath, svc: Service) -> Response[None]:
    """Leave a game."""
    svc.leave(caller_of(app), game_id, user_id)
    return Response(status_code=204)


app = build_resolver()
app.include_router(router)

lambda_handler = api_handler(app)
