"""Users: handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from functions.shared import ddb
from functions.shared.errors import ConflictError, ThrottledError
from functions.users import api
from functions.users.models import SignUpIn, User
from functions.users.schema import USERS_EMAIL_INDEX, USERS_TABLE, email_marker_key
from seeds import users as seed
from tests.functional.conftest import client_for, error, fresh_tables, make_table

ADMIN = ("admin",)
TODAY = date(2026, 12, 1)


def make_dated_table(monkeypatch) -> str:
    name = make_table(USERS_TABLE, monkeypatch)
    monkeypatch.setattr(api.service(), "_today", lambda: TODAY)
    return name


table = fresh_tables(api, name="table", make=make_dated_table)  # the table's name
client = client_for(api, "table")


def items(table: str) -> list[dict[str, Any]]:
    """Every item of the table, read test-side (not through the recorded resource)."""
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


def index_items(table: str) -> list[dict[str, Any]]:
    return boto3.resource("dynamodb").Table(table).scan(IndexName=USERS_EMAIL_INDEX)["Items"]


def marker_owner(table: str, email: str) -> str | None:
    item = boto3.resource("dynamodb").Table(table).get_item(Key=email_marker_key(email), ConsistentRead=True)
    return item.get("Item", {}).get("OwnerId")


def sign_up(client, user_id: str, email: str, *, user: str | None = None, groups: tuple[str, ...] = (), **extra):
    body = {"userId": user_id, "email": email, **extra}
    return client.call("POST", "/users", body=body, user=user or user_id, groups=groups)


def by_email(client, email: str):
    return client.call("GET", f"/users/by-email/{email}", user="root", groups=ADMIN)


# --- sign up ----------------------------------------------------------------------------------------------

def test_sign_up_writes_the_user_and_its_email_marker_in_one_transaction(client, table, calls):
    reply = sign_up(client, "bob", "bob@gmail.com", joinDate="2011-11-15")
    assert (reply.status, reply.body) == (201, {"userId": "bob", "email": "bob@gmail.com", "joinDate": "2011-11-15"})
    assert calls.names() == ["TransactWriteItems"]
    (request, _), = calls.of("TransactWriteItems")
    puts = [action["Put"] for action in request["TransactItems"]]
    assert [put["ConditionExpression"] for put in puts] == ["attribute_not_exists(#id)"] * 2
    assert sorted(items(table), key=lambda i: i["UserId"]) == [
        {"UserId": "EMAIL#bob@gmail.com", "OwnerId": "bob"},  # no Email: the marker stays out of the index
        {"UserId": "bob", "Email": "bob@gmail.com", "JoinDate": "2011-11-15"},
    ]


def test_join_date_defaults_to_today_utc(client):
    reply = sign_up(client, "fred", "fred@yahoo.com")
    assert (reply.status, reply.body["joinDate"]) == (201, TODAY.isoformat())


def test_emails_are_trimmed_and_lower_cased_for_uniqueness_and_lookup(client, table):
    assert sign_up(client, "bob", "  Bob@Gmail.COM ").body["email"] == "bob@gmail.com"
    assert error(sign_up(client, "robert", "BOB@gmail.com")) == (409, "EMAIL_TAKEN")
    assert by_email(client, "Bob@GMail.com").body["userId"] == "bob"
    assert marker_owner(table, "bob@gmail.com") == "bob"


def test_a_taken_user_id_is_409_user_exists_and_writes_nothing(client, table):
    sign_up(client, "bob", "bob@gmail.com")
    before = items(table)
    assert error(sign_up(client, "bob", "other@gmail.com")) == (409, "USER_EXISTS")
    assert items(table) == before and marker_owner(table, "other@gmail.com") is None


def test_a_taken_email_is_409_email_taken_and_writes_nothing(client, table):
    sign_up(client, "bob", "bob@gmail.com")
    before = items(table)
    assert error(sign_up(client, "robert", "bob@gmail.com")) == (409, "EMAIL_TAKEN")
    assert items(table) == before
    assert client.call("GET", "/users/robert", user="robert").status == 404


def test_a_retried_sign_up_is_200_with_the_same_user_and_writes_nothing(client, table, monkeypatch):
    first = sign_up(client, "bob", "bob@gmail.com")
    before = items(table)
    # a retry on the next day, without a join date: the same user, not a conflict
    monkeypatch.setattr(api.service(), "_today", lambda: date(2026, 12, 2))
    again = sign_up(client, "bob", " BOB@gmail.com")
    assert (again.status, again.body) == (200, first.body)
    assert sign_up(client, "bob", "bob@gmail.com", joinDate=TODAY.isoformat()).status == 200
    assert items(table) == before
    # the same id asking for another join date is another user
    assert error(sign_up(client, "bob", "bob@gmail.com", joinDate="2011-11-15")) == (409, "USER_EXISTS")


def test_bad_input_is_400_and_writes_nothing(client, table):
    for body in (
        {"userId": "bob"},
        {"userId": "bob", "email": "not-an-email"},
        {"userId": "bob", "email": "bob@gmail.com", "joinDate": "15/11/2011"},
        {"userId": "bob", "email": "bob@gmail.com", "nickname": "B"},
        {"userId": "bob", "email": 42},
        {"userId": "b/o/b", "email": "bob@gmail.com"},
    ):
        reply = client.call("POST", "/users", body=body, user="root", groups=ADMIN)
        assert error(reply) == (400, "VALIDATION_FAILED"), body
    assert items(table) == []


def test_a_user_id_can_never_be_an_email_markers_key(client, table):
    refused = client.call("POST", "/users", body={"userId": "EMAIL#bob@gmail.com", "email": "x@y.com"},
                          user="root", groups=ADMIN)
    assert error(refused) == (400, "VALIDATION_FAILED") and refused.body["error"]["details"][0]["field"] == "body.userId"
    sign_up(client, "bob", "bob@gmail.com")
    assert error(client.call("GET", "/users/EMAIL%23bob@gmail.com")) == (400, "VALIDATION_FAILED")


def test_markers_never_appear_in_the_email_index(client, table):
    sign_up(client, "bob", "bob@gmail.com")
    sign_up(client, "fred", "fred@yahoo.com")
    client.call("PUT", "/users/fred/email", body={"email": "fred@gmail.com"}, user="fred")
    assert sorted(i["UserId"] for i in index_items(table)) == ["bob", "fred"]
    assert len(items(table)) == 4  # two users, two markers


# --- reads ------------------------------------------------------------------------------------------------

def test_get_by_id_is_one_getitem_for_the_user_or_an_admin(client, calls):
    sign_up(client, "bob", "bob@gmail.com", joinDate="2011-11-15")
    calls.clear()
    reply = client.call("GET", "/users/bob", user="bob")
    assert (reply.status, reply.body) == (200, {"userId": "bob", "email": "bob@gmail.com", "joinDate": "2011-11-15"})
    assert calls.names() == ["GetItem"]
    assert client.call("GET", "/users/bob", user="root", groups=("admin",)).status == 200
    assert error(client.call("GET", "/users/nobody", user="root", groups=("admin",))) == (404, "USER_NOT_FOUND")


def test_another_user_cannot_read_a_user_and_learns_nothing_of_its_existence(client, calls):
    sign_up(client, "bob", "bob@gmail.com")
    calls.clear()
    assert error(client.call("GET", "/users/bob", user="fred")) == (403, "FORBIDDEN")
    assert error(client.call("GET", "/users/nobody", user="fred")) == (403, "FORBIDDEN")
    assert calls.names() == []  # refused before any read


def test_get_by_email_is_one_query_on_the_email_index_for_admins(client, calls):
    sign_up(client, "fred", "fred@yahoo.com", joinDate="2011-12-01")
    calls.clear()
    reply = by_email(client, "fred@yahoo.com")
    assert (reply.status, reply.body) == (200, {"userId": "fred", "email": "fred@yahoo.com", "joinDate": "2011-12-01"})
    (request, _), = calls.of("Query")
    assert calls.names() == ["Query"] and request["IndexName"] == USERS_EMAIL_INDEX
    assert error(by_email(client, "nobody@yahoo.com")) == (404, "USER_NOT_FOUND")
    assert error(client.call("GET", "/users/by-email/fred@yahoo.com", user="fred")) == (403, "FORBIDDEN")
    assert error(by_email(client, "not-an-email")) == (400, "VALIDATION_FAILED")


# --- change of email --------------------------------------------------------------------------------------

def test_change_of_email_moves_the_marker_in_one_transaction_and_frees_the_old_email(client, table, calls):
    sign_up(client, "bob", "bob@gmail.com", joinDate="2011-11-15")
    calls.clear()
    reply = client.call("PUT", "/users/bob/email", body={"email": "Bob@Example.com"}, user="bob")
    assert (reply.status, reply.body) == (200, {"userId": "bob", "email": "bob@example.com", "joinDate": "2011-11-15"})
    assert calls.names() == ["GetItem", "TransactWriteItems"]
    (request, _), = calls.of("TransactWriteItems")
    assert [next(iter(action)) for action in request["TransactItems"]] == ["Update", "Delete", "Put"]
    assert marker_owner(table, "bob@gmail.com") is None and marker_owner(table, "bob@example.com") == "bob"
    assert by_email(client, "bob@example.com").body["userId"] == "bob"
    assert error(by_email(client, "bob@gmail.com")) == (404, "USER_NOT_FOUND")
    # the old email is free for someone else
    assert sign_up(client, "robert", "bob@gmail.com").status == 201


def test_changing_to_the_same_email_is_a_no_op_200(client, table, calls):
    first = sign_up(client, "bob", "bob@gmail.com")
    before = items(table)
    calls.clear()
    reply = client.call("PUT", "/users/bob/email", body={"email": " BOB@gmail.com "}, user="bob")
    assert (reply.status, reply.body) == (200, first.body)
    assert calls.names() == ["GetItem"] and items(table) == before


def test_changing_to_another_users_email_is_409_and_changes_nothing(client, table):
    sign_up(client, "bob", "bob@gmail.com")
    sign_up(client, "fred", "fred@yahoo.com")
    before = items(table)
    reply = client.call("PUT", "/users/bob/email", body={"email": "fred@yahoo.com"}, user="bob")
    assert error(reply) == (409, "EMAIL_TAKEN")
    assert items(table) == before


def test_change_of_email_of_an_unknown_user_is_404_and_bad_input_400(client, table):
    reply = client.call("PUT", "/users/nobody/email", body={"email": "n@b.com"}, user="root", groups=ADMIN)
    assert error(reply) == (404, "USER_NOT_FOUND")
    sign_up(client, "bob", "bob@gmail.com")
    assert error(client.call("PUT", "/users/bob/email", body={"email": "nope"}, user="bob")) == (400, "VALIDATION_FAILED")
    assert marker_owner(table, "n@b.com") is None


def test_a_change_conditioned_on_a_stale_read_writes_nothing_and_the_service_reads_again(client, table):
    sign_up(client, "bob", "bob@gmail.com")
    repository = api.service().repository
    stale = repository.get_user("bob", consistent=True)
    repository.change_email(stale, "bob@example.com")
    before = items(table)
    # Given a change decided on the old read, when it is written: its condition fails, and nothing changes
    assert repository.change_email(stale, "bob@yahoo.com") is None
    assert repository.delete_user(stale) is False
    assert items(table) == before
    # the service reads again: the change goes through against what is stored now
    reads = iter([stale])
    current = repository.get_user

    def first_stale(user_id, *, consistent=False):
        return next(reads, None) or current(user_id, consistent=consistent)

    repository.get_user = first_stale  # type: ignore[method-assign]
    try:
        assert api.service().change_email("bob", "bob@yahoo.com").email == "bob@yahoo.com"
    finally:
        del repository.get_user
    assert marker_owner(table, "bob@example.com") is None and marker_owner(table, "bob@yahoo.com") == "bob"


def test_a_user_that_keeps_changing_is_429_not_a_lost_write(client, table, monkeypatch):
    sign_up(client, "bob", "bob@gmail.com")
    repository = api.service().repository
    stale = User(user_id="bob", email="old@gmail.com", join_date=TODAY)
    monkeypatch.setattr(repository, "get_user", lambda user_id, consistent=False: stale)
    with pytest.raises(ThrottledError):
        api.service().change_email("bob", "new@gmail.com")
    with pytest.raises(ThrottledError):
        api.service().delete_user("bob")


def test_an_email_marker_that_is_not_the_users_is_409_and_changes_nothing(client, table):
    sign_up(client, "bob", "bob@gmail.com")
    # a write around the API took bob's marker away
    boto3.resource("dynamodb").Table(table).put_item(Item={**email_marker_key("bob@gmail.com"), "OwnerId": "mallory"})
    before = items(table)
    reply = client.call("PUT", "/users/bob/email", body={"email": "bob@example.com"}, user="bob")
    assert error(reply) == (409, "EMAIL_MARKER_MISMATCH")
    assert error(client.call("DELETE", "/users/bob", user="bob")) == (409, "EMAIL_MARKER_MISMATCH")
    assert items(table) == before


# --- delete -----------------------------------------------------------------------------------------------

def test_delete_removes_the_user_and_frees_its_email(client, table, calls):
    sign_up(client, "bob", "bob@gmail.com")
    calls.clear()
    assert client.call("DELETE", "/users/bob", user="bob").status == 204
    assert calls.names() == ["GetItem", "TransactWriteItems"]
    assert items(table) == []
    assert error(client.call("GET", "/users/bob", user="bob")) == (404, "USER_NOT_FOUND")
    assert error(client.call("DELETE", "/users/bob", user="bob")) == (404, "USER_NOT_FOUND")
    assert sign_up(client, "robert", "bob@gmail.com").status == 201


# --- who may act ------------------------------------------------------------------------------------------

def test_only_the_user_or_an_admin_signs_up_changes_email_or_deletes(client, table):
    assert error(sign_up(client, "bob", "bob@gmail.com", user="mallory")) == (403, "FORBIDDEN")
    assert items(table) == []
    assert sign_up(client, "bob", "bob@gmail.com", user="root", groups=ADMIN).status == 201
    change = {"email": "mallory@gmail.com"}
    assert error(client.call("PUT", "/users/bob/email", body=change, user="mallory")) == (403, "FORBIDDEN")
    assert error(client.call("DELETE", "/users/bob", user="mallory")) == (403, "FORBIDDEN")
    assert client.call("GET", "/users/bob", user="bob").body["email"] == "bob@gmail.com"
    assert client.call("PUT", "/users/bob/email", body=change, user="root", groups=ADMIN).status == 200
    assert client.call("DELETE", "/users/bob", user="root", groups=ADMIN).status == 204
    assert error(client.call("GET", "/users/bob", user=None)) == (401, "UNAUTHORIZED")


# --- concurrency ------------------------------------------------------------------------------------------

def test_concurrent_sign_ups_with_one_email_give_exactly_one_201(client, table, atomic_dynamodb):
    # The service, not the handler, runs in the threads: a Lambda container serves one event at a time, and the
    # Powertools resolver keeps its current event on the app.
    service = api.service()

    def attempt(i: int) -> str:
        try:
            result = service.sign_up(SignUpIn(user_id=f"u{i}", email="shared@example.com"))
        except ConflictError as error:
            return error.code
        return "created" if result.created else "found"

    with ThreadPoolExecutor(max_workers=10) as pool:
        outcomes = list(pool.map(attempt, range(20)))
    assert sorted(outcomes) == ["EMAIL_TAKEN"] * 19 + ["created"]
    winner = f"u{outcomes.index('created')}"
    assert by_email(client, "shared@example.com").body["userId"] == winner
    assert marker_owner(table, "shared@example.com") == winner
    assert len(items(table)) == 2  # the winner and its marker: the 19 losers wrote nothing


def _conflicting(times: int, monkeypatch) -> None:
    """TransactWriteItems cancelled `times` times by a conflicting transaction (DynamoDB's reason), then real."""
    client_ = ddb.resource().meta.client
    real, left = client_.transact_write_items, iter(range(times))

    def transact_write_items(**kwargs):
        if next(left, None) is not None:
            raise ClientError(
                {"Error": {"Code": "TransactionCanceledException", "Message": "conflict"},
                 "CancellationReasons": [{"Code": "TransactionConflict"}, {"Code": "None"}]},
                "TransactWriteItems",
            )
        return real(**kwargs)

    monkeypatch.setattr(client_, "transact_write_items", transact_write_items)
    monkeypatch.setattr(ddb, "CONFLICT_BACKOFF_SECONDS", 0)


def test_a_transaction_cancelled_by_a_conflict_alone_is_retried(client, table, monkeypatch):
    _conflicting(ddb.CONFLICT_ATTEMPTS - 1, monkeypatch)
    assert sign_up(client, "bob", "bob@gmail.com").status == 201
    assert marker_owner(table, "bob@gmail.com") == "bob"


def test_a_transaction_that_keeps_conflicting_is_429(client, table, monkeypatch):
    _conflicting(ddb.CONFLICT_ATTEMPTS, monkeypatch)
    assert error(sign_up(client, "bob", "bob@gmail.com")) == (429, "THROTTLED")
    assert items(table) == []


# --- example data -----------------------------------------------------------------------------------------

def test_the_seed_loads_bob_and_fred_and_loading_twice_changes_nothing(client, table):
    env = {USERS_TABLE.env_var: table}
    seed.load(env)
    loaded = items(table)
    seed.load(env)
    assert items(table) == loaded and len(loaded) == 4
    assert client.call("GET", "/users/bob", user="bob").body == {"userId": "bob", "email": "bob@gmail.com", "joinDate": "2011-11-15"}
    assert by_email(client, "fred@yahoo.com").body == {"userId": "fred", "email": "fred@yahoo.com",
                                                        "joinDate": "2011-12-01"}
