"""Games table access: one method per access pattern (docs/games.md), the only module here that talks to DynamoDB.

Every rule is enforced by DynamoDB itself, in one request:
- a game is created once: PutItem `attribute_not_exists(GameId)`;
- a game never has more players than `maxPlayers`, and `playerCount` is always the number of its memberships:
  joining is one transaction that adds 1 to the count on condition `playerCount < maxPlayers` and puts the
  membership on condition it does not exist; leaving deletes the membership on condition it exists and takes
  1 off the count in the same transaction. So neither concurrency nor a retried request can overfill a game
  or make its count drift.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.games import models
from functions.games.schema import GAME_USERS_INDEX, GAMES_TABLE, USER_GAMES_TABLE
from functions.shared import ddb
from functions.shared.errors import ConflictError, NotFoundError
from functions.shared.pages import Page, read_page
from functions.shared.settings import TableName, Tables

StartKey = dict[str, Any] | None
# A repeated join reads the membership its transaction found; if that member left in between, join again.
_JOIN_ATTEMPTS = 3


# --- keys and items -------------------------------------------------------------------------------------

def game_key(game_id: str) -> dict[str, str]:
    return {"GameId": game_id}


def membership_key(user_id: str, game_id: str) -> dict[str, str]:
    return {"UserId": user_id, "GameId": game_id}


def game_item(game: models.Game) -> dict[str, Any]:
    return {**game_key(game.game_id), "name": game.name, "maxPlayers": game.max_players,
            "playerCount": game.player_count}


def game_from(item: Mapping[str, Any]) -> models.Game:
    return models.Game(game_id=item["GameId"], name=item["name"], max_players=int(item["maxPlayers"]),
                player_count=int(item["playerCount"]))


def membership_item(membership: models.Membership) -> dict[str, Any]:
    return {**membership_key(membership.user_id, membership.game_id),
            "joinedAt": membership.model_dump(mode="json", by_alias=True)["joinedAt"]}


def membership_from(item: Mapping[str, Any]) -> models.Membership:
    return models.Membership(user_id=item["UserId"], game_id=item["GameId"], joined_at=item["joinedAt"])


def _game_not_found(game_id: str) -> NotFoundError:
    return NotFoundError(f"no game {game_id}", code="GAME_NOT_FOUND")


def _not_a_player(user_id: str, game_id: str) -> NotFoundError:
    return NotFoundError(f"{user_id} is not a player of game {game_id}", code="NOT_A_PLAYER")


@dataclass(frozen=True)
class Joined:
    membership: models.Membership
    created: bool  # False: the user was in the game already (a repeated join wrote and counted nothing)


class TableNames(Tables):
    games = TableName(GAMES_TABLE)
    user_games = TableName(USER_GAMES_TABLE)


# --- the repository ---------------------------------------------------------------------------------------

class GamesRepository:
    def __init__(self, tables: TableNames) -> None:
        self.tables = tables

    # games

    def create_game(self, game: models.Game) -> models.Game:
        """Create a game: PutItem on condition `attribute_not_exists(GameId)` (409 GAME_EXISTS otherwise)."""
        try:
            ddb.table(self.tables.games).put_item(
                Item=game_item(game), ConditionExpression="attribute_not_exists(GameId)"
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            raise ConflictError(f"a game {game.game_id} exists", code="GAME_EXISTS") from error
        return game

    def get_game(self, game_id: str) -> models.Game | None:
        """Get a game with its player count: GetItem on `GameId`."""
        item = ddb.table(self.tables.games).get_item(Key=game_key(game_id)).get("Item")
        return None if item is None else game_from(item)

    def game(self, game_id: str) -> models.Game:
        """A game (`get_game`), or 404 GAME_NOT_FOUND."""
        game = self.get_game(game_id)
        if game is None:
            raise _game_not_found(game_id)
        return game

    def games(self, game_ids: Sequence[str]) -> list[models.Game]:
        """Several games: BatchGetItem on `GameId` (≤ 100 keys: one call, unprocessed keys retried), in the order
        asked, each once; an unknown id is left out."""
        asked = ddb.unique(game_ids)
        items = ddb.batch_get(self.tables.games, [game_key(game_id) for game_id in asked])
        found = {game.game_id: game for game in map(game_from, items)}
        return [found[game_id] for game_id in asked if game_id in found]

    # memberships

    def get_membership(self, user_id: str, game_id: str) -> models.Membership | None:
        """Is this user in this game: GetItem on (`UserId`, `GameId`), strongly consistent."""
        item = (
            ddb.table(self.tables.user_games)
            .get_item(Key=membership_key(user_id, game_id), ConsistentRead=True)
            .get("Item")
        )
        return None if item is None else membership_from(item)

    def membership(self, user_id: str, game_id: str) -> models.Membership:
        """A user's membership of a game (`get_membership`), or 404: a miss costs one more read, of the game, to tell
        an unknown game (GAME_NOT_FOUND) from a game the user is not in (NOT_A_PLAYER)."""
        membership = self.get_membership(user_id, game_id)
        if membership is None:
            self.game(game_id)
            raise _not_a_player(user_id, game_id)
        return membership

    def games_of(self, user_id: str, *, limit: int, start_key: StartKey) -> Page:
        """The games of a user: Query UserGames on `UserId = :user`, in GameId order."""
        return self._page(limit, start_key, KeyConditionExpression=Key("UserId").eq(user_id))

    def players_of(self, game_id: str, *, limit: int, start_key: StartKey) -> Page:
        """The players of a game: Query GameUsersIndex (the switched keys) on `GameId = :game`, in UserId order."""
        return self._page(
            limit, start_key, IndexName=GAME_USERS_INDEX, KeyConditionExpression=Key("GameId").eq(game_id)
        )

    def join(self, membership: models.Membership) -> Joined:
        """Join a game: TransactWriteItems of Update game `playerCount + 1` if it exists and
        `playerCount < maxPlayers`, and Put membership if `attribute_not_exists`. A repeated join (the membership
        exists) is answered with the stored membership: it neither writes nor counts anything."""
        for _ in range(_JOIN_ATTEMPTS):
            failed = ddb.transact_write(self._join_actions(membership))
            if failed is None:
                return Joined(membership, created=True)
            if failed.name == "game" and failed.item is None:
                raise _game_not_found(membership.game_id) from failed.error
            # The membership exists, or the game is full, or both (DynamoDB may report only one failed condition):
            # whether the user is in the game decides.
            existing = self.get_membership(membership.user_id, membership.game_id)
            if existing is not None:
                return Joined(existing, created=False)
            if "game" in failed.names:
                raise ConflictError(
                    f"game {membership.game_id} has all its players", code="GAME_FULL"
                ) from failed.error
            # The membership existed when the transaction ran and is gone now: the player left meanwhile.
        raise ConflictError("the game's players kept changing while joining; retry", code="CONCURRENT_CHANGE")

    def leave(self, user_id: str, game_id: str) -> None:
        """Leave a game: TransactWriteItems of Update game `playerCount - 1` if `playerCount > 0`, and Delete
        membership if it exists. 404 NOT_A_PLAYER when the user is not in the game (nothing written)."""
        failed = ddb.transact_write([
            ("game", {
                "Update": {
                    "TableName": self.tables.games,
                    "Key": game_key(game_id),
                    "UpdateExpression": "SET playerCount = playerCount - :one",
                    "ConditionExpression": "attribute_exists(GameId) AND playerCount > :zero",
                    "ExpressionAttributeValues": {":one": 1, ":zero": 0},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("membership", {
                "Delete": {
                    "TableName": self.tables.user_games,
                    "Key": membership_key(user_id, game_id),
                    "ConditionExpression": "attribute_exists(UserId)",
                }
            }),
        ])
        if failed is None:
            return
        if failed.name == "game" and failed.item is None:
            raise _game_not_found(game_id) from failed.error
        # The membership is missing (a game with no players has none either: its count is never above them).
        raise _not_a_player(user_id, game_id) from failed.error

    # helpers

    def _join_actions(self, membership: models.Membership) -> list[tuple[str, dict[str, Any]]]:
        return [
            ("game", {
                "Update": {
                    "TableName": self.tables.games,
                    "Key": game_key(membership.game_id),
                    "UpdateExpression": "SET playerCount = playerCount + :one",
                    "ConditionExpression": "attribute_exists(GameId) AND playerCount < maxPlayers",
                    "ExpressionAttributeValues": {":one": 1},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("membership", {
                "Put": {
                    "TableName": self.tables.user_games,
                    "Item": membership_item(membership),
                    "ConditionExpression": "attribute_not_exists(UserId)",
                }
            }),
        ]

    def _page(self, limit: int, start_key: StartKey, **query: Any) -> Page:
        table = ddb.table(self.tables.user_games)
        return read_page(table.query, membership_from, limit=limit, start_key=start_key, **query)

