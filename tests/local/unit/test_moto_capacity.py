"""Consumed capacity on the local endpoint, by DynamoDB's rules (local/dynamodb/capacity.py, which cites the page of each
rule), pinned against the examples of the DynamoDB developer guide ("DynamoDB read and write operations",
"Provisioned throughput considerations for global secondary indexes", "Capacity management for transactions",
"Filter expressions for Query", conditional writes in "Working with items") and, where the guide is silent, against
figures measured on DynamoDB by others (cited in local/dynamodb/capacity.py). moto alone answers 0.5 or 1 unit whatever
the sizes."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from local.dynamodb import capacity as moto_capacity

KB = 1024


@pytest.fixture
def db():
    with mock_aws():
        client = boto3.client("dynamodb")
        client.create_table(
            TableName="t",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "g", "gs")],
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=[
                {"IndexName": "all", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                  {"AttributeName": "gs", "KeyType": "RANGE"}],
                 "Projection": {"ProjectionType": "ALL"}},
                {"IndexName": "keys", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                 "Projection": {"ProjectionType": "KEYS_ONLY"}},
            ],
        )
        yield client


def item(sk: str, size: int, **more: str) -> dict:
    """An item of exactly `size` bytes by DynamoDB's rules (names and values in UTF-8)."""
    base = {"pk": "p", "sk": sk, **more}
    used = sum(len(k) + len(v) for k, v in base.items()) + len("pad")
    return {name: {"S": value} for name, value in {**base, "pad": "x" * (size - used)}.items()}


def units(response: dict, index: str | None = None) -> float:
    consumed = response["ConsumedCapacity"]
    if index is None:
        return consumed["CapacityUnits"]
    if index == "table":
        return consumed["Table"]["CapacityUnits"]
    # An index the call did not read or write is left out of the answer, as DynamoDB leaves it out.
    return (consumed.get("GlobalSecondaryIndexes") or {}).get(index, {}).get("CapacityUnits", 0.0)


def put(db, value: dict, **kwargs) -> dict:
    return db.put_item(TableName="t", Item=value, ReturnConsumedCapacity="INDEXES", **kwargs)


def key(sk: str) -> dict:
    return {"pk": {"S": "p"}, "sk": {"S": sk}}


# Reads ---------------------------------------------------------------------------------------------------------------

def test_get_item_rounds_its_item_up_to_4_kb_and_halves_when_eventually_consistent(db):
    put(db, item("a", 3584))  # "an item of 3.5 KB ... rounds to 4 KB"
    put(db, item("b", 10 * KB))  # "10 KB ... rounds to 12 KB"
    get = lambda sk, consistent: db.get_item(TableName="t", Key=key(sk), ConsistentRead=consistent,  # noqa: E731
                                             ReturnConsumedCapacity="TOTAL")
    assert units(get("a", True)) == 1 and units(get("a", False)) == 0.5
    assert units(get("b", True)) == 3 and units(get("b", False)) == 1.5
    assert units(get("missing", True)) == 1  # a read that finds nothing still costs the minimum


def test_a_projection_expression_does_not_make_a_read_cheaper(db):
    put(db, item("b", 10 * KB))
    response = db.get_item(TableName="t", Key=key("b"), ProjectionExpression="pk", ConsistentRead=True,
                           ReturnConsumedCapacity="TOTAL")
    assert response["Item"] == {"pk": {"S": "p"}} and units(response) == 3


def test_batch_get_item_rounds_each_item_on_its_own(db):
    put(db, item("a", 1536))  # "a 1.5 KB item and a 6.5 KB item ... 12 KB (4 KB + 8 KB)"
    put(db, item("b", 6656))
    response = db.batch_get_item(RequestItems={"t": {"Keys": [key("a"), key("b")], "ConsistentRead": True}},
                                 ReturnConsumedCapacity="TOTAL")
    assert [c["CapacityUnits"] for c in response["ConsumedCapacity"]] == [3]


def test_a_query_rounds_the_sum_of_the_items_it_evaluated_once_filter_or_not(db):
    for n in range(10):  # "10 items whose combined size is 40.8 KB ... rounds to 44 KB"
        put(db, item(f"q{n}", 4178))
    query = dict(TableName="t", KeyConditionExpression="pk = :p AND begins_with(sk, :q)",
                 ExpressionAttributeValues={":p": {"S": "p"}, ":q": {"S": "q"}}, ReturnConsumedCapacity="TOTAL")
    assert units(db.query(**query, ConsistentRead=True)) == 11
    assert units(db.query(**query)) == 5.5
    filtered = db.query(**{**query, "ExpressionAttributeValues": {**query["ExpressionAttributeValues"],
                                                                  ":one": {"S": "q1"}}},
                        ConsistentRead=True, FilterExpression="sk = :one")
    assert filtered["Count"] == 1 and filtered["ScannedCount"] == 10 and units(filtered) == 11
    assert units(db.query(**query, ConsistentRead=True, Limit=1)) == 2  # a page: its own items only


def test_a_query_on_an_index_costs_the_projected_items_and_is_billed_to_the_index(db):
    for n in range(4):
        put(db, item(f"i{n}", 3 * KB, g="G", gs=f"{n}"))
    query = dict(TableName="t", KeyConditionExpression="g = :g", ExpressionAttributeValues={":g": {"S": "G"}},
                 ReturnConsumedCapacity="INDEXES")
    everything = db.query(**query, IndexName="all")
    assert units(everything, "all") == 1.5 and units(everything, "table") == 0 and units(everything) == 1.5
    keys_only = db.query(**query, IndexName="keys")  # four projected items of a few bytes: the minimum
    assert units(keys_only, "keys") == 0.5


def test_a_scan_costs_what_it_evaluated(db):
    for n in range(3):
        put(db, item(f"s{n}", 2 * KB))
    assert units(db.scan(TableName="t", ReturnConsumedCapacity="TOTAL", ConsistentRead=True)) == 2


# Writes --------------------------------------------------------------------------------------------------------------

def test_a_write_costs_1_kb_units_of_the_larger_of_before_and_after(db):
    assert units(put(db, item("a", 1536))) == 2  # "1.5 KB ... 2 write request units"
    assert units(put(db, item("b", 500))) == 1  # "500 bytes ... rounded up to 1 KB"
    shrink = db.update_item(TableName="t", Key=key("a"), UpdateExpression="SET #pad = :v",
                            ExpressionAttributeNames={"#pad": "pad"}, ExpressionAttributeValues={":v": {"S": "x"}},
                            ReturnConsumedCapacity="TOTAL")
    assert units(shrink) == 2  # 1.5 KB before, a few bytes after
    assert units(db.delete_item(TableName="t", Key=key("b"), ReturnConsumedCapacity="TOTAL")) == 1
    assert units(db.delete_item(TableName="t", Key=key("gone"), ReturnConsumedCapacity="TOTAL")) == 1


def test_batch_write_item_costs_each_item(db):
    response = db.batch_write_item(RequestItems={"t": [{"PutRequest": {"Item": item("a", 500)}},
                                                       {"PutRequest": {"Item": item("b", 3584)}}]},
                                   ReturnConsumedCapacity="TOTAL")  # "500 bytes and 3.5 KB ... 5 KB (1 + 4)"
    assert [c["CapacityUnits"] for c in response["ConsumedCapacity"]] == [5]


def test_each_index_a_write_touches_costs_its_own_writes(db):
    first = put(db, item("a", 2 * KB, g="G", gs="1"))  # enters both indexes
    assert units(first, "table") == 2 and units(first, "all") == 2 and units(first, "keys") == 1
    assert units(first) == 5
    projected = db.update_item(TableName="t", Key=key("a"), UpdateExpression="SET extra = :v",
                               ExpressionAttributeValues={":v": {"S": "x"}}, ReturnConsumedCapacity="INDEXES")
    assert units(projected, "all") == 3 and units(projected, "keys") == 0  # KEYS_ONLY: nothing projected changed
    moved = db.update_item(TableName="t", Key=key("a"), UpdateExpression="SET gs = :v",
                           ExpressionAttributeValues={":v": {"S": "2"}}, ReturnConsumedCapacity="INDEXES")
    assert units(moved, "all") == 3 + 3  # its sort key changed: a delete and a put
    assert units(moved, "keys") == 0  # "keys" holds pk, sk and g only: gs is not in it
    left = db.update_item(TableName="t", Key=key("a"), UpdateExpression="REMOVE g", ReturnConsumedCapacity="INDEXES")
    assert units(left, "all") == 3 and units(left, "keys") == 1  # removed from both
    outside = put(db, item("b", 500))
    assert "GlobalSecondaryIndexes" not in outside["ConsumedCapacity"]  # in neither index: no index entry at all


def test_transactions_cost_double_a_condition_check_included(db):
    put(db, item("checked", 1536))
    response = db.transact_write_items(TransactItems=[
        {"Put": {"TableName": "t", "Item": item("a", KB)}},  # "1 KB ... 2 write request units"
        {"ConditionCheck": {"TableName": "t", "Key": key("checked"), "ConditionExpression": "attribute_exists(pk)"}},
    ], ReturnConsumedCapacity="TOTAL")
    assert [c["CapacityUnits"] for c in response["ConsumedCapacity"]] == [2 + 4]
    read = db.transact_get_items(TransactItems=[{"Get": {"TableName": "t", "Key": key("a")}}],
                                 ReturnConsumedCapacity="TOTAL")
    assert [c["CapacityUnits"] for c in read["ConsumedCapacity"]] == [2]  # "4 KB ... 2 read request units"


def test_a_transaction_doubles_the_table_but_not_its_indexes(db):
    # "each transaction writes three 500-byte items ... two write capacity units ... provision six WCUs"
    three = db.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": item(f"x{n}", 500)}}
                                                   for n in range(3)], ReturnConsumedCapacity="TOTAL")
    assert [c["CapacityUnits"] for c in three["ConsumedCapacity"]] == [6]
    # An index is written after the commit, as any write's: 2 KB into "all" costs 2, into "keys" 1, undoubled.
    indexed = db.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": item("y", 2 * KB, g="G",
                                                                                              gs="1")}}],
                                      ReturnConsumedCapacity="INDEXES")
    (entry,) = indexed["ConsumedCapacity"]
    assert entry["Table"]["CapacityUnits"] == 2 * 2
    assert entry["GlobalSecondaryIndexes"]["all"]["CapacityUnits"] == 2
    assert entry["GlobalSecondaryIndexes"]["keys"]["CapacityUnits"] == 1
    assert entry["CapacityUnits"] == 4 + 2 + 1


def test_a_condition_check_costs_its_item_twice_and_no_index(db):
    put(db, item("checked", 3 * KB, g="G", gs="1"))
    response = db.transact_write_items(TransactItems=[{"ConditionCheck": {
        "TableName": "t", "Key": key("checked"), "ConditionExpression": "attribute_exists(pk)"}}],
        ReturnConsumedCapacity="INDEXES")
    (entry,) = response["ConsumedCapacity"]
    assert entry["CapacityUnits"] == entry["Table"]["CapacityUnits"] == 2 * 3
    assert "GlobalSecondaryIndexes" not in entry


def test_the_answers_shape_splits_units_on_transactions_only(db):
    single = put(db, item("a", 500))["ConsumedCapacity"]
    assert single == {"TableName": "t", "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}
    transaction = db.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": item("b", 500)}}],
                                          ReturnConsumedCapacity="INDEXES")["ConsumedCapacity"]
    assert transaction == [{"TableName": "t", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0,
                            "Table": {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}}]


def written(table: str = "t") -> float:
    return moto_capacity.consumed().get(table, {}).get("ConsumedWriteCapacityUnits", 0.0)


def test_a_refused_conditional_write_is_billed_but_its_answer_carries_no_capacity(db):
    put(db, item("stored", 300 * KB))
    attempted = item("stored", 310 * KB)
    before = written()
    with pytest.raises(ClientError) as refused:
        put(db, attempted, ConditionExpression="attribute_not_exists(pk)")
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert "ConsumedCapacity" not in refused.value.response  # as on AWS: the exception has no such member
    # "an existing item is 300 KB. The new item you're trying to create or update is 310 KB. The write capacity
    # units consumed will be 310 KB"
    assert written() - before == 310


def test_a_refused_write_of_a_missing_item_costs_one_unit_and_an_update_the_stored_item(db):
    before = written()
    with pytest.raises(ClientError):
        db.update_item(TableName="t", Key=key("missing"), UpdateExpression="SET v = :v",
                       ExpressionAttributeValues={":v": {"S": "x"}}, ConditionExpression="attribute_exists(pk)",
                       ReturnConsumedCapacity="TOTAL")
    assert written() - before == 1  # "If the item does not currently exist in the table ... one write capacity unit"
    put(db, item("two", 2 * KB))
    before = written()
    with pytest.raises(ClientError):
        db.delete_item(TableName="t", Key=key("two"), ConditionExpression="attribute_not_exists(pk)",
                       ReturnConsumedCapacity="TOTAL")
    assert written() - before == 2  # "If the item were twice that size ... two write capacity units"


def test_a_cancelled_transaction_answers_no_capacity(db):
    put(db, item("taken", 500))
    before = written()
    with pytest.raises(ClientError) as cancelled:
        db.transact_write_items(TransactItems=[
            {"Put": {"TableName": "t", "Item": item("free", 500)}},
            {"Put": {"TableName": "t", "Item": item("taken", 500), "ConditionExpression": "attribute_not_exists(pk)"}},
        ], ReturnConsumedCapacity="TOTAL")
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert "ConsumedCapacity" not in cancelled.value.response
    assert written() == before  # what a cancelled transaction consumes is not documented: counted as nothing


def test_batch_deletes_of_missing_items_cost_one_unit_each(db):
    put(db, item("here", 1536))
    response = db.batch_write_item(RequestItems={"t": [{"DeleteRequest": {"Key": key(sk)}}
                                                       for sk in ("here", "gone-1", "gone-2")]},
                                   ReturnConsumedCapacity="TOTAL")
    assert [c["CapacityUnits"] for c in response["ConsumedCapacity"]] == [2 + 1 + 1]


def test_a_query_that_filters_everything_out_costs_what_it_read_and_an_empty_one_the_minimum(db):
    for n in range(3):
        put(db, item(f"f{n}", 3 * KB))
    query = dict(TableName="t", KeyConditionExpression="pk = :p AND begins_with(sk, :q)",
                 ReturnConsumedCapacity="TOTAL")
    nothing = db.query(**query, FilterExpression="attribute_exists(nope)",
                       ExpressionAttributeValues={":p": {"S": "p"}, ":q": {"S": "f"}}, ConsistentRead=True)
    assert nothing["Count"] == 0 and nothing["ScannedCount"] == 3 and units(nothing) == 3  # 9 KB -> 12 KB
    empty = dict(query, ExpressionAttributeValues={":p": {"S": "p"}, ":q": {"S": "none"}})
    assert units(db.query(**empty)) == 0.5 and units(db.query(**empty, ConsistentRead=True)) == 1
    before = moto_capacity.consumed()["t"]["ConsumedReadCapacityUnits"]
    db.query(**empty)
    assert moto_capacity.consumed()["t"]["ConsumedReadCapacityUnits"] - before == 0.5
