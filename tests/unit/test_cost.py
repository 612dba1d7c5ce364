"""The request's DynamoDB bill (functions/shared/cost.py): what every call asks for, how responses add up, the header."""

from __future__ import annotations

import contextvars
import json
from concurrent.futures import ThreadPoolExecutor

import boto3
from moto import mock_aws

from functions.shared import cost


def test_every_metered_call_asks_for_capacity_per_index_and_the_ledger_sums_the_answers():
    with mock_aws():
        client = cost.instrument(boto3.client("dynamodb", region_name="us-east-1"))
        sent: list[tuple[str, str | None]] = []
        client.meta.events.register("before-call.dynamodb.*", lambda params, model, **_: sent.append(
            (model.name, json.loads(params["body"]).get("ReturnConsumedCapacity"))))
        client.create_table(TableName="t", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        with cost.metered() as ledger:
            client.put_item(TableName="t", Item={"k": {"S": "a"}, "v": {"S": "x" * 1500}})
            client.get_item(TableName="t", Key={"k": {"S": "a"}})
            client.query(TableName="t", KeyConditionExpression="k = :k", ExpressionAttributeValues={":k": {"S": "a"}})
        client.get_item(TableName="t", Key={"k": {"S": "a"}})  # outside any request: on no bill
    assert sent == [("CreateTable", None), ("PutItem", "INDEXES"), ("GetItem", "INDEXES"), ("Query", "INDEXES"),
                    ("GetItem", "INDEXES")]
    assert (ledger.requests, ledger.items_read) == (3, 2)
    assert (ledger.read_units, ledger.write_units) == (1.0, 2.0)  # 0.5 + 0.5 read; 1.5 KB written: 2
    assert ledger.server_timing().startswith('ddb;dur=')
    assert ledger.server_timing().endswith('desc="requests=3 items=2 rcu=1 wcu=2", ddb.t;desc="rcu=1 wcu=2"')


def test_indexes_are_billed_apart_and_named_in_the_header():
    ledger = cost.Ledger()
    ledger.record("Query", {"ScannedCount": 26, "ConsumedCapacity": {
        "TableName": "Orders", "CapacityUnits": 1.5, "ReadCapacityUnits": 1.5,
        "Table": {"CapacityUnits": 0.0, "ReadCapacityUnits": 0.0},
        "GlobalSecondaryIndexes": {"GSI2": {"CapacityUnits": 1.5, "ReadCapacityUnits": 1.5}}}}, 0.002)
    ledger.record("TransactWriteItems", {"ConsumedCapacity": [
        {"TableName": "Orders", "CapacityUnits": 6.0, "WriteCapacityUnits": 6.0,
         "Table": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0},
         "GlobalSecondaryIndexes": {"GSI1": {"CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}}},
        {"TableName": "Idem", "CapacityUnits": 2.0}]}, 0.001)  # TOTAL only, no read/write split: a write's
    assert ledger.server_timing() == (
        'ddb;dur=3.0;desc="requests=2 items=26 rcu=1.5 wcu=8", ddb.Idem;desc="rcu=0 wcu=2", '
        'ddb.Orders;desc="rcu=0 wcu=4", ddb.Orders.GSI1;desc="rcu=0 wcu=2", ddb.Orders.GSI2;desc="rcu=1.5 wcu=0"')


def test_a_fan_out_in_copied_contexts_adds_to_the_one_ledger():
    with cost.metered() as ledger:
        context = contextvars.copy_context()
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _: context.copy().run(lambda: cost._ledger.get().record("GetItem", {"Item": {}}, 0.0)),
                          range(20)))
    assert ledger.requests == 20
    assert cost._ledger.get() is None
