"""Stream pollers on a moto server, without workers: starting positions, record age, failures, iterators, windows.

The consumer here is a Python callable, so each test controls exactly what an invocation returns.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest
from botocore.exceptions import ClientError

from local.aws import MotoService
from local.awslambda.pool import FunctionError
from local.cloudformation.resources import Clients, StackResources, TableInfo
from local.streams import FilterCriteria, MappingSpec, Streams
from local.streams.destinations import on_failure_messages
from tests.local.conftest import stack_of
from tests.support.waiting import eventually

STREAM_TABLE = {
    "Type": "AWS::DynamoDB::Table",
    "Properties": {
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
    },
}
FUNCTION_ARN = "arn:aws:lambda:us-east-1:123456789012:function:consumer"


class Consumer:
    """Records every batch per function; `behaviour` decides what an invocation does."""

    def __init__(self) -> None:
        self.batches: dict[str, list[list[str]]] = {}
        self.behaviour: Callable[[str, list[str]], Any] = lambda function, ids: None

    def __call__(self, function: str, event: Any, request_id: str) -> Any:
        ids = [r["dynamodb"]["Keys"]["PK"]["S"] for r in event["Records"]]
        self.batches.setdefault(function, []).append(ids)
        return self.behaviour(function, ids)


@pytest.fixture
def clients(moto: MotoService) -> Clients:
    return Clients(lambda service: moto.client(service, "us-east-1"))


@pytest.fixture
def table(clients: Clients) -> TableInfo:
    resources = StackResources(stack_of({"Table": STREAM_TABLE}), clients, region="us-east-1")
    resources.provision()
    return resources.tables["Table"]


def put(clients: Clients, table: TableInfo, *pks: str) -> None:
    """One BatchWriteItem: the poller sees all of these records in one read."""
    requests = [{"PutRequest": {"Item": {"PK": {"S": pk}}}} for pk in pks]
    clients["dynamodb"].batch_write_item(RequestItems={table.name: requests})


def spec(table: TableInfo, function: str = "consumer", **settings: Any) -> MappingSpec:
    return MappingSpec(
        id=f"Test/{function}", function=function, function_arn=FUNCTION_ARN, table=table, **settings
    )


@pytest.fixture
def streams_of(clients: Clients) -> Iterator[Callable[..., Streams]]:
    """Builds and starts `Streams`; stops them after the test."""
    started: list[Streams] = []

    def build(mappings: list[MappingSpec], consumer: Consumer, **options: Any) -> Streams:
        streams = Streams(
            mappings,
            clients=options.pop("clients", clients),
            invoke=consumer,
            region="us-east-1",
            **options,
        )
        streams.start()
        started.append(streams)
        return streams

    yield build
    for streams in started:
        assert streams.stop(timeout=5)


def test_latest_skips_earlier_records_and_trim_horizon_reads_them(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    put(clients, table, "before-1", "before-2")
    consumer = Consumer()
    streams = streams_of(
        [
            spec(table, "latest", starting_position="LATEST"),
            spec(table, "trim", starting_position="TRIM_HORIZON"),
        ],
        consumer,
    )
    put(clients, table, "after")
    assert streams.wait_idle(timeout=5)
    delivered = {
        f: [pk for batch in batches for pk in batch] for f, batches in consumer.batches.items()
    }
    assert delivered == {"latest": ["after"], "trim": ["before-1", "before-2", "after"]}


def test_records_too_old_on_arrival_go_to_the_dlq_uninvoked(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    sqs = clients["sqs"]
    url = sqs.create_queue(QueueName="aged-dlq")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
    arn = attributes["Attributes"]["QueueArn"]
    consumer = Consumer()
    hour_later = lambda: time.time() + 3600
    streams = streams_of(
        [spec(table, max_record_age=60, on_failure=arn, starting_position="TRIM_HORIZON")],
        consumer,
        clock=hour_later,
    )
    put(clients, table, "old-1", "old-2")
    assert streams.wait_idle(timeout=5)
    assert consumer.batches == {}
    (failure,) = on_failure_messages(sqs)[arn]
    assert failure["requestContext"]["condition"] == "RecordAgeExceeded"
    assert failure["requestContext"]["approximateInvokeCount"] == 0
    assert failure["requestContext"]["functionArn"] == FUNCTION_ARN
    assert "responseContext" not in failure
    assert failure["DDBStreamBatchInfo"]["batchSize"] == 2
    sqs.delete_queue(QueueUrl=url)  # moto's state outlives this server: leave no tagged queue


def test_a_crashing_poller_is_logged_and_does_not_stop_the_others(
    clients: Clients,
    table: TableInfo,
    streams_of: Callable[..., Streams],
    caplog: pytest.LogCaptureFixture,
) -> None:
    consumer = Consumer()
    broken = {"on": True}

    def behaviour(function: str, ids: list[str]) -> Any:
        if function == "broken" and broken["on"]:
            raise KeyError("a bug in the runtime, not a function error")
        return None

    consumer.behaviour = behaviour
    streams = streams_of([spec(table, "broken"), spec(table, "healthy")], consumer)
    put(clients, table, "x")
    eventually(lambda: consumer.batches.get("healthy") == [["x"]])
    eventually(lambda: any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records))
    assert "Test/broken shard" in caplog.text and "poller error" in caplog.text
    broken["on"] = False
    assert streams.wait_idle(timeout=5)
    assert consumer.batches["broken"][-1] == ["x"]  # retried from memory: nothing lost
    assert consumer.batches["healthy"] == [["x"]]


class FlakyStreams:
    """The real Streams client, but the first `failures` GetRecords calls fail."""

    def __init__(self, real: Any, failures: int) -> None:
        self._real = real
        self.failures = failures

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def get_records(self, **kwargs: Any) -> Any:
        if self.failures:
            self.failures -= 1
            raise ClientError({"Error": {"Code": "InternalServerError"}}, "GetRecords")
        return self._real.get_records(**kwargs)


def test_failing_get_records_is_retried_with_backoff(
    moto: MotoService,
    table: TableInfo,
    clients: Clients,
    streams_of: Callable[..., Streams],
    caplog: pytest.LogCaptureFixture,
) -> None:
    flaky = FlakyStreams(moto.client("dynamodbstreams", "us-east-1"), failures=2)
    flaky_clients = Clients(lambda s: flaky if s == "dynamodbstreams" else clients[s])
    consumer = Consumer()
    put(clients, table, "y")
    streams = streams_of(
        [spec(table, starting_position="TRIM_HORIZON")], consumer, clients=flaky_clients
    )
    assert streams.wait_idle(timeout=5)
    assert consumer.batches == {"consumer": [["y"]]}
    retries = [
        r.getMessage() for r in caplog.records if "reading the stream failed" in r.getMessage()
    ]
    assert len(retries) == 2 and "retrying in 0.2s" in retries[0] and "0.4s" in retries[1]


def test_moto_forgets_the_iterators_a_poller_used(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    from moto.dynamodbstreams.models import dynamodbstreams_backends

    iterators = dynamodbstreams_backends["123456789012"]["us-east-1"].shard_iterators
    before = len(iterators)
    streams = streams_of([spec(table)], Consumer())
    eventually(lambda: streams.pollers()[0].fetches >= 4)  # idle polls
    assert len(iterators) - before <= 2  # the current one (and one in flight)


class CountingStreams:
    """The real Streams client, counting its GetRecords calls."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def get_records(self, **kwargs: Any) -> Any:
        self.calls += 1
        return self._real.get_records(**kwargs)


def test_an_idle_shard_is_read_without_a_request_and_a_new_record_still_arrives_at_once(
    moto: MotoService, table: TableInfo, clients: Clients, streams_of: Callable[..., Streams]
) -> None:
    # Given a poller on an empty shard, counting its GetRecords calls
    counting = CountingStreams(moto.client("dynamodbstreams", "us-east-1"))
    consumer = Consumer()
    streams = streams_of([spec(table)], consumer,
                         clients=Clients(lambda s: counting if s == "dynamodbstreams" else clients[s]))
    (poller,) = streams.pollers()
    # When it polls an idle shard: one request found nothing, the reads after it need none
    eventually(lambda: poller.fetches >= 5)
    assert counting.calls == 1
    # Then a record written now is read and delivered (wait_idle: a read started after the write found it)
    put(clients, table, "a")
    assert streams.wait_idle(timeout=5)
    assert consumer.batches == {"consumer": [["a"]]}
    # And, idle again, the reads stop making requests once one has found nothing
    after, fetched = counting.calls, poller.fetches
    eventually(lambda: poller.fetches >= fetched + 4)
    assert counting.calls == after


def test_an_invocation_error_fails_the_whole_batch(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    consumer = Consumer()
    calls = {"n": 0}

    def behaviour(function: str, ids: list[str]) -> Any:
        calls["n"] += 1
        if calls["n"] == 1:
            raise FunctionError("consumer", "Sandbox.Timedout", "Task timed out after 3.00 seconds")
        return None

    consumer.behaviour = behaviour
    streams = streams_of([spec(table, report_item_failures=True)], consumer)
    put(clients, table, "t1", "t2")
    assert streams.wait_idle(timeout=5)
    assert consumer.batches["consumer"] == [["t1", "t2"], ["t1", "t2"]]


class WindowConsumer:
    """Keeps every event; answers with a state counting the window's records so far (and no state if told)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.omit_state_once = False

    def __call__(self, function: str, event: Any, request_id: str) -> Any:
        self.events.append(event)
        if self.omit_state_once:
            self.omit_state_once = False
            return {"batchItemFailures": []}
        seen = int(event["state"].get("seen", "0")) + len(event["Records"])
        return {"state": {"seen": str(seen)}, "batchItemFailures": []}


def test_a_tumbling_window_puts_the_shard_and_state_in_events_and_ends_with_a_final_invocation(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    consumer = WindowConsumer()
    streams = streams_of(
        [spec(table, starting_position="TRIM_HORIZON", tumbling_window=1, report_item_failures=True)], consumer
    )
    put(clients, table, "a", "b")
    eventually(lambda: any(e["isFinalInvokeForWindow"] for e in consumer.events), timeout=5)
    (poller,) = streams.pollers()

    first, *_, final = consumer.events
    assert first["shardId"] == poller.shard_id and first["eventSourceARN"] == table.stream_arn
    assert first["state"] == {} and first["isFinalInvokeForWindow"] is False
    assert first["isWindowTerminatedEarly"] is False
    start = datetime.fromisoformat(first["window"]["start"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(first["window"]["end"].replace("Z", "+00:00"))
    assert (end - start).total_seconds() == 1 and start.timestamp() % 1 == 0
    # The final invocation has no records, the window's accumulated state, the same window
    assert final["Records"] == [] and final["window"] == first["window"]
    assert final["state"] == {"seen": "2"}

    # A later record opens a new window with a fresh state
    put(clients, table, "c")
    eventually(lambda: len([e for e in consumer.events if e["Records"]]) >= 2 and consumer.events[-1]["Records"])
    assert consumer.events[-1]["state"] == {} and consumer.events[-1]["window"] != first["window"]


def test_a_windowed_response_without_state_fails_the_batch(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    consumer = WindowConsumer()
    consumer.omit_state_once = True
    streams = streams_of([spec(table, starting_position="TRIM_HORIZON", tumbling_window=60)], consumer)
    put(clients, table, "x")
    assert streams.wait_idle(timeout=5)
    eventually(lambda: len(consumer.events) >= 2)
    assert [[r["dynamodb"]["Keys"]["PK"]["S"] for r in e["Records"]] for e in consumer.events[:2]] == [["x"], ["x"]]
    assert consumer.events[1]["state"] == {}


def test_a_filtered_record_is_never_delivered_and_never_holds_the_shard(
    clients: Clients, table: TableInfo, streams_of: Callable[..., Streams]
) -> None:
    # Given a mapping whose filter keeps only "keep-" keys, and a consumer that fails on anything else: a dropped
    # record that reached it would be retried for ever (no retry limit) and hold every record behind it
    consumer = Consumer()

    def behaviour(function: str, ids: list[str]) -> Any:
        if any(not pk.startswith("keep-") for pk in ids):
            raise FunctionError("consumer", "RuntimeError", f"not for me: {ids}")
        return None

    consumer.behaviour = behaviour
    keep = FilterCriteria(('{"dynamodb": {"Keys": {"PK": {"S": [{"prefix": "keep-"}]}}}}',))
    streams = streams_of([spec(table, starting_position="TRIM_HORIZON", batch_size=2, filters=keep)], consumer)
    (poller,) = streams.pollers()

    # When dropped and kept records arrive interleaved
    put(clients, table, "drop-1", "keep-1", "drop-2", "keep-2")
    assert streams.wait_idle(timeout=5)
    # Then only the kept ones are delivered, and a dropped one takes no room in a batch
    assert consumer.batches == {"consumer": [["keep-1", "keep-2"]]}
    assert poller.filtered == 2 and not poller.failures.pending

    # When a read holds only dropped records, nothing is invoked, and what follows is delivered
    put(clients, table, "drop-3")
    assert streams.wait_idle(timeout=5)
    assert poller.filtered == 3 and consumer.batches == {"consumer": [["keep-1", "keep-2"]]}
    put(clients, table, "keep-3")
    assert streams.wait_idle(timeout=5)
    assert consumer.batches == {"consumer": [["keep-1", "keep-2"], ["keep-3"]]}
