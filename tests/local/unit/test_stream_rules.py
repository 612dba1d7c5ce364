"""Event source mapping rules without a stream: mappings from the template, the record shape, partial batch
responses, the failure policy (bisect, retries, maximum age, on-failure record) and tumbling windows."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import pytest

from local.awslambda.pool import FunctionError
from local.cloudformation.resources import TableInfo
from local.cloudformation.template import TemplateError
from local.streams import (
    FilterCriteria,
    MappingSpec,
    Outcome,
    StreamRecord,
    item_failures,
    lambda_record,
    mapping_specs,
)
from local.streams.failures import BatchFailures, Segment
from local.streams.windows import TumblingWindow
from tests.local.conftest import stack_resources

STREAM_ARN = "arn:aws:dynamodb:us-east-1:123456789012:table/T/stream/2026-01-01T00:00:00.000"
TABLE_INFO = TableInfo("Table", "T", "arn:table", STREAM_ARN, None, ())


@pytest.mark.parametrize(("result", "expected"), [
    (None, []), ({}, []), ({"batchItemFailures": None}, []), ({"batchItemFailures": []}, []), ({"statusCode": 200}, []),
    ({"batchItemFailures": [{"itemIdentifier": "3"}, {"itemIdentifier": "2"}]}, [1, 2]),
    ({"batchItemFailures": [{"itemIdentifier": ""}]}, None),
    ({"batchItemFailures": [{"itemIdentifier": None}]}, None),
    ({"batchItemFailures": [{"itemId": "2"}]}, None),
    ({"batchItemFailures": [{"itemIdentifier": "9"}]}, None),  # not in the batch
    ({"batchItemFailures": [{"itemIdentifier": 2}]}, None),  # not a string
    ({"batchItemFailures": "2"}, None),
    ("ok", None),
])
def test_item_failures_follow_lambdas_rules(result: Any, expected: list[int] | None) -> None:
    assert item_failures(result, ["1", "2", "3"]) == expected


def test_lambda_record_fills_in_what_moto_omits() -> None:
    created = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
    source = {"Keys": {"PK": {"S": "k"}}, "OldImage": {"PK": {"S": "k"}}, "SequenceNumber": "1100000000017454423009",
              "SizeBytes": 42, "StreamViewType": "OLD_IMAGE"}
    raw = {"eventID": "abc", "eventName": "REMOVE", "eventVersion": "1.0", "eventSource": "aws:dynamodb",
           "awsRegion": "us-east-1", "dynamodb": {"ApproximateCreationDateTime": created, **source}}
    record = lambda_record(raw, stream_arn="arn:stream", region="eu-west-1")
    assert record.event == {
        "eventID": "abc", "eventName": "REMOVE", "eventVersion": "1.1", "eventSource": "aws:dynamodb",
        "awsRegion": "eu-west-1", "dynamodb": {"ApproximateCreationDateTime": float(int(created.timestamp())), **source},
        "eventSourceARN": "arn:stream"}
    assert record.sequence == 1100000000017454423009
    assert record.arrival == created.timestamp()


def _mapping(**properties: Any) -> dict[str, Any]:
    return {"Type": "AWS::Lambda::EventSourceMapping",
            "Properties": {"EventSourceArn": STREAM_ARN, "FunctionName": {"Ref": "Fn"}, **properties}}


def test_mapping_properties_are_read_with_lambdas_defaults(caplog: pytest.LogCaptureFixture) -> None:
    resources = stack_resources({
        "Fn": {"Type": "AWS::Lambda::Function", "Properties": {"FunctionName": "consumer"}},
        "Plain": _mapping(StartingPosition="TRIM_HORIZON"),
        "Tuned": _mapping(StartingPosition="LATEST", BatchSize=10, MaximumBatchingWindowInSeconds=2,
                          FunctionResponseTypes=["ReportBatchItemFailures"], MaximumRetryAttempts=3,
                          BisectBatchOnFunctionError=True, MaximumRecordAgeInSeconds=3600,
                          DestinationConfig={"OnFailure": {"Destination": "arn:aws:sqs:us-east-1:1:dlq"}},
                          TumblingWindowInSeconds=60,
                          FilterCriteria={"Filters": [{"Pattern": '{"eventName": ["REMOVE"]}'}]}),
        "Queue": _mapping(EventSourceArn="arn:aws:sqs:us-east-1:1:jobs"),
    })
    plain, tuned = mapping_specs(resources, {STREAM_ARN: TABLE_INFO})
    arn = "arn:aws:lambda:us-east-1:123456789012:function:consumer"
    assert plain == MappingSpec(id="Test-dev/Plain", function="Test-dev/Fn", function_arn=arn, table=TABLE_INFO,
                                starting_position="TRIM_HORIZON")
    assert (plain.batch_size, plain.max_retries, plain.max_record_age, plain.function_label) == (100, -1, -1, "Fn")
    assert tuned == MappingSpec(
        id="Test-dev/Tuned", function="Test-dev/Fn", function_arn=arn, table=TABLE_INFO, batch_size=10,
        starting_position="LATEST", batching_window=2.0, report_item_failures=True, max_retries=3, bisect=True,
        max_record_age=3600.0, on_failure="arn:aws:sqs:us-east-1:1:dlq", tumbling_window=60,
        filters=FilterCriteria(('{"eventName": ["REMOVE"]}',)))
    assert not plain.filters and plain.filters.matches({"eventName": "INSERT"})
    assert tuned.filters.matches({"eventName": "REMOVE"}) and not tuned.filters.matches({"eventName": "INSERT"})
    assert "arn:aws:sqs:us-east-1:1:jobs is not a table stream of the app" in caplog.text


@pytest.mark.parametrize(("properties", "message"), [
    ({"StartingPosition": "AT_TIMESTAMP"}, "StartingPosition"),
    ({"FilterCriteria": {"Filters": [{"Pattern": '{"eventName": "INSERT"}'}]}}, "Bad.Properties.FilterCriteria"),
    ({"ParallelizationFactor": 2}, "ParallelizationFactor not emulated"),
    ({"Enabled": False}, "Enabled not emulated"),
    ({"DestinationConfig": {"OnFailure": {"Destination": "arn:aws:s3:::bucket"}}}, "only an SQS on-failure"),
    ({"FunctionName": "arn:aws:lambda:us-east-1:1:function:other"}, "a Ref to a function of the same stack"),
])
def test_what_is_not_emulated_fails_loudly(properties: dict[str, Any], message: str) -> None:
    resources = stack_resources({"Fn": {"Type": "AWS::Lambda::Function", "Properties": {}},
                                 "Bad": _mapping(**properties)})
    with pytest.raises(TemplateError, match=message):
        mapping_specs(resources, {STREAM_ARN: TABLE_INFO})


# --- the failure policy -----------------------------------------------------------------------------------------


def record(sequence: int, arrival: float = 1000.0) -> StreamRecord:
    return StreamRecord(sequence, arrival, 10, {"dynamodb": {"SequenceNumber": str(sequence)}})


class Destination:
    arn = "arn:aws:sqs:us-east-1:123456789012:dlq"

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


def policy(now: float = 1000.0, **settings: Any) -> tuple[BatchFailures, Destination]:
    spec = MappingSpec(id="Test/Mapping", function="Test/Fn", function_arn="arn:fn", table=TABLE_INFO,
                       report_item_failures=True, **settings)
    destination = Destination()
    failures = BatchFailures(spec, "shardId-1", destination, lambda: now)  # type: ignore[arg-type]
    return failures, destination


def batches(failures: BatchFailures) -> list[list[int]]:
    return [[r.sequence for r in segment.records] for segment in failures.pending]


ERROR = FunctionError("Fn", "RuntimeError", "poison")


def test_a_partial_response_moves_the_checkpoint_to_the_lowest_failed_record_and_does_not_bisect() -> None:
    failures, _ = policy(bisect=True, max_retries=5)
    failures.pending.append(Segment(tuple(record(n) for n in range(1, 6))))
    assert failures.after(Outcome.from_response("r", {"batchItemFailures": [{"itemIdentifier": "4"},
                                                                           {"itemIdentifier": "3"}]},
                                                [str(n) for n in range(1, 6)])) > 0
    assert batches(failures) == [[3, 4, 5]] and failures.attempts == 1


def test_only_a_function_error_bisects_and_halves_start_with_no_retries_used() -> None:
    failures, _ = policy(bisect=True, max_retries=1)
    failures.pending.append(Segment(tuple(record(n) for n in range(1, 6))))
    failures.attempts = 1
    assert failures.after(Outcome("r", failed_from=0, error=ERROR)) == 0
    assert batches(failures) == [[1, 2, 3], [4, 5]] and failures.attempts == 0
    assert all(segment.bisected for segment in failures.pending)
    invalid, _ = policy(bisect=True, max_retries=5)
    invalid.pending.append(Segment(tuple(record(n) for n in range(1, 3))))
    invalid.after(Outcome("r", failed_from=0))  # a response Lambda rejects: retried whole
    assert batches(invalid) == [[1, 2]]


def test_spent_retries_give_up_on_the_rest_of_the_batch_with_metadata_only() -> None:
    failures, destination = policy(max_retries=1)
    failures.pending.append(Segment((record(1), record(2), record(3))))
    outcome = Outcome.from_response("req-1", {"batchItemFailures": [{"itemIdentifier": "2"}]}, ["1", "2", "3"])
    failures.after(outcome)  # the checkpoint moves to 2: its first failure
    assert failures.after(Outcome("req-2", failed_from=0)) == 0  # its second: the retries are spent
    assert not failures.pending
    (sent,) = destination.sent
    assert sent["requestContext"] == {"requestId": "req-2", "functionArn": "arn:fn",
                                      "condition": "RetryAttemptsExhausted", "approximateInvokeCount": 2}
    assert sent["responseContext"] == {"statusCode": 200, "executedVersion": "$LATEST"}
    info = sent["DDBStreamBatchInfo"]
    assert (info["startSequenceNumber"], info["endSequenceNumber"], info["batchSize"]) == ("2", "3", 2)
    assert (info["shardId"], info["streamArn"]) == ("shardId-1", STREAM_ARN)
    assert "Records" not in sent


def test_records_older_than_the_maximum_age_are_given_up_before_the_invocation() -> None:
    failures, destination = policy(now=1100.0, max_record_age=60)
    failures.pending.append(Segment((record(1, arrival=1000.0), record(2, arrival=1090.0))))
    assert [r.sequence for r in failures.expire()] == [2]
    (sent,) = destination.sent
    assert sent["requestContext"]["condition"] == "RecordAgeExceeded"
    assert "responseContext" not in sent  # never invoked


def test_without_a_destination_a_given_up_batch_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    failures, _ = policy(max_retries=0)
    failures.destination = None
    failures.pending.append(Segment((record(1),)))
    with caplog.at_level(logging.WARNING):
        failures.after(Outcome("r", failed_from=0, error=ERROR))
    assert "discarded (no SQS on-failure destination)" in caplog.text and not failures.pending


def test_a_tumbling_window_carries_its_state_and_ends_with_a_final_invocation() -> None:
    spec = MappingSpec(id="Test/Mapping", function="Test/Fn", function_arn="arn:fn", table=TABLE_INFO,
                       tumbling_window=60, max_retries=1)
    window = TumblingWindow(spec, "shardId-1")
    first = window.fields((record(1, arrival=125.0),))
    assert first["window"] == {"start": "1970-01-01T00:02:00.000Z", "end": "1970-01-01T00:03:00.000Z"}
    assert (first["state"], first["shardId"], first["isFinalInvokeForWindow"]) == ({}, "shardId-1", False)
    assert window.accept({"state": {"n": 1}}) and not window.accept({"batchItemFailures": []})
    assert window.fields((record(2, arrival=130.0),))["state"] == {"n": 1}
    assert not window.over(None, shard_closed=False, now=150.0)
    assert window.over(record(3, arrival=185.0), shard_closed=False, now=190.0)
    final = window.fields(())
    assert (final["isFinalInvokeForWindow"], final["state"]) == (True, {"n": 1})
    events: list[dict[str, Any]] = []

    def failing(event: dict[str, Any]) -> Any:
        events.append(event)
        raise ERROR

    assert window.finish(failing) > 0  # retried once
    assert window.finish(failing) == 0  # then dropped
    assert [e["Records"] for e in events] == [[], []] and events[0]["isFinalInvokeForWindow"]
    assert window.fields((record(3, arrival=185.0),))["state"] == {}
