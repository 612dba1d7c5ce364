"""Handlers called from threads behave as concurrent invocations in separate sandboxes (tests/support/iam.py
`SANDBOXES`): Powertools keeps an invocation's event, route and validated arguments in process-wide state, which two
handlers running at once in one process would overwrite for each other. Concurrency tests rely on this."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

from functions.games import api
from functions.games.schema import GAMES_TABLE, USER_GAMES_TABLE
from tests.functional.conftest import client_for, fresh_tables, ok

tables = fresh_tables(api, GAMES_TABLE, USER_GAMES_TABLE)
client = client_for(api)


def test_concurrent_invocations_on_threads_each_answer_their_own_request(client):
    for n in range(10):
        ok(client.call("POST", "/games", body={"gameId": f"g{n}", "name": f"G{n}", "maxPlayers": 3},
                       user="root", groups=("admin",)), 201)

    def read(i: int) -> tuple[int, int, object]:
        reply = client.call("GET", f"/games/g{i % 10}")
        return i % 10, reply.status, reply.body.get("gameId") if isinstance(reply.body, dict) else reply.body

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch every few bytecodes: any shared state is overwritten mid-request
    try:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(read, range(200)))
    finally:
        sys.setswitchinterval(interval)
    assert [answer for answer in answers if answer[1:] != (200, f"g{answer[0]}")] == []


def test_concurrent_invocations_on_threads_each_run_as_their_own_caller(client, atomic_dynamodb):
    """An invocation paused on a DynamoDB call leaves nothing of itself to the next one: each join is made by its
    own caller (a join as another user would be a 403). Each DynamoDB request is atomic (`atomic_dynamodb`, as
    DynamoDB's are; moto in one process is not), so the count holds every join."""
    ok(client.call("POST", "/games", body={"gameId": "lobby", "name": "Lobby", "maxPlayers": 1000},
                   user="root", groups=("admin",)), 201)

    def join(i: int) -> int:
        return client.call("PUT", f"/games/lobby/players/u{i}", user=f"u{i}").status

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(join, range(80)))
    finally:
        sys.setswitchinterval(interval)
    assert statuses == [201] * 80
    assert ok(client.call("GET", "/games/lobby"))["playerCount"] == 80
