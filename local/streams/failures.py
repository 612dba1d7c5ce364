"""What Lambda does when a stream batch fails: partial batch responses, bisection, retries, maximum record age, the
on-failure destination ([PARTIAL], [ERRORS], [PARAMS]: see local/streams/__init__.py). `BatchFailures` holds a
shard's undelivered batches and decides after each invocation: done, narrowed, split, retried or given up on.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from local.awslambda.pool import FunctionError
from local.streams.destinations import QueueDestination
from local.streams.mapping import MappingSpec, StreamRecord

log = logging.getLogger("local.streams")

RETRY_DELAY = 0.1  # first pause before retrying a failed batch; doubles up to RETRY_DELAY_MAX
RETRY_DELAY_MAX = 3.0


def item_failures(result: Any, sequence_numbers: Sequence[str]) -> list[int] | None:
    """The batch positions a ReportBatchItemFailures response names as failed, sorted; None when the whole batch failed.

    [PARTIAL] "Lambda treats a batch as a complete success if you return any of the following: An empty
    batchItemFailure list; A null batchItemFailure list; An empty EventResponse; A null EventResponse." "Lambda treats
    a batch as a complete failure if you return any of the following: An empty string itemIdentifier; A null
    itemIdentifier; An itemIdentifier with a bad key name." An identifier that names no record of the batch is not
    documented; it is treated like a null one (the whole batch failed).
    """
    if result is None or isinstance(result, Mapping) and not result.get("batchItemFailures"):
        return []
    failures = result.get("batchItemFailures") if isinstance(result, Mapping) else None
    if not isinstance(failures, list):
        return None
    positions = {sequence: index for index, sequence in enumerate(sequence_numbers)}
    identifiers = [f.get("itemIdentifier") if isinstance(f, Mapping) else None for f in failures]
    known = [i for i in identifiers if isinstance(i, str) and i in positions]
    if len(known) != len(identifiers):
        return None
    return sorted(positions[i] for i in known)


@dataclass(frozen=True)
class Outcome:
    """How one invocation of a batch ended: `failed_from`, the position of the first record to retry (None: success);
    `error` when the function itself failed (raised, timed out, crashed); what the log line says."""
    request_id: str
    failed_from: int | None = None
    error: FunctionError | None = None
    note: str = "ok"

    @classmethod
    def from_response(cls, request_id: str, result: Any, sequence_numbers: Sequence[str]) -> Outcome:
        """With ReportBatchItemFailures: resume from the lowest failed record. [PARTIAL] "If the batchItemFailures
        array contains multiple items, Lambda uses the record with the lowest sequence number as the checkpoint.
        Lambda then retries all records starting from that checkpoint."""
        failed = item_failures(result, sequence_numbers)
        if failed is None:
            return cls(request_id, 0, note="invalid batchItemFailures: whole batch failed")
        return cls(request_id, failed[0], note=f"{len(failed)} item failure(s), resuming at "
                   f"{sequence_numbers[failed[0]]}") if failed else cls(request_id)


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Segment:
    """Records that must be delivered, as one batch, before anything after them."""
    records: tuple[StreamRecord, ...]
    bisected: bool = False


class BatchFailures:
    """One shard's undelivered batches and the failure policy of its mapping."""

    def __init__(self, spec: MappingSpec, shard_id: str, destination: QueueDestination | None,
                 clock: Callable[[], float]) -> None:
        self.spec, self.shard_id, self.destination, self.clock = spec, shard_id, destination, clock
        self.pending: deque[Segment] = deque()
        self.attempts = 0  # failed invocations of the head segment's first record
        self.last_outcome: Outcome | None = None

    def expire(self) -> tuple[StreamRecord, ...]:
        """Give up on the head's records older than MaximumRecordAgeInSeconds; the records left to invoke. [ERRORS]
        Lambda retries "until the records expire, exceed the maximum age (MaximumRecordAgeInSeconds), or
        reach the configured retry quota (MaximumRetryAttempts)": the age is checked before every invocation, the
        first one included."""
        segment = self.pending[0]
        records, old, now, max_age = segment.records, 0, self.clock(), self.spec.max_record_age
        while max_age >= 0 and old < len(records) and now - records[old].arrival > max_age:
            old += 1
        if old:
            invoked = self.last_outcome if self.attempts else None
            self.give_up(records[:old], "RecordAgeExceeded", self.attempts, invoked)
        if old == len(records):
            self.finish()
        elif old:
            self.pending[0] = Segment(records[old:], segment.bisected)
        return records[old:]

    def after(self, outcome: Outcome) -> float:
        """Apply the outcome of the head segment's invocation; the pause before the next one (0: go on)."""
        segment = self.pending[0]
        records, attempt = segment.records, self.attempts + 1
        # Only a function error bisects; the halves start with no retries used (as in AWS, splitting does not
        # count), which still ends: halves shrink to single records. [PARTIAL] "If your invocation fails and
        # BisectBatchOnFunctionError is turned on, the batch is bisected regardless of your ReportBatchItemFailures
        # setting." [ERRORS] "Splitting batches doesn't count towards the retry quota." A response Lambda rejects (a
        # null itemIdentifier, say) fails the batch but is no invocation error: retried whole, not bisected.
        split = outcome.error is not None and self.spec.bisect and len(records) > 1
        log.info("%s <- %s %s: %d record(s) %s..%s, attempt %d%s: %s%s", self.spec.function_label,
                 self.spec.table.logical_id, self.shard_id, len(records), records[0].sequence_number,
                 records[-1].sequence_number, attempt, " (bisected)" if segment.bisected else "",
                 outcome.note, ", bisecting" if split else "")
        if outcome.failed_from is None:
            self.finish()
            return 0.0
        self.last_outcome = outcome
        if split:
            middle = (len(records) + 1) // 2
            self.pending.popleft()
            self.pending.extendleft([Segment(records[middle:], True), Segment(records[:middle], True)])
            self.attempts = 0
            return 0.0
        if outcome.failed_from > 0:
            # [PARTIAL] "When a partial batch success response is received and both BisectBatchOnFunctionError and
            # ReportBatchItemFailures are turned on, the batch is bisected at the returned sequence number and
            # Lambda retries only the remaining records." The same without bisecting: the checkpoint moves to the
            # lowest failed record; the records before it are done.
            records = records[outcome.failed_from:]
            self.pending[0] = Segment(records, segment.bisected)
            attempt = 1  # the first record to retry has failed once so far
        self.attempts = attempt
        if 0 <= self.spec.max_retries < attempt:
            # [ERRORS] "If the error handling measures fail, Lambda discards the records and continues processing
            # batches from the stream." With a partial response, that is every record from the lowest failed one to
            # the end of the batch, good ones included.
            self.give_up(records, "RetryAttemptsExhausted", attempt, outcome)
            self.finish()
            return 0.0
        return min(RETRY_DELAY * 2 ** (attempt - 1), RETRY_DELAY_MAX)

    def finish(self) -> None:
        self.pending.popleft()
        self.attempts, self.last_outcome = 0, None

    def give_up(self, records: Sequence[StreamRecord], condition: str, invoke_count: int,
                outcome: Outcome | None) -> None:
        """Send what Lambda sends to an on-failure destination for a batch it gives up on (no `responseContext` when
        the records were never invoked). [ERRORS] "Each record sent to the destination is a JSON document that contains
        metadata about the failed invocation." Only an Amazon S3 destination also gets "the entire invocation record":
        an SQS queue never sees the records themselves."""
        record: dict[str, Any] = {"requestContext": {
            "requestId": outcome.request_id if outcome else str(uuid.uuid4()), "functionArn": self.spec.function_arn,
            "condition": condition, "approximateInvokeCount": invoke_count}}
        if outcome is not None:
            record["responseContext"] = {"statusCode": 200, "executedVersion": "$LATEST",
                                         **({"functionError": "Unhandled"} if outcome.error is not None else {})}
        record.update({"version": "1.0", "timestamp": iso(self.clock()), "DDBStreamBatchInfo": {
            "shardId": self.shard_id, "startSequenceNumber": records[0].sequence_number,
            "endSequenceNumber": records[-1].sequence_number, "batchSize": len(records),
            "streamArn": self.spec.stream_arn,
            "approximateArrivalOfFirstRecord": iso(records[0].arrival),
            "approximateArrivalOfLastRecord": iso(records[-1].arrival)}})
        destination = self.destination
        log.warning("%s: %s: gave up on %d record(s) %s..%s after %d invocation(s) -> %s", self.spec.id, condition,
                    len(records), records[0].sequence_number, records[-1].sequence_number, invoke_count,
                    destination.arn if destination else "discarded (no SQS on-failure destination)")
        try:
            if destination is None:
                log.warning("%s: failure record: %s", self.spec.id, json.dumps(record))
            else:
                destination.send(record)
        except (ClientError, BotoCoreError):
            log.exception("%s: could not send failure record %s", self.spec.id, json.dumps(record))
