"""The request's DynamoDB bill (functions/shared/cost.py): what every call asks for, how responses add up, the header."""

from __future__ import annotations

import contextvars
import json
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
from botocore.exceptions import ClientError
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
    explained = json.loads(ledger.explanation())
    # the items (the bill of each call is checked in test_every_call_has_a_line_of_the_bill_with_its_rule)
    calls = [{"op": c["op"], "items": [{k: v for k, v in i.items() if k not in ("name", "size", "set")}
                                       for i in c["items"]], **({"error": c["error"]} if "error" in c else {})}
             for c in explained]
    row = lambda action, item, index=None: {"table": "t", "tableVar": "THINGS_TABLE_NAME", "action": action,
                                            "item": item, **({"index": index} if index else {})}
    a1, a2 = ({"k": {"S": "a"}, "s": {"S": s}} for s in "12")
    assert explained[-1]["items"][0]["set"] == {"v": {"N": "1"}}  # what the refused update would have set
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


def test_a_refused_write_is_a_request_with_no_units_as_dynamodb_answers_it():
    # DynamoDB bills a refused conditional write, but its ConditionalCheckFailedException carries no ConsumedCapacity
    # (the developer guide: "you don't receive any information in the response about the write capacity that was
    # consumed"): the header shows what the answer shows. local/dynamodb/capacity.py counts the units where AWS does.
    with mock_aws():
        client = cost.instrument(boto3.client("dynamodb", region_name="us-east-1"))
        client.create_table(TableName="t", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        client.put_item(TableName="t", Item={"k": {"S": "a"}, "v": {"S": "x" * 1500}})
        with cost.metered() as ledger, pytest.raises(ClientError):
            client.put_item(TableName="t", Item={"k": {"S": "a"}}, ConditionExpression="attribute_not_exists(k)")
    assert (ledger.requests, ledger.read_units, ledger.write_units) == (1, 0.0, 0.0)


def test_every_call_has_a_line_of_the_bill_with_its_rule(monkeypatch):
    monkeypatch.setenv("THINGS_TABLE_NAME", "physical-things-AB12CD")
    cost.name_table("physical-things-AB12CD", "Things")
    with mock_aws():
        client = cost.instrument(boto3.client("dynamodb", region_name="us-east-1"))
        client.create_table(TableName="physical-things-AB12CD", BillingMode="PAY_PER_REQUEST",
                            KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
        for key in "abc":
            client.put_item(TableName="physical-things-AB12CD", Item={"k": {"S": key}, "v": {"S": "x" * 400}})
        with cost.metered(explain=True) as ledger:
            client.query(TableName="physical-things-AB12CD", KeyConditionExpression="k = :k",
                         ExpressionAttributeValues={":k": {"S": "a"}})
            client.get_item(TableName="physical-things-AB12CD", Key={"k": {"S": "b"}}, ConsistentRead=True)
            client.transact_write_items(TransactItems=[{"Update": {
                "TableName": "physical-things-AB12CD", "Key": {"k": {"S": "c"}},
                "UpdateExpression": "SET #n = :n, #c = if_not_exists(#c, :zero) + :one REMOVE stale",
                "ExpressionAttributeNames": {"#n": "name", "#c": "count"},
                "ExpressionAttributeValues": {":n": {"S": "Ann"}, ":zero": {"N": "0"}, ":one": {"N": "1"}}}}])
    query, get, transaction = json.loads(ledger.explanation())
    # Then each call is one line: its table by its logical name, the items, their sizes, the consistency, the rule
    assert (query["tables"], query["count"], query["bytes"], query["consistent"]) == (["Things"], 1, 403, False)
    assert query["rule"] == "1 item, 403 B → 1 × 4 KB × ½ = 0.5 RCU"
    assert get["consistent"] is True and get["rule"] == "1 item, 403 B → 1 × 4 KB = 1 RCU"
    assert query["items"][0]["name"] == "Things" and query["items"][0]["size"] == 403
    # and an update inside a transaction shows what it sets, names and values written out
    assert transaction["items"][0]["set"] == {"name": {"S": "Ann"}, "count": {"expr": "if_not_exists(count, 0) + 1"},
                                              "stale": {"expr": "REMOVE"}}
    assert transaction["rule"].startswith("1 item, ") and "× 2 (transaction)" in transaction["rule"]
    assert all(call["ms"] >= 0 and call["at"] >= 0 for call in (query, get, transaction))
    # and a caller who may not see the items gets the bill without their attributes
    bill_only = json.loads(ledger.explanation(contents=False))
    assert [item.keys() & {"item", "set"} for call in bill_only for item in call["items"]] == [set(), set(), set()]
    assert [call["rule"] for call in bill_only] == [call["rule"] for call in (query, get, transaction)]


def test_a_read_rule_rounds_a_query_in_total_and_a_batch_per_item():
    assert cost.read_rule("Query", [400, 400, 430], consistent=False) == "3 items, 1.2 KB → 1 × 4 KB × ½ = 0.5 RCU"
    assert cost.read_rule("Query", [], consistent=True) == "0 items, 0 B → 1 × 4 KB = 1 RCU"  # the minimum
    assert cost.read_rule("BatchGetItem", [400, 5000], consistent=False) == (
        "2 items, 5.3 KB, each rounded up → 3 × 4 KB × ½ = 1.5 RCU")
    assert cost.write_rule("PutItem", [1500], reported=2.0) == "1 item, 1.5 KB → 2 × 1 KB = 2 WCU"


def test_a_refused_write_is_estimated_from_the_stored_item_apart_from_what_dynamodb_reported():
    # DynamoDB bills the refused write by the larger of the stored and the attempted item, at least one unit, and its
    # answer carries no capacity: the ledger counts it apart, estimated from the item ALL_OLD returns
    with mock_aws():
        client = cost.instrument(boto3.client("dynamodb", region_name="us-east-1"))
        client.create_table(TableName="t", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        client.put_item(TableName="t", Item={"k": {"S": "a"}, "v": {"S": "x" * 2500}})
        with cost.metered(explain=True) as ledger, pytest.raises(ClientError):
            client.put_item(TableName="t", Item={"k": {"S": "a"}}, ConditionExpression="attribute_not_exists(k)",
                            ReturnValuesOnConditionCheckFailure="ALL_OLD")
        with cost.metered() as blind, pytest.raises(ClientError):  # no ALL_OLD: the attempted item only
            client.put_item(TableName="t", Item={"k": {"S": "a"}}, ConditionExpression="attribute_not_exists(k)")
    assert (ledger.write_units, ledger.refused, ledger.estimated_write_units) == (0.0, 1, 3.0)  # 2,501 B stored
    assert ledger.server_timing().startswith("ddb;dur=") and 'wcu=0 refused=1 wcu_est=3"' in ledger.server_timing()
    (call,) = json.loads(ledger.explanation())
    assert call["refused"]["wcu"] == 3.0 and call["refused"]["estimated"] is True
    assert call["rule"].startswith("refused: larger of stored 2.4 KB and attempted 2 B → 3 × 1 KB = 3 WCU")
    assert (blind.refused, blind.estimated_write_units) == (1, 1.0)


def test_parallel_calls_show_their_wall_time_beside_their_sum():
    ledger = cost.Ledger()
    for _ in range(3):  # three calls of 10 ms over the same 10 ms
        ledger.record("Query", {}, 0.010, end=100.0)
    ledger.record("GetItem", {}, 0.005, end=100.020)
    assert ledger.seconds == pytest.approx(0.035) and ledger.wall_seconds == pytest.approx(0.015)
    assert ledger.server_timing() == 'ddb;dur=35.0;desc="requests=4 items=0 rcu=0 wcu=0 wall=15.0"'


def test_the_bill_per_call_is_for_any_signed_in_caller_who_asks_on_a_stage_that_allows_it(monkeypatch):
    from functions.shared.http import _asks_for_bill
    from tests.support.events import rest_event

    def event(claims: dict | None, asked: bool = True) -> dict:
        built = rest_event("GET", "/x", resource="/x", claims=claims)
        if asked:
            built["headers"][cost.EXPLAIN_REQUEST_HEADER.lower()] = "items"
        return built

    monkeypatch.delenv(cost.EXPLAIN_ENV, raising=False)
    assert not _asks_for_bill(event({"sub": "u1"}))  # prod: never
    monkeypatch.setenv(cost.EXPLAIN_ENV, "items")
    assert _asks_for_bill(event({"sub": "u1"})) and not _asks_for_bill(event({"sub": "u1"}, asked=False))
    assert not _asks_for_bill(event(None))
