"""Canaries: moto as released (without local/dynamodb/fidelity/'s corrections) still behaves unlike DynamoDB, once per
correction. A canary that fails says moto behaves as DynamoDB by itself now: check it, then delete the module it names
(and its entry in local/dynamodb/fidelity/__init__.py). The corrected behaviour: tests/local/unit/test_moto_fidelity.py.

Each canary runs in `plain_moto()`, which takes every correction off and puts them back after the test (checked in the
fixture's teardown). Anything the test patches itself is patched in a `MonkeyPatch.context()` inside the test, undone
before the corrections are put back.
"""

from __future__ import annotations

import ast
import os

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from local.dynamodb import fidelity as moto_fidelity


def still(misbehaves: bool, moto_now: str, module: str, note: str = "") -> None:
    assert misbehaves, f"moto now {moto_now} itself: drop local/dynamodb/fidelity/{module}.py{note}"


@pytest.fixture
def plain():
    """A DynamoDB client on moto as released, in a fresh mock."""
    with moto_fidelity.plain_moto(), mock_aws():
        assert not any(correction.applied() for correction in moto_fidelity.CORRECTIONS)
        yield boto3.client("dynamodb")
    assert moto_fidelity.applied(), "a correction was not put back after a canary"


def create_table(client, *, stream: bool = False, sort_key: bool = False) -> None:
    keys = [("k", "HASH")] + ([("s", "RANGE")] if sort_key else [])
    client.create_table(
        TableName="t",
        KeySchema=[{"AttributeName": name, "KeyType": kind} for name, kind in keys],
        AttributeDefinitions=[{"AttributeName": name, "AttributeType": "S"} for name, _ in keys],
        BillingMode="PAY_PER_REQUEST",
        **({"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}} if stream else {}),
    )


def key(value: str) -> dict:
    return {"k": {"S": value}}


class Stream:
    """An iterator on the table's stream from TRIM_HORIZON, opened now, as a poller keeps one open."""

    def __init__(self, client):
        arn = client.describe_table(TableName="t")["Table"]["LatestStreamArn"]
        self.client = boto3.client("dynamodbstreams")
        (shard,) = self.client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        self.iterator = self.client.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")["ShardIterator"]

    def read(self) -> list[tuple[str, dict]]:
        response = self.client.get_records(ShardIterator=self.iterator)
        self.iterator = response["NextShardIterator"]
        return [(r["eventName"], r["dynamodb"]["Keys"]) for r in response["Records"]]


def test_a_write_that_changes_nothing_still_writes_a_modify(plain):
    create_table(plain, stream=True)
    stream = Stream(plain)
    plain.put_item(TableName="t", Item=key("a"))
    plain.put_item(TableName="t", Item=key("a"))  # the same item again
    still([event for event, _ in stream.read()] == ["INSERT", "MODIFY"],
          "writes no stream record for a write that changes nothing", "stream_unchanged_write")


def test_an_update_that_creates_an_item_still_writes_two_inserts(plain):
    create_table(plain, stream=True)
    stream = Stream(plain)
    plain.update_item(TableName="t", Key=key("a"), UpdateExpression="SET n = :n",
                      ExpressionAttributeValues={":n": {"N": "1"}})
    still([event for event, _ in stream.read()] == ["INSERT", "INSERT"],
          "writes one INSERT for an UpdateItem that creates an item", "stream_update_insert")


def test_an_update_past_400_kb_in_a_transaction_is_still_a_plain_validation_exception(plain):
    create_table(plain)
    plain.put_item(TableName="t", Item=key("a"))
    with pytest.raises(ClientError) as refused:
        plain.transact_write_items(TransactItems=[{"Update": {
            "TableName": "t", "Key": key("a"), "UpdateExpression": "SET big = :big",
            "ExpressionAttributeValues": {":big": {"S": "x" * 410_000}}}}])
    still(refused.value.response["Error"]["Code"] == "ValidationException",
          "cancels a transaction whose Update takes its item past 400 KB (TransactionCanceledException, reason "
          "ValidationError)", "transaction_update_size")


def test_the_server_still_lists_its_package_directory_on_every_request():
    from moto import backends

    with moto_fidelity.plain_moto(), pytest.MonkeyPatch.context() as patch:
        listed: list[str] = []
        listdir = os.listdir
        patch.setattr(os, "listdir", lambda path: listed.append(path) or listdir(path))
        for _ in range(2):  # what the server asks for each request's host
            assert "dynamodb" in list(backends.list_of_moto_modules())
    assert moto_fidelity.applied()
    still(len(listed) == 2, "reads its list of backends once", "backend_list")


def test_a_transaction_still_deep_copies_its_tables(plain):
    from moto.dynamodb.models.table import Table

    create_table(plain)
    copied: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Table, "__deepcopy__", lambda self, memo: copied.append(self.name) or self, raising=False)
        plain.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": key("a")}}])
    still(copied == ["t"], "backs a transaction up without copying its tables", "transaction_rollback")


def test_a_cancelled_transaction_still_leaves_its_stream_records(plain):
    create_table(plain, stream=True)
    opened_before = Stream(plain)
    with pytest.raises(ClientError, match="TransactionCanceled"):
        plain.transact_write_items(TransactItems=[
            {"Put": {"TableName": "t", "Item": key("phantom")}},
            {"ConditionCheck": {"TableName": "t", "Key": key("missing"), "ConditionExpression": "attribute_exists(k)"}},
        ])
    records = opened_before.read() + Stream(plain).read()
    still(("INSERT", key("phantom")) in records, "drops the stream records of a cancelled transaction",
          "stream_cancelled_transaction")


def test_an_update_of_a_nested_path_still_grows_an_item_past_400_kb(plain):
    create_table(plain)
    plain.put_item(TableName="t", Item={**key("a"), "doc": {"M": {"l": {"L": []}}}})
    try:
        for _ in range(5):  # 5 x 100,000 bytes: past 400 KB
            plain.update_item(TableName="t", Key=key("a"), UpdateExpression="SET doc.l = list_append(doc.l, :c)",
                              ExpressionAttributeValues={":c": {"L": [{"S": "x" * 100_000}]}})
    except ClientError as refused:
        assert "Item size" in str(refused), refused
    stored = plain.get_item(TableName="t", Key=key("a"))["Item"]["doc"]["M"]["l"]["L"]
    still(len(stored) == 5, "refuses an update of a nested path that takes its item past 400 KB", "nested_update_size")


def test_consumed_capacity_is_still_a_constant(plain):
    create_table(plain)
    plain.put_item(TableName="t", Item={**key("a"), "v": {"S": "x" * 10_000}})
    answer = plain.get_item(TableName="t", Key=key("a"), ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    # DynamoDB: a strongly consistent read of a 10 KB item is 3 units (4 KB each); moto answers 0.5
    still(answer["ConsumedCapacity"]["CapacityUnits"] != 3.0, "counts consumed capacity by the items' sizes",
          "consumed_capacity", " (and, if it applies every rule, local/dynamodb/capacity.py)")


def test_a_query_still_reads_the_whole_table(plain):
    from moto.dynamodb.models.table import Table

    create_table(plain, sort_key=True)
    plain.put_item(TableName="t", Item={**key("asked"), "s": {"S": "1"}})
    for n in range(20):
        plain.put_item(TableName="t", Item={**key("other"), "s": {"S": f"{n:02d}"}})
    read: list[int] = []
    all_items = Table.all_items
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Table, "all_items", lambda self: read.append(len(items := all_items(self))) or items)
        answer = plain.query(TableName="t", KeyConditionExpression="k = :k",
                             ExpressionAttributeValues={":k": {"S": "asked"}})
    assert answer["Count"] == 1
    still(read == [21], "reads only the Query's partition", "query_partition",
          " (or it reads the whole table another way than Table.all_items: check which)")


def test_a_start_key_outside_the_sort_key_condition_is_still_answered(plain):
    create_table(plain, sort_key=True)
    for s in "abc":
        plain.put_item(TableName="t", Item={**key("p"), "s": {"S": s}})
    try:
        answer = plain.query(TableName="t", KeyConditionExpression="k = :k AND s >= :lo",
                             ExpressionAttributeValues={":k": {"S": "p"}, ":lo": {"S": "b"}},
                             ExclusiveStartKey={**key("p"), "s": {"S": "a"}})  # below the range asked for
    except ClientError as refused:
        answer = refused.response
    still("Items" in answer, "refuses a start key outside the sort key condition", "query_start_key")


def test_a_repeated_client_request_token_is_still_applied_again(plain):
    create_table(plain)
    items = [{"Put": {"TableName": "t", "Item": key("a"), "ConditionExpression": "attribute_not_exists(k)"}}]
    plain.transact_write_items(TransactItems=items, ClientRequestToken="token")
    try:
        plain.transact_write_items(TransactItems=items, ClientRequestToken="token")  # the SDK's retry
        code = None
    except ClientError as failed:
        code = failed.response["Error"]["Code"]
    still(code == "TransactionCanceledException", "answers a repeated ClientRequestToken without applying it again",
          "transaction_client_token")


def test_every_correction_has_a_canary():
    with open(__file__, encoding="utf-8") as source:
        tree = ast.parse(source.read())
    named = {node.args[2].value for node in ast.walk(tree)
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "still"}
    assert named == {correction.__name__.rsplit(".", 1)[1] for correction in moto_fidelity.CORRECTIONS}


def test_plain_moto_takes_every_correction_off_and_puts_them_back():
    with moto_fidelity.plain_moto():
        assert not any(correction.applied() for correction in moto_fidelity.CORRECTIONS)
    assert moto_fidelity.applied()
    with mock_aws():  # corrected again: a write that changes nothing has no record
        client = boto3.client("dynamodb")
        create_table(client, stream=True)
        client.put_item(TableName="t", Item=key("a"))
        client.put_item(TableName="t", Item=key("a"))
        assert [event for event, _ in Stream(client).read()] == ["INSERT"]
