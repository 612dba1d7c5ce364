"""Keeps the Votes aggregates equal to the RawVotes ballots, applying every stream record exactly once.

Deltas come from the record's images: a new vote +1 (no old candidate), a change -1 old / +1 new (nothing when the
candidate is the same), a withdrawal -1 (no new candidate). A batch is summed in memory per (poll, bucket, candidate)
and flushed as one TransactWriteItems: an ADD per candidate with a non-zero delta on the segment of the record's
bucket, one per segment for its applied-change counter, and the shard's checkpoint. So the writes grow with the
distinct (bucket, candidate) pairs of the batch, never with its votes. The segment is the ballot's own bucket (the
record's key, `<pollId>#<bucket>`): a bucket's partition key lives on one stream shard, so each segment is written by
one shard's flushes, one batch at a time, and flushes of different shards never meet on an aggregate item
(docs/adr/0106-a-polls-ballots-and-aggregates-spread-over-buckets.md).

Exactly once: Lambda delivers a shard's records in order, one batch at a time (a tumbling window requires a
parallelization factor of 1). The shard's checkpoint holds the highest sequence number applied, zero-padded (a
sequence number can exceed a Number's 38 digits); records at or below it are skipped; a flush moves it forward in the
same transaction as the records' deltas, conditioned on it still being the value this invocation started from
(docs/adr/0023-exactly-once-aggregation-per-shard-checkpoint.md). A redelivered batch, a
bisected half, a retry from a failed record, or a batch re-run after a crash that followed the commit therefore
finds its records at or below the checkpoint; two invocations racing on one shard cannot both apply a record.
Only records *before* the first failed one are flushed, because Lambda redelivers from the failed record onward.

The shard: Lambda puts `shardId` in the event only when the mapping has a tumbling window, so the aggregator's
mapping has one (infra/domains/voting.py); its state is not used (`{}` is returned, as the window protocol asks).

Poison records (functions/shared/parked.py) are parked, not reported, so the records after them are not lost:
- a record that cannot be a RawVotes change (`change_of` raises PermanentRecordError), parked as it is processed;
- a ballot for a poll that does not exist (RawVotes written around the API): the flush checks, in its transaction,
  that each poll it has not yet seen exist has its item (ConditionCheck `attribute_exists`); a failed check names its
  poll by the action's name, that poll's records are parked and the rest is flushed again. A poll, once created, is
  never deleted, so a poll seen to exist needs no further check in this container;
- a flush of one single record refused with ValidationException (bisecting narrows a failing batch down to one).
The checkpoint still moves past parked records: a ballot of a missing poll (or a lone record DynamoDB refuses) is
parked by a Put in the same transaction that moves the checkpoint past it, so it is parked or aggregated, never
both, whatever fails in between. A record that cannot be a change at all is parked as it is processed (a redelivery
re-parks it: a no-op), as it can never be aggregated. `{"replay": {...}}` applies each pending parked record in one
transaction with its parked item leaving `pending` (see VotingRepository.replay).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
)
from aws_lambda_powertools.utilities.typing import LambdaContext
from botocore.exceptions import ClientError

from functions.shared import ddb, parked
from functions.shared.container import per_container
from functions.shared.handler import consumer_handler
from functions.shared.observability import count_for_stage, logger, metrics
from functions.shared.parked import PermanentRecordError
from functions.shared.schema import PARKED_RECORDS_METRIC
from functions.shared.settings import settings
from functions.voting.repository import (
    CheckpointMovedError,
    Flush,
    MissingPollError,
    Replay,
    Segment,
    Shard,
    TableNames,
    TransactionConflictError,
    VotingRepository,
)
from functions.voting.schema import (
    RAW_VOTES_TABLE,
    SEQUENCE_DIGITS,
    padded_sequence,
    split_bucket,
)

MAX_KEYS_PER_FLUSH = ddb.TRANSACTION_MAX_ACTIONS - 1  # a transaction: the aggregate updates plus the checkpoint
MAX_FLUSH_ATTEMPTS = 8  # conflicting transactions or a moved checkpoint, then the invocation fails (Lambda retries)
CONFLICT_PAUSE = 0.05  # seconds, times the attempt, with jitter
CONSUMER = "voting.aggregator"  # its partition in the parked-records table: never rename
BUCKET_KEY = RAW_VOTES_TABLE.partition_key.name  # "pollBucket": `<pollId>#<bucket>`
OLD_LAYOUT_KEY = "pollId"  # RawVotes' partition key before buckets

processor = parked.ParkingBatchProcessor(CONSUMER)


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
    bucket: int = 0  # the ballot's bucket of its poll: the segment its deltas go to
    record: dict[str, Any] | None = field(default=None, compare=False, repr=False)  # the stream record, to park it

    @property
    def segment(self) -> Segment:
        return (self.poll_id, self.bucket)


@dataclass
class Applied:
    records: int = 0
    item_writes: int = 0
    transactions: int = 0
    retries: int = 0
    parked: int = 0


def _candidate(image: dict[str, Any]) -> str | None:
    candidate = image.get("candidate")
    if candidate is not None and not isinstance(candidate, str):
        raise PermanentRecordError(f"candidate is not a string: {candidate!r}")
    return candidate


def change_of(record: DynamoDBRecord, sequence: str) -> Change:
    """The record's delta; raises PermanentRecordError on a record that cannot be a RawVotes change (it is parked)."""
    stream = record.dynamodb
    key = (stream.keys or {}).get(BUCKET_KEY) if stream else None
    if stream is None or not isinstance(key, str):
        raise PermanentRecordError(f"the record has no {BUCKET_KEY} key")
    try:
        poll_id, bucket = split_bucket(key)
    except ValueError as error:
        raise PermanentRecordError(str(error)) from error
    old_image, new_image = stream.old_image or {}, stream.new_image or {}
    try:
        versions = int(new_image.get("version", 0)) - int(old_image.get("version", 0))
    except (TypeError, ValueError) as error:
        raise PermanentRecordError(f"version is not a number: {error}") from error
    return Change(sequence, poll_id, _candidate(old_image), _candidate(new_image), versions, bucket,
                  record=record.raw_event)


def sequence_of(record: DynamoDBRecord) -> str:
    """The record's sequence number, padded (`padded_sequence`: a ValueError when it has none)."""
    return padded_sequence((record.dynamodb.sequence_number if record.dynamodb else None) or "")


def sum_deltas(changes: Sequence[Change]) -> tuple[dict[Segment, Counter[str]], Counter[Segment]]:
    """Vote deltas per segment (poll, bucket) and candidate, and applied changes per segment, of a run of changes."""
    deltas: dict[Segment, Counter[str]] = defaultdict(Counter)
    versions: Counter[Segment] = Counter()
    for change in changes:
        if change.old != change.new:
            if change.old is not None:
                deltas[change.segment][change.old] -= 1
            if change.new is not None:
                deltas[change.segment][change.new] += 1
        versions[change.segment] += change.versions
    return deltas, versions


def chunks(
    changes: Sequence[Change],
    max_keys: int = MAX_KEYS_PER_FLUSH,
    *,
    skipped: Collection[str] = (),
    checked: Collection[str] = (),
) -> Iterator[Sequence[Change]]:
    """Consecutive runs of changes touching at most `max_keys` items each (a transaction's limit): aggregates (a
    segment's candidates and its applied counter), plus the poll item of each poll in `checked` (its ConditionCheck).
    A change whose sequence is in `skipped` is parked in the transaction instead: its parked item and the consumer's
    `#consumers` item."""
    start, keys = 0, set[tuple[Any, ...]]()
    for index, change in enumerate(changes):
        touched: set[tuple[Any, ...]]
        if change.sequence in skipped:
            touched = {("#park", change.sequence), ("#consumers", None)}
        else:
            touched = {(change.segment, c) for c in (change.old, change.new) if c is not None}
            touched.add((change.segment, None))
        if change.poll_id in checked and change.sequence not in skipped:
            touched.add((change.poll_id, "#poll"))
        if index > start and len(keys | touched) > max_keys:
            yield changes[start:index]
            start, keys = index, set()
        keys |= touched
    if start < len(changes):
        yield changes[start:]


# The TransactWriteItems actions that park a change that can never be applied (committed with the checkpoint move).
Park = Callable[[Change, BaseException], Sequence[Mapping[str, Any]]]


class Aggregator:
    def __init__(self, repository: VotingRepository, rng: random.Random | None = None):
        self.repository = repository
        self._rng = rng or random.Random()  # noqa: S311  the jitter of a retry's pause, not a secret
        # Polls a committed flush checked: they exist for ever (never deleted), so they need no further check.
        self._known_polls: set[str] = set()

    def apply(self, shard: Shard, expected: str | None, changes: Sequence[Change], park: Park | None = None) -> Applied:
        """Flush `changes` (in stream order, all above `expected`) in as few transactions as the limits allow,
        each moving the checkpoint from the value the previous one left.

        With `park`, changes that can never be applied are parked instead of failing the batch: those of a poll
        the flush's ConditionCheck finds missing, and a lone change whose flush DynamoDB refuses as invalid. They
        stay in the run, contributing nothing but their parked item, which is written in the same transaction as
        the checkpoint move past them: a change is parked or aggregated, never both, whatever fails in between (a
        redelivery after the poll was created aggregates it, and nothing was parked)."""
        applied = Applied()
        pending = list(changes)
        parking: dict[str, Sequence[Mapping[str, Any]]] = {}  # sequence -> the actions that park that change
        skipped = parking.keys()
        attempts = 0
        while pending:
            unchecked = {c.poll_id for c in pending} - self._known_polls
            chunk = next(chunks(pending, skipped=skipped, checked=unchecked))
            live = [c for c in chunk if c.sequence not in skipped]
            deltas, versions = sum_deltas(live)
            flush = Flush(
                deltas=deltas, changes=versions, records=len(live), expected=expected, through=chunk[-1].sequence,
                checks=tuple(sorted({c.poll_id for c in live} - self._known_polls)),
                parks=_unique_actions(action for c in chunk if c.sequence in parking for action in parking[c.sequence]),
            )
            try:
                applied.item_writes += self.repository.flush(shard, flush, datetime.now(UTC))
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
            except MissingPollError as missing:
                if park is None:
                    raise
                # Named by the failed ConditionCheck's action name: park every ballot of those polls, flush the rest.
                before = len(skipped)
                for poll_id in missing.poll_ids:
                    for change in [c for c in pending if c.poll_id == poll_id and c.sequence not in parking]:
                        parking[change.sequence] = park(change, MissingPollError([poll_id]))
                if len(skipped) == before:  # nothing left to blame: never loop
                    raise
                continue
            except ClientError as error:
                # A request DynamoDB refuses as invalid is permanent, but only a lone record can be blamed for it;
                # a longer run fails the invocation, and Lambda bisects it down to single records.
                if park is None or ddb.error_code(error) != "ValidationException" or len(live) != 1:
                    raise
                parking[live[0].sequence] = park(live[0], error)
                continue
            self._known_polls.update(flush.checks)
            applied.parked += sum(1 for c in chunk if c.sequence in parking)
            applied.records += len(live)
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


@per_container
def default_aggregator() -> Aggregator:
    return Aggregator(VotingRepository(TableNames(settings())))


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
    if any(a >= b for a, b in pairwise(padded)):
        raise OutOfOrderError(f"sequence numbers of shard {shard.shard_id} do not increase in this batch")
    expected = aggregator.repository.checkpoint(shard)

    def record_handler(record: DynamoDBRecord) -> Change | None:
        sequence = sequence_of(record)
        if expected is not None and sequence <= expected:
            return None  # applied by an earlier delivery
        return change_of(record, sequence)

    with processor(records, record_handler, context):
        outcomes = processor.process()
    # Lambda resumes at the first failed record and redelivers everything after it: flush only what comes before.
    # Parked records (a bad shape) are successes without a change: the rest goes on.
    ready: list[Change] = []
    for status, result, _ in outcomes:
        if status != "success":
            break
        if isinstance(result, Change):
            ready.append(result)
    skipped = sum(1 for status, result, _ in outcomes if status == "success" and result is None)
    parked_now = sum(1 for status, result, _ in outcomes if status == "success" and isinstance(result, parked.Parked))
    applied = aggregator.apply(shard, expected, ready, park=park_changes)
    if applied.records:
        metrics.add_metric(name="VoteRecordsAggregated", unit="Count", value=applied.records)
        metrics.add_metric(name="VoteAggregateWrites", unit="Count", value=applied.item_writes)
    if applied.parked:
        # Parked in the flush transaction, not by ParkedRecords.park (which counts its own): the same metric, so the
        # stage's parked-records alarm sees these too (infra/constructs/monitoring.py).
        count_for_stage(PARKED_RECORDS_METRIC, applied.parked)  # the stage's parked-records alarm
    logger.info(
        "aggregated",
        extra={"shard": shard.shard_id, "records": len(records), "applied": applied.records, "skipped": skipped,
               "parked": parked_now + applied.parked, "itemWrites": applied.item_writes,
               "transactions": applied.transactions, "retries": applied.retries},
    )
    return {**processor.response(), "state": {}}


def park_changes(change: Change, error: BaseException) -> Sequence[Mapping[str, Any]]:
    """The actions that park a change's stream record (functions/shared/parked.py), for its flush transaction."""
    return parked.ParkedRecords(CONSUMER).park_actions(change.record or {}, error)


def _unique_actions(actions: Iterable[Mapping[str, Any]]) -> tuple[Mapping[str, Any], ...]:
    """Each action once: every parked change brings the consumer's `#consumers` Put, one per transaction is enough
    (DynamoDB refuses two actions on one item)."""
    seen: dict[str, Mapping[str, Any]] = {}
    for action in actions:
        seen.setdefault(json.dumps(action, sort_keys=True, default=str), action)
    return tuple(seen.values())


def before_buckets(record: DynamoDBRecord) -> bool:
    """A record of RawVotes as it was keyed before buckets (`pollId`, `userId`): parked before the upgrade."""
    keys = (record.dynamodb.keys or {}) if record.dynamodb else {}
    return BUCKET_KEY not in keys and isinstance(keys.get(OLD_LAYOUT_KEY), str)


def replay(request: Mapping[str, Any], aggregator: Aggregator | None = None) -> dict[str, Any]:
    """The operator's `{"replay": {...}}`: apply each pending parked record once (VotingRepository.replay)."""
    aggregator = aggregator or default_aggregator()
    store = parked.ParkedRecords(CONSUMER)

    def superseded(item: parked.ParkedRecord) -> str:
        return "superseded" if store.mark(item.position, parked.SUPERSEDED) else "already-replayed"

    def apply(item: parked.ParkedRecord) -> str:
        record = DynamoDBRecord(item.record)
        if before_buckets(record):
            # Its ballot was copied into the bucketed RawVotes by the upgrade and aggregated from that table's
            # stream (docs/adr/0106-a-polls-ballots-and-aggregates-spread-over-buckets.md): counted already.
            return superseded(item)
        change = change_of(record, sequence_of(record))
        deltas, versions = sum_deltas([change])
        outcome = aggregator.repository.replay(
            Replay(change.poll_id, change.bucket, deltas.get(change.segment, {}), versions.get(change.segment, 0)),
            store.mark_action(item.position, parked.REPLAYED),
        )
        if outcome == "superseded":  # a recount corrected the poll since: this ballot is counted already
            return superseded(item)
        return outcome

    return parked.replay(store, request, apply)


lambda_handler = consumer_handler(aggregate, replay)
