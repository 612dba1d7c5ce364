"""Games API (seed 002, N:M relationships): games, their players, a user's games; join and leave under a limit."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query
from pydantic import StringConstraints

from functions.games import models
from functions.games.repository import GamesRepository, TableNames
from functions.games.service import GamesService
from functions.shared import kit

router = kit.DomainRouter.of(__file__)


service = kit.service(GamesService, GamesRepository, TableNames)
Service = Annotated[GamesService, kit.Depends(service)]
Repository = Annotated[GamesRepository, kit.Depends(kit.repository_of(service))]


# First: API Gateway prefers the static `by-user` to `{gameId}`, and so must Powertools' first-match routing
# (`/games/by-user/players` is the games of user "players"; no game may be called "by-user").
@router.serve
@kit.paged
def games_of(user_id: models.UserIdPath, svc: Service, caller: kit.Caller,
             page: kit.PageRequest) -> models.MembershipPage:
    """List the games a user plays in."""
    return page.of(models.MembershipPage, svc.games_of, caller, user_id)


@router.serve
def create_game(game: models.GameIn, svc: Service) -> Response[models.Game]:
    """Create a game."""
    return kit.answer(201, svc.create_game(game))


@router.serve
def get_game(game_id: models.GameIdPath, repo: Repository) -> models.Game:
    """Read a game."""
    return repo.game(game_id)


@router.serve
def games_by_id(
    game_ids: Annotated[list[Annotated[str, StringConstraints(pattern=models.GAME_ID_PATTERN)]],
                        Query(alias="gameId", min_length=1, max_length=100, description="repeated: 1 to 100 ids")],
    repo: Repository,
) -> list[models.Game]:
    """Read several games at once, in the order asked (an unknown id is left out)."""
    return repo.games(game_ids)


@router.serve
@kit.paged
def players_of(game_id: models.GameIdPath, svc: Service, page: kit.PageRequest) -> models.MembershipPage:
    """List the players of a game."""
    return page.of(models.MembershipPage, svc.players_of, game_id)


@router.serve
def membership(game_id: models.GameIdPath, user_id: models.UserIdPath, repo: Repository) -> models.Membership:
    """Read whether a user plays in a game."""
    return repo.membership(user_id, game_id)


@router.serve
def join(game_id: models.GameIdPath, user_id: models.UserIdPath, svc: Service,
         caller: kit.Caller) -> Response[models.Membership]:
    """Join a game as a player."""
    joined = svc.join(caller, game_id, user_id)
    return kit.created(joined.created, joined.membership, metric="GameJoined")


@router.serve
def leave(game_id: models.GameIdPath, user_id: models.UserIdPath, svc: Service, caller: kit.Caller) -> Response[None]:
    """Leave a game."""
    svc.leave(caller, game_id, user_id)
    return Response(status_code=204)


app, lambda_handler = kit.serve(router)
