"""A poison record in the middle of a stream batch, on the local runtime, for both consumers: every other record is
applied once, the poison one is parked with its content (`make dlq`), and `make replay` applies it once after the
cause is fixed (and leaves it pending before). The poison items are written straight into the tables with boto3 on
the runtime's AWS endpoint, as an operator's script would, around the API that would refuse them."""

from __future__ import annotations

import json
import uuid
from typing import Any
from urllib.parse import urlsplit

import boto3
import pytest

from functions.voting.schema import DEFAULT_BUCKETS, ballot_pk, bucket_of
from local.__main__ import main

ADMIN = ("admin",)
NOW = "2026-11-23T08:00:00+00:00"


@pytest.fixture(scope="module")
def dynamodb(runtime):
    return boto3.client("dynamodb", endpoint_url=runtime.aws_endpoint, region_name=runtime.region,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def table(runtime, construct_id: str) -> str:
    (name,) = [t.name for stack in runtime.stacks for logical_id, t in stack.tables.items() if construct_id in logical_id]
    return name


def write_batch(dynamodb, table_name: str, items: list[dict[str, Any]]) -> None:
    """One BatchWriteItem: the stream gets the records in this order, and the consumer gets them in one batch."""
    requests = [{"PutRequest": {"Item": {k: _typed(v) for k, v in item.items()}}} for item in items]
    assert not dynamodb.batch_write_item(RequestItems={table_name: requests}).get("UnprocessedItems")


def _typed(value: Any) -> dict[str, str]:
    return {"N": str(value)} if isinstance(value, int) else {"S": value}


def cli(capsys, *args: str) -> dict[str, Any]:
    """`python -m local <args>` as `make dlq` / `make replay` run it, against the test's runtime; its JSON."""
    capsys.readouterr()
    assert main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def dlq(capsys, runtime) -> dict[str, Any]:
    return cli(capsys, "dlq", "--aws-port", str(urlsplit(runtime.aws_endpoint).port))


def replay(capsys, runtime, function: str) -> dict[str, Any]:
    (result,) = cli(capsys, "replay", "--port", str(urlsplit(runtime.url).port), "--function", function).values()
    return result


def parked(capsys, runtime, consumer: str, key: str, value: str) -> list[dict[str, Any]]:
    """The consumer's parked records whose stream record has this key value."""
    records = dlq(capsys, runtime)["parkedRecords"].get(consumer, [])
    return [r for r in records if r["record"]["dynamodb"]["Keys"][key]["S"] == value]


def test_a_registration_of_a_missing_customer_is_parked_and_replayed_once_the_customer_exists(
    api, runtime, dynamodb, capsys
):
    suffix = uuid.uuid4().hex[:8]
    first, ghost, last = f"first-{suffix}", f"ghost-{suffix}", f"last-{suffix}"
    for user in (first, last):
        reply = api.call("PUT", f"/connected-car/customers/{user}", user=user,
                         json={"name": "Dee River", "email": f"{user}@example.com"})
        assert reply.status_code == 200, reply.text

    # Given one batch whose middle record registers a vehicle to a customer who does not exist
    registrations = table(runtime, "RegistrationTable")
    write_batch(dynamodb, registrations, [
        {"username": user, "vin": f"VIN{n}{suffix}".upper()[:17], "statusCode": "active", "createdAt": NOW,
         "updatedAt": NOW}
        for n, user in enumerate((first, ghost, last))
    ])
    assert runtime.streams.wait_idle(timeout=20)

    # Then the customers before and after it are active, and the poison record is parked, whole
    for user in (first, last):
        assert api.call("GET", f"/connected-car/customers/{user}", user=user).json()["isActive"] is True
    (item,) = parked(capsys, runtime, "connected-car.active-customers", "username", ghost)
    assert item["status"] == "pending" and item["errorType"] == "PermanentRecordError"
    assert item["record"]["eventName"] == "INSERT" and item["record"]["eventSourceARN"].startswith("arn:aws:dynamodb:")
    assert item["position"].endswith(item["record"]["dynamodb"]["SequenceNumber"])

    # When the operator replays before creating the customer: still failing, still pending
    before = replay(capsys, runtime, "ActiveCustomers")
    assert before["replayed"] == 0 and before["stillFailing"] >= 1
    assert [r["status"] for r in parked(capsys, runtime, "connected-car.active-customers", "username", ghost)] == [
        "pending"]

    # When the operator creates the customer through the API and replays
    reply = api.call("PUT", f"/connected-car/customers/{ghost}", user=ghost,
                     json={"name": "Gus Host", "email": f"{ghost}@example.com"})
    assert reply.status_code == 200 and reply.json()["isActive"] is False
    after = replay(capsys, runtime, "ActiveCustomers")

    # Then the record is applied once: the customer is active, the record replayed, a second replay does nothing
    assert after["replayed"] == 1
    assert api.call("GET", f"/connected-car/customers/{ghost}", user=ghost).json()["isActive"] is True
    assert [r["status"] for r in parked(capsys, runtime, "connected-car.active-customers", "username", ghost)] == [
        "replayed"]
    assert replay(capsys, runtime, "ActiveCustomers")["replayed"] == 0


def test_a_ballot_of_a_missing_poll_is_parked_and_replayed_once_the_poll_exists(api, runtime, dynamodb, capsys):
    poll, ghost = f"e2e-{uuid.uuid4().hex[:10]}", f"ghost-{uuid.uuid4().hex[:10]}"
    definition = {"question": "Which cloud?", "candidates": ["Aurora", "Borealis", "Cirrus"]}
    assert api.call("PUT", f"/voting/polls/{poll}", user="root", groups=ADMIN, json=definition).status_code == 201

    # Given one batch of five ballots whose middle one is for a poll that does not exist
    ballots = [(poll, "u1", "Aurora"), (poll, "u2", "Borealis"), (ghost, "g1", "Aurora"), (poll, "u3", "Aurora"),
               (poll, "u4", "Cirrus")]
    write_batch(dynamodb, table(runtime, "RawVotesTable"), [
        {"pollBucket": ballot_pk(p, bucket_of(u, DEFAULT_BUCKETS)), "pollId": p, "userId": u, "candidate": c,
         "votedAt": NOW, "updatedAt": NOW, "version": 1}
        for p, u, c in ballots
    ])
    ghost_key = ballot_pk(ghost, bucket_of("g1", DEFAULT_BUCKETS))  # the ghost ballot's partition key
    assert runtime.streams.wait_idle(timeout=20)

    # Then the four others are counted exactly once (a recount finds the aggregator caught up, no drift)
    expected = {"Aurora": 2, "Borealis": 1, "Cirrus": 1}
    assert api.call("GET", f"/voting/polls/{poll}/results", user="observer").json()["totals"] == expected
    recount = api.call("POST", f"/voting/polls/{poll}/recount", user="root", groups=ADMIN)
    assert recount.status_code == 200 and recount.json()["corrected"] == {}
    # and the ghost ballot is parked with its whole record, images included
    (item,) = parked(capsys, runtime, "voting.aggregator", "pollBucket", ghost_key)
    assert item["status"] == "pending" and item["errorType"] == "MissingPollError"
    assert item["record"]["dynamodb"]["NewImage"]["candidate"] == {"S": "Aurora"}

    # When the operator replays before the poll exists: still failing, still pending, nothing counted
    assert replay(capsys, runtime, "Aggregator")["stillFailing"] >= 1
    assert [r["status"] for r in parked(capsys, runtime, "voting.aggregator", "pollBucket", ghost_key)] == ["pending"]

    # When the operator creates the poll through the API and replays
    assert api.call("PUT", f"/voting/polls/{ghost}", user="root", groups=ADMIN, json=definition).status_code == 201
    assert replay(capsys, runtime, "Aggregator")["replayed"] == 1

    # Then the ballot is counted once, and again a recount finds no drift; another replay changes nothing
    ghost_totals = {"Aurora": 1, "Borealis": 0, "Cirrus": 0}
    assert api.call("GET", f"/voting/polls/{ghost}/results", user="observer").json()["totals"] == ghost_totals
    recount = api.call("POST", f"/voting/polls/{ghost}/recount", user="root", groups=ADMIN)
    assert recount.status_code == 200 and recount.json()["corrected"] == {}
    assert replay(capsys, runtime, "Aggregator")["replayed"] == 0
    assert api.call("GET", f"/voting/polls/{ghost}/results", user="observer").json()["totals"] == ghost_totals
    assert api.call("GET", f"/voting/polls/{poll}/results", user="observer").json()["totals"] == expected
    assert [r["status"] for r in parked(capsys, runtime, "voting.aggregator", "pollBucket", ghost_key)] == ["replayed"]
