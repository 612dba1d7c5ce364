"""Sessions over HTTP on the local runtime: the example sessions, a session's life (created, read by its owner only,
ended), expiry served right before TTL deletes anything, and a user's 60 sessions ended at once."""

from __future__ import annotations

import time
import uuid

import boto3
import pytest

from seeds import sessions as seed
from tests.support.waiting import eventually

ADMIN = ("admin",)


@pytest.fixture(scope="module")
def dynamodb(runtime):
    return boto3.client("dynamodb", endpoint_url=runtime.aws_endpoint, region_name=runtime.region,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


@pytest.fixture(scope="module")
def table(runtime) -> str:
    (name,) = [t.name for stack in runtime.stacks for logical_id, t in stack.tables.items()
               if logical_id.startswith("SessionsSessionTable")]
    return name


def ok(reply, status: int = 200):
    assert reply.status_code == status, reply.text
    return reply.json() if reply.content else None


def new_user() -> str:
    return f"e2e-{uuid.uuid4().hex[:12]}"


def new_session(api, user: str) -> str:
    return ok(api.call("POST", "/sessions", user=user), 201)["sessionToken"]


def listed(api, username: str, user: str | None = None, groups: tuple[str, ...] = ()) -> list[str]:
    tokens, cursor = [], None
    while True:
        params = {"limit": 25, **({"cursor": cursor} if cursor else {})}
        page = ok(api.call("GET", f"/sessions/users/{username}", user=user or username, groups=groups, params=params))
        tokens += [item["sessionToken"] for item in page["items"]]
        cursor = page["nextCursor"]
        if not cursor:
            return tokens


def age(dynamodb, table: str, token: str, seconds: int) -> None:
    """Time passing: the session's expiry moved to `seconds` from now (what 7 days do)."""
    expires_at = int(time.time()) + seconds
    dynamodb.update_item(
        TableName=table, Key={"SessionToken": {"S": token}}, UpdateExpression="SET #ttl = :ttl",
        ExpressionAttributeNames={"#ttl": "TTL"}, ExpressionAttributeValues={":ttl": {"N": str(expires_at)}},
    )


def present(dynamodb, table: str, token: str) -> bool:
    return "Item" in dynamodb.get_item(TableName=table, Key={"SessionToken": {"S": token}}, ConsistentRead=True)


def test_the_example_sessions_are_served_to_their_owners_and_the_expired_one_is_not(api):
    dave = ok(api.call("GET", f"/sessions/{seed.DAVE_TOKEN}", user="dave"))
    assert dave["sessionToken"] == seed.DAVE_TOKEN and dave["username"] == "dave"
    assert api.call("GET", f"/sessions/{seed.DAVE_TOKEN}", user="alice").status_code == 404
    assert {seed.ALICE_LAPTOP, seed.ALICE_PHONE} <= set(listed(api, "alice"))
    assert seed.ALICE_EXPIRED not in listed(api, "alice")
    assert api.call("GET", f"/sessions/{seed.ALICE_EXPIRED}", user="alice").status_code == 404


def test_a_session_is_created_read_by_its_owner_only_and_ended(api):
    user = new_user()
    token = new_session(api, user)
    assert len(token) == 43
    assert ok(api.call("GET", f"/sessions/{token}", user=user))["username"] == user
    assert api.call("GET", f"/sessions/{token}", user="mallory").status_code == 404
    assert api.call("DELETE", f"/sessions/{token}", user="mallory").status_code == 404
    assert api.call("GET", f"/sessions/users/{user}", user="mallory").status_code == 403
    assert ok(api.call("GET", f"/sessions/{token}", user="root", groups=ADMIN))["username"] == user
    assert api.call("DELETE", f"/sessions/{token}", user=user).status_code == 204
    assert api.call("GET", f"/sessions/{token}", user=user).status_code == 404
    assert api.call("DELETE", f"/sessions/{token}", user=user).status_code == 204  # ended already: fine


def test_an_expired_session_is_404_at_once_and_ttl_removes_it_later(api, dynamodb, table):
    user = new_user()
    token = new_session(api, user)
    kept = new_session(api, user)
    # When its TTL passes (moved a second into the past, as a week would)
    age(dynamodb, table, token, -1)
    # Then it is 404 and out of the list at once, for its owner and an admin alike
    assert api.call("GET", f"/sessions/{token}", user=user).status_code == 404
    assert api.call("GET", f"/sessions/{token}", user="root", groups=ADMIN).status_code == 404
    assert listed(api, user) == [kept]
    # and the local TTL sweeper deletes it in time, leaving the live one
    eventually(lambda: not present(dynamodb, table, token), timeout=15.0)
    assert ok(api.call("GET", f"/sessions/{kept}", user=user))["sessionToken"] == kept


def test_a_session_ttl_will_never_delete_is_404_while_it_stays_in_the_table(api, runtime, dynamodb, table):
    # Given a session whose TTL is more than five years old: DynamoDB's TTL ignores it (and so does the local sweeper)
    user = new_user()
    token = new_session(api, user)
    age(dynamodb, table, token, -(5 * 366 * 24 * 3600))
    # Then it is expired for the API all the same, though it is still stored: expiry is decided on read
    assert runtime.ttl is not None
    runtime.ttl.sweep()  # a pass of the sweeper now, rather than waiting more than its interval for one
    assert present(dynamodb, table, token)
    assert api.call("GET", f"/sessions/{token}", user=user).status_code == 404
    assert listed(api, user) == []
    # and ending it removes it
    assert api.call("DELETE", f"/sessions/{token}", user=user).status_code == 204
    assert not present(dynamodb, table, token)


def test_an_admin_ends_all_sixty_sessions_of_a_user_and_repeating_it_is_fine(api, dynamodb, table):
    user, other = new_user(), new_user()
    tokens = {new_session(api, user) for _ in range(60)}
    survivor = new_session(api, other)
    assert set(listed(api, user)) == tokens
    # A user may end only their own; an admin anyone's
    assert api.call("DELETE", f"/sessions/users/{user}", user=other).status_code == 403
    assert api.call("DELETE", f"/sessions/users/{user}", user="root", groups=ADMIN).status_code == 204
    assert listed(api, user) == []
    assert not any(present(dynamodb, table, token) for token in tokens)
    by_user = dynamodb.query(TableName=table, IndexName="UserIndex", KeyConditionExpression="Username = :u",
                             ExpressionAttributeValues={":u": {"S": user}})
    assert by_user["Items"] == []
    assert api.call("DELETE", f"/sessions/users/{user}", user=user).status_code == 204
    assert listed(api, other) == [survivor]
