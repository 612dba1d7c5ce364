"""Reading shards and delivering batches: a `ShardPoller` thread per mapping and shard, `Streams` for them all. A
shard's records go out strictly in order, one batch in flight; a failed batch is retried from memory (failures.py).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from local.awslambda.pool import FunctionError
from local.cloudformation.resources import Clients
from local.streams.destinations import QueueDestination
from local.streams.failures import BatchFailures, Outcome, Segment
from local.streams.mapping import MappingSpec, StreamRecord, lambda_record
from local.streams.windows import TumblingWindow

log = logging.getLogger("local.streams")

# Seconds between GetRecords calls on an idle shard: "Lambda polls shards in your DynamoDB stream for records at a base
# rate of 4 times per second" (Lambda developer guide, "Using AWS Lambda with Amazon DynamoDB"). A test that needs the
# records delivered now wakes the pollers (`Streams.wait_idle`).
POLL_INTERVAL = 0.25
ERROR_DELAY_BASE = 0.1  # a failing GetRecords pauses twice this, doubled per failure in a row
FETCH_LIMIT = 1000  # GetRecords' maximum
MAX_EVENT_BYTES = 6 * 1024 * 1024 - 4096  # Lambda's invoke payload limit, minus the envelope
ERROR_DELAY_MAX = 5.0  # longest pause after a failing GetRecords
Invoke = Callable[[str, Any, str], Any]  # (function, event, request id) -> result; raises FunctionError


def _moto_shard_iterators() -> list[dict[str, Any]]:
    """Every in-process moto DynamoDB Streams backend's iterators, by iterator string (one dict per account and
    region)."""
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    return [backend.shard_iterators for account in list(dynamodbstreams_backends.values())
            for backend in list(dict.values(account))]


def _moto_iterator(iterator: str | None) -> Any:
    """The in-process moto's object behind a shard iterator, or None (another endpoint, or an iterator it forgot)."""
    if not iterator:
        return None
    found = (held.get(iterator) for held in _moto_shard_iterators())
    return next((it for it in found if it is not None), None)


def nothing_to_read(iterator: str | None) -> bool:
    """True when a GetRecords on this iterator of the in-process moto is sure to answer no records: its shard holds
    nothing at or after the iterator's position (moto's `ShardIterator.get`). An idle poller then counts the read
    without making it: the same empty answer, without a request through botocore, HTTP and moto's server (8 ms,
    four times a second per shard, the idle runtime's largest cost). False when unsure: the call is made."""
    found = _moto_iterator(iterator)
    shard = getattr(found, "stream_shard", None)
    table = getattr(shard, "table", None)
    position, start, items = (getattr(found, "sequence_number", None), getattr(shard, "starting_sequence_number", None),
                              getattr(shard, "items", None))
    if getattr(table, "stream_shard", None) is not shard or not isinstance(position, int) or \
            not isinstance(start, int) or not isinstance(items, list):  # a new stream since, or moto changed
        return False
    return position - start >= len(items)


def forget_moto_iterator(iterator: str | None) -> None:
    """Drop a used shard iterator from the in-process moto, which keeps every iterator it ever returned (about 2 KB,
    ten a second per idle poller). A poller never reuses an iterator it has replaced, and nobody else holds it."""
    if not iterator:
        return
    for held in _moto_shard_iterators():
        held.pop(iterator, None)


class ShardPoller:
    """Delivers one shard's records to one mapping's consumer: in order, one batch at a time."""

    def __init__(self, streams: Streams, spec: MappingSpec, shard_id: str, iterator: str,
                 destination: QueueDestination | None) -> None:
        self.streams, self.spec, self.shard_id = streams, spec, shard_id
        self._iterator: str | None = iterator
        self._last_read: int | None = None  # newest sequence number read: where to resume after a read failed
        self._stale_iterator = False
        self._buffer: deque[StreamRecord] = deque()  # read, not yet batched
        self._buffered_since = 0.0  # monotonic time the oldest buffered record was read
        self.failures = BatchFailures(spec, shard_id, destination, streams.clock)
        self.window = TumblingWindow(spec, shard_id)
        self._drained = self._closed = False  # the last read found nothing; the shard has ended
        self._wake = threading.Event()
        # For `Streams.wait_idle`, guarded by `streams.progress`: reads started, the last one that left nothing to do.
        self.fetches = self.caught_up_at = 0
        self.filtered = 0  # records the mapping's FilterCriteria discarded
        self.finished = False
        self._thread = threading.Thread(target=self._run, name=f"stream-{spec.function_label}-{shard_id[-8:]}",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:  # end the current pause now (stop, or a caller waiting for the shard to catch up)
        self._wake.set()

    def join(self, timeout: float | None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        errors = 0
        while not self.streams.stopping:
            try:
                if not self._step():
                    break
                errors = 0
            except Exception as exc:
                if self.streams.stopping:
                    break
                errors += 1
                delay = min(ERROR_DELAY_BASE * 2**errors, ERROR_DELAY_MAX)
                where = f"{self.spec.id} shard {self.shard_id}"
                if isinstance(exc, (ClientError, BotoCoreError)):
                    log.warning("%s: reading the stream failed (%s); retrying in %.1fs", where, exc, delay)
                else:
                    log.exception("%s: poller error; retrying in %.1fs", where, delay)
                self._stale_iterator = True
                self._sleep(delay)
        if self._closed and not self.streams.stopping:
            log.warning("%s: shard %s has ended; child shards are not followed locally", self.spec.id, self.shard_id)
        with self.streams.progress:
            self.finished = True
            self.streams.progress.notify_all()

    def _step(self) -> bool:
        """Read and/or deliver once; False when the shard is closed and everything is delivered."""
        if not self.failures.pending:
            if len(self._buffer) < self.spec.batch_size and not self._closed:
                self._fetch()
            if self.window.over(self._buffer[0] if self._buffer else None, self._closed, self.streams.clock()):
                self._sleep(self.window.finish(lambda event: self.streams.invoke(self.spec.function, event,
                                                                                 str(uuid.uuid4()))))
                return True
            segment = self._next_batch()
            if segment is None:
                if self._closed and not self._buffer:
                    return False
                if self._drained or self._buffer:  # no pause while the shard has more to read
                    waited = time.monotonic() - self._buffered_since
                    self._sleep(max(0.0, min(POLL_INTERVAL, self.spec.batching_window - waited)) if self._buffer
                                else POLL_INTERVAL)
                return True
            self.failures.pending.append(segment)
        records = self.failures.expire()
        if records:
            outcome = self._invoke(records)
            if not self.streams.stopping:  # else the runtime is going down (and may have killed the worker)
                self._sleep(self.failures.after(outcome))
        return True

    def _sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._wake.wait(seconds)
            self._wake.clear()

    def _fetch(self) -> None:
        self._wake.clear()
        with self.streams.progress:
            self.fetches += 1
            number = self.fetches
        if self._stale_iterator and self._last_read is not None:
            forget_moto_iterator(self._iterator)
            self._iterator = self.streams.iterator(self.spec, self.shard_id, "AFTER_SEQUENCE_NUMBER",
                                                   str(self._last_read))
        if self._drained and not self._stale_iterator and nothing_to_read(self._iterator):
            records: list[dict[str, Any]] = []  # what GetRecords would answer, iterator unchanged
        else:
            self._stale_iterator, used = False, self._iterator
            response = self.streams.client.get_records(ShardIterator=used, Limit=FETCH_LIMIT)
            self._iterator = response.get("NextShardIterator")
            forget_moto_iterator(used)
            records = response.get("Records", [])
        for raw in records:
            record = lambda_record(raw, stream_arn=self.spec.stream_arn, region=self.streams.region)
            self._last_read = record.sequence
            if not self.spec.filters.matches(record.event):
                # FilterCriteria: "If none of your filters are satisfied, Lambda discards the record", and "the
                # streams iterator advances past this record" (Lambda developer guide, "Control which events Lambda
                # sends to your function"): never buffered, so never in a batch, a retry, a window or the DLQ.
                self.filtered += 1
                continue
            if not self._buffer:
                self._buffered_since = time.monotonic()
            self._buffer.append(record)
        self._drained, self._closed = not records, self._iterator is None
        if not records and not self._buffer:
            with self.streams.progress:
                self.caught_up_at = number
                self.streams.progress.notify_all()

    def _next_batch(self) -> Segment | None:
        """The next batch, once BatchSize records are buffered or the batching window has passed: at most BatchSize
        records, under Lambda's 6 MB payload, never spanning two tumbling windows."""
        if not self._buffer or (len(self._buffer) < self.spec.batch_size and
                                time.monotonic() - self._buffered_since < self.spec.batching_window):
            return None
        records = [self._buffer.popleft()]
        size = records[0].size
        while (self._buffer and len(records) < self.spec.batch_size and size + self._buffer[0].size <= MAX_EVENT_BYTES
               and self.window.of(self._buffer[0]) == self.window.of(records[0])):
            size += self._buffer[0].size
            records.append(self._buffer.popleft())
        return Segment(tuple(records))

    def _invoke(self, records: tuple[StreamRecord, ...]) -> Outcome:
        request_id = str(uuid.uuid4())
        event = {"Records": [record.event for record in records], **self.window.fields(records)}
        try:
            result = self.streams.invoke(self.spec.function, event, request_id)
        except FunctionError as exc:
            return Outcome(request_id, 0, exc, f"function error {exc.error_type}: {exc.message}")
        if self.spec.tumbling_window and not self.window.accept(result):
            return Outcome(request_id, 0, note="response without a state object: whole batch failed")
        if not self.spec.report_item_failures:
            # [PARTIAL] "Even when your function code returns partial batch failure responses, these responses will
            # not be processed by Lambda unless the ReportBatchItemFailures feature is explicitly turned on for your
            # event source mapping."
            return Outcome(request_id)
        return Outcome.from_response(request_id, result, [record.sequence_number for record in records])


class Streams:
    """Every stream mapping of the app, polled in the background. `start()` takes each mapping's starting position at
    once (before the seeds load: LATEST means "written after deployment"); `wait_idle()` lets tests and benchmarks
    wait for the consumers to catch up."""

    def __init__(self, mappings: Sequence[MappingSpec], *, clients: Clients, invoke: Invoke, region: str,
                 clock: Callable[[], float] = time.time) -> None:
        self.mappings, self._clients, self.invoke, self.region = list(mappings), clients, invoke, region
        self.clock = clock
        self.client = clients["dynamodbstreams"]
        self._stop = threading.Event()
        self.progress = threading.Condition()
        self._pollers: list[ShardPoller] = []

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def iterator(self, spec: MappingSpec, shard_id: str, kind: str, sequence_number: str | None = None) -> str:
        extra = {"SequenceNumber": sequence_number} if sequence_number else {}
        return str(self.client.get_shard_iterator(StreamArn=spec.stream_arn, ShardId=shard_id, ShardIteratorType=kind,
                                                  **extra)["ShardIterator"])

    def start(self) -> None:
        """A poller for every open shard of every mapping, from its starting position taken now. moto has one shard
        per table, which never closes or splits: child shards are not followed."""
        for spec in self.mappings:
            destination = QueueDestination(spec.on_failure, self._clients["sqs"]) if spec.on_failure else None
            for shard in self.client.describe_stream(StreamArn=spec.stream_arn)["StreamDescription"].get("Shards", []):
                if "EndingSequenceNumber" not in (shard.get("SequenceNumberRange") or {}):
                    iterator = self.iterator(spec, shard["ShardId"], spec.starting_position)
                    self._pollers.append(ShardPoller(self, spec, shard["ShardId"], iterator, destination))
            log.info("stream %s -> %s (batch %d, %s%s%s%s)", spec.table.logical_id, spec.function_label,
                     spec.batch_size, spec.starting_position,
                     f", retries {spec.max_retries}" if spec.max_retries >= 0 else "",
                     ", bisect" if spec.bisect else "",
                     f", {len(spec.filters.patterns)} filter(s)" if spec.filters else "")
        for poller in self._pollers:
            poller.start()

    def pollers(self) -> list[ShardPoller]:
        return list(self._pollers)

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """Wait until every record written before the call has been delivered or given up on, with no batch in flight;
        False on timeout. To rule out a write that landed after a poller's last read, each poller must complete a read
        *started after this call* that finds nothing new."""
        deadline = time.monotonic() + timeout
        with self.progress:
            targets = {id(p): p.fetches + 1 for p in self._pollers}
        for poller in self._pollers:
            poller.wake()
        with self.progress:
            while (waiting := [p for p in self._pollers if not p.finished and p.caught_up_at < targets[id(p)]]) and (
                    remaining := deadline - time.monotonic()) > 0:
                self.progress.wait(min(remaining, POLL_INTERVAL))
        return not waiting

    def stop(self, timeout: float | None = None) -> bool:
        """Stop every poller; True when all have ended within `timeout` (None: wait). A poller in an invocation ends
        when it returns: the runtime stops the functions after a short `timeout`, then calls `stop()` again."""
        self._stop.set()
        for poller in self._pollers:
            poller.wake()
        deadline = None if timeout is None else time.monotonic() + timeout
        for poller in self._pollers:
            poller.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return all(poller.join(0) for poller in self._pollers)
