"""Voting in the template: RawVotes (streamed) and Votes, the aggregator's mapping (tumbling window for the shard id,
bounded retries, bisect, max age, DLQ), its configuration, and exact grants."""

from __future__ import annotations

from typing import Any

from functions.voting.schema import DEFAULT_BUCKETS
from infra.domains.voting import SETTLED_AFTER
from tests.infra.test_stack import logical_id, resources


def table_id(raw: dict[str, Any], construct_id: str) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", f"Voting{construct_id}")


def variables(raw: dict[str, Any], prefix: str) -> dict[str, Any]:
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", prefix)]
    return function["Properties"]["Environment"]["Variables"]


def test_raw_votes_is_keyed_by_the_voters_bucket_of_the_poll_and_the_voter_and_streams_both_images(dev):
    raw = dev.merged
    props = raw["Resources"][table_id(raw, "RawVotesTable")]["Properties"]
    assert [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]] == [
        ("pollBucket", "HASH"), ("userId", "RANGE")]
    assert props["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert "GlobalSecondaryIndexes" not in props


def test_votes_holds_polls_segments_and_checkpoints_with_no_index_or_stream(dev):
    raw = dev.merged
    props = raw["Resources"][table_id(raw, "VotesTable")]["Properties"]
    assert [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]] == [("pollId", "HASH"), ("sk", "RANGE")]
    # The same key schema as before buckets (only key values changed): an upgrade keeps the table and its polls
    assert not {"LocalSecondaryIndexes", "GlobalSecondaryIndexes", "StreamSpecification"} & set(props)
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}  # checkpoints only


def test_aggregator_mapping_has_a_tumbling_window_bounded_retries_bisect_max_age_and_a_dlq(dev):
    raw = dev.merged
    consumer = logical_id(raw, "AWS::Lambda::Function", "VotingAggregatorConsumerFunction")
    (mapping,) = [m for m in resources(raw, "AWS::Lambda::EventSourceMapping").values()
                  if m["Properties"]["FunctionName"] == {"Ref": consumer}]
    queue = logical_id(raw, "AWS::SQS::Queue", "VotingAggregatorDeadLetterQueue")
    assert mapping["Properties"] == {
        "BatchSize": 500,
        "BisectBatchOnFunctionError": True,
        "DestinationConfig": {"OnFailure": {"Destination": {"Fn::GetAtt": [queue, "Arn"]}}},
        "EventSourceArn": {"Fn::GetAtt": [table_id(raw, "RawVotesTable"), "StreamArn"]},
        "FunctionName": {"Ref": consumer},
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
        "MaximumBatchingWindowInSeconds": 1,
        "MaximumRecordAgeInSeconds": 6 * 3600,
        "MaximumRetryAttempts": 5,
        "StartingPosition": "TRIM_HORIZON",
        # The only way Lambda names the shard in a DynamoDB stream event; it also keeps ParallelizationFactor at 1
        "TumblingWindowInSeconds": 900,
    }
    assert raw["Resources"][queue]["Properties"]["SqsManagedSseEnabled"] is True
    function = raw["Resources"][consumer]["Properties"]
    assert function["Handler"] == "functions.voting.aggregator.lambda_handler" and function["Timeout"] == 30


def test_buckets_and_the_recounts_settling_time_come_from_the_stacks_configuration(dev):
    raw = dev.merged
    aggregator = variables(raw, "VotingAggregatorConsumerFunction")
    assert "VOTE_SEGMENTS" not in aggregator and "VOTE_BUCKETS" not in aggregator  # a record's key names its segment
    assert aggregator["VOTES_TABLE_NAME"] == {"Ref": table_id(raw, "VotesTable")}
    api = variables(raw, "VotingApiFunction")
    assert api["VOTE_BUCKETS"] == str(DEFAULT_BUCKETS) == "20"  # for the polls it creates
    # max record age (6 h) + the aggregator's timeout (30 s) + 5 minutes of clock skew
    assert api["VOTE_SETTLED_AFTER_SECONDS"] == str(int(SETTLED_AFTER.to_seconds())) == str(6 * 3600 + 30 + 300)
    assert "CURSOR_SECRET_ARN" not in api  # no list routes: no cursor key to read





