"""Voting table access: one method per access pattern, the only module here that talks to DynamoDB.

Rules held by DynamoDB itself, each in one request:
- one ballot per voter and poll: the voter's ballot is one item (its poll's bucket, its user id); casting a vote is
  an UpdateItem conditioned on the item having no `candidate` (absent, or withdrawn); changing and withdrawing are
  conditioned on it having one;
- a poll's definition never changes: creating it is a PutItem conditioned on the poll not existing;
- the aggregates move exactly once per stream record: each flush is one transaction with the shard's checkpoint,
  conditioned on the checkpoint the flush started from (functions/voting/aggregator.py);
- a ballot is aggregated only into a poll that exists: a flush checks each poll it has not seen exist yet with a
  ConditionCheck `attribute_exists` in the same transaction (a poll, once created, is never deleted);
- a parked record is replayed exactly once: its deltas, the poll's existence (and that no recount corrected the
  poll since), and its parked item leaving `pending` are one transaction;
- a recount's correction is one transaction conditioned on the poll's recount version, so two recounts cannot
  both correct the same drift.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.shared import ddb
from functions.shared.errors import ConflictError, NotFoundError
from functions.shared.settings import TableName, Tables
from functions.voting import models
from functions.voting.schema import (
    APPLIED_SK,
    CHECKPOINT_RETENTION_SECONDS,
    CHECKPOINT_SK,
    POLL_SK,
    RAW_VOTES_TABLE,
    TOTAL_PREFIX,
    UNRECORDED_BUCKETS,
    VOTES_TABLE,
    ballot_pk,
    bucket_of,
    checkpoint_pk,
    segment_pk,
    total_sk,
)

# A poll's aggregate segment: (pollId, bucket). Votes' partition key `<pollId>#<bucket>` (schema.segment_pk).
Segment = tuple[str, int]
# The segment a recount's correction is added to (any segment would do: results sum them all).
CORRECTION_BUCKET = 0


class TableNames(Tables):
    """The voting tables' names, from the function's settings when first used."""

    raw_votes = TableName(RAW_VOTES_TABLE)
    votes = TableName(VOTES_TABLE)


@dataclass(frozen=True)
class StoredPoll:
    """A poll as Votes holds it: its definition, its bucket count B (fixed at creation), its recount version."""

    poll: models.Poll
    buckets: int
    recount_version: int = 0


@dataclass(frozen=True)
class Aggregates:
    """A poll's aggregate segments in Votes, one Query each, summed."""

    totals: dict[str, int]
    applied_changes: int  # RawVotes changes the aggregator has applied (sum of the segments' APPLIED `changes`)
    snapshot: tuple[tuple[int, str, int], ...]  # every (bucket, sk, value): two equal reads saw the same data


@dataclass(frozen=True)
class Tally:
    """A poll's ballots counted from RawVotes (the truth)."""

    totals: dict[str, int]
    accepted_changes: int  # sum of the items' `version`: every write the API accepted for this poll
    last_change_at: datetime | None


@dataclass(frozen=True)
class Shard:
    stream_arn: str
    shard_id: str


@dataclass(frozen=True)
class Flush:
    """What one aggregator transaction applies: vote deltas per segment (poll, bucket) and candidate, applied
    changes per segment (the records' version increments), how many records that is, and the checkpoint move from
    `expected` to `through`."""

    deltas: Mapping[Segment, Mapping[str, int]]
    changes: Mapping[Segment, int]
    records: int
    expected: str | None
    through: str
    checks: tuple[str, ...] = ()  # polls whose existence the transaction checks (ConditionCheck on "#poll")
    # Parked-record Puts of the run's records that can never be applied: committed with the checkpoint move past
    # them, so a record is either parked or aggregated, never both (functions/voting/aggregator.py).
    parks: tuple[Mapping[str, Any], ...] = ()


class CheckpointMovedError(Exception):
    """Another invocation advanced the shard's checkpoint after this one read it: read it again."""


class TransactionConflictError(Exception):
    """A concurrent transaction held one of the items (a recount's correction, another container's first check of a
    poll): retry."""


class MissingPollError(Exception):
    """The flush's ConditionCheck found no poll item for these polls: their ballots can never be aggregated until
    an operator creates the polls (a permanent failure: the aggregator parks their records)."""

    def __init__(self, poll_ids: list[str]):
        super().__init__(f"poll(s) {', '.join(poll_ids)} do not exist")
        self.poll_ids = poll_ids


@dataclass(frozen=True)
class Replay:
    """One parked RawVotes record applied again: its deltas and version increment, on its bucket's segment."""

    poll_id: str
    bucket: int
    deltas: Mapping[str, int]
    changes: int


def poll_item(poll: models.Poll, buckets: int) -> dict[str, Any]:
    return {
        "pollId": poll.poll_id,
        "sk": POLL_SK,
        "question": poll.question,
        "candidates": list(poll.candidates),
        "createdAt": poll.created_at.isoformat(),
        "buckets": buckets,
    }


def stored_poll_from(item: Mapping[str, Any]) -> StoredPoll:
    poll = models.Poll(
        poll_id=item["pollId"],
        question=item["question"],
        candidates=list(item["candidates"]),
        created_at=item["createdAt"],
    )
    return StoredPoll(poll, int(item.get("buckets", UNRECORDED_BUCKETS)), int(item.get("recountVersion", 0)))


def vote_from(item: Mapping[str, Any]) -> models.Vote:
    return models.Vote(
        poll_id=item["pollId"], candidate=item["candidate"], voted_at=item["votedAt"], updated_at=item["updatedAt"]
    )


def ballot_key(poll_id: str, buckets: int, user_id: str) -> dict[str, str]:
    """The voter's one ballot item in a poll of `buckets` buckets."""
    return {"pollBucket": ballot_pk(poll_id, bucket_of(user_id, buckets)), "userId": user_id}


class VotingRepository:
    def __init__(self, tables: TableNames):
        self.tables = tables

    # polls

    def create_poll(self, poll: models.Poll, buckets: int) -> tuple[StoredPoll, bool]:
        """Store a poll with its bucket count unless one with this id exists (PutItem, attribute_not_exists). Returns
        the stored poll and whether it was created now; the caller compares an existing one with what was asked."""
        try:
            ddb.table(self.tables.votes).put_item(
                Item=poll_item(poll, buckets),
                ConditionExpression="attribute_not_exists(pollId)",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            old = ddb.refused_item(error)
            if ddb.error_code(error) != "ConditionalCheckFailedException" or old is None:
                raise
            return stored_poll_from(old), False
        return StoredPoll(poll, buckets), True

    def get_poll(self, poll_id: str, *, consistent: bool = False) -> StoredPoll | None:
        """Get a poll: GetItem (pollId, "#poll")."""
        item = (
            ddb.table(self.tables.votes)
            .get_item(Key={"pollId": poll_id, "sk": POLL_SK}, ConsistentRead=consistent)
            .get("Item")
        )
        return None if item is None else stored_poll_from(item)

    # ballots

    def cast_vote(self, poll: StoredPoll, user_id: str, candidate: str, now: datetime) -> models.Vote:
        """Vote: UpdateItem on RawVotes (the voter's bucket of the poll, userId) if the voter holds no vote (none yet,
        or withdrawn)."""
        return vote_from(self._write_ballot(
            poll, user_id,
            update=(
                "SET pollId = :poll, #candidate = :candidate, votedAt = :now, updatedAt = :now "
                "REMOVE withdrawnAt ADD #version :one"
            ),
            condition="attribute_not_exists(#candidate)",
            values={":poll": poll.poll.poll_id, ":candidate": candidate, ":now": now.isoformat(), ":one": 1},
            refusal=ConflictError("you have already voted in this poll; change your vote instead",
                                  code="ALREADY_VOTED"),
        ))

    def change_vote(self, poll: StoredPoll, user_id: str, candidate: str, now: datetime) -> models.Vote:
        """Change my vote: UpdateItem on RawVotes if the voter holds a vote."""
        return vote_from(self._write_ballot(
            poll, user_id,
            update="SET #candidate = :candidate, votedAt = :now, updatedAt = :now ADD #version :one",
            condition="attribute_exists(#candidate)",
            values={":candidate": candidate, ":now": now.isoformat(), ":one": 1},
            refusal=_no_vote(),
        ))

    def withdraw_vote(self, poll: StoredPoll, user_id: str, now: datetime) -> None:
        """Withdraw my vote: UpdateItem leaving a tombstone (no candidate; version kept) if the voter holds a vote."""
        self._write_ballot(
            poll, user_id,
            update="REMOVE #candidate, votedAt SET updatedAt = :now, withdrawnAt = :now ADD #version :one",
            condition="attribute_exists(#candidate)",
            values={":now": now.isoformat(), ":one": 1},
            refusal=_no_vote(),
        )

    def get_vote(self, poll: StoredPoll, user_id: str) -> models.Vote:
        """My vote: GetItem on RawVotes, strongly consistent (a voter reads their own write); none, or a tombstone, is
        404 NO_VOTE."""
        item = (
            ddb.table(self.tables.raw_votes)
            .get_item(Key=ballot_key(poll.poll.poll_id, poll.buckets, user_id), ConsistentRead=True)
            .get("Item")
        )
        if item is None or "candidate" not in item:
            raise _no_vote()
        return vote_from(item)

    def _write_ballot(
        self, poll: StoredPoll, user_id: str, *, update: str, condition: str, values: dict[str, Any],
        refusal: Exception,
    ) -> dict[str, Any]:
        try:
            return ddb.update_conditional(
                ddb.table(self.tables.raw_votes),
                mark={"updatedAt": values[":now"]},  # every ballot write sets it: a retry finds its own
                Key=ballot_key(poll.poll.poll_id, poll.buckets, user_id),
                UpdateExpression=update,
                ConditionExpression=condition,
                ExpressionAttributeNames={"#candidate": "candidate", "#version": "version"},
                ExpressionAttributeValues=values,
            )
        except ClientError as error:
            if ddb.error_code(error) == "ConditionalCheckFailedException":
                raise refusal from error
            raise

    # results and recount

    def aggregates(self, poll_id: str, buckets: int, *, consistent: bool = False) -> Aggregates:
        """Results: one Query per aggregate segment of the poll (`pollId = <pollId>#<bucket>`, bucket 0..B-1), each
        a few small items (the bucket's candidates and its applied counter), summed in code."""
        totals: Counter[str] = Counter()
        applied = 0
        snapshot = []
        for bucket in range(buckets):
            for item in _query_all(
                self.tables.votes, KeyConditionExpression=Key("pollId").eq(segment_pk(poll_id, bucket)),
                ConsistentRead=consistent,
            ):
                if item["sk"].startswith(TOTAL_PREFIX):
                    votes = int(item.get("votes", 0))
                    totals[item["sk"].removeprefix(TOTAL_PREFIX)] += votes
                    snapshot.append((bucket, item["sk"], votes))
                elif item["sk"] == APPLIED_SK:
                    changes = int(item.get("changes", 0))
                    applied += changes
                    snapshot.append((bucket, item["sk"], changes))
        return Aggregates(dict(totals), applied, tuple(snapshot))

    def tally(self, poll_id: str, buckets: int) -> Tally:
        """Recount: Query RawVotes on each of the poll's buckets, strongly consistent, page by page."""
        totals: Counter[str] = Counter()
        accepted = 0
        last: str | None = None
        for bucket in range(buckets):
            for item in _query_all(
                self.tables.raw_votes,
                KeyConditionExpression=Key("pollBucket").eq(ballot_pk(poll_id, bucket)),
                ProjectionExpression="#candidate, #version, updatedAt",
                ExpressionAttributeNames={"#candidate": "candidate", "#version": "version"},
                ConsistentRead=True,
            ):
                if "candidate" in item:
                    totals[item["candidate"]] += 1
                accepted += int(item.get("version", 0))
                if last is None or item["updatedAt"] > last:
                    last = item["updatedAt"]
        return Tally(dict(totals), accepted, None if last is None else datetime.fromisoformat(last))

    def correct(self, poll_id: str, corrections: Mapping[str, int], changes: int, recount_version: int) -> bool:
        """A recount's correction: ADD the drift to bucket 0's segment of each candidate, and the accepted changes
        that will never be applied to its applied counter, in one transaction with the poll's recount version.
        False, nothing written, when another recount moved the version first (what that means is the service's)."""
        actions: list[tuple[str, dict[str, Any]]] = [
            ("poll", {
                "Update": {
                    "TableName": self.tables.votes,
                    "Key": {"pollId": poll_id, "sk": POLL_SK},
                    "UpdateExpression": "SET recountVersion = :next",
                    "ConditionExpression": (
                        "attribute_exists(pollId) AND "
                        + ("attribute_not_exists(recountVersion)" if recount_version == 0 else "recountVersion = :seen")
                    ),
                    "ExpressionAttributeValues": {":next": recount_version + 1}
                    | ({} if recount_version == 0 else {":seen": recount_version}),
                }
            })
        ]
        segment = (poll_id, CORRECTION_BUCKET)
        for candidate, delta in sorted(corrections.items()):
            actions.append(("total", _total_update(self.tables.votes, segment, candidate, delta)))
        if changes:
            actions.append(("applied", _applied_update(self.tables.votes, segment, changes)))
        failed = ddb.transact_write(actions)  # only the poll's recountVersion has a condition
        return failed is None

    # the aggregator's checkpoints and flushes

    def checkpoint(self, shard: Shard) -> str | None:
        """The last sequence number applied from a stream shard (zero-padded), strongly consistent; None at first."""
        item = (
            ddb.table(self.tables.votes)
            .get_item(Key={"pollId": checkpoint_pk(shard.stream_arn, shard.shard_id), "sk": CHECKPOINT_SK},
                      ConsistentRead=True)
            .get("Item")
        )
        return None if item is None else str(item["sequenceNumber"])

    def flush(self, shard: Shard, flush: Flush, now: datetime) -> int:
        """Apply a flush: one TransactWriteItems with a ConditionCheck per poll in `flush.checks` (it exists), an ADD
        per (segment, candidate) and per segment's applied counter, and the shard checkpoint, conditioned on the
        checkpoint still being `flush.expected`. Returns the number of items written. Raises MissingPollError naming
        the polls whose check failed (found by the failed actions' names), CheckpointMovedError,
        TransactionConflictError."""
        actions: list[tuple[str, dict[str, Any]]] = []
        for poll_id in flush.checks:
            actions.append((_poll_check_name(poll_id), _poll_check(self.tables.votes, poll_id)))
        for segment in sorted(set(flush.deltas) | set(flush.changes)):
            for candidate, delta in sorted(flush.deltas.get(segment, {}).items()):
                if delta:
                    actions.append(("total", _total_update(self.tables.votes, segment, candidate, delta)))
            if flush.changes.get(segment):
                actions.append(("applied", _applied_update(self.tables.votes, segment, flush.changes[segment])))
        actions.extend(("park", dict(action)) for action in flush.parks)
        writes = len(actions) - len(flush.checks) + 1  # a ConditionCheck writes nothing
        key = {"pollId": checkpoint_pk(shard.stream_arn, shard.shard_id), "sk": CHECKPOINT_SK}
        values: dict[str, Any] = {
            ":through": flush.through, ":now": now.isoformat(), ":records": flush.records,
            ":writes": writes, ":one": 1, ":expires": int(now.timestamp()) + CHECKPOINT_RETENTION_SECONDS,
        }
        if flush.expected is None:
            condition = "attribute_not_exists(pollId)"
        else:
            condition = "sequenceNumber = :expected"
            values[":expected"] = flush.expected
        actions.append((
            CHECKPOINT_ACTION,
            {
                "Update": {
                    "TableName": self.tables.votes,
                    "Key": key,
                    "UpdateExpression": (
                        "SET sequenceNumber = :through, updatedAt = :now, expiresAt = :expires "
                        "ADD appliedRecords :records, itemWrites :writes, flushes :one"
                    ),
                    "ConditionExpression": condition,
                    "ExpressionAttributeValues": values,
                }
            },
        ))
        try:
            failed = ddb.transact_write(actions)  # conditions: the polls' checks and the checkpoint
        except ClientError as error:
            if "TransactionConflict" in ddb.cancellation_reasons(error):
                raise TransactionConflictError(shard.shard_id) from error
            raise
        if failed is None:
            return writes
        if CHECKPOINT_ACTION in failed.names:  # first: what is left to apply may have changed
            raise CheckpointMovedError(shard.shard_id) from failed.error
        missing = [name.removeprefix(POLL_CHECK_PREFIX) for name in failed.names if name.startswith(POLL_CHECK_PREFIX)]
        if not missing:
            raise RuntimeError(f"flush cancelled by an unexpected condition: {failed.names}") from failed.error
        raise MissingPollError(missing) from failed.error

    # parked records (functions/shared/parked.py)

    def replay(self, replay: Replay, parked_update: Mapping[str, Any]) -> str:
        """Replay a parked record: one TransactWriteItems with its deltas and applied changes on its bucket's segment,
        a ConditionCheck that the poll exists and that no recount corrected it (`recountVersion` absent), and
        `parked_update` (the parked item leaves `pending`, conditioned on it being pending).

        Returns "replayed", "already-replayed" (another replay got there first) or "superseded" (a recount has
        corrected the poll since: its count already includes this ballot, see docs/voting.md); raises
        MissingPollError while the poll does not exist.
        """
        actions: list[tuple[str, dict[str, Any]]] = [
            ("poll", {
                "ConditionCheck": {
                    "TableName": self.tables.votes,
                    "Key": {"pollId": replay.poll_id, "sk": POLL_SK},
                    "ConditionExpression": "attribute_exists(pollId) AND attribute_not_exists(recountVersion)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("parked", dict(parked_update)),
        ]
        segment = (replay.poll_id, replay.bucket)
        for candidate, delta in sorted(replay.deltas.items()):
            if delta:
                actions.append(("total", _total_update(self.tables.votes, segment, candidate, delta)))
        if replay.changes:
            actions.append(("applied", _applied_update(self.tables.votes, segment, replay.changes)))
        failed = ddb.transact_write(actions)
        if failed is None:
            return "replayed"
        if "parked" in failed.names:
            return "already-replayed"
        if failed.item is None:
            raise MissingPollError([replay.poll_id]) from failed.error
        return "superseded"


CHECKPOINT_ACTION = "checkpoint"
POLL_CHECK_PREFIX = "poll:"


def _poll_check_name(poll_id: str) -> str:
    return f"{POLL_CHECK_PREFIX}{poll_id}"


def _poll_check(table: str, poll_id: str) -> dict[str, Any]:
    return {
        "ConditionCheck": {
            "TableName": table,
            "Key": {"pollId": poll_id, "sk": POLL_SK},
            "ConditionExpression": "attribute_exists(pollId)",
        }
    }


def _total_update(table: str, segment: Segment, candidate: str, votes: int) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": table,
            "Key": {"pollId": segment_pk(*segment), "sk": total_sk(candidate)},
            "UpdateExpression": "SET candidate = :candidate ADD votes :votes",
            "ExpressionAttributeValues": {":candidate": candidate, ":votes": votes},
        }
    }


def _applied_update(table: str, segment: Segment, changes: int) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": table,
            "Key": {"pollId": segment_pk(*segment), "sk": APPLIED_SK},
            "UpdateExpression": "ADD changes :changes",
            "ExpressionAttributeValues": {":changes": changes},
        }
    }


def _query_all(table_name: str, **query: Any) -> list[dict[str, Any]]:
    """Every item of one key condition, following LastEvaluatedKey (bounded by the key's own items)."""
    items: list[dict[str, Any]] = []
    table = ddb.table(table_name)
    while True:
        response = table.query(**query)
        items.extend(response.get("Items", []))
        if "LastEvaluatedKey" not in response:
            return items
        query["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def _no_vote() -> NotFoundError:
    return NotFoundError("you have no vote in this poll", code="NO_VOTE")
