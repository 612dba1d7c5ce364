"""A refused conditional write on the request's bill (functions/shared/cost.py): DynamoDB bills it (at least one unit,
by the larger of the stored and the attempted item) but answers no ConsumedCapacity, so the function estimates it from
the item ALL_OLD returns and shows it apart, marked as refused and estimated, in `Server-Timing` and in the explorer's
per-call bill."""

from __future__ import annotations

import json
import math
import os

import boto3
import pytest

from functions.shared import cost
from functions.shared.capacity import item_size
from functions.shared.schema import EXPLAIN_ENV
from functions.voting import api
from functions.voting.schema import POLL_SK, VOTES_TABLE
from tests.functional.conftest import Client, fresh_service
from tests.functional.test_cost_header import bill
from tests.functional.voting_support import make_tables

POLL = "/voting/polls/refused-bill"
DEFINITION = {"question": "Which model do you draw first?", "candidates": ["Tables", "Patterns"]}


@pytest.fixture
def client(aws, monkeypatch) -> Client:
    make_tables(monkeypatch)
    monkeypatch.setenv(EXPLAIN_ENV, "items")
    with fresh_service(api):
        yield Client.of(api)


def test_a_refused_create_is_billed_by_the_stored_item_and_shown_as_refused(client):
    created = client.call("PUT", POLL, body=DEFINITION, groups=("admin",))
    assert created.status == 201
    # When the same id is created with another definition: the PutItem's condition fails, ALL_OLD returns the poll
    other = {**DEFINITION, "candidates": ["Tables", "Indexes"]}
    refused = client.call("PUT", POLL, body=other, groups=("admin",), headers={cost.EXPLAIN_REQUEST_HEADER: "items"})
    assert refused.status == 409
    # Then the header bills it apart from DynamoDB's own (zero) units: one refused write, estimated by the stored poll
    figures = bill(refused)
    stored = next(c for c in json.loads(refused.headers[cost.EXPLAIN_RESPONSE_HEADER]) if c["op"] == "PutItem")
    assert figures["ddb"]["refused"] == 1 and figures["ddb"]["wcu"] == 0
    assert figures["ddb"]["wcu_est"] == stored["refused"]["wcu"] == 1  # a poll of less than 1 KB: the minimum
    # and the explorer's line of that call says so, with its table by its logical name and the rule it applied
    assert stored["tables"] == ["Votes"] and stored["error"] == "ConditionalCheckFailedException"
    assert stored["refused"]["estimated"] is True and stored["rule"].startswith("refused: larger of stored ")
    assert stored["items"][0]["name"] == "Votes" and stored["items"][0]["action"] == "put"


def test_the_estimate_follows_dynamodbs_rule_for_the_larger_item(client):
    # Given a stored poll, and an attempt with another question of 300 characters (the longest a poll takes)
    assert client.call("PUT", "/voting/polls/rule", body={"question": "q" * 300, "candidates": ["a", "b"]},
                       groups=("admin",)).status == 201
    refused = client.call("PUT", "/voting/polls/rule", body={"question": "r" * 300, "candidates": ["a", "c"]},
                          groups=("admin",), headers={cost.EXPLAIN_REQUEST_HEADER: "items"})
    assert refused.status == 409
    (call,) = [c for c in json.loads(refused.headers[cost.EXPLAIN_RESPONSE_HEADER]) if c["op"] == "PutItem"]
    stored = boto3.resource("dynamodb").Table(os.environ[VOTES_TABLE.env_var]).get_item(
        Key={"pollId": "rule", "sk": POLL_SK})["Item"]  # test-side check only
    # Then the estimate is DynamoDB's rule on the larger of the stored and the attempted item, at least one unit
    larger = max(item_size(stored), call["items"][0]["size"])
    assert bill(refused)["ddb"]["wcu_est"] == call["refused"]["wcu"] == max(1, math.ceil(larger / 1024))
    assert f"stored {item_size(stored)} B" in call["rule"]


def test_a_caller_outside_the_admin_group_gets_the_bill_without_the_items_attributes(client):
    assert client.call("PUT", POLL, body=DEFINITION, groups=("admin",)).status == 201
    reply = client.call("GET", f"{POLL}/results", user="bob", headers={cost.EXPLAIN_REQUEST_HEADER: "items"})
    assert reply.status == 200
    calls = json.loads(reply.headers[cost.EXPLAIN_RESPONSE_HEADER])
    assert calls and all("rule" in call and call["tables"] == ["Votes"] for call in calls)
    assert [key for call in calls for item in call["items"] for key in ("item", "set") if key in item] == []
