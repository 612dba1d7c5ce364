"""Upgrading a stage deployed before buckets (tools/migrations/voting.py): the old layout's example data, frozen from
the code before the change (data/voting_old_layout.json: the seed's poll, a second poll, their ballots, the old
aggregates and checkpoint), copied by `tools.migrate.run` into the bucketed RawVotes and aggregated again from its
stream, answers what the old layout answered; a second run writes nothing; a run stopped half way finishes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import boto3
import pytest

from functions.shared import parked
from functions.shared.errors import NotFoundError
from functions.shared.observability import metrics
from functions.voting import aggregator as aggregator_module
from functions.voting.aggregator import Aggregator
from functions.voting.repository import VotingRepository
from functions.voting.schema import TOTAL_PREFIX, UNRECORDED_BUCKETS, split_bucket
from local.cognito import user_sub
from seeds import voting as seed
from tests.functional.conftest import LambdaContext
from tests.functional.parked_support import REPLAY, parked_items
from tests.functional.voting_support import MotoStream, make_tables, service_for
from tests.support.old_layouts import old_layout
from tools import migrate
from tools.migrations.voting import MIGRATIONS, OLD_RAW_VOTES_TABLE

OLD_LAYOUT = old_layout("voting")
OLD_RAW_VOTES = "old-RawVotesTable"  # the table the deploy replaced, retained with the ballots
(MIGRATION,) = MIGRATIONS


def old_answers() -> dict[str, dict[str, int]]:
    """What the old layout answered: each poll's results summed from its old aggregate segments, every candidate."""
    answers: dict[str, Counter[str]] = {}
    for item in OLD_LAYOUT["VotesTable"]:
        if item["sk"]["S"] == "#poll":
            answers.setdefault(item["pollId"]["S"], Counter()).update(
                {c["S"]: 0 for c in item["candidates"]["L"]})
    for item in OLD_LAYOUT["VotesTable"]:
        if item["sk"]["S"].startswith(TOTAL_PREFIX):
            answers[item["pollId"]["S"]][item["candidate"]["S"]] += int(item["votes"]["N"])
    return {poll: dict(totals) for poll, totals in answers.items()}


@pytest.fixture
def upgraded(aws, monkeypatch):
    """A stage deployed with the old keys, then deployed again: the old RawVotes retained with its ballots, a new
    RawVotes (keyed by bucket) created empty, Votes kept as it was (polls, old aggregates, an old checkpoint)."""
    client = boto3.client("dynamodb")
    client.create_table(**OLD_RAW_VOTES_TABLE.create_table_kwargs(OLD_RAW_VOTES))
    tables = make_tables(monkeypatch)
    for item in OLD_LAYOUT["RawVotesTable"]:
        client.put_item(TableName=OLD_RAW_VOTES, Item=item)
    for item in OLD_LAYOUT["VotesTable"]:
        client.put_item(TableName=tables.votes, Item=item)
    aggregator_module.default_aggregator.cache_clear()
    yield tables
    aggregator_module.default_aggregator.cache_clear()


def run(tables, progress: Path, **options: Any) -> dict[str, Any]:
    return migrate.run(MIGRATION, source=OLD_RAW_VOTES, targets={"RawVotesTable": tables.raw_votes},
                       progress=progress, **options)


def results(service) -> dict[str, dict[str, int]]:
    return {poll: service.results(poll).totals for poll in old_answers()}


def test_the_old_example_data_answers_the_same_after_the_upgrade_and_a_second_run_writes_nothing(
    upgraded, tmp_path, monkeypatch
):
    tables = upgraded
    service = service_for(tables)
    stream = MotoStream(tables.raw_votes, Aggregator(VotingRepository(tables)))
    assert old_answers()[seed.POLL_ID] == seed.expected_totals()

    # Between the deploy and the migration the polls answer (Votes kept them), with totals not rebuilt yet
    assert service.poll(seed.POLL_ID).candidates == seed.POLL.candidates
    assert all(set(totals.values()) == {0} for totals in results(service).values())

    # When the migration is stopped after one page (of 4 ballots), then run again
    monkeypatch.setattr(migrate, "PAGE_SIZE", 4)
    progress = tmp_path / "voting.json"
    first = run(tables, progress, stop_after=1)
    second = run(tables, progress)
    assert (first["done"], first["written"]) == (False, 4)
    assert (second["done"], second["scanned"], second["written"]) == (True, 11, 11)

    # Then the new table holds every ballot (tombstones too) under its voter's bucket: many keys per poll
    copied = boto3.resource("dynamodb").Table(tables.raw_votes).scan(ConsistentRead=True)["Items"]
    assert len(copied) == len(OLD_LAYOUT["RawVotesTable"])
    keys = {split_bucket(item["pollBucket"]) for item in copied}
    assert {poll for poll, _ in keys} == set(old_answers()) and len(keys) > len(old_answers())
    assert all(bucket < UNRECORDED_BUCKETS for _, bucket in keys)

    # When the aggregator reads the copies from the new table's stream
    assert stream.deliver() == 11

    # Then the results are the old ones, every recount is caught up with no drift, and ballots read as before
    assert results(service) == old_answers()
    for poll in old_answers():
        recount = service.recount(poll)
        assert recount.corrected == {} and recount.totals == old_answers()[poll]
    assert service.my_vote(seed.POLL_ID, user_sub("alice")).candidate == "Streams"
    assert service.my_vote(seed.POLL_ID, user_sub("grace")).candidate == "Streams"  # her changed vote
    with pytest.raises(NotFoundError):
        service.my_vote(seed.POLL_ID, user_sub("heidi"))  # her withdrawn one

    # And a second run from scratch writes nothing, so nothing reaches the stream and nothing moves
    again = run(tables, tmp_path / "again.json")
    assert (again["written"], again["already"], again["done"]) == (0, 11, True)
    assert run(tables, progress).get("skipped")
    assert stream.deliver() == 0
    assert results(service) == old_answers()


def test_a_voter_who_votes_before_the_copy_keeps_the_newer_ballot_counted_once(upgraded, tmp_path):
    tables = upgraded
    service = service_for(tables)
    stream = MotoStream(tables.raw_votes, Aggregator(VotingRepository(tables)))

    # Given bob (who voted Transactions before the upgrade) votes TTL through the new API before the copy
    service.vote(seed.POLL_ID, user_sub("bob"), "TTL")

    # When the migration runs and the stream is aggregated
    counts = run(tables, tmp_path / "p.json")
    stream.deliver()

    # Then his old ballot was not copied over the newer one, and only the newer one counts
    assert (counts["written"], counts["already"]) == (10, 1)
    expected = {**seed.expected_totals(), "Transactions": 0, "TTL": 2}
    assert service.results(seed.POLL_ID).totals == expected
    assert service.my_vote(seed.POLL_ID, user_sub("bob")).candidate == "TTL"
    assert service.recount(seed.POLL_ID).corrected == {}


def test_a_record_parked_before_the_upgrade_is_superseded_by_a_replay_never_counted_twice(upgraded, tmp_path):
    tables = upgraded
    service = service_for(tables)
    # Given alice's ballot's stream record, parked by the aggregator before the upgrade (keyed as RawVotes was)
    alice = next(i for i in OLD_LAYOUT["RawVotesTable"] if i["userId"]["S"] == user_sub("alice"))
    record = {
        "eventID": "0" * 32, "eventName": "INSERT", "eventVersion": "1.1", "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {"Keys": {"pollId": alice["pollId"], "userId": alice["userId"]}, "NewImage": alice,
                     "SequenceNumber": "100000000000000000001", "SizeBytes": 120,
                     "StreamViewType": "NEW_AND_OLD_IMAGES"},
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/old-RawVotesTable/stream/2026-11-01T00:00:00.000",
    }
    parked.ParkedRecords(aggregator_module.CONSUMER).park(record, RuntimeError("throttled for good"))
    metrics.clear_metrics()  # parked here, outside a handler: no handler's flush owns the metric it counted

    # When the ballots are copied and aggregated, and the operator replays
    run(tables, tmp_path / "p.json")
    MotoStream(tables.raw_votes, Aggregator(VotingRepository(tables))).deliver()
    replay = aggregator_module.lambda_handler(REPLAY, LambdaContext())

    # Then the parked record is superseded (its ballot came through the copy), and alice is counted once
    assert (replay["replayed"], replay["superseded"]) == (0, 1)
    assert [item["status"] for item in parked_items(aggregator_module.CONSUMER)] == ["superseded"]
    assert service.results(seed.POLL_ID).totals == seed.expected_totals()
    assert service.recount(seed.POLL_ID).corrected == {}
