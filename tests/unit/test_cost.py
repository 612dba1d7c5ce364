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


def test_an_explained_request_records_every_item_read_or_written_with_its_table_and_index(monkeypatch):
    monkeypatch.setenv("THINGS_TABLE_NAME", "t")
    with mock_aws():
        client = cost.instrument(boto3.client("dynamodb", region_name="us-east-1"))
        client.create_table(
            TableName="t", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}, {"AttributeName": "s", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("k", "s", "g")],
            GlobalSecondaryIndexes=[{"IndexName": "Gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        with cost.metered(explain=True) as ledger:
            client.put_item(TableName="t", Item={"k": {"S": "a"}, "s": {"S": "1"}, "g": {"S": "x"}})
            client.transact_write_items(TransactItems=[
                {"Put": {"TableName": "t", "Item": {"k": {"S": "a"}, "s": {"S": "2"}, "g": {"S": "x"}}}},
                {"ConditionCheck": {"TableName": "t", "Key": {"k": {"S": "a"}, "s": {"S": "1"}},
                                    "ConditionExpression": "attribute_exists(k)"}}])
            client.query(TableName="t", IndexName="Gsi", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": {"S": "x"}})
            client.batch_get_item(RequestItems={"t": {"Keys": [{"k": {"S": "a"}, "s": {"S": "2"}}]}})
            try:
                client.update_item(TableName="t", Key={"k": {"S": "b"}, "s": {"S": "1"}}, UpdateExpression="SET v = :v",
                                   ConditionExpression="attribute_exists(k)", ExpressionAttributeValues={":v": {"N": "1"}})
            except client.exceptions.ConditionalCheckFailedException:
                pass
        with cost.metered() as plain:
            client.get_item(TableName="t", Key={"k": {"S": "a"}, "s": {"S": "1"}})
    calls = json.loads(ledger.explanation())
    row = lambda action, item, index=None: {"table": "t", "tableVar": "THINGS_TABLE_NAME", "action": action,
                                            "item": item, **({"index": index} if index else {})}
    a1, a2 = ({"k": {"S": "a"}, "s": {"S": s}} for s in "12")
    assert calls == [
        {"op": "PutItem", "items": [row("put", {**a1, "g": {"S": "x"}})]},
        {"op": "TransactWriteItems", "items": [row("put", {**a2, "g": {"S": "x"}}), row("check", a1)]},
        {"op": "Query", "items": [row("read", {**a1, "g": {"S": "x"}}, "Gsi"), row("read", {**a2, "g": {"S": "x"}}, "Gsi")]},
        {"op": "BatchGetItem", "items": [row("read", {**a2, "g": {"S": "x"}})]},
        {"op": "UpdateItem", "items": [row("update", {"k": {"S": "b"}, "s": {"S": "1"}})],
         "error": "ConditionalCheckFailedException"},
    ]
    assert plain.calls is None  # not asked: nothing kept


def test_an_explanation_leaves_out_items_beyond_its_limit_and_says_how_many():
    ledger = cost.Ledger(calls=[{"op": "Query", "items": [{"table": "t", "item": {"k": {"S": "x" * 100}}}] * 10}])
    calls = json.loads(ledger.explanation(limit=600))
    assert 1 <= len(calls[0]["items"]) < 10
    assert calls[-1] == {"truncated": 10 - len(calls[0]["items"])}
    assert len(ledger.explanation(limit=600)) <= 600
    many = cost.Ledger(calls=[{"op": "GetItem", "items": []}] * 1000)  # calls count too, not only their items
    assert len(many.explanation(limit=600)) <= 600 and json.loads(many.explanation(limit=600))[-1]["truncated"] > 0


def test_only_a_stage_that_allows_it_explains_a_request(monkeypatch):
    monkeypatch.delenv(cost.EXPLAIN_ENV, raising=False)
    assert not cost.explaining_allowed()
    monkeypatch.setenv(cost.EXPLAIN_ENV, "items")
    assert cost.explaining_allowed()


def test_a_request_is_explained_only_when_an_admin_asks_on_a_stage_that_allows_it(monkeypatch):
    from functions.shared.http import _asks_to_explain
    from tests.support.events import rest_event

    def event(groups: str | None, asked: bool = True) -> dict:
        claims = {"sub": "u1", **({"cognito:groups": groups} if groups is not None else {})}
        built = rest_event("GET", "/x", resource="/x", claims=claims)
        if asked:
            built["headers"][cost.EXPLAIN_REQUEST_HEADER.lower()] = "items"
        return built

    monkeypatch.delenv(cost.EXPLAIN_ENV, raising=False)
    assert not _asks_to_explain(event("admin"))  # prod: never
    monkeypatch.setenv(cost.EXPLAIN_ENV, "items")
    assert _asks_to_explain(event("admin"))
    assert not _asks_to_explain(event("admin", asked=False))
    assert not _asks_to_explain(event(None)) and not _asks_to_explain(event("vehicle"))  # a caller who is no admin


def test_the_items_header_goes_where_the_answer_keeps_its_headers():
    from functions.shared.http import _bill

    ledger = cost.Ledger(calls=[{"op": "GetItem", "items": []}])
    single = {"statusCode": 200, "headers": {"Content-Type": "application/json"}}
    multi = {"statusCode": 200, "multiValueHeaders": {"Content-Type": ["application/json"]}}
    _bill(single, ledger)
    _bill(multi, ledger)
    assert single["headers"][cost.EXPLAIN_RESPONSE_HEADER] == '[{"op":"GetItem","items":[]}]'
    assert multi["multiValueHeaders"][cost.EXPLAIN_RESPONSE_HEADER] == ['[{"op":"GetItem","items":[]}]']
    plain = {"statusCode": 200, "headers": {}}
    _bill(plain, cost.Ledger())
    assert cost.EXPLAIN_RESPONSE_HEADER not in plain["headers"] and "Server-Timing" in plain["headers"]
