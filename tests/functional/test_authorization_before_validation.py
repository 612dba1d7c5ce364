"""Authorization before validation, in every domain: a signed-in caller outside the admin group gets 403 on an
admin route whatever the body, path or query, and learns nothing of the route's schema; nothing is written.
An admin sending the same invalid request still gets the 400 with its details."""

from __future__ import annotations

import boto3
import pytest

from functions.contacts import api as contacts_api
from functions.contacts.schema import CONTACT_TABLE
from functions.voting import api as voting_api
from tests.functional import connected_car_support, voting_support
from tests.functional.conftest import Client, fresh_service, make_table

ADMIN = ("admin",)
STAFF = ("staff",)
FORBIDDEN = {"code": "FORBIDDEN", "message": "this action needs the 'admin' group"}


def items_in(names: list[str]) -> int:
    client = boto3.client("dynamodb")  # test-side check only
    return sum(len(client.scan(TableName=name)["Items"]) for name in names)


@pytest.fixture
def contacts(aws, monkeypatch):
    name = make_table(CONTACT_TABLE, monkeypatch)
    with fresh_service(contacts_api):
        yield Client.of(contacts_api), [name]


@pytest.fixture
def voting(aws, monkeypatch):
    names = voting_support.make_tables(monkeypatch)
    with fresh_service(voting_api):
        yield Client.of(voting_api), [names.raw_votes, names.votes]


@pytest.fixture
def connected_car(aws, monkeypatch):
    with fresh_service(connected_car_support.api):
        names = connected_car_support.make_tables(monkeypatch)
        yield connected_car_support.connected_car_client(), list(names.values())


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
