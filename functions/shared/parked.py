"""Parked stream records: a record a consumer can never apply as things stand is kept, whole, for an operator.

Why: with `ReportBatchItemFailures`, Lambda resumes at the lowest failed record and skips the rest of the batch once
the retries are spent; the on-failure destination then gets the batch's metadata, not its records (Lambda Developer
Guide, "Retaining discarded records for a DynamoDB event source in Lambda";
docs/adr/0032-consumers-park-permanent-failures.md). So one record that always fails would cost every good record
after it in its batch. Consumers instead tell:

- a **permanent** failure — a record that cannot be applied until someone fixes data (a bad shape, a rule that will
  never hold): the handler raises `PermanentRecordError` (DynamoDB's `ValidationException` counts too). The record
  is parked here with its full content and the error, and counts as processed, so the rest of the batch goes on;
- a **transient** failure — throttling, 5xx, a transaction conflict, a race that outlasted its attempts: reported in
  `batchItemFailures`, and Lambda retries from it.

The table (`PARKED_TABLE`, one for the whole app) is keyed by consumer and stream position:
`consumer` = a stable consumer name, `position` = `<eventSourceARN>#<sequence number, 40 digits>` (a string:
sequence numbers can exceed a Number's 38 digits; docs/adr/0033-one-parked-records-table.md),
so a Query on one consumer lists its records in stream order, and one record has one item however often Lambda
delivers it. Parking is a conditional Put (`attribute_not_exists`): a redelivery finds the item and is done, even
after a replay, because a replayed item is kept (`status = replayed`) for 14 days, longer than a stream keeps a
record (24 h). Each consumer's name is also written under the partition `#consumers`, so that listing every
parked record stays one key-based Query per consumer (`make dlq`).

Replay: the consumer's handler accepts `{"replay": {"limit": 100, "after": "<position>"}}` (`make replay`). It
Queries its pending records and applies each with its own rules, marking it replayed conditionally on it still
being pending, so a record is applied once however many replays run.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import BotoCoreError, ClientError

from functions.shared import ddb
from functions.shared.observability import count_for_stage, logger, metrics
from functions.shared.schema import PARKED_RECORDS_METRIC, PARKED_TABLE
from functions.shared.settings import settings

CONSUMERS_PARTITION = "#consumers"  # one item per consumer that ever parked a record (position = its name)
PENDING, REPLAYED, SUPERSEDED = "pending", "replayed", "superseded"
KEPT_AFTER_REPLAY_SECONDS = 14 * 24 * 3600  # > the 24 h a stream keeps a record: a redelivery still finds it
SEQUENCE_DIGITS = 40  # a sequence number has up to 40 digits (Streams API Reference, "StreamRecord"), a Number 38
MAX_ERROR_MESSAGE = 2000
DEFAULT_REPLAY_LIMIT = 100
MAX_REPLAY_LIMIT = 1000


class PermanentRecordError(Exception):
    """The record can never be applied as things stand (bad shape, a rule that will not hold until data is fixed).

    Raised by a record handler; the record is parked instead of failing the batch."""


def is_permanent(error: BaseException) -> bool:
    """A failure that retrying cannot cure. DynamoDB's ValidationException means the request itself is wrong."""
    if isinstance(error, PermanentRecordError):
        return True
    return isinstance(error, ClientError) and ddb.error_code(error) == "ValidationException"


def position_of(record: Mapping[str, Any]) -> str:
    """The record's stream position: `<eventSourceARN>#<sequence number zero-padded to 40 digits>`."""
    arn = record.get("eventSourceARN")
    sequence = (record.get("dynamodb") or {}).get("SequenceNumber")
    if not isinstance(arn, str) or not arn or not isinstance(sequence, str) or not sequence.isdigit():
        raise ValueError("the record has no eventSourceARN or SequenceNumber: it has no position to park it at")
    return f"{arn}#{sequence.zfill(SEQUENCE_DIGITS)}"


@dataclass(frozen=True)
class Parked:
    """What a record handler's parked record became (the batch processor's result for it)."""

    position: str
    error_type: str
    newly: bool  # False: it was parked by an earlier delivery


@dataclass(frozen=True)
class ParkedRecord:
    """One parked record as stored: the Lambda stream record, why it was parked, and what became of it."""

    consumer: str
    position: str
    record: dict[str, Any]
    error_type: str
    error_message: str
    parked_at: str
    status: str


def _now() -> datetime:
    return datetime.now(UTC)


class ParkedRecords:
    """One consumer's parked records (the only code that talks to the parked table)."""

    def __init__(self, consumer: str, table_name: str | None = None):
        self.consumer = consumer
        self._table_name = table_name

    @property
    def table_name(self) -> str:
        return self._table_name or settings().table(PARKED_TABLE)

    def park(self, record: Mapping[str, Any], error: BaseException, now: datetime | None = None) -> Parked:
        """Park a record: PutItem `attribute_not_exists(position)`. Safe to repeat: an existing item (a redelivery,
        even of a record replayed since) is left as it is."""
        item = self._item(record, error, now or _now())
        position = item["position"]
        table = ddb.table(self.table_name)
        # The consumer's name under `#consumers` first: listing then finds every consumer with a key read.
        table.put_item(Item=self._consumer_item())
        try:
            table.put_item(
                Item=item,
                ConditionExpression="attribute_not_exists(#position)",
                ExpressionAttributeNames={"#position": "position"},
            )
        except ClientError as failure:
            if ddb.error_code(failure) != "ConditionalCheckFailedException":
                raise
            return Parked(position, type(error).__name__, newly=False)
        # What the stage's parked-records alarm counts (infra/constructs/monitoring.py).
        count_for_stage(PARKED_RECORDS_METRIC)
        logger.warning(
            "stream record parked",
            extra={"consumer": self.consumer, "position": position, "errorType": type(error).__name__,
                   "errorMessage": _message(error)},
        )
        return Parked(position, type(error).__name__, newly=True)

    def park_actions(
        self, record: Mapping[str, Any], error: BaseException, now: datetime | None = None
    ) -> list[dict[str, Any]]:
        """Parking as TransactWriteItems actions (the consumer's name under `#consumers`, the record), for a consumer
        that must park a record in the same transaction that moves its checkpoint past it. Unconditional Puts: a
        record above the checkpoint has never been parked by a committed transaction."""
        return [
            {"Put": {"TableName": self.table_name, "Item": self._consumer_item()}},
            {"Put": {"TableName": self.table_name, "Item": self._item(record, error, now or _now())}},
        ]

    def _consumer_item(self) -> dict[str, Any]:
        return {"consumer": CONSUMERS_PARTITION, "position": self.consumer}

    def _item(self, record: Mapping[str, Any], error: BaseException, now: datetime) -> dict[str, Any]:
        """A parked record as stored: the whole stream record, why it was parked, when, pending."""
        dynamodb = record.get("dynamodb") or {}
        return {
            "consumer": self.consumer,
            "position": position_of(record),
            "record": json.dumps(record, default=str),
            "eventID": str(record.get("eventID", "")),
            "eventName": str(record.get("eventName", "")),
            "eventSourceARN": str(record.get("eventSourceARN", "")),
            "sequenceNumber": str(dynamodb.get("SequenceNumber", "")),
            "errorType": type(error).__name__,
            "errorMessage": _message(error),
            "parkedAt": now.isoformat(),
            "status": PENDING,
        }

    def pending(self, limit: int, after: str | None = None) -> tuple[list[ParkedRecord], str | None]:
        """Replay: Query `consumer = :c` (strongly consistent, in stream order, after `after`), keeping the pending
        ones, page by page until `limit` are found. Returns them and where the next call starts (None: the end)."""
        query: dict[str, Any] = {
            "KeyConditionExpression": Key("consumer").eq(self.consumer),
            "FilterExpression": Attr("status").eq(PENDING),
            "ConsistentRead": True,
        }
        if after:
            query["ExclusiveStartKey"] = {"consumer": self.consumer, "position": after}
        found: list[ParkedRecord] = []
        table = ddb.table(self.table_name)
        while True:
            response = table.query(**query)
            for item in response.get("Items", []):
                found.append(_parked_record(item))
                if len(found) == limit:
                    return found, found[-1].position
            if "LastEvaluatedKey" not in response:
                return found, None
            query["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def mark(self, position: str, status: str, now: datetime | None = None) -> bool:
        """Record a replay's outcome: UpdateItem, if the record is still pending. False when it no longer was
        (another replay got there first)."""
        try:
            ddb.table(self.table_name).update_item(**self._mark(position, status, now or _now()))
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def mark_action(self, position: str, status: str, now: datetime | None = None) -> dict[str, Any]:
        """The same update as a TransactWriteItems action, for a replay applied in one transaction."""
        return {"Update": {"TableName": self.table_name, **self._mark(position, status, now or _now())}}

    def _mark(self, position: str, status: str, now: datetime) -> dict[str, Any]:
        return {
            "Key": {"consumer": self.consumer, "position": position},
            "UpdateExpression": "SET #status = :status, replayedAt = :now, expiresAt = :expires",
            "ConditionExpression": "#status = :pending",
            "ExpressionAttributeNames": {"#status": "status"},
            "ExpressionAttributeValues": {
                ":status": status, ":now": now.isoformat(), ":pending": PENDING,
                ":expires": int(now.timestamp()) + KEPT_AFTER_REPLAY_SECONDS,
            },
        }


def _parked_record(item: Mapping[str, Any]) -> ParkedRecord:
    return ParkedRecord(
        consumer=str(item["consumer"]),
        position=str(item["position"]),
        record=json.loads(str(item["record"])),
        error_type=str(item.get("errorType", "")),
        error_message=str(item.get("errorMessage", "")),
        parked_at=str(item.get("parkedAt", "")),
        status=str(item.get("status", "")),
    )


def _message(error: BaseException) -> str:
    text = str(error) or "".join(traceback.format_exception_only(type(error), error)).strip()
    return text[:MAX_ERROR_MESSAGE]


class ParkingBatchProcessor(BatchProcessor):
    """Powertools' BatchProcessor for DynamoDB streams that parks the records whose handler failed permanently.

    Its `failure_handler` hook sees every record the handler raised on: a permanent error parks the record and turns
    it into a success (result: `Parked`), so it is not in `batchItemFailures`; anything else is reported as usual.
    If parking itself fails (throttled, say), the record is reported, so Lambda retries it: never lost silently.
    """

    def __init__(self, consumer: str):
        super().__init__(event_type=EventType.DynamoDBStreams)
        self.consumer = consumer

    def failure_handler(self, record: Any, exception: Any) -> Any:
        error = exception[1]
        if record is not None and error is not None and is_permanent(error):
            raw = getattr(record, "raw_event", record)
            try:
                parked = ParkedRecords(self.consumer).park(raw, error)
            except (ClientError, BotoCoreError, ValueError):
                logger.exception("could not park a stream record; reporting it for a retry",
                                 extra={"consumer": self.consumer})
            else:
                return self.success_handler(record=raw, result=parked)
        return super().failure_handler(record, exception)


# --- the operator's event: replay ------------------------------------------------------------------------------

def replay_request(event: Any) -> dict[str, Any] | None:
    """The replay request in an invocation event, or None for a stream event (which has `Records`)."""
    if not isinstance(event, Mapping) or "Records" in event or not isinstance(event.get("replay"), Mapping):
        return None
    return dict(event["replay"])


def replay(
    parked: ParkedRecords, request: Mapping[str, Any], apply: Callable[[ParkedRecord], str]
) -> dict[str, Any]:
    """Replay up to `limit` pending records after `after`, in stream order, with `apply`.

    `apply` re-runs the consumer's rules on one record and records the outcome itself (it returns "replayed",
    "superseded" or "already-replayed"); it raises when the record still cannot be applied, which leaves it pending.
    Returns the counts, each still-failing record with its error, and `next` (where to continue; None at the end).
    """
    limit = int(request.get("limit") or DEFAULT_REPLAY_LIMIT)
    if not 1 <= limit <= MAX_REPLAY_LIMIT:
        raise ValueError(f"limit must be 1..{MAX_REPLAY_LIMIT}")
    after = request.get("after")
    records, next_position = parked.pending(limit, after if isinstance(after, str) else None)
    counts = {"replayed": 0, "superseded": 0, "alreadyReplayed": 0, "stillFailing": 0}
    failing: list[dict[str, str]] = []
    for item in records:
        try:
            outcome = apply(item)
        # One record's failure, whatever it is, must not stop the others: it stays pending and is reported.
        except Exception as error:  # noqa: BLE001
            counts["stillFailing"] += 1
            failing.append({"position": item.position, "errorType": type(error).__name__,
                            "errorMessage": _message(error)})
            continue
        counts[{"already-replayed": "alreadyReplayed"}.get(outcome, outcome)] += 1
    if counts["replayed"]:
        metrics.add_metric(name="StreamRecordsReplayed", unit="Count", value=counts["replayed"])
    logger.info("replayed parked records", extra={"consumer": parked.consumer, **counts})
    return {"consumer": parked.consumer, **counts, "stillFailingRecords": failing, "next": next_position}

