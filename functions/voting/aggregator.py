"""Keeps the Votes aggregates equal to the RawVotes ballots, applying every stream record exactly once.

Deltas come from the record's images: a new vote +1 (no old candidate), a change -1 old / +1 new (nothing when the
candidate is the same), a withdrawal -1 (no new candidate). A batch is summed in memory per (poll, candidate) and
flushed as one TransactWriteItems: an ADD per candidate with a non-zero delta, one per poll for the applied-change
counter, and the shard's checkpoint. So the writes grow with the distinct candidates of the batch, never with its
votes; each flush picks one of the N segments at random, so flushes of a hot candidate spread over N items.

Exactly once: Lambda delivers a shard's records in order, one batch at a time (a tumbling window requires a
parallelization factor of 1). The shard's checkpoint holds the highest sequence number applied, zero-padded
(PITFALLS 14); records at or below it are skipped; a flush moves it forward in the same transaction as the
records' deltas, conditioned on it still being the value this invocation started from. A redelivered batch, a
bisected half, a retry from a failed record, or a batch re-run after a crash that followed the commit therefore
finds its records at or below the checkpoint; two invocations racing on one shard cannot both apply a record.
Only records *before* the first failed one are flushed, because Lambda redelivers from the failed record onward.

The shard: Lambda puts `shardId` in the event only when the mapping has a tumbling window, so the aggregator's
mapping has one (infra/domains/voting.py); its state is not used (`{}` is returned, as the window protocol asks).
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.shared.observability import logger, metrics, tracer
from functions.voting.repository import (
    CheckpointMovedError,
    Flush,
    Shard,
    TableNames,
    TransactionConflictError,
    VotingRepository,
)
from functions.voting.schema import DEFAULT_SEGMENTS, SEGMENTS_ENV, SEQUENCE_DIGITS, padded_sequence

MAX_KEYS_PER_FLUSH = 99  # TransactWriteItems takes 100 actions: the aggregate updates plus the checkpoint
MAX_FLUSH_ATTEMPTS = 8  # conflicting transactions or a moved checkpoint, then the invocation fails (Lambda retries)
CONFLICT_PAUSE = 0.05  # seconds, times the attempt, with jitter

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


class MissingShardError(RuntimeError):
    """The event names no shard: without it there is no checkpoint to keep (see the module docstring)."""


class OutOfOrderError(RuntimeError):
    """A batch whose sequence numbers do not increase: not what Lambda delivers from one shard."""


@dataclass(frozen=True)
class Change:
    """What one RawVotes stream record does to the aggregates."""

    sequence: str  # zero-padded
    poll_id: str
    old: str | None  # candidate before the write (None: no vote)
    new: str | None  # candidate after the write
    versions: int  # the record's version increment: changes accepted by the API (1 for every API write)


@dataclass
class Applied:
    records: int = 0
    item_writes: int = 0
    transactions: int = 0
    retries: int = 0


def _candidate(image: dict[str, Any]) -> str | None:
    candidate = image.get("candidate")
    if candidate is not None and not isinstance(candidate, str):
        raise ValueError(f"candidate is not a string: {candidate!r}")
    return candidate


def change_of(record: DynamoDBRecord, sequence: str) -> Change:
    """The record's delta; raises on a record that cannot be a RawVotes change (it is reported as failed)."""
    poll_id = record.dynamodb.keys.get("pollId") if record.dynamodb else None
    if not isinstance(poll_id, str) or not poll_id:
        raise ValueError("the record has no pollId key")
    old_image, new_image = record.dynamodb.old_image or {}, record.dynamodb.new_image or {}
    versions = int(new_image.get("version", 0)) - int(old_image.get("version", 0))
    return Change(sequence, poll_id, _candidate(old_image), _candidate(new_image), versions)


def sum_deltas(changes: Sequence[Change]) -> tuple[dict[str, Counter[str]], Counter[str]]:
    """Vote deltas per poll and candidate, and applied changes per poll, of a run of changes."""
    deltas: dict[str, Counter[str]] = defaultdict(Counter)
    versions: Counter[str] = Counter()
    for change in changes:
        if change.old != change.new:
            if change.old is not None:
                deltas[change.poll_id][change.old] -= 1
            if change.new is not None:
                deltas[change.poll_id][change.new] += 1
        versions[change.poll_id] += change.versions
    return deltas, versions


def chunks(changes: Sequence[Change], max_keys: int = MAX_KEYS_PER_FLUSH) -> Iterator[Sequence[Change]]:
    """Consecutive runs of changes touching at most `max_keys` aggregate items each (a transaction's limit)."""
    start, keys = 0, set()
    for index, change in enumerate(changes):
        touched = {(change.poll_id, c) for c in (change.old, change.new) if c is not None} | {(change.poll_id, None)}
        if index > start and len(keys | touched) > max_keys:
            yield changes[start:index]
            start, keys = index, set()
        keys |= touched
    if start < len(changes):
        yield changes[start:]


class Aggregator:
    def __init__(self, repository: VotingRepository, segments: int, rng: random.Random | None = None):
        if segments < 1:
            raise ValueError("segments must be at least 1")
        self.repository = repository
        self.segments = segments
        self._rng = rng or random.Random()

    def apply(self, shard: Shard, expected: str | None, changes: Sequence[Change]) -> Applied:
        """Flush `changes` (in stream order, all above `expected`) in as few transactions as the limits allow,
        each moving the checkpoint from the value the previous one left."""
        applied = Applied()
        pending = list(changes)
        attempts = 0
        while pending:
            chunk = next(chunks(pending))
            deltas, versions = sum_deltas(chunk)
            flush = Flush(
                deltas=deltas, changes=versions, records=len(chunk), expected=expected, through=chunk[-1].sequence,
                segment=self._rng.randint(1, self.segments),
            )
            try:
                applied.item_writes += self.repository.flush(shard, flush, datetime.now(timezone.utc))
            except CheckpointMovedError:
                # Another invocation of this shard got there first (a retry racing a slow predecessor): what it
                # applied is at or below the checkpoint now; only the rest is still ours to apply.
                attempts = self._again(attempts, applied)
                expected = self.repository.checkpoint(shard)
                pending = [c for c in pending if expected is None or c.sequence > expected]
                continue
            except TransactionConflictError:
                attempts = self._again(attempts, applied)
                time.sleep(CONFLICT_PAUSE * attempts * (0.5 + self._rng.random()))
                continue
            applied.records += len(chunk)
            applied.transactions += 1
            expected = flush.through
            pending = pending[len(chunk):]
        return applied

    @staticmethod
    def _again(attempts: int, applied: Applied) -> int:
        if attempts + 1 >= MAX_FLUSH_ATTEMPTS:
            raise RuntimeError("could not flush the aggregates; the batch will be retried")
        applied.retries += 1
        return attempts + 1


@lru_cache(maxsize=1)
def default_aggregator() -> Aggregator:
    segments = int(os.environ.get(SEGMENTS_ENV) or DEFAULT_SEGMENTS)
    return Aggregator(VotingRepository(TableNames.from_env(os.environ)), segments)


def shard_of(event: dict[str, Any]) -> Shard:
    shard_id = event.get("shardId")
    records = event.get("Records") or [{}]
    stream_arn = event.get("eventSourceARN") or records[0].get("eventSourceARN")
    if not shard_id or not stream_arn:
        raise MissingShardError(
            "the event names no shardId/eventSourceARN: the event source mapping needs a tumbling window"
        )
    return Shard(stream_arn=stream_arn, shard_id=shard_id)


def aggregate(event: dict[str, Any], context: LambdaContext | None = None,
              aggregator: Aggregator | None = None) -> dict[str, Any]:
    """Process one batch (or a tumbling window's final invocation, which has no records)."""
    shard = shard_of(event)
    records = event.get("Records") or []
    if not records:
        return {"batchItemFailures": [], "state": {}}
    aggregator = aggregator or default_aggregator()
    sequences = [r.get("dynamodb", {}).get("SequenceNumber", "") for r in records]
    padded = [s.zfill(SEQUENCE_DIGITS) for s in sequences if isinstance(s, str) and s.isdigit()]
    if any(a >= b for a, b in zip(padded, padded[1:])):
        raise OutOfOrderError(f"sequence numbers of shard {shard.shard_id} do not increase in this batch")
    expected = aggregator.repository.checkpoint(shard)

    def record_handler(record: DynamoDBRecord) -> Change | None:
        sequence = padded_sequence(record.dynamodb.sequence_number or "")
        if expected is not None and sequence <= expected:
            return None  # applied by an earlier delivery
        return change_of(record, sequence)

    with processor(records, record_handler, context):
        outcomes = processor.process()
    # Lambda resumes at the first failed record and redelivers everything after it: flush only what comes before.
    ready: list[Change] = []
    for status, result, _ in outcomes:
        if status != "success":
            break
        if result is not None:
            ready.append(result)
    skipped = sum(1 for status, result, _ in outcomes if status == "success" and result is None)
    applied = aggregator.apply(shard, expected, ready)
    if applied.records:
        metrics.add_metric(name="VoteRecordsAggregated", unit="Count", value=applied.records)
        metrics.add_metric(name="VoteAggregateWrites", unit="Count", value=applied.item_writes)
    logger.info(
        "aggregated",
        extra={"shard": shard.shard_id, "records": len(records), "applied": applied.records, "skipped": skipped,
               "itemWrites": applied.item_writes, "transactions": applied.transactions, "retries": applied.retries},
    )
    return {**processor.response(), "state": {}}


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return aggregate(event, context)
