"""Messaging in the template: the Messages table, its header-only Inbox and Outbox GSIs, the API's routes and its
exact grants (no Query on the table, nothing but Query on the indexes)."""

from __future__ import annotations

import inspect
import re
from typing import Any

from functions.messaging.api import app as messaging_app
from functions.messaging.schema import HEADER_ATTRIBUTES, TABLES
from infra.domains.messaging import DOMAIN
from tests.infra.test_stack import function_policy, logical_id, resources


def messages_table(raw: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    table = logical_id(raw, "AWS::DynamoDB::Table", "MessagingMessagesTable")
    return table, raw["Resources"][table]["Properties"]


def test_messages_is_keyed_by_msg_id_on_demand_with_pitr_and_no_stream_or_ttl(dev):
    assert [spec.construct_id for spec in TABLES] == ["MessagesTable"]
    _, props = messages_table(dev.merged)
    assert [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]] == [("MsgId", "HASH")]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert not {"StreamSpecification", "TimeToLiveSpecification", "LocalSecondaryIndexes"} & set(props)
    assert sorted((a["AttributeName"], a["AttributeType"]) for a in props["AttributeDefinitions"]) == [
        ("Date", "S"), ("MsgId", "S"), ("Recipient", "S"), ("Sender", "S"),
    ]


def test_inbox_and_outbox_project_only_the_headers_never_the_body(dev):
    _, props = messages_table(dev.merged)
    indexes = {gsi["IndexName"]: gsi for gsi in props["GlobalSecondaryIndexes"]}
    assert {name: [(k["AttributeName"], k["KeyType"]) for k in gsi["KeySchema"]] for name, gsi in indexes.items()} == {
        "Inbox": [("Recipient", "HASH"), ("Date", "RANGE")],
        "Outbox": [("Sender", "HASH"), ("Date", "RANGE")],
    }
    assert indexes["Inbox"]["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Sender", "Subject"]}
    assert indexes["Outbox"]["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Recipient", "Subject"]}
    for gsi in indexes.values():
        # What an index item holds: its keys, the table's key, the included attributes: exactly the headers
        keys = {k["AttributeName"] for k in gsi["KeySchema"]} | {"MsgId"}
        included = set(gsi["Projection"]["NonKeyAttributes"])
        assert not keys & included  # DynamoDB refuses an index's own keys in NonKeyAttributes
        assert keys | included == set(HEADER_ATTRIBUTES)


def test_the_api_function_may_get_and_put_messages_and_query_only_the_two_indexes(dev):
    raw = dev.merged
    table, _ = messages_table(raw)
    arn = {"Fn::GetAtt": [table, "Arn"]}
    on_messages = [s for s in function_policy(raw, "MessagingApiRole") if table in repr(s["Resource"])]
    assert on_messages == [
        {"Action": ["dynamodb:GetItem", "dynamodb:PutItem"], "Effect": "Allow", "Resource": arn},
        {"Action": "dynamodb:Query", "Effect": "Allow", "Resource": [
            {"Fn::Join": ["", [arn, f"/index/{name}"]]} for name in ("Inbox", "Outbox")
        ]},
    ]


def test_the_api_function_reads_its_table_the_cursor_key_and_the_idempotency_table(dev):
    raw = dev.merged
    table, _ = messages_table(raw)
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "MessagingApiFunction")]["Properties"]
    assert function["Handler"] == "functions.messaging.api.lambda_handler"
    variables = function["Environment"]["Variables"]
    assert variables["MESSAGING_MESSAGES_TABLE_NAME"] == {"Ref": table}
    assert {"CURSOR_SECRET_ARN", "IDEMPOTENCY_TABLE_NAME"} <= set(variables)


def _shape(path: str) -> str:
    return re.sub(r"[<{][^>}]+[>}]", "{}", path)


def test_every_route_needs_a_signed_in_caller_and_the_paged_ones_take_a_cursor(dev):
    raw = dev.merged
    methods = {
        (m["Properties"]["HttpMethod"], m["Properties"]["AuthorizationType"])
        for key, m in resources(raw, "AWS::ApiGateway::Method").items() if key.startswith("Messaging")
    }
    assert methods == {("POST", "COGNITO_USER_POOLS"), ("GET", "COGNITO_USER_POOLS")}
    served = messaging_app._static_routes + messaging_app._dynamic_routes
    assert {(r.method, _shape(r.path)) for r in served} == {(r.method, _shape(r.path)) for r in DOMAIN.routes}
    with_cursor = {(r.method, _shape(r.path)) for r in served if "cursor" in inspect.signature(r.func).parameters}
    # the lists functions/messaging/domain.toml declares paged (the inbox and the outbox) take a cursor, no other
    paged = {(r.method, _shape(r.path)) for r in DOMAIN.routes if r.paged}
    assert with_cursor == paged and len(paged) == 2 and {method for method, _ in paged} == {"GET"}
