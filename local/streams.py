"""DynamoDB stream event source mappings, run locally: the runtime reads streams, invokes consumers.

Why: moto accepts an `AWS::Lambda::EventSourceMapping` but never delivers a record (PITFALLS 2). So
for every mapping on a table's stream the runtime polls moto's DynamoDB Streams API itself
(DescribeStream, GetShardIterator, GetRecords) and invokes the consumer's worker with the event
Lambda sends, honouring the mapping's properties: BatchSize, StartingPosition,
MaximumBatchingWindowInSeconds, FilterCriteria, FunctionResponseTypes (ReportBatchItemFailures),
MaximumRetryAttempts, BisectBatchOnFunctionError, MaximumRecordAgeInSeconds,
DestinationConfig.OnFailure (an SQS queue), TumblingWindowInSeconds and Enabled.

Shape of the work: one `ShardPoller` thread per mapping and shard (moto has one shard per table;
child shards after a split are picked up once their parent is done). A shard's records are
delivered strictly in order with one batch in flight. Records read from the stream wait in the
poller's buffer; a batch that fails is retried from memory, narrowed by a partial-failure response
or a bisection, until it succeeds or is given up on (its description goes to the on-failure
destination and the poller moves past it). Where AWS leaves room, the choices are written down in
docs/local-runtime.md ("Streams and TTL").

The rules follow the AWS Lambda Developer Guide, quoted where each is implemented:
- [PARTIAL] "Configuring partial batch response with DynamoDB and Lambda"
  (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html): success and failure
  conditions, the lowest failed sequence number as checkpoint, "Bisecting a batch";
- [ERRORS] "Retaining discarded records for a DynamoDB event source in Lambda"
  (https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html): retries, maximum record age,
  bisecting and the retry quota, discarding, the on-failure destination;
- [PARAMS] "Lambda parameters for Amazon DynamoDB event source mappings"
  (https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html): defaults and -1.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from local.dlq import QueueDestination, is_queue_arn
from local.filters import FilterError, Pattern, matches_any, parse_filters
from local.functions import FunctionError
from local.resources import FUNCTION_TYPE, Clients, StackResources, TableInfo
from local.template import PARTITION, TemplateError

log = logging.getLogger("local.streams")

MAPPING_TYPE = "AWS::Lambda::EventSourceMapping"
STARTING_POSITIONS = ("LATEST", "TRIM_HORIZON")
DEFAULT_BATCH_SIZE = 100
POLL_INTERVAL = 0.1  # seconds between GetRecords calls on an idle shard
FETCH_LIMIT = 1000  # GetRecords' maximum
MAX_EVENT_BYTES = 6 * 1024 * 1024 - 4096  # Lambda's invoke payload limit, minus the envelope
RETRY_DELAY = 0.1  # first pause before retrying a failed batch; doubles up to RETRY_DELAY_MAX
RETRY_DELAY_MAX = 3.0
ERROR_DELAY_MAX = 5.0  # longest pause after a failing GetRecords
MAX_TUMBLING_WINDOW = 900  # seconds, Lambda's limit

# (function, event, request id) -> result; raises FunctionError as Lambda fails an invocation
Invoke = Callable[[str, Any, str], Any]


# --------------------------------------------------------------------------------------------
# Mappings from the template


@dataclass(frozen=True)
class MappingSpec:
    """One `AWS::Lambda::EventSourceMapping` on a table's stream, its properties resolved."""

    id: str  # "<Stack>/<LogicalId>"
    function: str  # what `Functions` knows the consumer by ("<Stack>/<LogicalId>", name or ARN)
    function_arn: str
    table: TableInfo
    batch_size: int = DEFAULT_BATCH_SIZE
    starting_position: str = "LATEST"
    batching_window: float = 0.0
    filters: tuple[Pattern, ...] = ()
    report_item_failures: bool = False
    # [PARAMS] MaximumRetryAttempts "-1 means infinite: failed records are retried until the record expires"
    max_retries: int = -1  # -1: until the records are too old (forever without a maximum age)
    bisect: bool = False
    # [PARAMS] MaximumRecordAgeInSeconds "-1 means infinite: failed records are retried until the record expires"
    max_record_age: float = -1  # seconds; -1: no limit
    on_failure: str | None = None  # destination ARN
    enabled: bool = True
    tumbling_window: int = 0  # seconds; 0: no window (and no shardId, state or window in the event)
    parallelization_factor: int = 1  # read, not honoured: one batch per shard at once

    @property
    def stream_arn(self) -> str:
        assert self.table.stream_arn
        return self.table.stream_arn

    @property
    def function_label(self) -> str:
        """The consumer's short name for log lines (its logical id when it is in the template)."""
        return self.function.rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def mapping_specs(resources: StackResources, streams: Mapping[str, TableInfo]) -> list[MappingSpec]:
    """The stack's mappings whose source is one of `streams` (stream ARN -> table).

    Mappings on other sources (SQS, Kinesis, Kafka) are not emulated and only get a warning.
    """
    specs = []
    for logical_id in resources.stack.resources_of_type(MAPPING_TYPE):
        spec = _mapping_spec(resources, logical_id, streams)
        if spec is not None:
            specs.append(spec)
    return specs


def _mapping_spec(
    resources: StackResources, logical_id: str, streams: Mapping[str, TableInfo]
) -> MappingSpec | None:
    stack = resources.stack
    raw: Mapping[str, Any] = stack.resources[logical_id].get("Properties", {})
    where = f"{stack.name}/{logical_id}.Properties"

    def prop(name: str, default: Any = None) -> Any:
        if name not in raw:
            return default
        return resources.resolver.resolve(raw[name], f"{where}.{name}")

    source = prop("EventSourceArn")
    table = streams.get(str(source))
    if table is None:
        log.warning("%s: source %s is not a table stream of the app; not emulated", where, source)
        return None
    function, function_arn = _consumer(resources, raw.get("FunctionName"), where)
    position = str(prop("StartingPosition", "LATEST"))
    if position not in STARTING_POSITIONS:
        raise TemplateError(f"{where}.StartingPosition: {position!r} is not valid for DynamoDB")
    try:
        filters = parse_filters((prop("FilterCriteria") or {}).get("Filters"))
    except FilterError as exc:
        raise TemplateError(f"{where}.FilterCriteria: {exc}") from exc
    window = int(prop("TumblingWindowInSeconds", 0))
    if not 0 <= window <= MAX_TUMBLING_WINDOW:
        raise TemplateError(f"{where}.TumblingWindowInSeconds: {window} is not within 0..{MAX_TUMBLING_WINDOW}")
    destination = ((prop("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
    return MappingSpec(
        id=f"{stack.name}/{logical_id}",
        function=function,
        function_arn=function_arn,
        table=table,
        batch_size=int(prop("BatchSize", DEFAULT_BATCH_SIZE)),
        starting_position=position,
        batching_window=float(prop("MaximumBatchingWindowInSeconds", 0)),
        filters=filters,
        report_item_failures="ReportBatchItemFailures" in (prop("FunctionResponseTypes") or []),
        max_retries=int(prop("MaximumRetryAttempts", -1)),
        bisect=_truthy(prop("BisectBatchOnFunctionError", False)),
        max_record_age=float(prop("MaximumRecordAgeInSeconds", -1)),
        on_failure=str(destination) if destination else None,
        enabled=_truthy(prop("Enabled", True)),
        parallelization_factor=int(prop("ParallelizationFactor", 1)),
        tumbling_window=window,
    )


def _consumer(resources: StackResources, raw: Any, where: str) -> tuple[str, str]:
    """(how `Functions` finds the consumer, its unqualified ARN) from `FunctionName`."""
    if isinstance(raw, Mapping) and list(raw) == ["Ref"]:
        target = resources.stack.resources.get(raw["Ref"], {})
        if target.get("Type") == FUNCTION_TYPE:
            logical_id = raw["Ref"]
            return f"{resources.stack.name}/{logical_id}", resources.get_att(logical_id, "Arn")
    name = resources.resolver.resolve_string(raw, f"{where}.FunctionName")
    if name.startswith("arn:"):
        arn = ":".join(name.split(":")[:7])  # drop a version or alias qualifier
        return arn, arn
    region, account = resources.region, resources.account_id
    return name, f"arn:{PARTITION}:lambda:{region}:{account}:function:{name}"


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() == "true"


# --------------------------------------------------------------------------------------------
# Records, responses and failure descriptions


@dataclass(frozen=True)
class StreamRecord:
    """A record as the consumer receives it, plus what the poller needs beside it."""

    sequence: int
    arrival: float  # ApproximateCreationDateTime, epoch seconds with moto's millisecond precision
    size: int  # bytes of the record in the event
    event: dict[str, Any]

    @property
    def sequence_number(self) -> str:
        return str(self.event["dynamodb"]["SequenceNumber"])


def lambda_record(
    raw: Mapping[str, Any],
    *,
    stream_arn: str,
    region: str,
    user_identity: Mapping[str, str] | None = None,
) -> StreamRecord:
    """A GetRecords record (as boto3 returns it) in the shape Lambda delivers.

    boto3 parses ApproximateCreationDateTime into a datetime; Lambda sends epoch seconds, as a
    number. moto omits eventSourceARN and userIdentity, says eventVersion 1.0 and always
    us-east-1: those are filled in as Lambda would.
    """
    source = raw["dynamodb"]
    created = source.get("ApproximateCreationDateTime")
    arrival = created.timestamp() if isinstance(created, datetime) else float(created or 0)
    dynamodb: dict[str, Any] = {"ApproximateCreationDateTime": float(int(arrival))}
    for key in ("Keys", "NewImage", "OldImage", "SequenceNumber", "SizeBytes", "StreamViewType"):
        if key in source:
            dynamodb[key] = source[key]
    event: dict[str, Any] = {
        "eventID": raw["eventID"],
        "eventName": raw["eventName"],
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": dynamodb,
        "eventSourceARN": stream_arn,
    }
    if user_identity:
        event["userIdentity"] = dict(user_identity)
    return StreamRecord(
        sequence=int(source["SequenceNumber"]),
        arrival=arrival,
        size=len(json.dumps(event)),
        event=event,
    )


def item_failures(result: Any, sequence_numbers: Sequence[str]) -> list[int] | None:
    """The batch positions a ReportBatchItemFailures response names as failed.

    [] when the batch succeeded (no response, `{}`, no or empty `batchItemFailures`). None when
    Lambda would count the whole batch as failed: a failure without an `itemIdentifier` of this
    batch (missing, empty, null, unknown), or a response that is not an object.

    [PARTIAL] "Lambda treats a batch as a complete success if you return any of the following: An empty
    batchItemFailure list; A null batchItemFailure list; An empty EventResponse; A null EventResponse."
    "Lambda treats a batch as a complete failure if you return any of the following: An empty string
    itemIdentifier; A null itemIdentifier; An itemIdentifier with a bad key name." An identifier that names
    no record of the batch is not documented; it is treated like a null one (the whole batch failed).
    """
    if result is None:
        return []
    if not isinstance(result, Mapping):
        return None
    failures = result.get("batchItemFailures")
    if not failures:
        return []
    if not isinstance(failures, list):
        return None
    positions = {sequence: index for index, sequence in enumerate(sequence_numbers)}
    indexes = []
    for failure in failures:
        identifier = failure.get("itemIdentifier") if isinstance(failure, Mapping) else None
        if not isinstance(identifier, str) or identifier not in positions:
            return None
        indexes.append(positions[identifier])
    return sorted(indexes)


@dataclass(frozen=True)
class Outcome:
    """How one invocation of a batch ended."""

    request_id: str
    failed_from: int | None = None  # position of the first record to retry; None: success
    item_failures: int = 0  # records the response named as failed (0: the whole batch failed)
    error: FunctionError | None = None  # the function itself failed (raised, timed out, crashed)
    invalid: str | None = None  # why Lambda rejected the response (the whole batch failed)

    @classmethod
    def from_response(
        cls, request_id: str, result: Any, sequence_numbers: Sequence[str]
    ) -> Outcome:
        """Outcome of a successful invocation of a mapping with ReportBatchItemFailures:
        resume from the lowest failed record (it and all after it are retried).

        [PARTIAL] "If the batchItemFailures array contains multiple items, Lambda uses the record with
        the lowest sequence number as the checkpoint. Lambda then retries all records starting from that
        checkpoint." (`item_failures` returns the positions sorted.)"""
        failed = item_failures(result, sequence_numbers)
        if failed is None:
            return cls(request_id, failed_from=0)
        return cls(request_id, failed_from=failed[0] if failed else None, item_failures=len(failed))

    def describe(self, records: Sequence[StreamRecord]) -> str:
        if self.error is not None:
            return f"function error {self.error.error_type}: {self.error.message}"
        if self.invalid is not None:
            return f"{self.invalid}: whole batch failed"
        if self.failed_from is None:
            return "ok"
        if not self.item_failures:
            return "invalid batchItemFailures: whole batch failed"
        resume = records[self.failed_from].sequence_number
        return f"{self.item_failures} item failure(s), resuming at {resume}"


def failure_record(
    *,
    condition: str,
    records: Sequence[StreamRecord],
    spec: MappingSpec,
    shard_id: str,
    invoke_count: int,
    outcome: Outcome | None,
    now: float,
) -> dict[str, Any]:
    """What Lambda sends to an on-failure destination for a stream batch it gives up on.

    `responseContext` describes the last invocation and is left out when the records were never
    invoked (too old on arrival). [ERRORS] "Each record sent to the destination is a JSON document
    that contains metadata about the failed invocation." Only an Amazon S3 destination also gets "the
    entire invocation record": an SQS queue never sees the records themselves (PITFALLS 17).
    """
    request_context = {
        "requestId": outcome.request_id if outcome else str(uuid.uuid4()),
        "functionArn": spec.function_arn,
        "condition": condition,
        "approximateInvokeCount": invoke_count,
    }
    record: dict[str, Any] = {"requestContext": request_context}
    if outcome is not None:
        response: dict[str, Any] = {"statusCode": 200, "executedVersion": "$LATEST"}
        if outcome.error is not None:
            response["functionError"] = "Unhandled"
        record["responseContext"] = response
    record.update(
        {
            "version": "1.0",
            "timestamp": _iso(now),
            "DDBStreamBatchInfo": {
                "shardId": shard_id,
                "startSequenceNumber": records[0].sequence_number,
                "endSequenceNumber": records[-1].sequence_number,
                "approximateArrivalOfFirstRecord": _iso(records[0].arrival),
                "approximateArrivalOfLastRecord": _iso(records[-1].arrival),
                "batchSize": len(records),
                "streamArn": spec.stream_arn,
            },
        }
    )
    return record


def _iso(epoch: float) -> str:
    return (
        datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def forget_moto_iterator(iterator: str | None) -> None:
    """Drop a used shard iterator from the in-process moto.

    moto keeps every iterator it ever returned, and every GetRecords returns a new one (about 2 KB,
    ten a second per idle poller): a long `make run` would grow by tens of MB an hour. A poller
    never reuses an iterator it has replaced, and nobody else holds it, so forgetting it is safe.
    """
    if not iterator:
        return
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    for account in list(dynamodbstreams_backends.values()):
        for backend in list(dict.values(account)):
            backend.shard_iterators.pop(iterator, None)


# --------------------------------------------------------------------------------------------
# Polling


@dataclass(frozen=True)
class _Segment:
    """Records that must be delivered, as one batch, before anything after them."""

    records: tuple[StreamRecord, ...]
    bisected: bool = False


class ShardPoller:
    """Delivers one shard's records to one mapping's consumer: in order, one batch at a time."""

    def __init__(self, mapping: MappingRunner, shard_id: str, iterator: str) -> None:
        self.mapping = mapping
        self.spec = mapping.spec
        self.shard_id = shard_id
        self._iterator: str | None = iterator
        self._last_read: int | None = None  # newest sequence number read from the shard
        self._stale_iterator = False  # after a failure: continue from `_last_read` instead
        self._buffer: deque[StreamRecord] = deque()  # read, matched the filters, not yet batched
        self._buffered_since = 0.0  # monotonic time the oldest buffered record was read
        self._pending: deque[_Segment] = deque()  # batches to (re)deliver before anything else
        self._attempts = 0  # failed invocations of the head segment's first record
        self._last_outcome: Outcome | None = None
        self._drained = False  # the last GetRecords returned nothing
        self._closed = False  # the shard has ended (no NextShardIterator)
        # Tumbling window (TumblingWindowInSeconds): the window of the records delivered last, its state as the
        # function returned it, and failed attempts of its final invocation.
        self._window: float | None = None
        self._window_state: dict[str, Any] = {}
        self._final_attempts = 0
        self._wake = threading.Event()
        # Progress counters for `Streams.wait_idle`, guarded by `mapping.progress`.
        self.fetches = 0  # GetRecords calls started
        self.caught_up_at = 0  # the latest call after which nothing was left to deliver
        self.finished = False
        self._thread = threading.Thread(
            target=self._run, name=f"stream-{self.spec.function_label}-{shard_id[-8:]}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """End the current pause now (stop, or a caller waiting for the shard to catch up)."""
        self._wake.set()

    def join(self, timeout: float | None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # loop ---------------------------------------------------------------------------------------

    def _run(self) -> None:
        errors = 0
        while not self.mapping.stopping:
            try:
                if not self._step():
                    break
                errors = 0
            except Exception as exc:  # noqa: BLE001 - one poller's trouble must not end the others
                if self.mapping.stopping:
                    break
                errors += 1
                delay = min(POLL_INTERVAL * 2**errors, ERROR_DELAY_MAX)
                self._report(exc, delay)
                self._stale_iterator = True
                self._sleep(delay)
        if self._closed and not self.mapping.stopping:
            self.mapping.shard_finished(self)  # before `finished`: waiters must see the children
        with self.mapping.progress:
            self.finished = True
            self.mapping.progress.notify_all()

    def _step(self) -> bool:
        """Read and/or deliver once; False when the shard is closed and everything is delivered."""
        if not self._pending:
            if len(self._buffer) < self.spec.batch_size and not self._closed:
                self._fetch()
            if self._window_over():
                self._final_invocation()
                return True
            segment = self._next_batch()
            if segment is None:
                if self._closed and not self._buffer:
                    return False
                if self._drained or self._buffer:  # no sleep while the shard has more to read
                    self._sleep(self._pause())
                return True
            self._pending.append(segment)
        self._deliver()
        return True

    def _report(self, exc: Exception, delay: float) -> None:
        where = f"{self.spec.id} shard {self.shard_id}"
        if isinstance(exc, (ClientError, BotoCoreError)):
            log.warning("%s: reading the stream failed (%s); retrying in %.1fs", where, exc, delay)
        else:
            log.exception("%s: poller error; retrying in %.1fs", where, delay)

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _pause(self) -> float:
        if not self._buffer:
            return POLL_INTERVAL
        waited = time.monotonic() - self._buffered_since
        return max(0.0, min(POLL_INTERVAL, self.spec.batching_window - waited))

    # reading ------------------------------------------------------------------------------------

    def _fetch(self) -> None:
        self._wake.clear()
        progress = self.mapping.progress
        with progress:
            self.fetches += 1
            number = self.fetches
        if self._stale_iterator and self._last_read is not None:
            forget_moto_iterator(self._iterator)
            self._iterator = self.mapping.iterator(
                self.shard_id, "AFTER_SEQUENCE_NUMBER", str(self._last_read)
            )
        self._stale_iterator = False
        used = self._iterator
        response = self.mapping.client.get_records(ShardIterator=used, Limit=FETCH_LIMIT)
        self._iterator = response.get("NextShardIterator")
        forget_moto_iterator(used)
        records = response.get("Records", [])
        for raw in records:
            self._read(raw)
        self._drained = not records
        self._closed = self._iterator is None
        if not records and not self._buffer:
            with progress:
                self.caught_up_at = number
                progress.notify_all()

    def _read(self, raw: Mapping[str, Any]) -> None:
        record = lambda_record(
            raw,
            stream_arn=self.spec.stream_arn,
            region=self.mapping.region,
            user_identity=self.mapping.identity(raw),
        )
        self._last_read = record.sequence
        if not matches_any(self.spec.filters, record.event):
            return  # filtered out: never delivered, and the shard moves past it
        if not self._buffer:
            self._buffered_since = time.monotonic()
        self._buffer.append(record)

    def _next_batch(self) -> _Segment | None:
        """The next batch from the buffer, once it is full or the batching window has passed."""
        if not self._buffer:
            return None
        full = len(self._buffer) >= self.spec.batch_size
        waited = time.monotonic() - self._buffered_since
        if not full and waited < self.spec.batching_window:
            return None
        records = [self._buffer.popleft()]
        size = records[0].size
        while self._buffer and len(records) < self.spec.batch_size:
            if size + self._buffer[0].size > MAX_EVENT_BYTES:
                break
            if self._window_of(self._buffer[0]) != self._window_of(records[0]):
                break  # a batch never spans two tumbling windows
            size += self._buffer[0].size
            records.append(self._buffer.popleft())
        return _Segment(tuple(records))

    # delivering ---------------------------------------------------------------------------------

    def _deliver(self) -> None:
        segment = self._pending[0]
        expired, fresh = self._split_expired(segment.records)
        if expired:
            tried = self._attempts
            self._give_up(
                expired, "RecordAgeExceeded", tried, self._last_outcome if tried else None
            )
        if not fresh:
            self._finish_segment()
            return
        segment = self._pending[0] = replace(segment, records=fresh)
        outcome = self._invoke(fresh)
        if self.mapping.stopping:
            return  # the runtime is going down (and may have killed the worker): outcome is moot
        self._handle(segment, outcome)

    def _split_expired(
        self, records: tuple[StreamRecord, ...]
    ) -> tuple[tuple[StreamRecord, ...], tuple[StreamRecord, ...]]:
        """(records older than MaximumRecordAgeInSeconds, the rest); the old ones come first.

        [ERRORS] Lambda retries "until the records expire, exceed the maximum age
        (MaximumRecordAgeInSeconds), or reach the configured retry quota (MaximumRetryAttempts)": the age
        is checked before every invocation, the first try included."""
        if self.spec.max_record_age < 0:
            return (), records
        now = self.mapping.clock()
        old = 0
        while old < len(records) and now - records[old].arrival > self.spec.max_record_age:
            old += 1
        return records[:old], records[old:]

    def _invoke(self, records: Sequence[StreamRecord]) -> Outcome:
        request_id = str(uuid.uuid4())
        event: dict[str, Any] = {"Records": [record.event for record in records]}
        if self.spec.tumbling_window:
            window = self._window_of(records[0])
            if window != self._window:
                self._window, self._window_state = window, {}
            event.update(self._window_fields(final=False))
        try:
            result = self.mapping.invoke(self.spec.function, event, request_id)
        except FunctionError as exc:
            return Outcome(request_id, failed_from=0, error=exc)
        if self.spec.tumbling_window:
            state = result.get("state") if isinstance(result, Mapping) else None
            if not isinstance(state, Mapping):
                return Outcome(request_id, failed_from=0, invalid="response without a state object")
            self._window_state = dict(state)
        if not self.spec.report_item_failures:
            # [PARTIAL] "Even when your function code returns partial batch failure responses, these
            # responses will not be processed by Lambda unless the ReportBatchItemFailures feature is
            # explicitly turned on for your event source mapping."
            return Outcome(request_id)
        sequence_numbers = [record.sequence_number for record in records]
        return Outcome.from_response(request_id, result, sequence_numbers)

    # tumbling windows ----------------------------------------------------------------------------

    def _window_of(self, record: StreamRecord) -> float | None:
        """Start of the record's window: windows are aligned to multiples of their length since the epoch."""
        size = self.spec.tumbling_window
        return None if not size else (record.arrival // size) * size

    def _window_fields(self, *, final: bool) -> dict[str, Any]:
        start = self._window or 0.0
        return {
            "window": {"start": _iso(start), "end": _iso(start + self.spec.tumbling_window)},
            "state": dict(self._window_state),
            "shardId": self.shard_id,
            "eventSourceARN": self.spec.stream_arn,
            "isFinalInvokeForWindow": final,
            "isWindowTerminatedEarly": False,
        }

    def _window_over(self) -> bool:
        """The window of the records delivered last has ended and none of its records is left to deliver."""
        if self._window is None:
            return False
        if self._buffer:
            return self._window_of(self._buffer[0]) != self._window
        return self._closed or self.mapping.clock() >= self._window + self.spec.tumbling_window

    def _final_invocation(self) -> None:
        """The window's last invocation: no records, its state, `isFinalInvokeForWindow`. Lambda holds the shard
        until it succeeds; here retries follow the mapping's retry limit, then the window is dropped."""
        request_id = str(uuid.uuid4())
        event = {"Records": [], **self._window_fields(final=True)}
        try:
            result = self.mapping.invoke(self.spec.function, event, request_id)
            ok = isinstance(result, Mapping) and isinstance(result.get("state"), Mapping)
            outcome = "ok" if ok else "response without a state object"
        except FunctionError as exc:
            ok, outcome = False, f"function error {exc.error_type}: {exc.message}"
        self._final_attempts += 1
        log.info(
            "%s <- %s %s: final invocation of window %s, attempt %d: %s",
            self.spec.function_label,
            self.spec.table.logical_id,
            self.shard_id,
            event["window"]["start"],
            self._final_attempts,
            outcome,
        )
        if not ok and not 0 <= self.spec.max_retries < self._final_attempts:
            self._sleep(min(RETRY_DELAY * 2 ** (self._final_attempts - 1), RETRY_DELAY_MAX))
            return
        if not ok:
            log.warning("%s: gave up on the final invocation of window %s", self.spec.id, event["window"]["start"])
        self._window, self._window_state, self._final_attempts = None, {}, 0

    def _handle(self, segment: _Segment, outcome: Outcome) -> None:
        records = segment.records
        attempt = self._attempts + 1
        # Only a function error bisects; the halves start with no retries used (as in AWS,
        # splitting does not count), which still ends: halves shrink to single records.
        # [PARTIAL] "If your invocation fails and BisectBatchOnFunctionError is turned on, the batch is
        # bisected regardless of your ReportBatchItemFailures setting." [ERRORS] "Splitting batches
        # doesn't count towards the retry quota." A response Lambda rejects (a null itemIdentifier, say)
        # fails the batch but is no invocation error: retried whole, not bisected.
        split = outcome.error is not None and self.spec.bisect and len(records) > 1
        self._log_invocation(segment, attempt, outcome, split)
        if outcome.failed_from is None:
            self._finish_segment()
            return
        self._last_outcome = outcome
        if split:
            middle = (len(records) + 1) // 2
            self._pending.popleft()
            self._pending.extendleft(
                [_Segment(records[middle:], bisected=True), _Segment(records[:middle], True)]
            )
            self._attempts = 0
            return
        if outcome.failed_from > 0:  # the records before the failed one are done
            # [PARTIAL] "When a partial batch success response is received and both
            # BisectBatchOnFunctionError and ReportBatchItemFailures are turned on, the batch is bisected
            # at the returned sequence number and Lambda retries only the remaining records." The same
            # without bisecting: the checkpoint moves to the lowest failed record.
            records = records[outcome.failed_from :]
            self._pending[0] = _Segment(records, segment.bisected)
            attempt = 1  # the first record to retry has failed once so far
        self._attempts = attempt
        if 0 <= self.spec.max_retries < attempt:
            # [ERRORS] "If the error handling measures fail, Lambda discards the records and continues
            # processing batches from the stream." With a partial response, that is every record from the
            # lowest failed one to the end of the batch, good ones included (PITFALLS 17).
            self._give_up(records, "RetryAttemptsExhausted", attempt, outcome)
            self._finish_segment()
            return
        self._sleep(min(RETRY_DELAY * 2 ** (attempt - 1), RETRY_DELAY_MAX))

    def _finish_segment(self) -> None:
        self._pending.popleft()
        self._attempts = 0
        self._last_outcome = None

    def _give_up(
        self,
        records: Sequence[StreamRecord],
        condition: str,
        invoke_count: int,
        outcome: Outcome | None,
    ) -> None:
        """Send the batch's description to the on-failure destination and move past it."""
        record = failure_record(
            condition=condition,
            records=records,
            spec=self.spec,
            shard_id=self.shard_id,
            invoke_count=invoke_count,
            outcome=outcome,
            now=self.mapping.clock(),
        )
        destination = self.mapping.destination
        log.warning(
            "%s: %s: gave up on %d record(s) %s..%s after %d invocation(s) -> %s",
            self.spec.id,
            condition,
            len(records),
            records[0].sequence_number,
            records[-1].sequence_number,
            invoke_count,
            destination.arn if destination else "discarded (no SQS on-failure destination)",
        )
        if destination is None:
            log.warning("%s: failure record: %s", self.spec.id, json.dumps(record))
            return
        try:
            destination.send(record)
        except (ClientError, BotoCoreError):
            log.exception("%s: could not send failure record %s", self.spec.id, json.dumps(record))

    def _log_invocation(
        self, segment: _Segment, attempt: int, outcome: Outcome, split: bool
    ) -> None:
        records = segment.records
        log.info(
            "%s <- %s %s: %d record(s) %s..%s, attempt %d%s: %s%s",
            self.spec.function_label,
            self.spec.table.logical_id,
            self.shard_id,
            len(records),
            records[0].sequence_number,
            records[-1].sequence_number,
            attempt,
            " (bisected)" if segment.bisected else "",
            outcome.describe(records),
            ", bisecting" if split else "",
        )


class MappingRunner:
    """One enabled mapping: finds its stream's shards and runs a `ShardPoller` for each."""

    def __init__(
        self,
        spec: MappingSpec,
        *,
        client: Any,
        invoke: Invoke,
        destination: QueueDestination | None,
        region: str,
        identity: Callable[[str, Mapping[str, Any]], Mapping[str, str] | None] | None,
        stop: threading.Event,
        progress: threading.Condition,
        clock: Callable[[], float],
    ) -> None:
        self.spec = spec
        self.client = client
        self.invoke = invoke
        self.destination = destination
        self.region = region
        self.progress = progress
        self.clock = clock
        self._identity = identity
        self._stop = stop
        self._lock = threading.Lock()
        self._pollers: dict[str, ShardPoller] = {}
        self._done: set[str] = set()  # shards finished (or skipped: closed before a LATEST start)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def pollers(self) -> list[ShardPoller]:
        with self._lock:
            return list(self._pollers.values())

    def identity(self, raw: Mapping[str, Any]) -> Mapping[str, str] | None:
        return self._identity(self.spec.table.name, raw) if self._identity else None

    def iterator(self, shard_id: str, kind: str, sequence_number: str | None = None) -> str:
        extra = {"SequenceNumber": sequence_number} if sequence_number else {}
        response = self.client.get_shard_iterator(
            StreamArn=self.spec.stream_arn, ShardId=shard_id, ShardIteratorType=kind, **extra
        )
        return str(response["ShardIterator"])

    def start(self) -> None:
        """Take the starting position of every current shard now, then start polling."""
        self._discover(initial=True)

    def shard_finished(self, poller: ShardPoller) -> None:
        """A closed shard is fully delivered: its children may start (from their beginning)."""
        with self._lock:
            self._done.add(poller.shard_id)
        try:
            self._discover(initial=False)
        except Exception:  # logged; the mapping's other shards keep going
            log.exception("%s: finding child shards of %s failed", self.spec.id, poller.shard_id)

    def _discover(self, *, initial: bool) -> None:
        shards = self._shards()
        ids = {shard["ShardId"] for shard in shards}
        with self._lock:
            if initial and self.spec.starting_position == "LATEST":
                # Closed shards hold only records older than "now": a LATEST mapping skips them.
                self._done.update(s["ShardId"] for s in shards if _closed(s))
            for shard in shards:
                shard_id = shard["ShardId"]
                parent = shard.get("ParentShardId")
                if shard_id in self._pollers or shard_id in self._done or self.stopping:
                    continue
                if parent in ids and parent not in self._done:
                    continue  # a parent's records come first; started when the parent is done
                kind = self.spec.starting_position if initial else "TRIM_HORIZON"
                poller = ShardPoller(self, shard_id, self.iterator(shard_id, kind))
                self._pollers[shard_id] = poller
                poller.start()

    def _shards(self) -> list[dict[str, Any]]:
        shards: list[dict[str, Any]] = []
        request: dict[str, Any] = {"StreamArn": self.spec.stream_arn}
        while True:
            description = self.client.describe_stream(**request)["StreamDescription"]
            shards.extend(description.get("Shards", []))
            last = description.get("LastEvaluatedShardId")
            if not last:
                return shards
            request["ExclusiveStartShardId"] = last


def _closed(shard: Mapping[str, Any]) -> bool:
    return "EndingSequenceNumber" in (shard.get("SequenceNumberRange") or {})


class Streams:
    """Every enabled stream mapping of the app, polled in the background.

    `start()` takes each mapping's starting position at once (before the runtime loads seed data,
    so LATEST means "written after deployment" and seed writes are delivered); `stop()` ends every
    poller; `wait_idle()` lets tests and benchmarks wait until consumers have caught up.
    """

    def __init__(
        self,
        mappings: Sequence[MappingSpec],
        *,
        clients: Clients,
        invoke: Invoke,
        region: str,
        identity: Callable[[str, Mapping[str, Any]], Mapping[str, str] | None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._stop = threading.Event()
        self._progress = threading.Condition()
        self.mappings: list[MappingRunner] = []
        for spec in mappings:
            if not spec.enabled:
                log.info("%s: Enabled is false; not polled", spec.id)
                continue
            if spec.parallelization_factor > 1:
                log.info(
                    "%s: ParallelizationFactor %d ignored locally (one batch per shard at a time)",
                    spec.id,
                    spec.parallelization_factor,
                )
            self.mappings.append(
                MappingRunner(
                    spec,
                    client=clients["dynamodbstreams"],
                    invoke=invoke,
                    destination=_destination(spec, clients),
                    region=region,
                    identity=identity,
                    stop=self._stop,
                    progress=self._progress,
                    clock=clock,
                )
            )

    def start(self) -> None:
        for runner in self.mappings:
            runner.start()
            spec = runner.spec
            log.info(
                "stream %s -> %s (batch %d, %s%s%s%s)",
                spec.table.logical_id,
                spec.function_label,
                spec.batch_size,
                spec.starting_position,
                f", {len(spec.filters)} filter(s)" if spec.filters else "",
                f", retries {spec.max_retries}" if spec.max_retries >= 0 else "",
                ", bisect" if spec.bisect else "",
            )

    def pollers(self) -> list[ShardPoller]:
        return [poller for runner in self.mappings for poller in runner.pollers()]

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every record written before the call has been handled; False on timeout.

        "Handled" means delivered, filtered out or given up on, with no batch in flight. To rule out
        a write that landed just before the call but after a poller's last read, each poller must
        complete a GetRecords call *started after this call* that finds nothing new.
        """
        deadline = time.monotonic() + timeout
        with self._progress:
            targets = {id(p): p.fetches + 1 for p in self.pollers()}
        for poller in self.pollers():
            poller.wake()
        while True:
            pollers = self.pollers()
            with self._progress:
                waiting = [
                    p for p in pollers if not p.finished and p.caught_up_at < targets.get(id(p), 1)
                ]
                if not waiting:
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    names = ", ".join(f"{p.spec.id} {p.shard_id}" for p in waiting)
                    log.debug("wait_idle: timed out waiting for %s", names)
                    return False
                self._progress.wait(min(remaining, POLL_INTERVAL))

    def stop(self, timeout: float | None = None) -> bool:
        """Stop every poller; True when all have ended within `timeout` (None: wait for them).

        A poller in the middle of an invocation ends when it returns: the runtime stops the
        functions after a short `timeout` and calls `stop()` again to wait for the rest.
        """
        self._stop.set()
        pollers = self.pollers()
        for poller in pollers:
            poller.wake()
        deadline = None if timeout is None else time.monotonic() + timeout
        for poller in pollers:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            poller.join(remaining)
        return all(poller.join(0) for poller in self.pollers())


def _destination(spec: MappingSpec, clients: Clients) -> QueueDestination | None:
    if spec.on_failure is None:
        return None
    if not is_queue_arn(spec.on_failure):
        log.warning(
            "%s: on-failure destination %s is not an SQS queue; failed batches are only logged",
            spec.id,
            spec.on_failure,
        )
        return None
    try:
        return QueueDestination(spec.on_failure, clients["sqs"])
    except ClientError as exc:
        log.warning(
            "%s: on-failure queue %s not found locally (%s); failed batches are only logged",
            spec.id,
            spec.on_failure,
            exc,
        )
        return None


__all__ = [
    "MAPPING_TYPE",
    "MappingRunner",
    "MappingSpec",
    "Outcome",
    "ShardPoller",
    "StreamRecord",
    "Streams",
    "failure_record",
    "forget_moto_iterator",
    "item_failures",
    "lambda_record",
    "mapping_specs",
]
