"""The RawVotes stream aggregator on moto, fed hand-built Lambda events: deltas, exactly-once under every kind of
redelivery Lambda does, poison records parked and replayed, bounded writes, a poll spread over buckets, and the
recount as the judge after each scenario."""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter
from datetime import datetime, timedelta

import boto3
import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from functions.shared import ddb, parked
from functions.shared.errors import ConflictError
from functions.voting import aggregator as aggregator_module
from functions.voting.aggregator import (
    Aggregator,
    MissingShardError,
    OutOfOrderError,
    aggregate,
    change_of,
)
from functions.voting.models import PollIn
from functions.voting.repository import VotingRepository
from functions.voting.schema import DEFAULT_BUCKETS, bucket_of, checkpoint_pk, segment_pk, split_bucket, total_sk
from tests.functional.conftest import LambdaContext
from tests.functional.parked_support import (
    REPLAY,
    assert_parked,
    consumers,
    parked_items,
)
from tests.functional.voting_support import (
    STREAM_ARN,
    AroundTheApi,
    Ballots,
    Clock,
    event_of,
    make_tables,
    service_for,
)

SHARD = "shardId-00000001-0001"


@pytest.fixture
def tables(aws, monkeypatch):
    return make_tables(monkeypatch)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(tables, clock):
    return service_for(tables, clock)


@pytest.fixture
def aggregator(tables) -> Aggregator:
    return Aggregator(VotingRepository(tables), random.Random(4))


@pytest.fixture
def ballots(service) -> Ballots:
    return Ballots(service, f"poll-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def writes():
    """Every TransactWriteItems the aggregator sends: the number of items each writes."""
    recorded: list[int] = []
    events = ddb.resource().meta.client.meta.events

    def before(params, **_):
        recorded.append(len(params["TransactItems"]))

    events.register("before-parameter-build.dynamodb.TransactWriteItems", before)
    yield recorded
    events.unregister("before-parameter-build.dynamodb.TransactWriteItems", before)


def deliver(aggregator: Aggregator, records, shard: str = SHARD) -> dict:
    return aggregate(event_of(records, shard), aggregator=aggregator)


def assert_exact(service, ballots: Ballots) -> None:
    """Results equal the truth, and a recount of RawVotes finds the aggregator caught up and no drift."""
    assert service.results(ballots.poll_id).totals == ballots.truth()
    recount = service.recount(ballots.poll_id)
    assert recount.totals == ballots.truth()
    assert recount.corrected == {}


def checkpoint(tables, shard: str = SHARD) -> str | None:
    return VotingRepository(tables).checkpoint(aggregator_module.Shard(STREAM_ARN, shard))


# --- deltas from images ------------------------------------------------------------------------------------

def test_insert_modify_and_remove_move_the_totals(service, ballots, aggregator):
    # Given votes, a change, a change to the same candidate, a withdrawal and an item deleted outside the API
    ballots.vote("u1", "A")
    ballots.vote("u2", "A")
    ballots.vote("u3", "B")
    ballots.change("u2", "C")  # A -1, C +1
    ballots.change("u3", "B")  # same candidate: no delta, but a change to count
    ballots.withdraw("u1")  # A -1 (a tombstone: MODIFY without a new candidate)
    ballots.vote("u4", "C")
    ballots.delete_item("u4")  # REMOVE: C -1
    assert [r["eventName"] for r in ballots.records] == ["INSERT"] * 3 + ["MODIFY"] * 3 + ["INSERT", "REMOVE"]

    # When the shard's records arrive in one batch
    response = deliver(aggregator, ballots.records)

    # Then every delta is applied, and the checkpoint is the last record's sequence number, zero-padded
    assert response == {"batchItemFailures": [], "state": {}}
    assert service.results(ballots.poll_id).totals == {"A": 0, "B": 1, "C": 1} == ballots.truth()
    assert checkpoint(aggregator.repository.tables) == ballots.records[-1]["dynamodb"]["SequenceNumber"].zfill(40)
    assert_exact(service, ballots)


def test_change_of_reads_the_images():
    record = aggregator_module.DynamoDBRecord({
        "eventName": "MODIFY",
        "dynamodb": {
            "Keys": {"pollBucket": {"S": "p#13"}, "userId": {"S": "u"}},
            "OldImage": {"candidate": {"S": "A"}, "version": {"N": "1"}},
            "NewImage": {"candidate": {"S": "B"}, "version": {"N": "2"}},
            "SequenceNumber": "1",
        },
    })
    assert change_of(record, "1".zfill(40)) == aggregator_module.Change("1".zfill(40), "p", "A", "B", 1, bucket=13)


@pytest.mark.parametrize("keys", [
    {"userId": {"S": "u"}},  # no partition key
    {"pollBucket": {"S": "p"}, "userId": {"S": "u"}},  # no bucket
    {"pollBucket": {"S": "p#x"}, "userId": {"S": "u"}},
    {"pollBucket": {"S": "p#01"}, "userId": {"S": "u"}},  # not the key the API writes
    {"pollId": {"S": "p"}, "userId": {"S": "u"}},  # RawVotes keyed as it was before buckets
])
def test_a_record_whose_key_is_not_a_polls_bucket_cannot_be_a_change(keys):
    record = aggregator_module.DynamoDBRecord({"eventName": "INSERT", "dynamodb": {"Keys": keys, "SequenceNumber": "9"}})
    with pytest.raises(aggregator_module.PermanentRecordError):
        change_of(record, "1".zfill(40))


# --- exactly once ------------------------------------------------------------------------------------------

def test_the_same_batch_delivered_twice_counts_once(service, ballots, aggregator, writes):
    for n in range(6):
        ballots.vote(f"u{n}", "AB"[n % 2])
    deliver(aggregator, ballots.records)
    transactions = len(writes)

    # When Lambda delivers the batch again (an at-least-once redelivery)
    response = deliver(aggregator, ballots.records)

    # Then nothing is written and nothing moves
    assert response == {"batchItemFailures": [], "state": {}}
    assert len(writes) == transactions
    assert_exact(service, ballots)


def test_a_crash_after_the_flush_then_redelivery_and_bisected_halves_count_once(
    service, ballots, aggregator, monkeypatch
):
    for n in range(10):
        ballots.vote(f"u{n}", "ABC"[n % 3])
    for n in range(4):
        ballots.change(f"u{n}", "C")
    records = ballots.records

    # Given an invocation that flushes and then fails (a timeout after the commit, say)
    real_apply = Aggregator.apply

    def apply_then_crash(self, *args, **kwargs):
        real_apply(self, *args, **kwargs)
        raise TimeoutError("the invocation timed out after its flush")

    monkeypatch.setattr(Aggregator, "apply", apply_then_crash)
    with pytest.raises(TimeoutError):
        deliver(aggregator, records)
    monkeypatch.setattr(Aggregator, "apply", real_apply)
    assert service.results(ballots.poll_id).totals == ballots.truth()

    # When Lambda retries the whole batch, then (bisecting on the function error) its halves
    deliver(aggregator, records)
    deliver(aggregator, records[: len(records) // 2])
    deliver(aggregator, records[len(records) // 2:])

    # Then the totals are still exact
    assert_exact(service, ballots)


def test_a_partial_failure_flushes_only_before_the_failed_record_and_the_retry_finishes(
    service, ballots, aggregator, monkeypatch
):
    for n in range(8):
        ballots.vote(f"u{n}", "ABC"[n % 3])
    records = ballots.records
    failing = records[5]["dynamodb"]["SequenceNumber"]

    # Given record 5 fails once (a transient error in its handling)
    real_change_of = aggregator_module.change_of
    failed = []

    def flaky(record, sequence):
        if record.dynamodb.sequence_number == failing and not failed:
            failed.append(sequence)
            raise RuntimeError("transient")
        return real_change_of(record, sequence)

    monkeypatch.setattr(aggregator_module, "change_of", flaky)

    # When the batch is delivered
    response = deliver(aggregator, records)

    # Then the response names record 5, and only records 0..4 are counted: Lambda redelivers 5.. anyway
    assert response == {"batchItemFailures": [{"itemIdentifier": failing}], "state": {}}
    expected = Counter(r["dynamodb"]["NewImage"]["candidate"]["S"] for r in records[:5])
    assert service.results(ballots.poll_id).totals == {c: expected.get(c, 0) for c in "ABC"}
    with pytest.raises(ConflictError) as busy:  # 3 votes accepted, not applied yet: not drift
        service.recount(ballots.poll_id)
    assert busy.value.code == "RECOUNT_BUSY"

    # When Lambda retries from the failed record
    assert deliver(aggregator, records[5:]) == {"batchItemFailures": [], "state": {}}

    # Then every vote is counted once
    assert_exact(service, ballots)


# --- poison records: parked, never in the way of the others ----------------------------------------------

def handle(event) -> dict:
    """One invocation of the deployed entry point (looked up on the module, where the IAM check wraps it)."""
    return aggregator_module.lambda_handler(event, LambdaContext())


@pytest.fixture
def deployed(tables):
    """The aggregator as `lambda_handler` builds it (from the environment), fresh for each test."""
    aggregator_module.default_aggregator.cache_clear()
    yield aggregator_module.default_aggregator
    aggregator_module.default_aggregator.cache_clear()


def parked_votes() -> list[dict]:
    return parked_items(aggregator_module.CONSUMER)


def test_a_ballot_of_a_missing_poll_in_the_middle_is_parked_the_rest_counts_once_and_a_replay_after_the_fix_applies_it_once(
    service, ballots, deployed, tables
):
    # Given a batch with one ballot, in the middle, for a poll that does not exist (written around the API)
    ghost = AroundTheApi(service, f"ghost-{uuid.uuid4().hex[:6]}")
    for n in range(3):
        ballots.vote(f"u{n}", "AB"[n % 2])
    ghost.vote("g1", "A")
    for n in range(3, 6):
        ballots.vote(f"u{n}", "C")
    records = ballots.records[:3] + ghost.records + ballots.records[3:]
    assert [r["dynamodb"]["SequenceNumber"] for r in records] == sorted(r["dynamodb"]["SequenceNumber"] for r in records)

    # When Lambda delivers it
    response = handle(event_of(records))

    # Then nothing is reported: every other ballot is counted, the checkpoint moves past the whole batch,
    # and the ghost ballot is parked with its whole stream record and the error
    assert response == {"batchItemFailures": [], "state": {}}
    assert_exact(service, ballots)
    assert checkpoint(tables) == records[-1]["dynamodb"]["SequenceNumber"].zfill(40)
    (item,) = parked_votes()
    assert_parked(item, aggregator_module.CONSUMER, ghost.records[0], "MissingPollError", "pending")
    assert ghost.poll_id in item["errorMessage"]
    assert consumers() == [aggregator_module.CONSUMER]

    # When the same batch is delivered again (at-least-once): nothing moves, the ghost is not parked twice
    assert handle(event_of(records)) == {"batchItemFailures": [], "state": {}}
    assert_exact(service, ballots)
    assert parked_votes() == [item]

    # When an operator replays before fixing the cause: it still fails, and stays pending
    before_fix = handle(REPLAY)
    assert (before_fix["replayed"], before_fix["stillFailing"]) == (0, 1)
    assert before_fix["stillFailingRecords"][0]["errorType"] == "MissingPollError"
    assert [i["status"] for i in parked_votes()] == ["pending"]

    # When the operator creates the poll (as the API does) and replays
    service.create_poll(ghost.poll_id, PollIn(question="Which one?", candidates=["A", "B", "C"]))
    fixed = handle(REPLAY)

    # Then the ballot is counted once: results, the applied counter (a recount finds it caught up), the item replayed
    assert (fixed["replayed"], fixed["stillFailing"], fixed["next"]) == (1, 0, None)
    assert_exact(service, ghost)
    (replayed,) = parked_votes()
    assert replayed["status"] == "replayed"
    assert int(replayed["expiresAt"]) == pytest.approx(time.time() + 14 * 86400, abs=60)

    # And neither another replay nor another redelivery counts it again
    assert handle(REPLAY)["replayed"] == 0
    assert handle(event_of(records)) == {"batchItemFailures": [], "state": {}}
    assert_exact(service, ghost)
    assert_exact(service, ballots)
    assert [i["status"] for i in parked_votes()] == ["replayed"]


def test_a_ballot_is_parked_or_counted_never_both_when_the_invocation_fails_after_its_poll_was_found_missing(
    service, ballots, deployed, tables, monkeypatch
):
    # Given a batch with a ballot of a missing poll, whose parking flush is throttled: the invocation fails
    ghost = AroundTheApi(service, f"ghost-{uuid.uuid4().hex[:6]}")
    ballots.vote("u1", "A")
    ghost.vote("g1", "A")
    ballots.vote("u2", "B")
    records = ballots.records[:1] + ghost.records + ballots.records[1:]
    real_flush = VotingRepository.flush
    flushes: list[int] = []

    def throttled_when_parking(self, shard, flush, now):  # the first flush finds the poll missing; the next is throttled
        flushes.append(1)
        if len(flushes) > 1:
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                              "TransactWriteItems")
        return real_flush(self, shard, flush, now)

    monkeypatch.setattr(VotingRepository, "flush", throttled_when_parking)
    with pytest.raises(ClientError):
        handle(event_of(records))
    assert parked_votes() == []  # the parking rode in the transaction that failed

    # When the operator creates the poll meanwhile, and Lambda retries the batch
    monkeypatch.setattr(VotingRepository, "flush", real_flush)
    service.create_poll(ghost.poll_id, PollIn(question="Which one?", candidates=["A", "B", "C"]))
    assert handle(event_of(records)) == {"batchItemFailures": [], "state": {}}

    # Then the ghost ballot is counted by the retry, once, and nothing is left for a replay to count again
    assert handle(REPLAY)["replayed"] == 0
    assert_exact(service, ghost)
    assert_exact(service, ballots)
    assert parked_votes() == []


def test_a_record_that_cannot_be_a_vote_is_parked_and_the_records_after_it_are_applied(
    service, ballots, deployed, tables
):
    for n in range(4):
        ballots.vote(f"u{n}", "A")
    records = [dict(r) for r in ballots.records]
    # the stream record of u2's ballot, mangled: a candidate that is not a string
    poison = {**records[2], "dynamodb": {**records[2]["dynamodb"], "NewImage": {"candidate": {"N": "7"}}}}
    batch = [records[0], records[1], poison, records[3]]

    assert handle(event_of(batch)) == {"batchItemFailures": [], "state": {}}
    assert handle(event_of(batch)) == {"batchItemFailures": [], "state": {}}  # redelivered: parked once
    assert service.results(ballots.poll_id).totals["A"] == 3
    assert checkpoint(tables) == records[3]["dynamodb"]["SequenceNumber"].zfill(40)
    (item,) = parked_votes()
    assert_parked(item, aggregator_module.CONSUMER, poison, "PermanentRecordError", "pending")
    # no fix of the data makes this record a vote: a replay keeps failing (the recount counts u2 from RawVotes)
    replay = handle(REPLAY)
    assert (replay["replayed"], replay["stillFailing"]) == (0, 1)


def test_a_recount_that_corrected_the_poll_supersedes_the_replay_of_a_parked_ballot(service, clock, deployed):
    # Given a parked ballot of a missing poll, then the poll created, and a recount once it has settled
    ghost = AroundTheApi(service, f"ghost-{uuid.uuid4().hex[:6]}")
    ghost.vote("g1", "B", at=clock.now.isoformat())
    assert handle(event_of(ghost.records)) == {"batchItemFailures": [], "state": {}}
    service.create_poll(ghost.poll_id, PollIn(question="Which one?", candidates=["A", "B", "C"]))
    with pytest.raises(ConflictError):  # the ballot is accepted, not applied: not drift yet
        service.recount(ghost.poll_id)
    clock.now += timedelta(hours=7)
    assert service.recount(ghost.poll_id).corrected == {"B": 1}  # the recount counted it from RawVotes

    # When the operator replays the parked ballot
    replay = handle(REPLAY)

    # Then it is not counted a second time
    assert (replay["replayed"], replay["superseded"]) == (0, 1)
    assert [i["status"] for i in parked_votes()] == ["superseded"]
    assert_exact(service, ghost)


def test_a_poison_record_that_cannot_be_parked_now_is_reported_for_a_retry(
    service, ballots, deployed, monkeypatch
):
    for n in range(3):
        ballots.vote(f"u{n}", "A")
    records = [dict(r) for r in ballots.records]
    poison = {**records[1], "dynamodb": {**records[1]["dynamodb"], "Keys": {"userId": {"S": "u1"}}}}  # no pollBucket
    batch = [records[0], poison, records[2]]
    real_park = parked.ParkedRecords.park

    def throttled(self, record, error, now=None):
        raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                          "PutItem")

    # When parking is throttled: the record is reported (transient), only what comes before it is applied
    monkeypatch.setattr(parked.ParkedRecords, "park", throttled)
    response = handle(event_of(batch))
    assert response["batchItemFailures"] == [{"itemIdentifier": poison["dynamodb"]["SequenceNumber"]}]
    assert service.results(ballots.poll_id).totals["A"] == 1
    assert parked_votes() == []

    # When Lambda retries from it and parking works: parked, and the last ballot applied
    monkeypatch.setattr(parked.ParkedRecords, "park", real_park)
    assert handle(event_of(batch[1:])) == {"batchItemFailures": [], "state": {}}
    assert service.results(ballots.poll_id).totals["A"] == 2
    assert [i["errorType"] for i in parked_votes()] == ["PermanentRecordError"]


def test_an_invalid_flush_fails_the_batch_until_bisecting_isolates_the_record_which_is_then_parked(
    service, ballots, deployed, monkeypatch
):
    for n in range(4):
        ballots.vote(f"u{n}", "ABAB"[n])
    records = ballots.records
    bad = records[1]["dynamodb"]["SequenceNumber"].zfill(40)
    real_flush = VotingRepository.flush

    def refuse_u1(self, shard, flush, now):  # stands in for a request DynamoDB refuses (say, an oversized key)
        if flush.records and flush.through >= bad and flush.expected is not None and flush.expected < bad:
            raise ClientError({"Error": {"Code": "ValidationException", "Message": "invalid"}}, "TransactWriteItems")
        return real_flush(self, shard, flush, now)

    monkeypatch.setattr(VotingRepository, "flush", refuse_u1)
    handle(event_of(records[:1]))  # u0 applied: a checkpoint exists
    # A run of several records cannot be blamed on one: the invocation fails (Lambda bisects)
    with pytest.raises(ClientError):
        handle(event_of(records[1:]))
    assert parked_votes() == []
    # The half holding the record alone: parked; the other half: applied
    assert handle(event_of(records[1:2])) == {"batchItemFailures": [], "state": {}}
    assert handle(event_of(records[2:])) == {"batchItemFailures": [], "state": {}}
    assert [i["record"] for i in parked_votes()] == [records[1]]
    assert service.results(ballots.poll_id).totals == {"A": 2, "B": 1, "C": 0}


def test_a_racing_invocation_of_the_same_shard_cannot_apply_a_record_twice(service, ballots, aggregator, monkeypatch):
    for n in range(5):
        ballots.vote(f"u{n}", "B")
    deliver(aggregator, ballots.records)

    # Given a second invocation that read the checkpoint before the first one moved it (a slow predecessor)
    real_checkpoint = VotingRepository.checkpoint
    reads = []

    def stale_first(self, shard):
        reads.append(shard)
        return None if len(reads) == 1 else real_checkpoint(self, shard)

    monkeypatch.setattr(VotingRepository, "checkpoint", stale_first)
    ballots.vote("u9", "C")

    # When it flushes the old records plus a new one
    deliver(aggregator, ballots.records)

    # Then its conditional flush fails, it reads the checkpoint again and applies only the new record
    assert len(reads) == 2
    monkeypatch.setattr(VotingRepository, "checkpoint", real_checkpoint)
    assert_exact(service, ballots)


def test_shards_keep_their_own_checkpoints(service, tables, aggregator):
    # Two shards whose sequence numbers interleave (they are only ordered within a shard)
    first = Ballots(service, "poll-one")
    second = Ballots(service, "poll-two")
    first._sequence = iter(range(10**20 + 1, 10**21, 2))
    second._sequence = iter(range(10**20 + 2, 10**21, 2))
    for n in range(4):
        first.vote(f"u{n}", "A")
        second.vote(f"u{n}", "B")
    # When shard B is processed first: its checkpoint is above every sequence number of shard A
    deliver(aggregator, second.records, shard="shardId-B")
    deliver(aggregator, first.records, shard="shardId-A")
    # Then shard A's records are not taken for applied ones
    assert_exact(service, first)
    assert_exact(service, second)
    assert checkpoint(tables, "shardId-A") == first.records[-1]["dynamodb"]["SequenceNumber"].zfill(40)


def test_an_event_without_a_shard_is_refused_and_a_final_window_invocation_is_a_no_op(aggregator):
    with pytest.raises(MissingShardError, match="tumbling window"):
        aggregate({"Records": [{"eventSourceARN": STREAM_ARN, "dynamodb": {}}]}, aggregator=aggregator)
    assert aggregate(event_of([], final=True), aggregator=aggregator) == {"batchItemFailures": [], "state": {}}


def test_records_out_of_order_fail_the_invocation(ballots, aggregator):
    ballots.vote("u1", "A")
    ballots.vote("u2", "B")
    with pytest.raises(OutOfOrderError):
        deliver(aggregator, list(reversed(ballots.records)))


# --- bounded writes, write sharding ------------------------------------------------------------------------

def test_writes_grow_with_distinct_buckets_and_candidates_not_with_votes(tables, aggregator, writes):
    # Given a poll of 4 buckets, and 100 votes for 3 candidates, one of them taking 80%
    service = service_for(tables, buckets=4)
    ballots = Ballots(service, f"poll-{uuid.uuid4().hex[:8]}")
    choices = {f"u{n}": "A" if n % 5 else "BC"[n % 2] for n in range(100)}
    for user, candidate in choices.items():
        ballots.vote(user, candidate)
    pairs = {(bucket_of(user, 4), candidate) for user, candidate in choices.items()}
    assert len(pairs) == 12  # every candidate in every bucket

    deliver(aggregator, ballots.records)

    # Then one transaction: each (bucket, candidate) total + each bucket's applied counter + the checkpoint, and the
    # check that the poll exists (a ConditionCheck, made once: a poll is never deleted): 12 + 4 + 1 + 1
    assert writes == [18]
    ballots.vote("late", "B")
    deliver(aggregator, ballots.records[-1:])
    assert writes == [18, 3]  # B in late's bucket, that bucket's applied counter, the checkpoint: no second check
    assert_exact(service, ballots)


def test_a_batch_beyond_a_transactions_100_items_is_flushed_in_chunks_each_with_its_checkpoint(
    service, tables, aggregator, writes, monkeypatch
):
    # Given 26 polls x 3 candidates: 104 aggregate items (78 totals, 26 applied counters) to touch in one batch
    polls = [Ballots(service, f"wide-{n}") for n in range(26)]
    records = []
    for poll in polls:
        for n, candidate in enumerate("ABC"):
            poll.vote(f"u{n}", candidate)
        records += poll.records  # one shared sequence: already in stream order

    # When the flush of the second chunk fails once (after the first committed), and the batch is redelivered
    calls = []
    real_flush = VotingRepository.flush

    def second_fails(self, shard, flush, now):
        calls.append(flush.records)
        if len(calls) == 2:
            raise RuntimeError("lost connection")
        return real_flush(self, shard, flush, now)

    monkeypatch.setattr(VotingRepository, "flush", second_fails)
    with pytest.raises(RuntimeError):
        deliver(aggregator, records)
    monkeypatch.setattr(VotingRepository, "flush", real_flush)
    deliver(aggregator, records)

    # Then each transaction stayed within 100 items, and every poll is exact
    assert all(size <= 100 for size in writes) and len(writes) >= 2
    for poll in polls:
        assert service.results(poll.poll_id).totals == {"A": 1, "B": 1, "C": 1}
    assert_exact(service, polls[0])
    assert_exact(service, polls[-1])


def test_a_polls_ballots_and_aggregates_land_under_many_partition_keys_and_results_sum_them(
    service, ballots, aggregator, tables
):
    # Given 60 voters of one poll, all for one candidate, aggregated in three batches
    voters = [f"voter-{n}" for n in range(60)]
    for n, user in enumerate(voters):
        ballots.vote(user, "A")
        if n % 20 == 19:
            deliver(aggregator, ballots.records[n - 19:n + 1])
    assert ballots.buckets == DEFAULT_BUCKETS == 20

    # Then the ballots are under one partition key per bucket of their voters, never one key for the poll
    dynamodb = boto3.resource("dynamodb")
    raw = dynamodb.Table(tables.raw_votes).scan(ConsistentRead=True)["Items"]  # test-side check only
    buckets = {split_bucket(item["pollBucket"]) for item in raw}
    assert buckets == {(ballots.poll_id, bucket_of(user, 20)) for user in voters}
    assert len(buckets) >= 15  # 60 voters hashed over 20 buckets
    # and each bucket's aggregates are a segment under a partition key of its own, A's votes spread over them
    segments = [dynamodb.Table(tables.votes).get_item(Key={"pollId": segment_pk(*b), "sk": total_sk("A")})["Item"]
                for b in sorted(buckets)]
    assert len({s["pollId"] for s in segments}) == len(buckets)
    assert sum(int(s["votes"]) for s in segments) == 60
    assert all(int(s["votes"]) < 60 for s in segments)
    assert_exact(service, ballots)


# --- the recount ---------------------------------------------------------------------------------------------

def test_recount_corrects_drift_at_once_when_the_aggregator_is_caught_up(service, ballots, aggregator, tables):
    for n in range(5):
        ballots.vote(f"u{n}", "A")
    deliver(aggregator, ballots.records)
    # Given an aggregate changed behind the aggregator's back
    boto3.resource("dynamodb").Table(tables.votes).update_item(
        Key={"pollId": segment_pk(ballots.poll_id, 3), "sk": total_sk("B")},
        UpdateExpression="SET candidate = :c ADD votes :n",
        ExpressionAttributeValues={":c": "B", ":n": 2},
    )
    recount = service.recount(ballots.poll_id)
    assert recount.corrected == {"B": -2}
    assert recount.totals == {"A": 5, "B": 0, "C": 0}
    assert service.results(ballots.poll_id).totals == ballots.truth()
    assert service.recount(ballots.poll_id).corrected == {}


def test_recount_waits_for_votes_in_flight_and_corrects_lost_ones_once_the_poll_has_settled(
    service, ballots, aggregator, clock
):
    for n in range(6):
        ballots.vote(f"u{n}", "AB"[n % 2])
    # Given the aggregator gave up on the last two records (they went to the DLQ)
    deliver(aggregator, ballots.records[:4])

    # Then while they could still arrive, the recount refuses to call them drift
    with pytest.raises(ConflictError) as busy:
        service.recount(ballots.poll_id)
    assert busy.value.code == "RECOUNT_BUSY" and "2 accepted change(s)" in busy.value.message

    # When the poll has been quiet for longer than a record can live in the stream mapping
    clock.now += timedelta(hours=7)
    recount = service.recount(ballots.poll_id)

    # Then the lost votes are corrected, and the aggregator counts as caught up again
    assert recount.corrected == {"A": 1, "B": 1}
    assert service.results(ballots.poll_id).totals == ballots.truth()
    ballots.vote("late", "C")
    deliver(aggregator, ballots.records[-1:])
    assert_exact(service, ballots)


def test_recount_reads_again_when_a_flush_lands_while_it_counts(service, ballots, aggregator, monkeypatch):
    for n in range(4):
        ballots.vote(f"u{n}", "A")
    deliver(aggregator, ballots.records)
    ballots.vote("u9", "B")
    real_tally = VotingRepository.tally
    delivered = []

    def tally_while_flushing(self, poll_id, buckets):
        result = real_tally(self, poll_id, buckets)
        if not delivered:
            delivered.append(deliver(aggregator, ballots.records))  # lands between the two aggregate reads
        return result

    monkeypatch.setattr(VotingRepository, "tally", tally_while_flushing)
    recount = service.recount(ballots.poll_id)
    assert recount.corrected == {} and recount.totals == {"A": 4, "B": 1, "C": 0}


# --- property: any interleaving of redeliveries and splits ---------------------------------------------------

OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["vote", "change", "withdraw"]), st.integers(0, 11), st.sampled_from("ABC")),
    min_size=1, max_size=30,
)
DELIVERY = st.lists(
    st.tuples(
        st.sampled_from(["batch", "redeliver", "crash-after-flush", "partial-failure", "bisect"]),
        st.integers(1, 12),  # batch size
        st.integers(0, 11),  # where a partial failure happens
    ),
    min_size=1, max_size=12,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=OPERATIONS, plan=DELIVERY, seed=st.integers(0, 2**16))
def test_totals_always_equal_the_recount(service, tables, operations, plan, seed):
    # Given random votes, changes and withdrawals by 12 users (refused ones write nothing and emit nothing)
    ballots = Ballots(service, f"prop-{uuid.uuid4().hex[:10]}")
    for action, user, candidate in operations:
        holds = ballots.state.get(f"u{user}", (None, 0))[0] is not None
        if action == "vote" and not holds:
            ballots.vote(f"u{user}", candidate)
        elif action == "change" and holds:
            ballots.change(f"u{user}", candidate)
        elif action == "withdraw" and holds:
            ballots.withdraw(f"u{user}")
    records = ballots.records
    aggregator = Aggregator(VotingRepository(tables), random.Random(seed))
    shard = f"shard-{uuid.uuid4().hex[:8]}"

    # When the shard is delivered as Lambda may: batches of any size, redeliveries of what was already
    # delivered, crashes after a flush, partial failures retried from the failed record, bisected retries
    position = 0  # Lambda's checkpoint: everything before it was acknowledged
    for kind, size, fail_at in plan + [("batch", len(records) or 1, 0)] * 2:
        batch = records[position:position + size]
        if kind == "redeliver" and position:
            start = random.Random(seed + position).randrange(position)
            deliver(aggregator, records[start:position], shard)  # an earlier batch again
            continue
        if not batch:
            continue
        if kind == "crash-after-flush":
            with pytest.MonkeyPatch.context() as patch:
                real = Aggregator.apply
                patch.setattr(Aggregator, "apply", lambda self, *a, **k: (real(self, *a, **k), _crash())[0])
                with pytest.raises(TimeoutError):
                    deliver(aggregator, batch, shard)
            continue  # not acknowledged: Lambda delivers it again
        if kind == "bisect" and len(batch) > 1:
            half = len(batch) // 2
            deliver(aggregator, batch[:half], shard)
            deliver(aggregator, batch[half:], shard)
            position += len(batch)
            continue
        if kind == "partial-failure":
            failing = batch[fail_at % len(batch)]["dynamodb"]["SequenceNumber"]
            with pytest.MonkeyPatch.context() as patch:
                real_change_of = aggregator_module.change_of

                def flaky(record, sequence, failing=failing):
                    if record.dynamodb.sequence_number == failing:
                        raise RuntimeError("transient")
                    return real_change_of(record, sequence)

                patch.setattr(aggregator_module, "change_of", flaky)
                try:
                    response = deliver(aggregator, batch, shard)
                except Exception:  # every record failed: a function error, nothing acknowledged
                    continue
            failures = response["batchItemFailures"]  # none if the failing record had been applied already
            sequences = [r["dynamodb"]["SequenceNumber"] for r in batch]
            position += sequences.index(failures[0]["itemIdentifier"]) if failures else len(batch)
            continue
        deliver(aggregator, batch, shard)
        position += len(batch)

    # Then the totals equal the ballots, and the recount agrees: caught up, no drift
    assert position >= len(records)
    assert_exact(service, ballots)


def _crash():
    raise TimeoutError("crashed after the flush")


def test_checkpoint_items_are_keyed_per_stream_and_shard(tables, ballots, aggregator):
    ballots.vote("u1", "A")
    deliver(aggregator, ballots.records)
    item = boto3.resource("dynamodb").Table(tables.votes).get_item(
        Key={"pollId": checkpoint_pk(STREAM_ARN, SHARD), "sk": "#checkpoint"}
    )["Item"]
    assert item["sequenceNumber"] == ballots.records[0]["dynamodb"]["SequenceNumber"].zfill(40)
    assert (int(item["appliedRecords"]), int(item["itemWrites"]), int(item["flushes"])) == (1, 3, 1)
    # A shard's records live 24 h in the stream: its checkpoint expires two days after its last flush
    assert int(item["expiresAt"]) - datetime.fromisoformat(item["updatedAt"]).timestamp() == pytest.approx(2 * 86400, abs=1)
