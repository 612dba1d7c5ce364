"""Games rules that are not storage: who may act for whom, what is missing, the time of a join. A read whose only
rule is its key (a game, a membership) goes from the handler to the repository (ADR 0128)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from functions.games import models
from functions.games.repository import GamesRepository, Joined, StartKey
from functions.shared import auth
from functions.shared.auth import Caller
from functions.shared.pages import Page


def utc_now() -> datetime:
    return datetime.now(UTC)


# A user joins, leaves and lists their own games; an admin may do it for anyone (e.g. remove a player).
require_self_or_admin = auth.require_self_or_admin


class GamesService:
    def __init__(self, repository: GamesRepository, clock: Callable[[], datetime] = utc_now) -> None:
        self.repository = repository
        self._clock = clock

    # games

    def create_game(self, request: models.GameIn) -> models.Game:
        return self.repository.create_game(models.Game(**request.model_dump(), player_count=0))

    def players_of(self, game_id: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.players_of(game_id, limit=limit, start_key=start_key)
        if not page.items and start_key is None:
            self.repository.game(game_id)  # 404 for an unknown game, [] for one nobody joined
        return page

    # memberships

    def games_of(self, caller: Caller, user_id: str, *, limit: int, start_key: StartKey) -> Page:
        """Users are not stored here (they are the identity provider's): an unknown user has no games, []."""
        require_self_or_admin(caller, user_id)
        return self.repository.games_of(user_id, limit=limit, start_key=start_key)

    def join(self, caller: Caller, game_id: str, user_id: str) -> Joined:
        require_self_or_admin(caller, user_id)
        return self.repository.join(models.Membership(user_id=user_id, game_id=game_id, joined_at=self._clock()))

    def leave(self, caller: Caller, game_id: str, user_id: str) -> None:
        require_self_or_admin(caller, user_id)
        self.repository.leave(user_id, game_id)
