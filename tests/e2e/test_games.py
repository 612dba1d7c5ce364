"""Games over HTTP on the local runtime: the slide's examples, every route, and the player limit under concurrency."""

from __future__ import annotations

import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from tests.e2e.support import code

ADMIN = ("admin",)


def new_game(api, max_players: int) -> str:
    game_id = f"game-{uuid.uuid4().hex[:10]}"
    reply = api.call("POST", "/games", user="root", groups=ADMIN,
                     json={"gameId": game_id, "name": "Test game", "maxPlayers": max_players})
    assert reply.status_code == 201, reply.text
    return game_id



def players(api, game_id: str) -> list[str]:
    reply = api.call("GET", f"/games/{game_id}/players?limit=100")
    assert reply.status_code == 200, reply.text
    return [m["userId"] for m in reply.json()["items"]]


def test_the_slides_examples_are_answered(api):
    bobs = api.call("GET", "/games/by-user/bob", user="bob")
    assert bobs.status_code == 200 and [m["gameId"] for m in bobs.json()["items"]] == ["Game1", "Game3"]
    freds = api.call("GET", "/games/by-user/fred", user="fred").json()["items"]
    assert [m["gameId"] for m in freds] == ["Game2"]
    assert players(api, "Game1") == ["bob"] and players(api, "Game2") == ["fred"] and players(api, "Game3") == ["bob"]
    game = api.call("GET", "/games/Game1").json()
    assert game == {"gameId": "Game1", "name": "Game 1", "maxPlayers": 4, "playerCount": 1}
    # several at once, through API Gateway's multi-value query string: in the order asked, an unknown id left out
    several = api.call("GET", "/games?gameId=Game3&gameId=nope&gameId=Game1").json()
    assert [g["gameId"] for g in several] == ["Game3", "Game1"] and several[1] == game


def test_create_join_and_leave_with_their_refusals(api):
    game_id = new_game(api, max_players=2)
    again = api.call("POST", "/games", user="root", groups=ADMIN,
                     json={"gameId": game_id, "name": "Again", "maxPlayers": 9})
    assert code(again) == (409, "GAME_EXISTS")
    assert code(api.call("POST", "/games", json={"gameId": "mine", "name": "Mine", "maxPlayers": 2})) == (403, "FORBIDDEN")
    bad = api.call("POST", "/games", user="root", groups=ADMIN, json={"gameId": "by-user", "name": "X", "maxPlayers": 2})
    assert code(bad) == (400, "VALIDATION_FAILED")

    base = f"/games/{game_id}/players"
    first = api.call("PUT", f"{base}/alice", user="alice")
    assert first.status_code == 201
    repeated = api.call("PUT", f"{base}/alice", user="alice")
    assert repeated.status_code == 200 and repeated.json() == first.json()
    assert code(api.call("PUT", f"{base}/bob", user="alice")) == (403, "FORBIDDEN")
    assert api.call("PUT", f"{base}/bob", user="root", groups=ADMIN).status_code == 201  # an admin for anyone
    assert code(api.call("PUT", f"{base}/carol", user="carol")) == (409, "GAME_FULL")
    assert players(api, game_id) == ["alice", "bob"]
    assert api.call("GET", f"/games/{game_id}").json()["playerCount"] == 2

    assert api.call("DELETE", f"{base}/alice", user="alice").status_code == 204
    assert code(api.call("DELETE", f"{base}/alice", user="alice")) == (404, "NOT_A_PLAYER")
    assert api.call("PUT", f"{base}/carol", user="carol").status_code == 201
    assert players(api, game_id) == ["bob", "carol"]
    assert api.call("GET", f"/games/{game_id}").json()["playerCount"] == 2
    carols = api.call("GET", "/games/by-user/carol", user="carol").json()["items"]
    assert game_id in [m["gameId"] for m in carols]

    assert code(api.call("GET", "/games/no-such-game")) == (404, "GAME_NOT_FOUND")
    assert code(api.call("PUT", "/games/no-such-game/players/alice", user="alice")) == (404, "GAME_NOT_FOUND")
    assert code(api.call("GET", "/games/by-user/bob", user="alice")) == (403, "FORBIDDEN")
    assert api.call("GET", f"/games/{game_id}", user=None).status_code == 401


def test_players_page_with_a_signed_cursor(api):
    game_id = new_game(api, max_players=5)
    for i in range(5):
        assert api.call("PUT", f"/games/{game_id}/players/u{i}", user=f"u{i}").status_code == 201
    first = api.call("GET", f"/games/{game_id}/players?limit=3").json()
    rest = api.call("GET", f"/games/{game_id}/players?limit=3&cursor={first['nextCursor']}").json()
    assert [m["userId"] for m in first["items"] + rest["items"]] == [f"u{i}" for i in range(5)]
    assert rest["nextCursor"] is None


def test_20_parallel_joins_of_a_5_player_game_let_exactly_5_in(api):
    # Given a game of 5 players
    game_id = new_game(api, max_players=5)

    # When 20 different users, each with their own token, join at once
    def join(i: int):
        return api.call("PUT", f"/games/{game_id}/players/p{i}", user=f"p{i}")

    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(join, range(20)))

    # Then exactly 5 joined and 15 were refused GAME_FULL; the game lists exactly those 5 and counts 5
    outcome = Counter(r.status_code if r.status_code == 201 else code(r) for r in replies)
    assert outcome == {201: 5, (409, "GAME_FULL"): 15}
    winners = sorted(r.json()["userId"] for r in replies if r.status_code == 201)
    assert players(api, game_id) == winners
    assert api.call("GET", f"/games/{game_id}").json()["playerCount"] == 5


def test_a_membership_is_read_by_key_and_a_miss_says_why(api):
    # The slide's bob plays Game1; any signed-in caller may ask, as the players list tells anyone
    seeded = api.call("GET", "/games/Game1/players/bob", user="fred")
    assert seeded.status_code == 200 and seeded.json()["userId"] == "bob" and seeded.json()["gameId"] == "Game1"
    game_id = new_game(api, max_players=2)
    assert code(api.call("GET", f"/games/{game_id}/players/carol")) == (404, "NOT_A_PLAYER")
    assert api.call("PUT", f"/games/{game_id}/players/carol", user="carol").status_code == 201
    assert api.call("GET", f"/games/{game_id}/players/carol").json()["gameId"] == game_id
    assert api.call("DELETE", f"/games/{game_id}/players/carol", user="carol").status_code == 204
    assert code(api.call("GET", f"/games/{game_id}/players/carol")) == (404, "NOT_A_PLAYER")
    assert code(api.call("GET", "/games/no-such-game/players/bob")) == (404, "GAME_NOT_FOUND")
