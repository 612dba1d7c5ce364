"""moto's DynamoDB, corrected to DynamoDB's behaviour (local/dynamodb/fidelity/, applied in tests/conftest.py). Whether moto
still needs each correction: tests/local/unit/test_moto_canaries.py."""

from __future__ import annotations

import time

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
    table.update_item(**{**grow, "ExpressionAttributeValues": {":c": {"L": [{"S": "small"}]}}})
    assert len(table.get_item(TableName="t", Key=key("a"))["Item"]["doc"]["M"]["list"]["L"]) == 5


def test_an_update_past_400_kb_inside_a_transaction_cancels_it_with_a_validation_error_reason(table):
    stream = Stream("t")
    chunk = {"L": [{"S": "x" * 100_000}]}
    table.put_item(TableName="t", Item={"k": {"S": "a"}, "doc": {"M": {"list": {"L": [chunk] * 4}}}})
    table.put_item(TableName="t", Item={"k": {"S": "b"}})
    before = [table.get_item(TableName="t", Key=key(k))["Item"] for k in "ab"]
    stream.read()
    grow = {"TableName": "t", "Key": key("a"), "UpdateExpression": "SET doc.#l = list_append(doc.#l, :c)",
            "ExpressionAttributeNames": {"#l": "list"}, "ExpressionAttributeValues": {":c": chunk}}
    touch = {"TableName": "t", "Key": key("b"), "UpdateExpression": "SET n = :n",
             "ExpressionAttributeValues": {":n": {"N": "1"}}}

    # When an update in a transaction would take its item past 400 KB
    with pytest.raises(ClientError) as refused:
        table.transact_write_items(TransactItems=[{"Update": touch}, {"Update": grow}])

    # Then DynamoDB cancels the transaction, naming that action's reason, and nothing of it is written
    assert refused.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert refused.value.response["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"}]
    assert [table.get_item(TableName="t", Key=key(k))["Item"] for k in "ab"] == before
    assert stream.read() == []
    # the same update alone is still UpdateItem's ValidationException
    with pytest.raises(ClientError, match="Item size to update has exceeded") as alone:
        table.update_item(**grow)
    assert alone.value.response["Error"]["Code"] == "ValidationException"


# A Query reads its partition, and answers exactly as moto's own Query (query_partition.py) ------------------------

@pytest.fixture
def indexed():
    with mock_aws():
        client = boto3.client("dynamodb")
        string, number = {"AttributeType": "S"}, {"AttributeType": "N"}
        client.create_table(
            TableName="i",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": a, **t} for a, t in
                                  (("pk", string), ("sk", string), ("g", string), ("gs", string), ("n", number))],
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=[
                {"IndexName": "byString", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                       {"AttributeName": "gs", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "byNumber", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                       {"AttributeName": "n", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "KEYS_ONLY"}},
                {"IndexName": "hashOnly", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                 "Projection": {"ProjectionType": "ALL"}},
            ],
            LocalSecondaryIndexes=[
                {"IndexName": "local", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                    {"AttributeName": "n", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "ALL"}},
            ],
        )
        yield client


def _random_item(rng) -> dict:
    item = {"pk": {"S": f"p{rng.randrange(4)}"}, "sk": {"S": f"s{rng.randrange(40):02d}"}}
    if rng.random() < 0.8:  # some items are in no index but the table's (sparse)
        item["g"] = {"S": f"g{rng.randrange(3)}"}
    if rng.random() < 0.8:
        item["gs"] = {"S": rng.choice(["OPEN#", "SHIPPED#", "OPEN#x", "Z"]) + f"{rng.randrange(30):02d}"}
    if rng.random() < 0.8:
        item["n"] = {"N": str(rng.choice([-5, 0, 1, 2.5, 10, 10, 300]))}
    return item


def _queries(rng) -> list[dict]:
    """Key conditions of every operator on each index shape, both directions, small pages."""
    queries = []
    for _ in range(40):
        s = f"{rng.randrange(30):02d}"
        index, condition, values = rng.choice([
            ("byString", "g = :h AND gs BETWEEN :a AND :b", {":a": {"S": "OPEN#"}, ":b": {"S": f"OPEN#{s}"}}),
            ("byString", "g = :h AND begins_with(gs, :a)", {":a": {"S": rng.choice(["OPEN#", "OPEN#x", "S", "O"])}}),
            ("byString", "g = :h AND gs >= :a", {":a": {"S": f"SHIPPED#{s}"}}),
            ("byString", "g = :h AND gs < :a", {":a": {"S": f"OPEN#{s}"}}),
            ("byString", "g = :h AND gs = :a", {":a": {"S": f"Z{s}"}}),
            ("byNumber", "g = :h AND n > :a", {":a": {"N": rng.choice(["-5", "0", "2.5", "10"])}}),
            ("byNumber", "g = :h AND n <= :a", {":a": {"N": rng.choice(["-5", "1", "10", "400"])}}),
            ("byNumber", "g = :h AND n BETWEEN :a AND :b", {":a": {"N": "0"}, ":b": {"N": "10"}}),
            ("hashOnly", "g = :h", {}),
            ("byString", "g = :h", {}),
            (None, "pk = :p AND sk BETWEEN :a AND :b", {":a": {"S": "s05"}, ":b": {"S": f"s{s}"}}),
            ("local", "pk = :p AND n >= :a", {":a": {"N": "1"}}),
        ])
        values = {**values, ":h": {"S": f"g{rng.randrange(4)}"}, ":p": {"S": f"p{rng.randrange(5)}"}}
        query = {"TableName": "i", "KeyConditionExpression": condition, "Limit": rng.choice([2, 5, 50]),
                 "ScanIndexForward": rng.random() < 0.5,
                 "ExpressionAttributeValues": {k: v for k, v in values.items() if k in condition}}
        if index:
            query["IndexName"] = index
        queries.append(query)
    return queries


def _every_page(client, query: dict) -> list[dict]:
    pages, start = [], None
    while True:
        page = client.query(**query, **({"ExclusiveStartKey": start} if start else {}))
        pages.append({k: page.get(k) for k in ("Items", "Count", "ScannedCount", "LastEvaluatedKey")})
        if not (start := page.get("LastEvaluatedKey")):
            return pages


def test_a_query_answers_as_moto_reading_the_whole_table_would(indexed):
    import random

    from local.dynamodb import fidelity as moto_fidelity

    rng = random.Random(5)
    for round_ in range(3):  # writes between rounds: every answer reflects them
        for _ in range(150):
            if rng.random() < 0.8:
                indexed.put_item(TableName="i", Item=_random_item(rng))
            else:
                key_ = _random_item(rng)
                indexed.delete_item(TableName="i", Key={"pk": key_["pk"], "sk": key_["sk"]})
        for query in _queries(rng):
            ours = _every_page(indexed, query)
            with moto_fidelity.plain_moto():  # moto's own Query, which reads the whole table
                assert _every_page(indexed, query) == ours, (round_, query)


def test_a_query_reads_its_partition_cut_to_its_sort_key_range_whatever_the_table_size(indexed, monkeypatch):
    from local.dynamodb.fidelity import query_partition

    read: list[int] = []
    partition = query_partition._partition
    monkeypatch.setattr(query_partition, "_partition", lambda *a: read.append(len(items := partition(*a))) or items)
    for n in range(1000):
        indexed.put_item(TableName="i", Item={"pk": {"S": f"p{n}"}, "sk": {"S": "s"}, "g": {"S": f"g{n % 10}"},
                                              "gs": {"S": f"{'OPEN' if n % 4 else 'SHIPPED'}#{n:05d}"}})
    page = indexed.query(TableName="i", IndexName="byString", Limit=5,
                         KeyConditionExpression="g = :h AND gs BETWEEN :a AND :b",
                         ExpressionAttributeValues={":h": {"S": "g3"}, ":a": {"S": "OPEN#00100"},
                                                    ":b": {"S": "OPEN#00199"}})
    assert [i["gs"]["S"] for i in page["Items"]] == ["OPEN#00103", "OPEN#00113", "OPEN#00123", "OPEN#00133",
                                                     "OPEN#00143"]
    assert read == [12]  # g3's 10 items in that range and a neighbour each side; not the table's 1,000, nor g3's 100
    table_read = indexed.query(TableName="i", KeyConditionExpression="pk = :p",
                               ExpressionAttributeValues={":p": {"S": "p7"}})
    assert table_read["Count"] == 1 and read[-1] == 1


def test_a_query_after_a_cancelled_transaction_reads_the_restored_table(indexed):
    item = {"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "g"}, "gs": {"S": "OPEN#1"}}
    indexed.put_item(TableName="i", Item=item)
    query = {"TableName": "i", "IndexName": "byString", "KeyConditionExpression": "g = :h",
             "ExpressionAttributeValues": {":h": {"S": "g"}}}
    assert indexed.query(**query)["Count"] == 1
    with pytest.raises(ClientError):
        indexed.transact_write_items(TransactItems=[
            {"Put": {"TableName": "i", "Item": {**item, "sk": {"S": "2"}}}},
            {"ConditionCheck": {"TableName": "i", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}},
                                "ConditionExpression": "attribute_not_exists(pk)"}},
        ])
    assert [i["sk"]["S"] for i in indexed.query(**query)["Items"]] == ["1"]
    indexed.update_item(TableName="i", Key={"pk": {"S": "a"}, "sk": {"S": "1"}}, UpdateExpression="SET gs = :s",
                        ExpressionAttributeValues={":s": {"S": "SHIPPED#1"}})
    assert [i["gs"]["S"] for i in indexed.query(**query)["Items"]] == ["SHIPPED#1"]


def test_a_query_sees_what_batch_writes_and_transactions_wrote(indexed):
    query = {"TableName": "i", "IndexName": "byString", "KeyConditionExpression": "g = :h",
             "ExpressionAttributeValues": {":h": {"S": "g"}}}
    assert indexed.query(**query)["Count"] == 0  # builds the (empty) map
    indexed.batch_write_item(RequestItems={"i": [
        {"PutRequest": {"Item": {"pk": {"S": f"b{n}"}, "sk": {"S": "1"}, "g": {"S": "g"}, "gs": {"S": f"{n}"}}}}
        for n in range(3)]})
    assert [i["pk"]["S"] for i in indexed.query(**query)["Items"]] == ["b0", "b1", "b2"]
    indexed.transact_write_items(TransactItems=[
        {"Delete": {"TableName": "i", "Key": {"pk": {"S": "b1"}, "sk": {"S": "1"}}}},
        {"Put": {"TableName": "i", "Item": {"pk": {"S": "t"}, "sk": {"S": "1"}, "g": {"S": "g"}, "gs": {"S": "0"}}}},
    ])
    assert [i["pk"]["S"] for i in indexed.query(**query)["Items"]] == ["b0", "t", "b2"]


def test_a_cancelled_transaction_puts_back_every_item_it_changed_without_copying_tables(indexed, monkeypatch):
    from moto.dynamodb.models.table import Table

    def refuse(self, memo):
        raise AssertionError("a table was deep-copied")

    monkeypatch.setattr(Table, "__deepcopy__", refuse, raising=False)
    one = {"pk": {"S": "a"}, "sk": {"S": "1"}, "g": {"S": "g"}, "gs": {"S": "OPEN#1"}, "n": {"N": "1"}}
    two = {**one, "sk": {"S": "2"}}
    indexed.put_item(TableName="i", Item=one)
    indexed.put_item(TableName="i", Item=two)
    before = sorted(indexed.scan(TableName="i")["Items"], key=lambda item: item["sk"]["S"])
    with pytest.raises(ClientError, match="TransactionCanceled"):
        indexed.transact_write_items(TransactItems=[
            {"Update": {"TableName": "i", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :n",
                        "ExpressionAttributeValues": {":n": {"N": "9"}}}},
            {"Delete": {"TableName": "i", "Key": {"pk": {"S": "a"}, "sk": {"S": "2"}}}},
            {"Put": {"TableName": "i", "Item": {**one, "pk": {"S": "new"}}}},
            {"ConditionCheck": {"TableName": "i", "Key": {"pk": {"S": "b"}, "sk": {"S": "1"}},
                                "ConditionExpression": "attribute_exists(pk)"}},
        ])
    assert sorted(indexed.scan(TableName="i")["Items"], key=lambda item: item["sk"]["S"]) == before
    indexed.transact_write_items(TransactItems=[
        {"Update": {"TableName": "i", "Key": {"pk": {"S": "a"}, "sk": {"S": "1"}}, "UpdateExpression": "SET n = :n",
                    "ExpressionAttributeValues": {":n": {"N": "9"}}}},
        {"Delete": {"TableName": "i", "Key": {"pk": {"S": "a"}, "sk": {"S": "2"}}}},
    ])
    assert [(item["sk"]["S"], item["n"]["N"]) for item in indexed.scan(TableName="i")["Items"]] == [("1", "9")]


def test_a_cancelled_transaction_on_a_hash_only_table_puts_its_items_back(table):
    table.put_item(TableName="t", Item={"k": {"S": "a"}, "n": {"N": "1"}})
    with pytest.raises(ClientError, match="TransactionCanceled"):
        table.transact_write_items(TransactItems=[
            {"Put": {"TableName": "t", "Item": {"k": {"S": "a"}, "n": {"N": "2"}}}},
            {"Put": {"TableName": "t", "Item": {"k": {"S": "b"}}}},
            {"ConditionCheck": {"TableName": "t", "Key": key("missing"), "ConditionExpression": "attribute_exists(k)"}},
        ])
    assert table.scan(TableName="t")["Items"] == [{"k": {"S": "a"}, "n": {"N": "1"}}]


def test_a_transaction_with_a_malformed_key_is_refused_by_moto_not_broken_by_the_backup(indexed):
    from botocore.config import Config

    raw = boto3.client("dynamodb", config=Config(parameter_validation=False))  # as any HTTP client may send
    for bad in ({"L": []}, {}, {"N": "not a number"}):
        with pytest.raises(ClientError) as refused:
            raw.transact_write_items(TransactItems=[
                {"Delete": {"TableName": "i", "Key": {"pk": bad, "sk": {"S": "1"}}}},
            ])
        assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400, (bad, refused.value.response)


def test_moto_lists_its_backends_once_not_on_every_request(monkeypatch):
    import os

    from moto import backends

    from local.dynamodb import fidelity as moto_fidelity

    moto_fidelity.apply()
    listed = []
    monkeypatch.setattr(os, "listdir", lambda path: listed.append(path) or [])
    assert "dynamodb" in backends.list_of_moto_modules() and "sqs" in backends.list_of_moto_modules()
    assert listed == []  # no directory read per call (moto's server calls it for every request's host)


def _create(value: str, n: str = "1") -> list[dict]:
    return [{"Put": {"TableName": "t", "Item": {"k": {"S": value}, "n": {"N": n}},
                     "ConditionExpression": "attribute_not_exists(k)"}}]


def test_a_repeated_transaction_token_answers_success_without_applying_it_again(table):
    stream = Stream("t")
    table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")

    # the SDK's retry of a call whose answer was lost: the same token and items; moto alone fails its condition
    again = table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")

    assert again["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert [event for event, _, _ in stream.read()] == ["INSERT"]  # applied once
    with pytest.raises(ClientError) as conflict:  # another call (another token) meets the condition as before
        table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-2")
    assert conflict.value.response["Error"]["Code"] == "TransactionCanceledException"


def test_a_token_reused_with_other_items_is_an_idempotent_parameter_mismatch(table):
    table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")
    with pytest.raises(ClientError) as mismatch:
        table.transact_write_items(TransactItems=_create("a", n="2"), ClientRequestToken="tok-1")
    assert mismatch.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
    assert table.get_item(TableName="t", Key=key("a"))["Item"]["n"] == {"N": "1"}


def test_a_failed_transactions_token_is_not_kept_its_retry_runs(table):
    table.put_item(TableName="t", Item={"k": {"S": "a"}, "n": {"N": "0"}})
    with pytest.raises(ClientError):
        table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")
    table.delete_item(TableName="t", Key=key("a"))

    table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")

    assert table.get_item(TableName="t", Key=key("a"))["Item"]["n"] == {"N": "1"}


def test_a_token_expires_after_ten_minutes(table, monkeypatch):
    from local.dynamodb.fidelity import transaction_client_token

    table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")
    table.delete_item(TableName="t", Key=key("a"))
    later = time.monotonic() + transaction_client_token.TOKEN_WINDOW_SECONDS + 1
    monkeypatch.setattr(transaction_client_token.time, "monotonic", lambda: later)

    table.transact_write_items(TransactItems=_create("a"), ClientRequestToken="tok-1")  # a new call: applied

    assert table.get_item(TableName="t", Key=key("a"))["Item"]["n"] == {"N": "1"}


def test_a_repeated_token_with_binary_values_answers_success(table):
    items = [{"Put": {"TableName": "t", "Item": {"k": {"S": "b"}, "blob": {"B": b"\x00\x01"}},
                      "ConditionExpression": "attribute_not_exists(k)"}}]
    table.transact_write_items(TransactItems=items, ClientRequestToken="tok-b")
    again = table.transact_write_items(TransactItems=items, ClientRequestToken="tok-b")
    assert again["ResponseMetadata"]["HTTPStatusCode"] == 200


# A start key outside the sort key condition is refused, as DynamoDB refuses it (query_start_key.py) ---------------

def _put_range(client) -> None:
    for sk, n in (("a", "1"), ("b", "2"), ("c", "3")):
        client.put_item(TableName="i", Item={"pk": {"S": "p"}, "sk": {"S": sk}, "g": {"S": "G"}, "gs": {"S": sk},
                                             "n": {"N": n}})


@pytest.mark.parametrize("condition, values, start", [
    ("sk BETWEEN :lo AND :hi", {":lo": "b", ":hi": "c"}, "a"),  # below: the range moved up past the cursor
    ("sk >= :lo", {":lo": "b"}, "a"),
    ("sk < :hi", {":hi": "b"}, "c"),
    ("begins_with(sk, :p)", {":p": "b"}, "c"),
])
def test_a_start_key_outside_the_sort_key_condition_is_a_validation_exception(indexed, condition, values, start):
    _put_range(indexed)
    with pytest.raises(ClientError) as refused:
        indexed.query(TableName="i", KeyConditionExpression=f"pk = :pk AND {condition}",
                      ExpressionAttributeValues={":pk": {"S": "p"}, **{k: {"S": v} for k, v in values.items()}},
                      ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": start}})
    assert refused.value.response["Error"] == {
        "Code": "ValidationException", "Message": "The provided starting key does not match the range key predicate"}


def test_a_start_key_inside_the_condition_pages_on_on_the_table_and_on_an_index(indexed):
    _put_range(indexed)
    table = indexed.query(TableName="i", KeyConditionExpression="pk = :pk AND sk BETWEEN :lo AND :hi",
                          ExpressionAttributeValues={":pk": {"S": "p"}, ":lo": {"S": "a"}, ":hi": {"S": "c"}},
                          ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": "a"}})
    assert [item["sk"]["S"] for item in table["Items"]] == ["b", "c"]
    index = indexed.query(TableName="i", IndexName="byNumber", KeyConditionExpression="g = :g AND n >= :lo",
                          ExpressionAttributeValues={":g": {"S": "G"}, ":lo": {"N": "2"}},
                          ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": "b"}, "g": {"S": "G"}, "n": {"N": "2"}})
    assert [item["sk"]["S"] for item in index["Items"]] == ["c"]
    with pytest.raises(ClientError):  # and below the index's own sort key condition
        indexed.query(TableName="i", IndexName="byNumber", KeyConditionExpression="g = :g AND n >= :lo",
                      ExpressionAttributeValues={":g": {"S": "G"}, ":lo": {"N": "2"}},
                      ExclusiveStartKey={"pk": {"S": "p"}, "sk": {"S": "a"}, "g": {"S": "G"}, "n": {"N": "1"}})
