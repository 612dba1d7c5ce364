"""Sessions: handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

import time

import boto3
import pytest

from functions.sessions import api
from functions.sessions.schema import SESSION_TABLE, USER_INDEX
from functions.shared import ddb
from functions.shared.ddb import BATCH_WRITE_MAX_ITEMS, BATCH_WRITE_ROUNDS
from seeds import sessions as seed
from tests.functional.conftest import Client, error, make_table, ok
from tests.support import iam

ADMIN = ("admin",)
WEEK = 7 * 24 * 3600


@pytest.fixture
def table_name(aws, monkeypatch) -> str:
    return make_table(SESSION_TABLE, monkeypatch)


@pytest.fixture
def client(table_name) -> Client:
    return Client.of(api)


def new_session(client: Client, user: str = "alice") -> str:
    return ok(client.call("POST", "/sessions", user=user), 201)["sessionToken"]


def put_raw(table_name: str, token: str, username: str, ttl: int) -> None:
    """A session written straight into the table (what TTL has not deleted yet, when `ttl` is past)."""
    boto3.resource("dynamodb").Table(table_name).put_item(Item={
        "SessionToken": token, "Username": username, "CreatedAt": "2026-01-01T00:00:00+00:00",
        "ExpiresAt": "2026-01-08T00:00:00+00:00", "TTL": ttl,
    })


def stored(table_name: str) -> list[dict]:
    return boto3.resource("dynamodb").Table(table_name).scan()["Items"]  # test inspection only


def tokens_listed(client: Client, username: str, user: str | None = None, **query) -> list[str]:
    tokens, cursor = [], None
    while True:
        url = f"/sessions/users/{username}?limit=10" + (f"&cursor={cursor}" if cursor else "")
        page = ok(client.call("GET", url, user=user or username))
        tokens += [item["sessionToken"] for item in page["items"]]
        cursor = page["nextCursor"]
        if not cursor:
            return tokens


# --- create ---------------------------------------------------------------------------------------------------

def test_a_session_is_created_for_the_signed_in_user_with_an_unguessable_token_for_7_days(client, table_name, calls):
    before = int(time.time())
    body = ok(client.call("POST", "/sessions", user="dave"), 201)
    token = body["sessionToken"]
    assert len(token) == 43 and set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert body["username"] == "dave"
    (item,) = stored(table_name)
    assert set(item) == {"SessionToken", "Username", "CreatedAt", "ExpiresAt", "TTL"}
    assert (item["SessionToken"], item["Username"]) == (token, "dave")
    assert before + WEEK <= int(item["TTL"]) <= int(time.time()) + WEEK
    (params, _), = calls.of("PutItem")
    assert params["ConditionExpression"] == "attribute_not_exists(#token)"
    assert params["ExpressionAttributeNames"] == {"#token": "SessionToken"}


def test_two_sessions_never_share_a_token(client):
    assert len({new_session(client) for _ in range(5)}) == 5


def test_a_taken_token_is_never_overwritten_a_fresh_one_is_drawn(client, table_name, monkeypatch):
    # Given a session of dave's, and a token generator that first draws dave's token again
    put_raw(table_name, "taken-token-0123456789", "dave", int(time.time()) + 3600)
    service = api.service()
    drawn = iter(["taken-token-0123456789", "fresh-token-0123456789"])
    monkeypatch.setattr(service, "make_token", lambda: next(drawn))
    # When alice signs in
    body = ok(client.call("POST", "/sessions", user="alice"), 201)
    # Then she gets the fresh token, and dave's session is untouched
    assert body["sessionToken"] == "fresh-token-0123456789"
    assert {i["SessionToken"]: i["Username"] for i in stored(table_name)} == {
        "taken-token-0123456789": "dave", "fresh-token-0123456789": "alice"}


def test_only_taken_tokens_is_409_writing_nothing(client, table_name, monkeypatch):
    # Given a token generator that draws only dave's token
    put_raw(table_name, "taken-token-0123456789", "dave", int(time.time()) + 3600)
    service = api.service()
    monkeypatch.setattr(service, "make_token", lambda: "taken-token-0123456789")
    # Then alice's sign-in is a 409 that writes nothing
    assert error(client.call("POST", "/sessions", user="alice")) == (409, "TOKEN_TAKEN")
    assert [i["Username"] for i in stored(table_name)] == ["dave"]


def test_a_retried_sign_in_is_a_second_session_and_no_token_is_replayed(client, table_name):
    headers = {"Idempotency-Key": "login-1"}  # ignored: a replayed token could have been signed out since
    first = ok(client.call("POST", "/sessions", user="alice", headers=headers), 201)
    again = ok(client.call("POST", "/sessions", user="alice", headers=headers), 201)
    assert again["sessionToken"] != first["sessionToken"] and len(stored(table_name)) == 2


def test_signing_in_is_needed(client):
    assert error(client.call("POST", "/sessions", user=None)) == (401, "UNAUTHORIZED")


# --- get ------------------------------------------------------------------------------------------------------

def test_a_session_is_read_by_its_token_with_one_consistent_get(client, calls):
    token = new_session(client, "alice")
    calls.clear()
    body = ok(client.call("GET", f"/sessions/{token}", user="alice"))
    assert (body["sessionToken"], body["username"]) == (token, "alice")
    assert calls.names() == ["GetItem"]
    (params, _), = calls.of("GetItem")
    assert params["ConsistentRead"] is True


def test_an_expired_session_is_404_before_ttl_deletes_it(client, table_name):
    # Given a session whose TTL passed a second ago, still in the table (TTL deletes within days)
    put_raw(table_name, "expired-token-0123456789", "alice", int(time.time()) - 1)
    # Then it is gone for its owner and for an admin, as a missing one is
    assert error(client.call("GET", "/sessions/expired-token-0123456789", user="alice")) == (404, "SESSION_NOT_FOUND")
    assert error(client.call("GET", "/sessions/expired-token-0123456789", user="root", groups=ADMIN))[0] == 404
    assert error(client.call("GET", "/sessions/missing-token-0123456789", user="alice")) == (404, "SESSION_NOT_FOUND")
    # and one that expires in a minute is still served
    put_raw(table_name, "live-token-0123456789", "alice", int(time.time()) + 60)
    assert ok(client.call("GET", "/sessions/live-token-0123456789", user="alice"))["username"] == "alice"


def test_another_users_session_is_404_but_an_admin_sees_it(client):
    token = new_session(client, "dave")
    assert error(client.call("GET", f"/sessions/{token}", user="alice")) == (404, "SESSION_NOT_FOUND")
    assert ok(client.call("GET", f"/sessions/{token}", user="root", groups=ADMIN))["username"] == "dave"


def test_a_malformed_token_is_400(client, calls):
    assert error(client.call("GET", "/sessions/short", user="alice")) == (400, "VALIDATION_FAILED")
    assert error(client.call("DELETE", "/sessions/has.dots.in.it.0123456", user="alice"))[0] == 400
    assert calls.names() == []


# --- delete one -----------------------------------------------------------------------------------------------

def test_a_user_ends_their_own_session_and_repeating_it_is_fine(client, table_name):
    token = new_session(client, "alice")
    assert client.call("DELETE", f"/sessions/{token}", user="alice").status == 204
    assert error(client.call("GET", f"/sessions/{token}", user="alice"))[0] == 404
    assert client.call("DELETE", f"/sessions/{token}", user="alice").status == 204
    assert stored(table_name) == []


def test_another_users_session_cannot_be_ended_but_an_admin_ends_it(client, table_name, calls):
    token = new_session(client, "dave")
    assert error(client.call("DELETE", f"/sessions/{token}", user="alice")) == (404, "SESSION_NOT_FOUND")
    assert [i["SessionToken"] for i in stored(table_name)] == [token]
    (params, _), = calls.of("DeleteItem")
    assert params["ConditionExpression"] == "attribute_not_exists(#token) OR #username = :owner OR #ttl <= :now"
    assert client.call("DELETE", f"/sessions/{token}", user="root", groups=ADMIN).status == 204
    assert stored(table_name) == []


def test_another_users_expired_session_is_gone_to_a_delete_as_to_a_read(client, table_name):
    # Given dave's session, expired a second ago and not yet deleted by TTL
    put_raw(table_name, "expired-token-0123456789", "dave", int(time.time()) - 1)
    assert error(client.call("GET", "/sessions/expired-token-0123456789", user="alice")) == (
        404, "SESSION_NOT_FOUND")

    # When alice deletes it, Then it is as if it were absent: 204, and the dead item goes
    assert client.call("DELETE", "/sessions/expired-token-0123456789", user="alice").status == 204
    assert stored(table_name) == []


# --- a user's sessions ----------------------------------------------------------------------------------------

def test_a_users_sessions_are_listed_page_by_page_from_user_index(client, table_name, calls):
    mine = {new_session(client, "alice") for _ in range(23)}
    new_session(client, "dave")
    put_raw(table_name, "expired-token-0123456789", "alice", int(time.time()) - 1)
    calls.clear()
    listed = tokens_listed(client, "alice")
    assert sorted(listed) == sorted(mine)  # each once, the expired one left out, dave's not there
    queries = calls.of("Query")
    assert len(queries) == 3 and all(params["IndexName"] == USER_INDEX and params["Limit"] == 10
                                      for params, _ in queries)
    assert set(calls.names()) == {"Query", "BatchGetItem"}


def test_a_page_leaves_out_sessions_deleted_since_the_index_listed_them(client, table_name, monkeypatch):
    token = new_session(client, "alice")
    kept = new_session(client, "alice")
    original = ddb.batch_get

    def deleted_meanwhile(name, keys):
        with iam.meanwhile():  # another client deletes it, between the handler's Query and its BatchGetItem
            boto3.resource("dynamodb").Table(table_name).delete_item(Key={"SessionToken": token})
        return original(name, keys)

    monkeypatch.setattr(ddb, "batch_get", deleted_meanwhile)
    assert tokens_listed(client, "alice") == [kept]


def test_only_the_user_or_an_admin_lists_their_sessions(client):
    token = new_session(client, "dave")
    assert error(client.call("GET", "/sessions/users/dave", user="alice")) == (403, "NOT_YOUR_SESSIONS")
    page = ok(client.call("GET", "/sessions/users/dave", user="root", groups=ADMIN))
    assert [item["sessionToken"] for item in page["items"]] == [token]


def test_a_cursor_of_another_users_list_is_400(client):
    for _ in range(3):
        new_session(client, "alice")
    cursor = ok(client.call("GET", "/sessions/users/alice?limit=1", user="alice"))["nextCursor"]
    reply = client.call("GET", f"/sessions/users/bob?limit=1&cursor={cursor}", user="bob")
    assert error(reply) == (400, "INVALID_CURSOR")


# --- delete all of a user's -----------------------------------------------------------------------------------

def test_sixty_sessions_end_with_none_even_when_dynamodb_leaves_items_unprocessed(client, table_name, calls,
                                                                                   monkeypatch):
    # Given 60 sessions of alice's and one of dave's
    for _ in range(60):
        new_session(client, "alice")
    dave = new_session(client, "dave")
    # and a DynamoDB that leaves the last 10 deletes of every batch unprocessed the first time it sees them
    dynamodb = ddb.resource().meta.client
    original = dynamodb.batch_write_item
    seen: set[str] = set()

    def partly_unprocessed(**kwargs):
        ((name, requests),) = kwargs["RequestItems"].items()
        fresh = [r for r in requests if r["DeleteRequest"]["Key"]["SessionToken"] not in seen]
        held = fresh[-10:] if len(fresh) > 10 else []
        seen.update(r["DeleteRequest"]["Key"]["SessionToken"] for r in requests)
        done = [r for r in requests if r not in held]
        response = original(RequestItems={name: done}) if done else {"UnprocessedItems": {}}
        return {**response, "UnprocessedItems": {name: held} if held else {}}

    monkeypatch.setattr(dynamodb, "batch_write_item", partly_unprocessed)
    calls.clear()
    # When alice ends all her sessions
    assert client.call("DELETE", "/sessions/users/alice", user="alice").status == 204
    # Then none is left, dave's stays, and no batch held more than 25 deletes
    assert [i["SessionToken"] for i in stored(table_name)] == [dave]
    assert tokens_listed(client, "alice") == []
    assert all(len(requests) <= BATCH_WRITE_MAX_ITEMS
               for params, _ in calls.of("BatchWriteItem") for requests in params["RequestItems"].values())
    # (two batches of 25 each had 10 deletes retried: 3 batches + 2 retries)
    assert len(seen) == 60 and len(calls.of("BatchWriteItem")) == 5
    # And repeating it is fine
    assert client.call("DELETE", "/sessions/users/alice", user="alice").status == 204


def test_deletes_left_unprocessed_round_after_round_are_429_and_a_retry_finishes(client, table_name, monkeypatch):
    for _ in range(3):
        new_session(client, "alice")
    dynamodb = ddb.resource().meta.client
    original = dynamodb.batch_write_item
    rounds = []

    def never(**kwargs):
        rounds.append(1)
        return {"UnprocessedItems": kwargs["RequestItems"]}

    monkeypatch.setattr("functions.shared.ddb.BATCH_BACKOFF_SECONDS", 0.001)
    monkeypatch.setattr(dynamodb, "batch_write_item", never)
    assert error(client.call("DELETE", "/sessions/users/alice", user="alice")) == (429, "THROTTLED")
    assert len(rounds) == BATCH_WRITE_ROUNDS and len(stored(table_name)) == 3
    monkeypatch.setattr(dynamodb, "batch_write_item", original)
    assert client.call("DELETE", "/sessions/users/alice", user="alice").status == 204
    assert stored(table_name) == []


def test_only_the_user_or_an_admin_ends_all_their_sessions(client, table_name):
    token = new_session(client, "dave")
    assert error(client.call("DELETE", "/sessions/users/dave", user="alice")) == (403, "NOT_YOUR_SESSIONS")
    assert [i["SessionToken"] for i in stored(table_name)] == [token]
    assert client.call("DELETE", "/sessions/users/dave", user="root", groups=ADMIN).status == 204
    assert stored(table_name) == []


# --- example data ---------------------------------------------------------------------------------------------

def test_the_example_sessions_load_once_and_alices_expired_one_is_404(client, table_name):
    env = {SESSION_TABLE.env_var: table_name}
    seed.load(env)
    first = sorted(stored(table_name), key=lambda i: i["SessionToken"])
    seed.load(env)
    assert sorted(stored(table_name), key=lambda i: i["SessionToken"]) == first and len(first) == 4
    assert ok(client.call("GET", f"/sessions/{seed.DAVE_TOKEN}", user="dave"))["username"] == "dave"
    assert sorted(tokens_listed(client, "alice")) == sorted([seed.ALICE_LAPTOP, seed.ALICE_PHONE])
    assert error(client.call("GET", f"/sessions/{seed.ALICE_EXPIRED}", user="alice"))[0] == 404
