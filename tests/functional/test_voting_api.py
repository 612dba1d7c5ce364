"""Voting API: handler -> service -> repository on moto, fed API Gateway REST events; the aggregator reads moto's
own RawVotes stream, so results move as they would in AWS."""

from __future__ import annotations

import random

import boto3
import pytest

from functions.voting import api
from functions.voting.aggregator import Aggregator
from functions.voting.repository import VotingRepository
from functions.voting.schema import BUCKETS_ENV, DEFAULT_BUCKETS, POLL_SK, ballot_pk, bucket_of, segment_pk, total_sk
from seeds import voting as seed
from tests.functional.conftest import client_for, error_code, fresh_containers, fresh_tables
from tests.functional.voting_support import MotoStream, make_tables
from tests.support.events import claims_for

ADMIN = ("admin",)
POLL = "/voting/polls/lunch"
DEFINITION = {"question": "Where do we eat on Friday?", "candidates": ["Tacos", "Ramen", "Pizza"]}


tables = fresh_tables(api, make=make_tables)  # voting_support.TableNames
client = client_for(api)


@pytest.fixture
def stream(tables) -> MotoStream:
    return MotoStream(tables.raw_votes, Aggregator(VotingRepository(tables), random.Random(1)))


@pytest.fixture
def poll(client) -> str:
    assert client.call("PUT", POLL, body=DEFINITION, groups=ADMIN).status == 201
    return POLL


def raw_items(tables) -> list[dict]:
    return boto3.resource("dynamodb").Table(tables.raw_votes).scan()["Items"]  # test-side check only


# --- polls -----------------------------------------------------------------------------------------------

def test_creating_a_poll_is_idempotent_and_a_different_definition_conflicts(client):
    created = client.call("PUT", POLL, body=DEFINITION, groups=ADMIN)
    assert created.status == 201
    assert created.body["pollId"] == "lunch" and created.body["candidates"] == ["Tacos", "Ramen", "Pizza"]
    again = client.call("PUT", POLL, body=DEFINITION, groups=ADMIN)
    assert again.status == 200 and again.body == created.body
    other = client.call("PUT", POLL, body={**DEFINITION, "candidates": ["Tacos", "Sushi"]}, groups=ADMIN)
    assert other.status == 409 and error_code(other) == "POLL_EXISTS"
    assert client.call("GET", POLL).body == created.body


def test_only_admins_create_polls_and_anyone_signed_in_reads_them(client, poll):
    refused = client.call("PUT", "/voting/polls/mine", body=DEFINITION, user="mallory")
    assert refused.status == 403
    assert client.call("GET", "/voting/polls/mine").status == 404
    assert client.call("GET", poll, user="bob").status == 200
    assert client.call("GET", poll, user=None).status == 401


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": "Q", "candidates": ["Only one"]}, "body.candidates"),
        ({"question": "Q", "candidates": ["Same", "Same"]}, "body.candidates"),
        ({"question": "Q", "candidates": ["A#1", "B"]}, "body.candidates.0"),
        ({"question": "Q", "candidates": [" padded", "B"]}, "body.candidates.0"),
        ({"question": "", "candidates": ["A", "B"]}, "body.question"),
        ({"question": "Q", "candidates": [f"c{n}" for n in range(51)]}, "body.candidates"),
        ({"question": "Q", "candidates": ["A", "B"], "closed": True}, "body.closed"),
    ],
)
def test_an_invalid_poll_is_a_400_naming_the_field_and_nothing_is_written(client, body, field):
    reply = client.call("PUT", POLL, body=body, groups=ADMIN)
    assert reply.status == 400 and error_code(reply) == "VALIDATION_FAILED"
    assert any(d["field"] == field for d in reply.body["error"]["details"]), reply.body
    assert client.call("GET", POLL).status == 404


def test_a_poll_id_with_a_hash_or_too_long_is_refused(client):
    for poll_id in ("a%23b", "x" * 65):
        assert client.call("PUT", f"/voting/polls/{poll_id}", body=DEFINITION, groups=ADMIN).status == 400


# --- my ballot -------------------------------------------------------------------------------------------

def test_vote_change_withdraw_and_vote_again(client, poll, tables):
    cast = client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="alice")
    assert cast.status == 201
    assert cast.body["pollId"] == "lunch" and cast.body["candidate"] == "Ramen"
    assert client.call("GET", f"{poll}/votes/me", user="alice").body["candidate"] == "Ramen"

    changed = client.call("PUT", f"{poll}/votes/me", body={"candidate": "Pizza"}, user="alice")
    assert changed.status == 200 and changed.body["candidate"] == "Pizza"

    assert client.call("DELETE", f"{poll}/votes/me", user="alice").status == 204
    gone = client.call("GET", f"{poll}/votes/me", user="alice")
    assert gone.status == 404 and error_code(gone) == "NO_VOTE"

    assert client.call("POST", f"{poll}/votes", body={"candidate": "Tacos"}, user="alice").status == 201
    (item,) = raw_items(tables)
    assert item["candidate"] == "Tacos" and int(item["version"]) == 4  # vote, change, withdraw, vote


def test_the_voter_is_the_signed_in_caller_never_a_body_field(client, poll, tables):
    smuggled = client.call("POST", f"{poll}/votes", body={"candidate": "Ramen", "userId": "bob"}, user="alice")
    assert smuggled.status == 400 and smuggled.body["error"]["details"][0]["field"] == "body.userId"
    assert client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="alice").status == 201
    assert [item["userId"] for item in raw_items(tables)] == [claims_for("alice")["sub"]]
    assert client.call("GET", f"{poll}/votes/me", user="bob").status == 404


def test_a_second_vote_is_409_already_voted_and_changes_nothing(client, poll, tables):
    assert client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}).status == 201
    second = client.call("POST", f"{poll}/votes", body={"candidate": "Pizza"})
    assert second.status == 409 and error_code(second) == "ALREADY_VOTED"
    (item,) = raw_items(tables)
    assert item["candidate"] == "Ramen" and int(item["version"]) == 1


def test_an_idempotent_retry_of_a_vote_gets_the_first_answer_not_a_409(client, poll):
    headers = {"Idempotency-Key": "ballot-1"}
    first = client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, headers=headers)
    retry = client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, headers=headers)
    assert (first.status, retry.status) == (201, 201) and retry.body == first.body
    reused = client.call("POST", f"{poll}/votes", body={"candidate": "Pizza"}, headers=headers)
    assert reused.status == 409 and error_code(reused) == "IDEMPOTENCY_KEY_REUSED"


def test_a_failed_idempotent_vote_is_forgotten_so_its_key_can_be_retried(client, poll, tables):
    headers = {"Idempotency-Key": "ballot-2"}
    failed = client.call("POST", f"{poll}/votes", body={"candidate": "Sushi"}, headers=headers)
    assert failed.status == 409 and error_code(failed) == "UNKNOWN_CANDIDATE"
    retry = client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, headers=headers)
    assert retry.status == 201 and [item["candidate"] for item in raw_items(tables)] == ["Ramen"]


@pytest.mark.parametrize(("method", "path"), [("POST", "/votes"), ("PUT", "/votes/me")])
def test_an_unknown_candidate_is_409_and_an_unknown_poll_404(client, poll, tables, method, path):
    client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="carol")
    unknown = client.call(method, f"{poll}{path}", body={"candidate": "Sushi"}, user="carol")
    assert unknown.status == 409 and error_code(unknown) == "UNKNOWN_CANDIDATE"
    assert unknown.body["error"]["details"] == [{"field": "body.candidate", "message": "not a candidate of this poll"}]
    missing = client.call(method, f"/voting/polls/nope{path}", body={"candidate": "Ramen"}, user="carol")
    assert missing.status == 404 and error_code(missing) == "POLL_NOT_FOUND"
    empty = client.call(method, f"{poll}{path}", body={}, user="carol")
    assert empty.status == 400 and empty.body["error"]["details"][0]["field"] == "body.candidate"
    assert [item["candidate"] for item in raw_items(tables)] == ["Ramen"]


def test_changing_or_withdrawing_without_a_vote_is_404_no_vote(client, poll):
    change = client.call("PUT", f"{poll}/votes/me", body={"candidate": "Ramen"}, user="dave")
    withdraw = client.call("DELETE", f"{poll}/votes/me", user="dave")
    mine = client.call("GET", f"{poll}/votes/me", user="dave")
    assert [(r.status, error_code(r)) for r in (change, withdraw, mine)] == [(404, "NO_VOTE")] * 3
    assert client.call("DELETE", "/voting/polls/nope/votes/me", user="dave").status == 404
    assert error_code(client.call("GET", "/voting/polls/nope/votes/me", user="dave")) == "POLL_NOT_FOUND"


def test_a_vote_is_one_conditional_write_after_one_read_of_the_poll(client, poll, calls):
    api.service.cache_clear()
    client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="erin")
    client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="frank")
    operations = calls.names()
    # The poll's definition is read once per container (it never changes), each vote is one UpdateItem
    assert operations == ["GetItem", "UpdateItem", "UpdateItem"]
    assert calls.recorded[1][1]["ConditionExpression"] == "attribute_not_exists(#candidate)"


# --- results and recount ---------------------------------------------------------------------------------

def test_results_follow_votes_changes_and_withdrawals(client, poll, stream):
    for user, candidate in [("u1", "Tacos"), ("u2", "Tacos"), ("u3", "Ramen"), ("u4", "Pizza")]:
        client.call("POST", f"{poll}/votes", body={"candidate": candidate}, user=user)
    stream.deliver()
    assert client.call("GET", f"{poll}/results").body == {
        "pollId": "lunch", "totals": {"Tacos": 2, "Ramen": 1, "Pizza": 1}, "totalVotes": 4,
    }
    client.call("PUT", f"{poll}/votes/me", body={"candidate": "Ramen"}, user="u1")
    client.call("DELETE", f"{poll}/votes/me", user="u4")
    stream.deliver()
    assert client.call("GET", f"{poll}/results").body["totals"] == {"Tacos": 1, "Ramen": 2, "Pizza": 0}
    assert error_code(client.call("GET", "/voting/polls/nope/results")) == "POLL_NOT_FOUND"


def test_results_are_one_query_per_segment_of_the_poll(client, poll, stream, calls):
    for n in range(30):
        client.call("POST", f"{poll}/votes", body={"candidate": "Tacos"}, user=f"v{n}")
    stream.deliver()  # Tacos's votes land on the segments of their voters' buckets
    calls.clear()
    reply = client.call("GET", f"{poll}/results")
    assert reply.body["totals"]["Tacos"] == 30
    # The poll's definition is cached (read by the first vote); then one Query per bucket's segment, each on its own
    # partition key, on the table itself, unfiltered
    assert [operation for operation, _, _ in calls.recorded] == ["Query"] * DEFAULT_BUCKETS
    keys = [value["S"] for _, params, _ in calls.recorded for value in params["ExpressionAttributeValues"].values()]
    assert keys == [segment_pk("lunch", b) for b in range(DEFAULT_BUCKETS)]
    assert not any({"IndexName", "FilterExpression"} & set(params) for _, params, _ in calls.recorded)


def test_a_polls_ballots_land_under_its_voters_buckets_which_a_poll_keeps_for_life(client, poll, tables, monkeypatch):
    # Given the poll, created with the default bucket count, recorded on its item (never in an answer)
    item = boto3.resource("dynamodb").Table(tables.votes).get_item(Key={"pollId": "lunch", "sk": POLL_SK})["Item"]
    assert int(item["buckets"]) == DEFAULT_BUCKETS == 20
    assert "buckets" not in client.call("GET", poll).body

    # When 40 users vote, and the deployment then changes its bucket count for new polls
    voters = [f"voter-{n}" for n in range(40)]
    for user in voters:
        assert client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user=user).status == 201

    # Then each ballot is under its voter's bucket of the poll: many partition keys, none of them the poll's id
    subs = {claims_for(user)["sub"] for user in voters}
    keys = {item["pollBucket"] for item in raw_items(tables)}
    assert keys == {ballot_pk("lunch", bucket_of(sub, 20)) for sub in subs}
    assert len(keys) >= 15 and "lunch" not in keys
    assert all(item["pollId"] == "lunch" for item in raw_items(tables))

    # When the stage is deployed with another bucket count (`-c voteBuckets=4`): new polls get it, this one keeps 20
    monkeypatch.setenv(BUCKETS_ENV, "4")
    fresh_containers()
    assert client.call("PUT", "/voting/polls/later", body=DEFINITION, groups=ADMIN).status == 201
    later = boto3.resource("dynamodb").Table(tables.votes).get_item(Key={"pollId": "later", "sk": POLL_SK})["Item"]
    assert int(later["buckets"]) == 4
    assert client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="voter-0").status == 409
    assert client.call("POST", f"{poll}/votes", body={"candidate": "Ramen"}, user="late").status == 201
    assert ballot_pk("lunch", bucket_of(claims_for("late")["sub"], 20)) in {i["pollBucket"] for i in raw_items(tables)}


def test_recount_reports_no_drift_when_caught_up_and_is_busy_while_votes_are_in_flight(client, poll, stream):
    client.call("POST", f"{poll}/votes", body={"candidate": "Pizza"}, user="u1")
    busy = client.call("POST", f"{poll}/recount", groups=ADMIN)
    assert busy.status == 409 and error_code(busy) == "RECOUNT_BUSY"
    stream.deliver()
    reply = client.call("POST", f"{poll}/recount", groups=ADMIN)
    assert reply.status == 200
    assert reply.body == {
        "pollId": "lunch", "totals": {"Tacos": 0, "Ramen": 0, "Pizza": 1}, "totalVotes": 1, "corrected": {},
    }


def test_recount_corrects_drift_and_is_admin_only(client, poll, stream, tables):
    client.call("POST", f"{poll}/votes", body={"candidate": "Pizza"}, user="u1")
    stream.deliver()
    boto3.resource("dynamodb").Table(tables.votes).update_item(
        Key={"pollId": segment_pk("lunch", 2), "sk": total_sk("Pizza")}, UpdateExpression="ADD votes :n",
        ExpressionAttributeValues={":n": 3},
    )
    assert client.call("GET", f"{poll}/results").body["totals"]["Pizza"] == 4
    assert client.call("POST", f"{poll}/recount", user="mallory").status == 403
    corrected = client.call("POST", f"{poll}/recount", groups=ADMIN)
    assert corrected.status == 200 and corrected.body["corrected"] == {"Pizza": -3}
    assert client.call("GET", f"{poll}/results").body["totals"]["Pizza"] == 1
    assert client.call("POST", "/voting/polls/nope/recount", groups=ADMIN).status == 404


def test_the_example_data_aggregates_to_its_own_recount(client, tables, stream):
    seed.load({"RAW_VOTES_TABLE_NAME": tables.raw_votes, "VOTES_TABLE_NAME": tables.votes})
    seed.load({"RAW_VOTES_TABLE_NAME": tables.raw_votes, "VOTES_TABLE_NAME": tables.votes})  # twice: no change
    stream.deliver()
    results = client.call("GET", f"/voting/polls/{seed.POLL_ID}/results").body
    assert results["totals"] == seed.expected_totals()
    recount = client.call("POST", f"/voting/polls/{seed.POLL_ID}/recount", groups=ADMIN).body
    assert recount["corrected"] == {} and recount["totals"] == seed.expected_totals()
