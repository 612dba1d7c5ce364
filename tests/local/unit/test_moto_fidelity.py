"""moto's DynamoDB Streams, corrected to DynamoDB's behaviour (local/moto_fidelity.py, applied in tests/conftest.py)."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws


class Stream:
    """Reads a table's stream from TRIM_HORIZON, keeping one iterator open as a poller does."""

    def __init__(self, table: str):
        arn = boto3.client("dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
        self.client = boto3.client("dynamodbstreams")
        (shard,) = self.client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        self.iterator = self.client.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]

    def read(self) -> list[tuple[str, dict, dict | None]]:
        response = self.client.get_records(ShardIterator=self.iterator)
        self.iterator = response["NextShardIterator"]
        return [(r["eventName"], r["dynamodb"]["Keys"], r["dynamodb"].get("NewImage")) for r in response["Records"]]


@pytest.fixture
def table():
    with mock_aws():
        client = boto3.client("dynamodb")
        client.create_table(
            TableName="t",
            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        yield client


def key(value: str) -> dict:
    return {"k": {"S": value}}


def test_an_update_that_creates_an_item_is_one_insert_with_the_whole_item(table):
    stream = Stream("t")
    table.update_item(TableName="t", Key=key("a"), UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "1"}})
    assert stream.read() == [("INSERT", key("a"), {"k": {"S": "a"}, "n": {"N": "1"}})]


def test_a_write_that_changes_nothing_has_no_record(table):
    stream = Stream("t")
    item = {"k": {"S": "a"}, "n": {"N": "1"}}
    table.put_item(TableName="t", Item=item)
    table.put_item(TableName="t", Item=item)
    table.update_item(TableName="t", Key=key("a"), UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "1"}})
    table.update_item(TableName="t", Key=key("a"), UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "2"}})
    assert [event for event, _, _ in stream.read()] == ["INSERT", "MODIFY"]


def test_a_cancelled_transaction_leaves_no_record_and_later_writes_still_arrive(table):
    stream = Stream("t")
    table.put_item(TableName="t", Item={"k": {"S": "a"}})
    assert [event for event, _, _ in stream.read()] == ["INSERT"]
    with pytest.raises(ClientError, match="TransactionCanceled"):
        table.transact_write_items(TransactItems=[
            {"Put": {"TableName": "t", "Item": {"k": {"S": "phantom"}}}},
            {"ConditionCheck": {"TableName": "t", "Key": key("missing"), "ConditionExpression": "attribute_exists(k)"}},
        ])
    assert "Item" not in table.get_item(TableName="t", Key=key("phantom"))
    table.put_item(TableName="t", Item={"k": {"S": "b"}})
    assert stream.read() == [("INSERT", key("b"), {"k": {"S": "b"}})]
    sequence = [r["dynamodb"]["SequenceNumber"] for r in Stream("t").client.get_records(
        ShardIterator=Stream("t").iterator)["Records"]]
    assert len(sequence) == 2 and int(sequence[1]) == int(sequence[0]) + 1


def test_an_update_of_a_nested_path_past_400_kb_is_refused_and_changes_nothing(table):
    stream = Stream("t")
    chunk = {"L": [{"S": "x" * 100_000}]}
    table.put_item(TableName="t", Item={"k": {"S": "a"}, "doc": {"M": {"list": {"L": []}}}})
    grow = {"TableName": "t", "Key": key("a"), "UpdateExpression": "SET doc.#l = list_append(doc.#l, :c)",
            "ExpressionAttributeNames": {"#l": "list"}, "ExpressionAttributeValues": {":c": chunk}}
    for _ in range(4):  # 4 x 100,000 bytes and the names: under 409,600
        table.update_item(**grow)
    before = table.get_item(TableName="t", Key=key("a"))["Item"]
    assert len(stream.read()) == 5
    with pytest.raises(ClientError, match="Item size to update has exceeded the maximum allowed size") as refused:
        table.update_item(**grow)
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert table.get_item(TableName="t", Key=key("a"))["Item"] == before
    assert stream.read() == []
    with pytest.raises(ClientError, match="ValidationException"):  # the same update inside a transaction
        table.transact_write_items(TransactItems=[{"Update": grow}])
    assert table.get_item(TableName="t", Key=key("a"))["Item"] == before
    table.update_item(**{**grow, "ExpressionAttributeValues": {":c": {"L": [{"S": "small"}]}}})
    assert len(table.get_item(TableName="t", Key=key("a"))["Item"]["doc"]["M"]["list"]["L"]) == 5
