"""Client input that used to be a 502 is a 4xx with the error envelope, through real domain handlers on moto: an
admin route (contacts) and a route for any signed-in user (users sign-up), nothing written; a hostile cursor or
limit on a list route (ecommerce); percent-encoded path parameters reach the route decoded (users by email)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from functions.contacts import api as contacts_api
from functions.contacts.schema import CONTACT_TABLE
from functions.ecommerce import api as ecommerce_api
from functions.ecommerce.schema import ECOMMERCE_TABLE
from functions.users import api as users_api
from functions.users.schema import USERS_TABLE
from tests.functional.conftest import Client, fresh_service, make_table

ADMIN = ("admin",)
DEEP = "[" * 30_000 + "]" * 30_000  # thousands deep, inside the 64 KB limit
HOSTILE_BODIES: dict[str, str | bytes] = {
    "not UTF-8": b"\xb0",
    "nested thousands deep": '{"firstName": ' + DEEP + "}",
    "an integer of 5000 digits": '{"firstName": "Ann", "userId": "ann", "age": ' + "9" * 5000 + "}",
}


def scan(table: str) -> list[dict[str, Any]]:
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


@pytest.fixture
def contacts(aws, monkeypatch):
    name = make_table(CONTACT_TABLE, monkeypatch)
    with fresh_service(contacts_api):
        yield Client.of(contacts_api), name


@pytest.fixture
def users(aws, monkeypatch):
    name = make_table(USERS_TABLE, monkeypatch)
    with fresh_service(users_api):
        yield Client.of(users_api), name


@pytest.fixture
def ecommerce(aws, monkeypatch):
    name = make_table(ECOMMERCE_TABLE, monkeypatch)
    with fresh_service(ecommerce_api):
        yield Client.of(ecommerce_api), name


ROUTES = {"admin route": ("contacts", "POST", "/contacts/persons"), "user route": ("users", "POST", "/users")}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body", HOSTILE_BODIES)
def test_an_unreadable_body_is_400_malformed_json_and_writes_nothing(request, route, body):
    domain, method, url = ROUTES[route]
    client, table = request.getfixturevalue(domain)
    reply = client.call(method, url, raw_body=HOSTILE_BODIES[body], user="ann", groups=ADMIN)
    assert reply.status == 400, reply.body
    assert reply.body["error"]["code"] == "MALFORMED_JSON"
    assert scan(table) == []


@pytest.mark.parametrize("body", HOSTILE_BODIES)
def test_a_non_admin_is_403_first_whatever_the_body(contacts, body):
    client, table = contacts
    reply = client.call("POST", "/contacts/persons", raw_body=HOSTILE_BODIES[body], user="ann")
    assert (reply.status, reply.body["error"]["code"]) == (403, "FORBIDDEN")
    assert scan(table) == []


@pytest.mark.parametrize("query", ["cursor=x.%E2%98%83", "cursor=%E2%98%83", "cursor=x.y%00", "cursor=...",
                                   "limit=" + "9" * 5000, "limit=" + "9" * 5000 + "&cursor=x.%E2%98%83"])
def test_a_hostile_cursor_or_limit_is_400(ecommerce, query):
    client, _ = ecommerce
    reply = client.call("GET", f"/ecommerce/customers/ann/orders?{query}", user="ann")
    assert reply.status == 400, reply.body
    if query.startswith("cursor"):  # none has a cursor's shape (CURSOR_PATTERN): the one code of a bad cursor
        assert reply.body["error"]["code"] == "INVALID_CURSOR"
        assert [d["field"] for d in reply.body["error"]["details"]] == ["query.cursor"]
    else:
        assert reply.body["error"]["code"] == "VALIDATION_FAILED"


@pytest.mark.parametrize("path", ["ann%2Bnews%40example.com", "ann+news@example.com", "ANN%2BNEWS%40example.COM"])
def test_a_percent_encoded_path_parameter_reaches_the_route_decoded(users, path):
    client, _ = users
    signed_up = client.call("POST", "/users", body={"userId": "ann", "email": "ann+news@example.com"}, user="ann")
    assert signed_up.status == 201, signed_up.body
    reply = client.call("GET", f"/users/by-email/{path}", user="root", groups=ADMIN)
    assert (reply.status, reply.body["userId"]) == (200, "ann")


def test_an_encoded_slash_is_decoded_before_validation(users):
    # Decoded, `ann%2Fx@example.com` holds a "/", which no email may: refused by validation, not looked up as is
    client, _ = users
    reply = client.call("GET", "/users/by-email/ann%2Fx%40example.com", user="root", groups=ADMIN)
    assert (reply.status, reply.body["error"]["code"]) == (400, "VALIDATION_FAILED"), reply.body
    assert reply.body["error"]["details"][0]["field"] == "path.email"
