"""Games API models: camelCase on the wire (`gameId`, `userId`); the repository maps them to the stored items,
whose key attributes keep the seed's names (`GameId`, `UserId`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import AfterValidator, Field, StringConstraints

from functions.shared.models import ApiModel, JsonInt, PageOf, stripped_rules

GAME_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
USER_ID_PATTERN = r"^[A-Za-z0-9._@+-]{1,128}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
GameIdPath = Annotated[str, Path(pattern=GAME_ID_PATTERN)]
UserIdPath = Annotated[str, Path(pattern=USER_ID_PATTERN)]

# `/games/by-user/{userId}` is a sibling of `/games/{gameId}`: a game with this id could never be read through
# `GET /games/{gameId}/players` (API Gateway would route it to the user's games), so no game may take it.
RESERVED_GAME_IDS = frozenset({"by-user"})
MAX_PLAYERS_LIMIT = 1000


def not_reserved(game_id: str) -> str:
    if game_id in RESERVED_GAME_IDS:
        raise ValueError(f"'{game_id}' is reserved (it is a path of the API)")
    return game_id


GameId = Annotated[str, StringConstraints(pattern=GAME_ID_PATTERN), AfterValidator(not_reserved)]


class GameIn(ApiModel):
    game_id: GameId
    name: Annotated[str, *stripped_rules(1, 200)]
    max_players: Annotated[JsonInt, Field(ge=1, le=MAX_PLAYERS_LIMIT, strict=True)]


class Game(ApiModel):
    game_id: str
    name: str
    max_players: int
    player_count: int = Field(description="players in the game now, changed in the join/leave transaction")


class Membership(ApiModel):
    """A user in a game: an item of UserGames, and of GameUsersIndex with the keys switched."""

    user_id: str
    game_id: str
    joined_at: datetime


class MembershipPage(PageOf[Membership]):
    pass
