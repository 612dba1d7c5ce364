"""Stream event source mappings end to end: moto's streams -> the runtime's pollers -> consumers.

One runtime serves every scenario (each has its own table, consumer and mapping, see
`stream_support`); the consumers log what they receive, so the tests assert exact deliveries.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3
import pytest

import seeds
from local.__main__ import main
from local.cloudformation.resources import TableInfo
from local.runtime import Runtime
from local.streams.destinations import parked_records
from tests.local.stream_support import (
    Scenario,
    delivered_ids,
    deliveries,
    write_assembly,
)
from tests.support.waiting import eventually

PARTIAL = {"FunctionResponseTypes": ["ReportBatchItemFailures"], "BatchSize": 10}
SCENARIOS = [
    Scenario("Shape"),
    Scenario("KeysOnly", view_type="KEYS_ONLY"),
    Scenario("Batch", {"BatchSize": 2, "MaximumBatchingWindowInSeconds": 0.5}),
    Scenario("Partial", {**PARTIAL, "MaximumRetryAttempts": 5}),
    Scenario("Poison", {**PARTIAL, "MaximumRetryAttempts": 2}, dlq=True),
    Scenario(
        "Bisect",
        {"BatchSize": 10, "BisectBatchOnFunctionError": True, "MaximumRetryAttempts": 1},
        dlq=True,
    ),
    Scenario("Aged", {"MaximumRecordAgeInSeconds": 1, "MaximumRetryAttempts": -1}, dlq=True),
    Scenario(
        "Seeded",
        {"StartingPosition": "LATEST"},
        environment={"SEEDED_TABLE": {"Ref": "TableSeeded"}},
    ),
    Scenario("Ttl", ttl_attribute="expiresAt"),
    # The DynamoDB developer guide's TTL archiving filter ("DynamoDB Streams and Time to Live")
    Scenario("TtlOnly", {"FilterCriteria": {"Filters": [{"Pattern": json.dumps(
        {"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}})}]}},
        ttl_attribute="expiresAt"),
]
ISO_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def _seed(env: dict[str, str], **_: object) -> None:
    """Stands in for the seed loader: one write to the LATEST-mapped table during boot."""
    boto3.client("dynamodb").put_item(TableName=env["SEEDED_TABLE"], Item={"PK": {"S": "seed-1"}})


class App:
    """The running runtime plus helpers to write to a scenario's table and read what happened."""

    def __init__(self, runtime: Runtime, root: Path) -> None:
        self.runtime = runtime
        self.root = root
        self.dynamodb = boto3.client(
            "dynamodb",
            endpoint_url=runtime.aws_endpoint,
            region_name="us-east-1",
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def table(self, scenario: str) -> TableInfo:
        return self.runtime.stacks[0].tables[f"Table{scenario}"]

    def put(self, scenario: str, pk: str, **attributes: str) -> None:
        self.dynamodb.put_item(TableName=self.table(scenario).name, Item=_item(pk, attributes))

    def put_batch(self, scenario: str, items: list[tuple[str, str]]) -> None:
        """(pk, fail) items in one BatchWriteItem: the consumer gets them in one batch."""
        requests = [
            {"PutRequest": {"Item": _item(pk, {"fail": fail} if fail else {})}}
            for pk, fail in items
        ]
        self.dynamodb.batch_write_item(RequestItems={self.table(scenario).name: requests})

    def delete(self, scenario: str, pk: str) -> None:
        self.dynamodb.delete_item(TableName=self.table(scenario).name, Key={"PK": {"S": pk}})

    def deliveries(self, scenario: str) -> list[dict[str, Any]]:
        return deliveries(self._path(scenario))

    def ids(self, scenario: str) -> list[list[str]]:
        return delivered_ids(self._path(scenario))

    def records(self, scenario: str) -> list[dict[str, Any]]:
        return [r for d in self.deliveries(scenario) for r in d["event"]["Records"]]

    def sequence(self, scenario: str, pk: str) -> str:
        """Sequence number of the first record of `pk` the consumer received."""
        found = (r for r in self.records(scenario) if r["dynamodb"]["Keys"]["PK"]["S"] == pk)
        return str(next(found)["dynamodb"]["SequenceNumber"])

    def arn(self, logical_id: str) -> str:
        return str(self.runtime.stacks[0].get_att(logical_id, "Arn"))

    def dlq(self, scenario: str) -> list[dict[str, Any]]:
        return self.runtime.dlq_messages()[self.arn(f"Dlq{scenario}")]

    def shard(self, scenario: str) -> str:
        assert self.runtime.streams is not None
        pollers = self.runtime.streams.pollers()
        (poller,) = [p for p in pollers if p.spec.table.logical_id == f"Table{scenario}"]
        return poller.shard_id

    def idle(self, timeout: float = 10.0) -> None:
        assert self.runtime.streams is not None
        assert self.runtime.streams.wait_idle(timeout=timeout)

    def _path(self, scenario: str) -> Path:
        return next(s for s in SCENARIOS if s.name == scenario).deliveries(self.root)


def _item(pk: str, attributes: dict[str, str]) -> dict[str, Any]:
    return {"PK": {"S": pk}, **{name: {"S": value} for name, value in attributes.items()}}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    root = tmp_path_factory.mktemp("streams")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOCAL_TTL_SWEEP_SECONDS", "3600")  # the tests sweep themselves
        patch.setattr(seeds, "load_all", _seed)
        runtime = Runtime.start(
            assembly=write_assembly(root, SCENARIOS),
            port=0,
            aws_port=0,
            seed=True,
            keys_dir=root / "keys",
        )
    with runtime:
        yield App(runtime, root)


def test_consumers_receive_the_lambda_event_shape(app: App) -> None:
    written = time.time()
    app.put("Shape", "a", colour="red")
    app.put("Shape", "a", colour="blue")
    app.delete("Shape", "a")
    app.idle()
    assert all(set(d["event"]) == {"Records"} for d in app.deliveries("Shape"))
    insert, modify, remove = app.records("Shape")
    table = app.table("Shape")
    for record, name in ((insert, "INSERT"), (modify, "MODIFY"), (remove, "REMOVE")):
        assert record["eventName"] == name
        assert record["eventVersion"] == "1.1"
        assert record["eventSource"] == "aws:dynamodb"
        assert record["awsRegion"] == "us-east-1"
        assert record["eventSourceARN"] == table.stream_arn
        assert isinstance(record["eventID"], str) and record["eventID"]
        assert "userIdentity" not in record
        dynamodb = record["dynamodb"]
        created = dynamodb["ApproximateCreationDateTime"]
        assert isinstance(created, float) and created == int(created)
        assert written - 2 <= created <= time.time()
        assert dynamodb["Keys"] == {"PK": {"S": "a"}}
        assert dynamodb["SequenceNumber"].isdigit()
        assert isinstance(dynamodb["SizeBytes"], int) and dynamodb["SizeBytes"] > 0
        assert dynamodb["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert len({r["eventID"] for r in (insert, modify, remove)}) == 3
    sequences = [int(r["dynamodb"]["SequenceNumber"]) for r in (insert, modify, remove)]
    assert sequences == sorted(sequences) and len(set(sequences)) == 3
    red = {"PK": {"S": "a"}, "colour": {"S": "red"}}
    blue = {"PK": {"S": "a"}, "colour": {"S": "blue"}}
    assert insert["dynamodb"]["NewImage"] == red and "OldImage" not in insert["dynamodb"]
    assert modify["dynamodb"]["NewImage"] == blue and modify["dynamodb"]["OldImage"] == red
    assert remove["dynamodb"]["OldImage"] == blue and "NewImage" not in remove["dynamodb"]


def test_a_keys_only_stream_delivers_no_images(app: App) -> None:
    app.put("KeysOnly", "k", colour="red")
    app.idle()
    (record,) = app.records("KeysOnly")
    assert set(record["dynamodb"]) == {
        "ApproximateCreationDateTime",
        "Keys",
        "SequenceNumber",
        "SizeBytes",
        "StreamViewType",
    }
    assert record["dynamodb"]["StreamViewType"] == "KEYS_ONLY"


def test_batch_size_is_honoured(app: App) -> None:
    for pk in ("k1", "k2", "k3", "k4", "k5"):
        app.put("Batch", pk)
    app.idle()
    # the batching window (0.5 s) gathers all five writes; batches of BatchSize 2 go at once
    assert app.ids("Batch") == [["k1", "k2"], ["k3", "k4"], ["k5"]]


def test_partial_failure_resumes_at_the_lowest_failed_record(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="local.streams")
    app.put_batch("Partial", [("a", ""), ("b", "once"), ("c", ""), ("d", "once"), ("e", "")])
    app.idle()
    # b and d fail the first time; the retry starts at b: c and e come again, a does not
    assert app.ids("Partial") == [["a", "b", "c", "d", "e"], ["b", "c", "d", "e"]]
    a, b, e = (app.sequence("Partial", pk) for pk in ("a", "b", "e"))
    shard = app.shard("Partial")
    assert f"FnPartial <- TablePartial {shard}: 5 record(s) {a}..{e}, attempt 1: " in caplog.text
    assert f"attempt 1: 2 item failure(s), resuming at {b}" in caplog.text
    assert f"4 record(s) {b}..{e}, attempt 2: ok" in caplog.text  # b's second try


def test_a_poison_record_ends_in_the_dlq_after_the_retries(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="local.streams")
    app.put_batch("Poison", [("a", ""), ("P", "always"), ("c", "")])
    app.idle()
    # first try + MaximumRetryAttempts (2) retries of the batch from P, then it is given up on
    assert app.ids("Poison") == [["a", "P", "c"], ["P", "c"], ["P", "c"]]
    (failure,) = app.dlq("Poison")
    table, p, c = app.table("Poison"), app.sequence("Poison", "P"), app.sequence("Poison", "c")
    assert failure["requestContext"] == {
        "requestId": app.deliveries("Poison")[-1]["requestId"],
        "functionArn": app.arn("FnPoison"),
        "condition": "RetryAttemptsExhausted",
        "approximateInvokeCount": 3,
    }
    assert failure["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST"}
    assert failure["version"] == "1.0" and ISO_MS.fullmatch(failure["timestamp"])
    info = failure["DDBStreamBatchInfo"]
    assert {k: v for k, v in info.items() if not k.startswith("approximateArrival")} == {
        "shardId": app.shard("Poison"),
        "startSequenceNumber": p,
        "endSequenceNumber": c,
        "batchSize": 2,
        "streamArn": table.stream_arn,
    }
    assert ISO_MS.fullmatch(info["approximateArrivalOfFirstRecord"])
    assert info["approximateArrivalOfFirstRecord"] <= info["approximateArrivalOfLastRecord"]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        f"App-dev/MappingPoison: RetryAttemptsExhausted: gave up on 2 record(s) {p}..{c} "
        f"after 3 invocation(s) -> {app.arn('DlqPoison')}"
    ]
    app.put("Poison", "d")  # the shard is not blocked any more
    app.idle()
    assert app.ids("Poison")[3:] == [["d"]]


def test_bisect_isolates_a_raising_record(app: App) -> None:
    app.put_batch("Bisect", [("a", ""), ("b", ""), ("P", "raise"), ("d", "")])
    app.idle()
    assert app.ids("Bisect") == [
        ["a", "b", "P", "d"],  # fails: split in two, not counted as a retry
        ["a", "b"],  # ok
        ["P", "d"],  # fails: split again
        ["P"],  # fails alone: first try...
        ["P"],  # ...and the one retry (MaximumRetryAttempts 1), then the DLQ
        ["d"],  # ok
    ]
    (failure,) = app.dlq("Bisect")
    p = app.sequence("Bisect", "P")
    assert failure["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert failure["requestContext"]["approximateInvokeCount"] == 2
    assert failure["responseContext"] == {
        "statusCode": 200,
        "executedVersion": "$LATEST",
        "functionError": "Unhandled",
    }
    batch = failure["DDBStreamBatchInfo"]
    assert (batch["startSequenceNumber"], batch["endSequenceNumber"], batch["batchSize"]) == (
        p,
        p,
        1,
    )


def test_a_latest_mapping_gets_what_the_seeds_wrote(app: App) -> None:
    # the position is taken when the tables are provisioned, before the seed loader runs
    app.idle()
    assert app.ids("Seeded") == [["seed-1"]]
    app.put("Seeded", "later")
    app.idle()
    assert app.ids("Seeded") == [["seed-1"], ["later"]]


def test_records_older_than_the_maximum_age_go_to_the_dlq(app: App) -> None:
    app.put("Aged", "P", fail="raise")
    assert app.runtime.streams is not None
    assert app.runtime.streams.wait_idle(timeout=0.3) is False  # P is being retried (forever)
    app.idle()
    (failure,) = app.dlq("Aged")
    invocations = app.ids("Aged")
    assert invocations and all(ids == ["P"] for ids in invocations)
    assert failure["requestContext"]["condition"] == "RecordAgeExceeded"
    assert failure["requestContext"]["approximateInvokeCount"] == len(invocations)
    assert failure["responseContext"]["functionError"] == "Unhandled"
    assert failure["DDBStreamBatchInfo"]["batchSize"] == 1
    app.put("Aged", "ok")
    app.idle()
    assert app.ids("Aged")[-1] == ["ok"]


def test_wait_idle_covers_a_write_made_just_before(app: App) -> None:
    for n in range(20):
        app.put("Shape", f"w{n}")
        app.idle(timeout=5)
        assert app.ids("Shape")[-1][-1] == f"w{n}"


def test_a_write_reaches_its_consumer_well_under_a_second(app: App) -> None:
    app.put("Shape", "warm")
    app.idle()
    latencies = []
    for n in range(5):
        count = len(app.ids("Shape"))
        started = time.monotonic()
        app.put("Shape", f"fast{n}")
        eventually(lambda count=count: len(app.ids("Shape")) > count, timeout=2)
        latencies.append(time.monotonic() - started)
    # The poller's interval, not the machine's load, bounds the typical write: the median of five, so that one write
    # delayed by a busy CI machine (seen: 1.07 s while two suites ran) does not decide.
    assert sorted(latencies)[2] < 1.0, latencies


def test_ttl_deletions_reach_the_stream_as_remove_records(app: App) -> None:
    assert app.runtime.ttl is not None
    past, future = str(int(time.time()) - 60), str(int(time.time()) + 3600)
    app.put("Ttl", "string", expiresAt=past)  # a string: never expires
    table = app.table("Ttl")
    for pk, expires in (("expired", past), ("alive", future)):
        app.dynamodb.put_item(TableName=table.name, Item={"PK": {"S": pk}, "expiresAt": {"N": expires}})
    assert app.runtime.ttl.sweep() == 1
    app.idle()
    removes = [r for r in app.records("Ttl") if r["eventName"] == "REMOVE"]
    assert [r["dynamodb"]["Keys"]["PK"]["S"] for r in removes] == ["expired"]
    assert removes[0]["userIdentity"] == {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    remaining = app.dynamodb.scan(TableName=table.name)["Items"]
    assert sorted(item["PK"]["S"] for item in remaining) == ["alive", "string"]


def test_a_mapping_filtering_on_ttls_identity_gets_the_sweepers_removals_and_nothing_else(app: App) -> None:
    assert app.runtime.ttl is not None and app.runtime.streams is not None
    table = app.table("TtlOnly")
    past = str(int(time.time()) - 60)
    for pk in ("expired", "deleted"):
        app.dynamodb.put_item(TableName=table.name, Item={"PK": {"S": pk}, "expiresAt": {"N": past}})
    app.delete("TtlOnly", "deleted")  # expired too, but removed by someone before the sweep
    assert app.runtime.ttl.sweep() == 1
    app.idle()
    records = app.records("TtlOnly")
    assert [(r["eventName"], r["dynamodb"]["Keys"]["PK"]["S"]) for r in records] == [("REMOVE", "expired")]
    (poller,) = [p for p in app.runtime.streams.pollers() if p.spec.table.logical_id == "TableTtlOnly"]
    assert poller.filtered == 3  # the two INSERTs and the other REMOVE: dropped, never delivered


def test_the_dlq_command_prints_every_on_failure_queue(
    app: App, capsys: pytest.CaptureFixture[str]
) -> None:
    assert app.runtime.moto is not None
    expected = app.runtime.dlq_messages()
    # (moto's state is per process: queues of other tests' moto servers may show up too)
    assert {app.arn(f"Dlq{name}") for name in ("Poison", "Bisect", "Aged")} <= set(expected)
    assert main(["dlq", "--aws-port", str(urlsplit(app.runtime.aws_endpoint).port)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == {"onFailureQueues": expected, "parkedRecords": parked_records(app.dynamodb)}
    assert app.runtime.dlq_messages() == expected  # listing consumed nothing


def test_the_dlq_command_fails_clearly_without_a_runtime(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["dlq", "--aws-port", str(port)]) == 1
    assert capsys.readouterr().out == ""


def test_stop_ends_every_background_thread_quietly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    scenario = Scenario("Stop", ttl_attribute="expiresAt")
    before = set(threading.enumerate())  # the module's runtime has threads of its own
    runtime = Runtime.start(
        assembly=write_assembly(tmp_path, [scenario]),
        port=0,
        aws_port=0,
        seed=False,
        keys_dir=tmp_path / "keys",
    )
    app = App(runtime, tmp_path)
    table = runtime.stacks[0].tables["TableStop"].name
    app.dynamodb.put_item(TableName=table, Item={"PK": {"S": "x"}})
    assert runtime.streams is not None and runtime.streams.wait_idle(timeout=10)
    app.dynamodb.put_item(TableName=table, Item={"PK": {"S": "y"}, "fail": {"S": "sleep"}})
    eventually(lambda: len(delivered_ids(scenario.deliveries(tmp_path))) == 2)  # y in flight
    running = {t.name for t in set(threading.enumerate()) - before}
    assert "ttl-sweeper" in running and any(n.startswith("stream-FnStop-") for n in running)
    caplog.clear()
    caplog.set_level(logging.INFO)
    started = time.monotonic()
    runtime.stop()
    assert time.monotonic() - started < 5  # the grace period, then the worker is killed
    assert all(p.finished for p in runtime.streams.pollers())
    started_threads = {t.name for t in set(threading.enumerate()) - before}
    assert not {n for n in started_threads if n.startswith("stream-") or n == "ttl-sweeper"}
    noisy = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert noisy == []
