"""Games pure logic: the reserved game id, who may act for whom, and items <-> models with the seed's key names."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from functions.games.models import Game, GameIn, Membership
from functions.games.repository import (
    game_from,
    game_item,
    membership_from,
    membership_item,
)
from functions.games.service import require_self_or_admin
from functions.shared.auth import Caller
from functions.shared.errors import ForbiddenError


def test_a_game_may_not_take_the_id_of_a_sibling_path():
    with pytest.raises(ValidationError, match="reserved"):
        GameIn(game_id="by-user", name="X", max_players=2)
    assert GameIn(game_id="by-user-2", name="X", max_players=2).game_id == "by-user-2"


@pytest.mark.parametrize("max_players", [0, -1, 1001, 2.5, "2", True])
def test_max_players_is_a_whole_number_from_1_to_1000(max_players):
    with pytest.raises(ValidationError):
        GameIn(game_id="g", name="X", max_players=max_players)


def test_max_players_may_be_written_2_0_as_json_schema_integers_may():
    assert GameIn(game_id="g", name="X", max_players=2.0).max_players == 2


def test_users_act_for_themselves_and_admins_for_anyone():
    require_self_or_admin(Caller("sub-1", "alice", frozenset()), "alice")
    require_self_or_admin(Caller("sub-2", "root", frozenset({"admin"})), "alice")
    with pytest.raises(ForbiddenError):
        require_self_or_admin(Caller("sub-3", "bob", frozenset({"vehicle"})), "alice")
    with pytest.raises(ForbiddenError):  # the username decides, not the subject id
        require_self_or_admin(Caller("alice", "mallory", frozenset()), "alice")


def test_items_keep_the_seeds_key_names_and_read_back_the_same():
    game = Game(game_id="Game1", name="Game 1", max_players=4, player_count=1)
    assert game_item(game) == {"GameId": "Game1", "name": "Game 1", "maxPlayers": 4, "playerCount": 1}
    assert game_from(game_item(game)) == game
    membership = Membership(user_id="bob", game_id="Game1", joined_at=datetime(2026, 1, 1, 9, 30, tzinfo=UTC))
    assert membership_item(membership) == {"UserId": "bob", "GameId": "Game1", "joinedAt": "2026-01-01T09:30:00Z"}
    assert membership_from(membership_item(membership)) == membership
