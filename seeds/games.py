"""Games example data (seed 002, slide "N:M relationships"): bob in Game1 and Game3, fred in Game2.

Written through the domain's repository, so the counts come from the join transactions. Loading twice changes
nothing: a game that exists is kept as it is, and a repeated join is answered with the stored membership.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from functions.games.models import Game, Membership
from functions.games.repository import GamesRepository, TableNames
from functions.shared.errors import ConflictError
from functions.shared.settings import Settings

MAX_PLAYERS = 4
GAMES = (
    Game(game_id="Game1", name="Game 1", max_players=MAX_PLAYERS, player_count=0),
    Game(game_id="Game2", name="Game 2", max_players=MAX_PLAYERS, player_count=0),
    Game(game_id="Game3", name="Game 3", max_players=MAX_PLAYERS, player_count=0),
)
JOINED_AT = datetime(2026, 1, 1, tzinfo=UTC)
# The seed's User-Games table, row by row: (UserId, GameId).
MEMBERSHIPS = (("bob", "Game1"), ("fred", "Game2"), ("bob", "Game3"))


def load(env: Mapping[str, str]) -> None:
    repository = GamesRepository(TableNames(Settings(env)))
    for game in GAMES:
        try:
            repository.create_game(game)
        except ConflictError:
            pass  # loaded before: keep it (and its players)
    for user_id, game_id in MEMBERSHIPS:
        repository.join(Membership(user_id=user_id, game_id=game_id, joined_at=JOINED_AT))
