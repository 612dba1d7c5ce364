"""Voting test support: moto tables, hand-built RawVotes stream records, and moto's own stream as Lambda sends it."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3

from functions.shared.parked import PARKED_TABLE
from functions.shared.settings import Settings
from functions.voting.aggregator import Aggregator, aggregate
from functions.voting.models import PollIn
from functions.voting.repository import TableNames, VotingRepository, ballot_key
from functions.voting.schema import DEFAULT_BUCKETS, RAW_VOTES_TABLE, TABLES, VOTES_TABLE
from functions.voting.service import VotingService
from local.streams import lambda_record
from tests.functional.conftest import make_table

STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/RawVotes/stream/2026-11-22T00:00:00.000"
FIRST_SEQUENCE = 100_000_000_000_000_000_000  # 21 digits, as DynamoDB's shortest
# One counter for every Ballots: records of several polls can share a shard, in the order they were written.
_SEQUENCES = itertools.count(FIRST_SEQUENCE)


def make_tables(monkeypatch) -> TableNames:
    for spec in (*TABLES, PARKED_TABLE):  # the aggregator parks the records it can never apply
        make_table(spec, monkeypatch)
    return TableNames(Settings({spec.env_var: f"test-{spec.construct_id}" for spec in (RAW_VOTES_TABLE, VOTES_TABLE)}))


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime(2026, 11, 22, 12, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def event_of(records: Sequence[dict[str, Any]], shard_id: str = "shardId-00000001-0001",
             *, final: bool = False) -> dict[str, Any]:
    """A tumbling-window stream event as Lambda sends it to the aggregator."""
    return {
        "Records": list(records),
        "window": {"start": "2026-11-22T12:00:00Z", "end": "2026-11-22T12:15:00Z"},
        "state": {},
        "shardId": shard_id,
        "eventSourceARN": STREAM_ARN,
        "isFinalInvokeForWindow": final,
        "isWindowTerminatedEarly": False,
    }


def _image(key: dict[str, str], poll_id: str, candidate: str | None, version: int) -> dict[str, Any]:
    image: dict[str, Any] = {
        "pollBucket": {"S": key["pollBucket"]}, "userId": {"S": key["userId"]}, "pollId": {"S": poll_id},
        "version": {"N": str(version)}, "updatedAt": {"S": "2026-11-22T12:00:00+00:00"},
    }
    if candidate is not None:
        image["candidate"] = {"S": candidate}
    return image


class Ballots:
    """Writes ballots through the service, as the API does, and keeps the stream records DynamoDB would emit for
    them, built by hand: INSERT for a new item, MODIFY for a change or a withdrawal (a tombstone), REMOVE for an
    item deleted outside the API. `records` is the shard, in order; `truth()` the expected totals."""

    def __init__(self, service: VotingService, poll_id: str, candidates: Sequence[str] = ("A", "B", "C")):
        self.service = service
        self.poll_id = poll_id
        self.candidates = list(candidates)
        self.records: list[dict[str, Any]] = []
        self.state: dict[str, tuple[str | None, int]] = {}  # user -> (candidate, version), items that exist
        self._sequence = _SEQUENCES
        service.create_poll(poll_id, PollIn(question="Which one?", candidates=list(candidates)))
        stored = service.repository.get_poll(poll_id)
        assert stored is not None
        self.buckets = stored.buckets

    def key(self, user: str) -> dict[str, str]:
        """The voter's ballot item's key: their bucket of the poll, their id."""
        return ballot_key(self.poll_id, self.buckets, user)

    def vote(self, user: str, candidate: str) -> None:
        self.service.vote(self.poll_id, user, candidate)
        self._emit(user, candidate)

    def change(self, user: str, candidate: str) -> None:
        self.service.change_vote(self.poll_id, user, candidate)
        self._emit(user, candidate)

    def withdraw(self, user: str) -> None:
        self.service.withdraw(self.poll_id, user)
        self._emit(user, None)

    def delete_item(self, user: str) -> None:
        """An item removed outside the API (an operator's clean-up): a REMOVE record with the old image."""
        table = boto3.resource("dynamodb").Table(self.service.repository.tables.raw_votes)
        table.delete_item(Key=self.key(user))
        old_candidate, old_version = self.state.pop(user)
        self.records.append(
            self._record("REMOVE", user, old=_image(self.key(user), self.poll_id, old_candidate, old_version))
        )

    def truth(self) -> dict[str, int]:
        totals = dict.fromkeys(self.candidates, 0)
        for candidate, _ in self.state.values():
            if candidate is not None:
                totals[candidate] += 1
        return totals

    def _emit(self, user: str, candidate: str | None) -> None:
        before = self.state.get(user)
        version = (before[1] if before else 0) + 1
        self.state[user] = (candidate, version)
        new = _image(self.key(user), self.poll_id, candidate, version)
        if before is None:
            self.records.append(self._record("INSERT", user, new=new))
        else:
            self.records.append(
                self._record("MODIFY", user, old=_image(self.key(user), self.poll_id, before[0], before[1]), new=new)
            )

    def _record(self, name: str, user: str, *, old: dict | None = None, new: dict | None = None) -> dict[str, Any]:
        dynamodb: dict[str, Any] = {
            "ApproximateCreationDateTime": 1795000000.0,
            "Keys": {"pollBucket": {"S": self.key(user)["pollBucket"]}, "userId": {"S": user}},
            "SequenceNumber": str(next(self._sequence)),
            "SizeBytes": 120,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        }
        if old is not None:
            dynamodb["OldImage"] = old
        if new is not None:
            dynamodb["NewImage"] = new
        return {
            "eventID": f"{random.getrandbits(128):032x}",
            "eventName": name,
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": dynamodb,
            "eventSourceARN": STREAM_ARN,
        }


class AroundTheApi(Ballots):
    """Ballots written straight into RawVotes, around the API, for a poll that need not exist (the API would refuse
    them): the poison records of the aggregator's tests. Their stream records are built as Ballots builds them."""

    def __init__(self, service: VotingService, poll_id: str, candidates: Sequence[str] = ("A", "B", "C")):
        self.service = service
        self.poll_id = poll_id
        self.candidates = list(candidates)
        self.records = []
        self.state = {}
        self._sequence = _SEQUENCES
        self.buckets = DEFAULT_BUCKETS  # what the API would give the poll, were it created now

    def vote(self, user: str, candidate: str, at: str = "2026-11-22T12:00:00+00:00") -> None:
        table = boto3.resource("dynamodb").Table(self.service.repository.tables.raw_votes)
        table.put_item(Item={**self.key(user), "pollId": self.poll_id, "candidate": candidate, "votedAt": at,
                             "updatedAt": at, "version": 1})
        self._emit(user, candidate)


class MotoStream:
    """Reads RawVotes' stream on moto (its one shard) and hands new records to the aggregator as Lambda would."""

    def __init__(self, table_name: str, aggregator: Aggregator):
        self.aggregator = aggregator
        self._client = boto3.client("dynamodbstreams")
        self.arn = boto3.client("dynamodb").describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
        (shard,) = self._client.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
        self.shard_id = shard["ShardId"]
        self._after: str | None = None

    def new_records(self) -> list[dict[str, Any]]:
        position = (
            {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": self._after}
            if self._after else {"ShardIteratorType": "TRIM_HORIZON"}
        )
        iterator = self._client.get_shard_iterator(StreamArn=self.arn, ShardId=self.shard_id, **position)["ShardIterator"]
        raw = self._client.get_records(ShardIterator=iterator, Limit=1000)["Records"]
        if raw:
            self._after = raw[-1]["dynamodb"]["SequenceNumber"]
        return [lambda_record(r, stream_arn=self.arn, region="us-east-1").event for r in raw]

    def deliver(self) -> int:
        """Deliver everything written since the last call in one batch; the number of records."""
        records = self.new_records()
        if records:
            event = {**event_of(records, self.shard_id), "eventSourceARN": self.arn}
            response = aggregate(event, aggregator=self.aggregator)
            assert response == {"batchItemFailures": [], "state": {}}
        return len(records)


def service_for(tables: TableNames, clock: Clock | None = None, settled: timedelta | None = None,
                buckets: int | None = None) -> VotingService:
    return VotingService(VotingRepository(tables), clock=clock or Clock(), settled=settled, buckets=buckets)
