"""Authorization before validation, in every domain: a signed-in caller outside the admin group gets 403 on an
admin route whatever the body, path or query, and learns nothing of the route's schema; nothing is written.
An admin sending the same invalid request still gets the 400 with its details."""

from __future__ import annotations

import boto3
import pytest

from functions.contacts import api as contacts_api
from functions.contacts.schema import CONTACT_TABLE
from functions.shared.domain import load
from functions.voting import api as voting_api
from tests.functional import connected_car_support, voting_support
from tests.functional.conftest import Client, make_table

CONTACTS_ROUTES = load("contacts").routes
VOTING_ROUTES = load("voting").routes

ADMIN = ("admin",)
STAFF = ("staff",)
FORBIDDEN = {"code": "FORBIDDEN", "message": "this action needs the 'admin' group"}


def items_in(names: list[str]) -> int:
    client = boto3.client("dynamodb")  # test-side check only
    return sum(len(client.scan(TableName=name)["Items"]) for name in names)


@pytest.fixture
def contacts(aws, monkeypatch):
    name = make_table(CONTACT_TABLE, monkeypatch)
    contacts_api.service.cache_clear()
    yield Client(contacts_api.lambda_handler, [r.path for r in CONTACTS_ROUTES]), [name]
    contacts_api.service.cache_clear()


@pytest.fixture
def voting(aws, monkeypatch):
    names = voting_support.make_tables(monkeypatch)
    voting_api.service.cache_clear()
    yield Client(voting_api.lambda_handler, [r.path for r in VOTING_ROUTES]), [names.raw_votes, names.votes]
    voting_api.service.cache_clear()


@pytest.fixture
def connected_car(aws, monkeypatch):
    names = connected_car_support.make_tables(monkeypatch)
    yield connected_car_support.connected_car_client(), list(names.values())
    connected_car_support.api.service.cache_clear()


# (domain fixture, method, url, body): each request is invalid for an admin too.
INVALID_ADMIN_REQUESTS = [
    ("contacts", "POST", "/contacts/persons", {"firstName": "", "age": 3}),
    ("contacts", "POST", "/contacts/addresses", {"city": 42}),
    ("voting", "PUT", "/voting/polls/lunch", {"question": "", "candidates": ["A", "A"]}),
    ("voting", "PUT", "/voting/polls/Not%20A%20Poll%20Id!", {"question": "Q?", "candidates": ["A", "B"]}),
    ("connected_car", "PUT", "/connected-car/dealers/denver-1", {"name": 7, "unexpected": True}),
    ("connected_car", "PUT", "/connected-car/dealers/denver-1/timeslots/2026-12-01T09", {"serviceBayCount": "many"}),
    ("connected_car", "PUT", "/connected-car/vehicles/not-a-vin", {}),
    ("connected_car", "GET", "/connected-car/customers?limit=0", None),
]


def ids(case) -> str:
    return f"{case[1]} {case[2]}"


CASES = pytest.mark.parametrize(
    ("domain", "method", "url", "body"), INVALID_ADMIN_REQUESTS, ids=[ids(c) for c in INVALID_ADMIN_REQUESTS]
)


@CASES
def test_a_non_admin_is_forbidden_whatever_the_request(request, domain, method, url, body):
    # Given a signed-in caller outside the admin group
    client, tables = request.getfixturevalue(domain)
    # When they send an invalid request to an admin route
    reply = client.call(method, url, body=body, groups=STAFF)
    # Then it is 403, with nothing of the route's schema, and nothing is written
    assert reply.status == 403, reply.body
    assert reply.body == {"error": FORBIDDEN}
    assert items_in(tables) == 0


@CASES
def test_an_admin_still_gets_the_validation_details(request, domain, method, url, body):
    client, tables = request.getfixturevalue(domain)
    reply = client.call(method, url, body=body, groups=ADMIN)
    assert reply.status == 400, reply.body
    assert reply.body["error"]["code"] == "VALIDATION_FAILED" and reply.body["error"]["details"]
    assert items_in(tables) == 0


@pytest.mark.parametrize("domain", ["contacts", "voting", "connected_car"])
def test_a_malformed_body_from_a_non_admin_is_forbidden_too(request, domain):
    client, tables = request.getfixturevalue(domain)
    method, url = {
        "contacts": ("POST", "/contacts/persons"),
        "voting": ("PUT", "/voting/polls/lunch"),
        "connected_car": ("PUT", "/connected-car/dealers/denver-1"),
    }[domain]
    reply = client.call(method, url, raw_body='{"name": ', groups=STAFF)
    assert (reply.status, reply.body) == (403, {"error": FORBIDDEN})
    assert items_in(tables) == 0


def test_a_signed_out_caller_is_still_401_first(contacts):
    client, _ = contacts
    reply = client.call("POST", "/contacts/persons", body={"firstName": ""}, user=None)
    assert (reply.status, reply.body["error"]["code"]) == (401, "UNAUTHORIZED")


def test_routes_without_a_group_still_validate_for_everyone(voting):
    client, _ = voting
    reply = client.call("POST", "/voting/polls/lunch/votes", body={"candidate": ""}, groups=STAFF)
    assert (reply.status, reply.body["error"]["code"]) == (400, "VALIDATION_FAILED")
