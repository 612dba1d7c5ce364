"""Games API: handler -> service -> repository on moto, fed API Gateway REST events, under the function's IAM role."""

from __future__ import annotations

import os
import random
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from functions.games import api
from functions.games.schema import GAME_USERS_INDEX, GAMES_TABLE, USER_GAMES_TABLE
from functions.shared import ddb
from functions.shared.auth import Caller
from functions.shared.domain import load
from functions.shared.errors import ConflictError
from seeds import games as seed
from tests.functional.conftest import client_for, error, fresh_tables, ok

ROUTES = load("games").routes

ADMIN = ("admin",)


tables = fresh_tables(api, GAMES_TABLE, USER_GAMES_TABLE)  # {env var: table name}
client = client_for(api)


def create(client, game_id: str = "chess", max_players: int = 2, name: str = "Chess"):
    return client.call("POST", "/games", body={"gameId": game_id, "name": name, "maxPlayers": max_players},
                       user="root", groups=ADMIN)


def join(client, player: str, game_id: str = "chess", **kwargs):
    """`player` joins, as themself unless `user` says who calls."""
    return client.call("PUT", f"/games/{game_id}/players/{player}", **{"user": player, **kwargs})


def leave(client, player: str, game_id: str = "chess", **kwargs):
    return client.call("DELETE", f"/games/{game_id}/players/{player}", **{"user": player, **kwargs})


def stored_game(tables, game_id: str = "chess") -> dict | None:
    return ddb.table(tables[GAMES_TABLE.env_var]).get_item(Key={"GameId": game_id}, ConsistentRead=True).get("Item")


def player_count(tables, game_id: str = "chess") -> int:
    return int(stored_game(tables, game_id)["playerCount"])


def memberships(tables) -> list[tuple[str, str]]:
    """Every (UserId, GameId) stored (a test-side check, never the code under test)."""
    items = ddb.table(tables[USER_GAMES_TABLE.env_var]).scan(ConsistentRead=True)["Items"]
    return sorted((item["UserId"], item["GameId"]) for item in items)


def players(client, game_id: str = "chess", **kwargs) -> list[str]:
    return [m["userId"] for m in ok(client.call("GET", f"/games/{game_id}/players?limit=100", **kwargs))["items"]]


# --- games ------------------------------------------------------------------------------------------------

def test_an_admin_creates_a_game_and_anyone_signed_in_reads_it(client):
    created = create(client, name=" Chess ")
    assert ok(created, 201) == {"gameId": "chess", "name": "Chess", "maxPlayers": 2, "playerCount": 0}
    assert ok(client.call("GET", "/games/chess", user="bob")) == created.body


def test_creating_an_existing_game_is_409_and_keeps_it(client, tables):
    ok(create(client), 201)
    ok(join(client, "alice"), 201)
    again = create(client, max_players=10, name="Other")
    assert error(again) == (409, "GAME_EXISTS")
    assert ok(client.call("GET", "/games/chess")) == {"gameId": "chess", "name": "Chess", "maxPlayers": 2,
                                                      "playerCount": 1}


def test_an_unknown_game_is_404(client):
    assert error(client.call("GET", "/games/nope")) == (404, "GAME_NOT_FOUND")


@pytest.mark.parametrize(("body", "field"), [
    ({"gameId": "chess", "name": "Chess", "maxPlayers": 0}, "body.maxPlayers"),
    ({"gameId": "chess", "name": "Chess", "maxPlayers": 1001}, "body.maxPlayers"),
    ({"gameId": "chess", "name": "Chess", "maxPlayers": "4"}, "body.maxPlayers"),
    ({"gameId": "chess", "name": " ", "maxPlayers": 4}, "body.name"),
    ({"gameId": "ch ess", "name": "Chess", "maxPlayers": 4}, "body.gameId"),
    ({"gameId": "by-user", "name": "Chess", "maxPlayers": 4}, "body.gameId"),
    ({"gameId": "chess", "name": "Chess", "maxPlayers": 4, "playerCount": 3}, "body.playerCount"),
    ({"name": "Chess", "maxPlayers": 4}, "body.gameId"),
])
def test_bad_game_input_is_400_and_writes_nothing(client, tables, body, field):
    reply = client.call("POST", "/games", body=body, user="root", groups=ADMIN)
    assert error(reply) == (400, "VALIDATION_FAILED")
    assert [d["field"] for d in reply.body["error"]["details"]] == [field]
    assert ddb.table(tables[GAMES_TABLE.env_var]).scan()["Items"] == []


def test_only_admins_create_games(client, tables):
    refused = client.call("POST", "/games", body={"gameId": "chess", "name": "Chess", "maxPlayers": 2}, user="alice")
    assert error(refused) == (403, "FORBIDDEN")
    assert stored_game(tables) is None


def test_every_route_needs_a_signed_in_caller(client, subtests):
    for route in ROUTES:
        url = route.path.replace("{gameId}", "chess").replace("{userId}", "alice")
        with subtests.test(route=f"{route.method} {route.path}"):
            assert error(client.call(route.method, url, user=None)) == (401, "UNAUTHORIZED")


@pytest.mark.parametrize("url", ["/games/ch%20ess", "/games/chess/players?limit=0", "/games/chess/players?limit=101",
                                 "/games/by-user/al%23ice"])
def test_bad_path_or_query_input_is_400(client, url):
    ok(create(client), 201)
    assert error(client.call("GET", url)) == (400, "VALIDATION_FAILED")


# --- join and leave ---------------------------------------------------------------------------------------

def test_a_user_joins_a_game_and_it_counts_them(client, tables):
    ok(create(client), 201)
    joined = ok(join(client, "alice"), 201)
    assert (joined["userId"], joined["gameId"]) == ("alice", "chess") and joined["joinedAt"]
    assert ok(client.call("GET", "/games/chess"))["playerCount"] == 1
    assert players(client) == ["alice"]
    assert ok(client.call("GET", "/games/by-user/alice"))["items"] == [joined]
    assert memberships(tables) == [("alice", "chess")]


def test_a_repeated_join_is_200_with_the_first_answer_and_counts_nothing(client, tables):
    ok(create(client, max_players=1), 201)
    first = ok(join(client, "alice"), 201)
    # the game is full now: a retry by its player is still the same join, not GAME_FULL
    assert ok(join(client, "alice"), 200) == first
    assert player_count(tables) == 1 and memberships(tables) == [("alice", "chess")]


def test_a_full_game_refuses_another_player_with_409_and_writes_nothing(client, tables):
    ok(create(client, max_players=2), 201)
    ok(join(client, "alice"), 201)
    ok(join(client, "bob"), 201)
    assert error(join(client, "carol")) == (409, "GAME_FULL")
    assert player_count(tables) == 2
    assert memberships(tables) == [("alice", "chess"), ("bob", "chess")]


def test_joining_an_unknown_game_is_404_and_writes_nothing(client, tables):
    assert error(join(client, "alice", "nope")) == (404, "GAME_NOT_FOUND")
    assert memberships(tables) == [] and stored_game(tables, "nope") is None


def test_leaving_frees_the_place_once_and_a_second_leave_is_404(client, tables):
    ok(create(client, max_players=1), 201)
    ok(join(client, "alice"), 201)
    assert leave(client, "alice").status == 204
    assert player_count(tables) == 0 and memberships(tables) == []
    assert error(leave(client, "alice")) == (404, "NOT_A_PLAYER")
    assert player_count(tables) == 0  # never below zero
    ok(join(client, "bob"), 201)  # the freed place is taken
    assert error(leave(client, "alice")) == (404, "NOT_A_PLAYER")
    assert player_count(tables) == 1 and memberships(tables) == [("bob", "chess")]


def test_leaving_an_unknown_game_is_404(client):
    assert error(leave(client, "alice", "nope")) == (404, "GAME_NOT_FOUND")


def test_users_join_and_leave_for_themselves_and_admins_for_anyone(client, tables):
    ok(create(client), 201)
    assert error(join(client, "bob", user="alice")) == (403, "FORBIDDEN")
    assert memberships(tables) == []
    ok(join(client, "bob", user="root", groups=ADMIN), 201)
    assert error(leave(client, "bob", user="alice")) == (403, "FORBIDDEN")
    assert error(client.call("GET", "/games/by-user/bob", user="alice")) == (403, "FORBIDDEN")
    assert [m["gameId"] for m in ok(client.call("GET", "/games/by-user/bob", user="root", groups=ADMIN))["items"]] == [
        "chess"
    ]
    assert players(client, user="alice") == ["bob"]  # a game's players are visible to anyone signed in
    assert leave(client, "bob", user="root", groups=ADMIN).status == 204
    assert player_count(tables) == 0 and memberships(tables) == []


def test_join_and_leave_are_each_one_conditioned_transaction(client, tables, calls):
    ok(create(client, max_players=3), 201)
    calls.clear()
    ok(join(client, "alice"), 201)
    assert calls.names() == ["TransactWriteItems"]
    ((request, _),) = calls.of("TransactWriteItems")
    update, put = (item["Update"] if "Update" in item else item["Put"] for item in request["TransactItems"])
    assert update["TableName"] == tables[GAMES_TABLE.env_var] and update["Key"] == {"GameId": {"S": "chess"}}
    assert update["ConditionExpression"] == "attribute_exists(GameId) AND playerCount < maxPlayers"
    assert update["UpdateExpression"] == "SET playerCount = playerCount + :one"
    assert put["TableName"] == tables[USER_GAMES_TABLE.env_var]
    assert put["ConditionExpression"] == "attribute_not_exists(UserId)"

    calls.clear()
    assert leave(client, "alice").status == 204
    assert calls.names() == ["TransactWriteItems"]
    ((request, _),) = calls.of("TransactWriteItems")
    update, delete = (item["Update"] if "Update" in item else item["Delete"] for item in request["TransactItems"])
    assert update["ConditionExpression"] == "attribute_exists(GameId) AND playerCount > :zero"
    assert update["UpdateExpression"] == "SET playerCount = playerCount - :one"
    assert delete["Key"] == {"UserId": {"S": "alice"}, "GameId": {"S": "chess"}}
    assert delete["ConditionExpression"] == "attribute_exists(UserId)"


def test_reads_are_one_key_based_call_each(client, calls):
    ok(create(client), 201)
    ok(join(client, "alice"), 201)
    calls.clear()
    ok(client.call("GET", "/games/chess"))
    assert calls.names() == ["GetItem"]
    calls.clear()
    players(client)
    ((request, _),) = calls.of("Query")
    assert calls.names() == ["Query"] and request["IndexName"] == GAME_USERS_INDEX
    calls.clear()
    ok(client.call("GET", "/games/by-user/alice"))
    ((request, _),) = calls.of("Query")
    assert calls.names() == ["Query"] and "IndexName" not in request


def test_several_games_are_one_batch_read_in_the_order_asked(client, calls):
    for game_id in ("chess", "go", "bridge"):
        ok(create(client, game_id, name=game_id.title()), 201)
    ok(join(client, "alice", "go"), 201)
    calls.clear()
    read = ok(client.call("GET", "/games?gameId=go&gameId=nope&gameId=chess&gameId=go", user="bob"))
    assert [(g["gameId"], g["name"], g["playerCount"]) for g in read] == [("go", "Go", 1), ("chess", "Chess", 0)]
    ((request, _),) = calls.of("BatchGetItem")  # one call, each key once, under the function's own grant
    assert calls.names() == ["BatchGetItem"]
    (keys,) = [table["Keys"] for table in request["RequestItems"].values()]
    assert keys == [{"GameId": {"S": game_id}} for game_id in ("go", "nope", "chess")]
    assert ok(client.call("GET", "/games?gameId=nope")) == []
    hundred = "&".join(f"gameId=g{n}" for n in range(100))
    assert ok(client.call("GET", f"/games?{hundred}")) == []
    for query in ("", "?gameId=", "?gameId=a/b", f"?{hundred}&gameId=one-more"):
        assert error(client.call("GET", f"/games{query}")) == (400, "VALIDATION_FAILED"), query
    assert error(client.call("GET", "/games?gameId=go", user=None))[0] == 401


def test_a_players_membership_is_one_consistent_get_and_a_miss_says_why(client, calls):
    ok(create(client), 201)
    joined = ok(join(client, "alice"), 201)
    calls.clear()
    assert ok(client.call("GET", "/games/chess/players/alice", user="bob")) == joined
    ((request, _),) = calls.of("GetItem")
    assert calls.names() == ["GetItem"] and request["ConsistentRead"] is True
    assert request["Key"] == {"UserId": {"S": "alice"}, "GameId": {"S": "chess"}}
    calls.clear()
    assert error(client.call("GET", "/games/chess/players/bob")) == (404, "NOT_A_PLAYER")
    assert calls.names() == ["GetItem", "GetItem"]
    assert error(client.call("GET", "/games/nope/players/alice")) == (404, "GAME_NOT_FOUND")
    ok(client.call("DELETE", "/games/chess/players/alice", user="alice"), 204)
    assert error(client.call("GET", "/games/chess/players/alice")) == (404, "NOT_A_PLAYER")


def test_players_of_an_unknown_game_is_404_and_of_an_empty_game_is_empty(client):
    assert error(client.call("GET", "/games/nope/players")) == (404, "GAME_NOT_FOUND")
    ok(create(client), 201)
    assert ok(client.call("GET", "/games/chess/players")) == {"items": [], "nextCursor": None}
    assert ok(client.call("GET", "/games/by-user/nobody", user="nobody")) == {"items": [], "nextCursor": None}


def test_the_users_games_of_a_user_named_players_are_not_a_games_players(client):
    """`/games/by-user/players` has the shape of `/games/{gameId}/players`: it is the user's games, as API
    Gateway routes it (a static segment wins), and no game may be called `by-user`."""
    ok(create(client, "go"), 201)
    ok(join(client, "players", "go"), 201)
    page = ok(client.call("GET", "/games/by-user/players", user="players"))
    assert [(m["userId"], m["gameId"]) for m in page["items"]] == [("players", "go")]


def test_lists_page_with_cursors_bound_to_their_list(client):
    ok(create(client, max_players=10), 201)
    ok(create(client, "go", max_players=10), 201)
    for user in ("u1", "u2", "u3", "u4", "u5"):
        ok(join(client, user), 201)
    seen, cursors = [], []
    while True:
        page = ok(client.call("GET", "/games/chess/players?limit=2" + (f"&cursor={cursors[-1]}" if cursors else "")))
        seen += [m["userId"] for m in page["items"]]
        if page["nextCursor"] is None:
            break
        cursors.append(page["nextCursor"])
    assert seen == ["u1", "u2", "u3", "u4", "u5"] and len(cursors) == 2
    assert error(client.call("GET", f"/games/go/players?limit=2&cursor={cursors[0]}")) == (400, "INVALID_CURSOR")
    assert error(client.call("GET", f"/games/by-user/alice?cursor={cursors[0]}")) == (400, "INVALID_CURSOR")

    ok(join(client, "u1", "go"), 201)
    first = ok(client.call("GET", "/games/by-user/u1?limit=1", user="u1"))
    rest = ok(client.call("GET", f"/games/by-user/u1?limit=1&cursor={first['nextCursor']}", user="u1"))
    assert [m["gameId"] for m in first["items"] + rest["items"]] == ["chess", "go"]


def test_the_count_is_always_the_number_of_players_whatever_the_requests(client, tables):
    # Given a 3-player game and a random mix of joins, repeated joins, leaves and repeated leaves by 6 users
    ok(create(client, max_players=3), 201)
    rng = random.Random(10)
    expected: set[str] = set()
    for _ in range(80):
        user = f"u{rng.randrange(6)}"
        if rng.random() < 0.5:
            reply = join(client, user)
            if user in expected:
                assert reply.status == 200
            elif len(expected) < 3:
                assert reply.status == 201
                expected.add(user)
            else:
                assert error(reply) == (409, "GAME_FULL")
        else:
            reply = leave(client, user)
            if user in expected:
                assert reply.status == 204
                expected.discard(user)
            else:
                assert error(reply) == (404, "NOT_A_PLAYER")
        # Then after every request the count is exactly the stored players, never negative nor above the limit
        assert player_count(tables) == len(expected) == len(memberships(tables))
        assert {u for u, _ in memberships(tables)} == expected


# --- concurrency ------------------------------------------------------------------------------------------

def concurrently(calls: list, workers: int = 20) -> list:
    """Run the calls from `workers` threads released at once; each result or the error it raised."""
    barrier = threading.Barrier(min(workers, len(calls)))

    def run(call):
        barrier.wait()
        try:
            return call()
        except ConflictError as refused:
            return refused

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run, calls))


def test_the_player_limit_holds_under_concurrent_joins(client, tables, atomic_dynamodb):
    # Given a game of 5 players (the service is called from the threads: a Powertools resolver serves one event at a
    # time, as a Lambda container does)
    ok(create(client, "arena", max_players=5), 201)
    service = api.service()
    # When 20 different users join at once
    outcomes = concurrently([
        lambda i=i: service.join(Caller(f"sub-p{i}", f"p{i}", frozenset()), "arena", f"p{i}") for i in range(20)
    ])
    # Then exactly 5 joined, 15 were refused GAME_FULL, and the game lists and counts exactly those 5
    assert Counter(getattr(o, "code", "joined") for o in outcomes) == {"joined": 5, "GAME_FULL": 15}
    winners = sorted(o.membership.user_id for o in outcomes if not isinstance(o, ConflictError))
    assert players(client, "arena") == winners
    assert player_count(tables, "arena") == 5


def test_concurrent_repeats_of_one_join_count_once(client, tables, atomic_dynamodb):
    ok(create(client, "arena", max_players=5), 201)
    service = api.service()
    alice = Caller("sub-alice", "alice", frozenset())
    outcomes = concurrently([lambda: service.join(alice, "arena", "alice") for _ in range(10)])
    assert sorted(o.created for o in outcomes) == [False] * 9 + [True]
    assert player_count(tables, "arena") == 1 and memberships(tables) == [("alice", "arena")]


def test_concurrent_leaves_and_joins_keep_the_count_exact(client, tables, atomic_dynamodb):
    # Given a full game of 5
    ok(create(client, "arena", max_players=5), 201)
    service = api.service()
    for i in range(5):
        service.join(Caller(f"sub-p{i}", f"p{i}", frozenset()), "arena", f"p{i}")
    # When its 5 players each leave twice while 10 newcomers try to join, all at once
    def leave_once(i):
        try:
            service.leave(Caller(f"sub-p{i}", f"p{i}", frozenset()), "arena", f"p{i}")
            return "left"
        except Exception as refused:  # noqa: BLE001 (the 404 of the second leave)
            return getattr(refused, "code", repr(refused))

    calls = [lambda i=i: leave_once(i) for i in range(5) for _ in range(2)] + [
        lambda i=i: service.join(Caller(f"sub-n{i}", f"n{i}", frozenset()), "arena", f"n{i}") for i in range(10)
    ]
    outcomes = concurrently(calls)
    # Then each player left once, at most 5 newcomers got in, and the count is exactly who is in the game
    assert Counter(o for o in outcomes[:10]) == {"left": 5, "NOT_A_PLAYER": 5}
    stored = memberships(tables)
    assert len(stored) <= 5 and all(user.startswith("n") for user, _ in stored)
    assert player_count(tables, "arena") == len(stored) == sum(not isinstance(o, ConflictError) for o in outcomes[10:])


# --- example data -----------------------------------------------------------------------------------------

def test_the_seed_loads_the_slides_examples_and_loading_twice_changes_nothing(client, tables):
    seed.load(os.environ)
    first = (memberships(tables), [stored_game(tables, g.game_id) for g in seed.GAMES])
    seed.load(os.environ)
    assert (memberships(tables), [stored_game(tables, g.game_id) for g in seed.GAMES]) == first
    assert memberships(tables) == [("bob", "Game1"), ("bob", "Game3"), ("fred", "Game2")]
    assert [int(game["playerCount"]) for game in first[1]] == [1, 1, 1]
    assert [m["gameId"] for m in ok(client.call("GET", "/games/by-user/bob", user="bob"))["items"]] == ["Game1", "Game3"]
    assert players(client, "Game2") == ["fred"]


def test_a_read_without_a_rule_takes_the_repository_of_the_service_the_resolver_gives(client, monkeypatch):
    """`Repository` (kit.repository_of) is resolved through the service's provider: overriding the service in the
    resolver's dependency_overrides, as a test with its own clock does, gives that service's repository too."""
    from functions.games.models import Game

    class Repository:
        def game(self, game_id: str) -> Game:
            return Game(game_id=game_id, name="from the override", max_players=3, player_count=0)

    class Service:
        repository = Repository()

    monkeypatch.setitem(api.app.dependency_overrides, api.service, Service)
    assert ok(client.call("GET", "/games/go"))["name"] == "from the override"
