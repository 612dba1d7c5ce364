"""Games API (seed 002, N:M relationships): games, their players, a user's games; join and leave under a limit."""

from __future__ import annotations

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
from functions.games.service import GamesService
from functions.shared import kit
from functions.shared.domain import load

router = kit.DomainRouter(load(__file__).routes)

GameIdPath = Annotated[str, Path(pattern=GAME_ID_PATTERN)]
UserIdPath = Annotated[str, Path(pattern=USER_ID_PATTERN)]


service = kit.service(GamesService, GamesRepository, TableNames)
Service = Annotated[GamesService, kit.Depends(service)]


def _json(status: int, body: dict) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


# First: API Gateway prefers the static `by-user` to `{gameId}`, and so must Powertools' first-match routing
# (`/games/by-user/players` is the games of user "players"; no game may be called "by-user").
@router.serve
@kit.paged
def games_of(user_id: UserIdPath, svc: Service, caller: kit.Caller, page: kit.PageRequest) -> MembershipPage:
    """List the games a user plays in."""
    caller = caller
    return page.page(MembershipPage,
                     lambda start: svc.games_of(caller, user_id, limit=page.limit, start_key=start))


@router.serve
def create_game(game: GameIn, svc: Service) -> Response[Game]:
    """Create a game."""
    return _json(201, kit.dump(svc.create_game(game)))


@router.serve
def get_game(game_id: GameIdPath, svc: Service) -> Game:
    """Read a game."""
    return svc.get_game(game_id)


@router.serve
@kit.paged
def players_of(game_id: GameIdPath, svc: Service, page: kit.PageRequest) -> MembershipPage:
    """List the players of a game."""
    return page.page(MembershipPage,
                     lambda start: svc.players_of(game_id, limit=page.limit, start_key=start))


@router.serve
def membership(game_id: GameIdPath, user_id: UserIdPath, svc: Service) -> Membership:
    """Read whether a user plays in a game."""
    return svc.membership(game_id, user_id)


@router.serve
def join(game_id: GameIdPath, user_id: UserIdPath, svc: Service, caller: kit.Caller) -> Response[Membership]:
    """Join a game as a player."""
    joined = svc.join(caller, game_id, user_id)
    if joined.created:
        kit.metrics.add_metric(name="GameJoined", unit="Count", value=1)
    return _json(201 if joined.created else 200, kit.dump(joined.membership))


@router.serve
def leave(game_id: GameIdPath, user_id: UserIdPath, svc: Service, caller: kit.Caller) -> Response[None]:
    """Leave a game."""
    svc.leave(caller, game_id, user_id)
    return Response(status_code=204)


app, lambda_handler = kit.serve(router)
