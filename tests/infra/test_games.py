"""Games in the template: the seed's UserGames table with its switched-key index, the Games table, the routes and
the API function's exact grants."""

from __future__ import annotations

from typing import Any

from functions.games.api import app as games_app
from functions.games.schema import TABLES
from infra.domains.games import DOMAIN
from tests.infra.test_stack import (
    assert_served_behind_a_token,
    keys,
    logical_id,
    template_routes,
)


def table_props(raw: dict[str, Any], construct_id: str) -> dict[str, Any]:
    return raw["Resources"][logical_id(raw, "AWS::DynamoDB::Table", f"Games{construct_id}")]["Properties"]


def test_user_games_keeps_the_seeds_keys_and_its_index_switches_them(dev):
    props = table_props(dev.merged, "UserGamesTable")
    assert keys(props["KeySchema"]) == [("UserId", "HASH"), ("GameId", "RANGE")]
    (index,) = props["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "GameUsersIndex"
    assert keys(index["KeySchema"]) == [("GameId", "HASH"), ("UserId", "RANGE")]
    assert index["Projection"] == {"ProjectionType": "ALL"}  # a player's joinedAt is read from the index
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert not {"StreamSpecification", "TimeToLiveSpecification", "LocalSecondaryIndexes"} & set(props)


def test_games_holds_each_game_in_its_own_partition_with_nothing_else(dev):
    props = table_props(dev.merged, "GamesTable")
    assert keys(props["KeySchema"]) == [("GameId", "HASH")]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert not {"GlobalSecondaryIndexes", "StreamSpecification", "TimeToLiveSpecification"} & set(props)
    assert {spec.construct_id for spec in TABLES} == {"GamesTable", "UserGamesTable"}


def test_the_function_knows_its_tables_and_the_cursor_key_and_no_idempotency_table(dev):
    raw = dev.merged
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "GamesApiFunction")]["Properties"]
    variables = function["Environment"]["Variables"]
    assert variables["GAMES_TABLE_NAME"] == {"Ref": logical_id(raw, "AWS::DynamoDB::Table", "GamesGamesTable")}
    assert variables["USER_GAMES_TABLE_NAME"] == {"Ref": logical_id(raw, "AWS::DynamoDB::Table", "GamesUserGamesTable")}
    assert "CURSOR_SECRET_ARN" in variables  # the two lists are paged
    assert "IDEMPOTENCY_TABLE_NAME" not in variables  # creates are keyed by the client's gameId: a retry is a 409
    assert function["Handler"] == "functions.games.api.lambda_handler"


def test_routes_are_the_ones_the_function_serves_with_by_user_a_static_sibling_of_the_game_id(dev):
    routes = {(m, p) for m, p in template_routes(dev.merged) if p == "/games" or p.startswith("/games/")}
    # the routes functions/games/domain.toml declares, each served by the function, by-user beside {gameId}
    assert routes == {(r.method, r.path) for r in DOMAIN.routes}
    assert {("GET", "/games/by-user/{userId}"), ("GET", "/games/{gameId}")} <= routes
    assert_served_behind_a_token(dev.merged, routes, games_app)
