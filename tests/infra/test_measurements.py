"""Measurements in the template: DeviceMeasurements keyed by device and bin (a number), TTL on expiresAt, no index or
stream, and the API function's exact grants."""

from __future__ import annotations

from typing import Any

from tests.infra.test_stack import function_policy, logical_id


def table_id(raw: dict[str, Any]) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", "MeasurementsDeviceMeasurementsTable")


def test_device_measurements_is_keyed_by_device_and_numeric_bin_and_expires_by_ttl(dev):
    raw = dev.merged
    props = raw["Resources"][table_id(raw)]["Properties"]
    assert [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]] == [("DeviceId", "HASH"), ("bin", "RANGE")]
    # a number: BETWEEN on bins compares epoch milliseconds (epoch seconds in a bin of the layout before), not strings
    assert {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]} == {"DeviceId": "S", "bin": "N"}
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert not {"GlobalSecondaryIndexes", "LocalSecondaryIndexes", "StreamSpecification"} & set(props)


def test_the_api_function_may_update_and_query_the_table_and_nothing_else_on_it(dev):
    raw = dev.merged
    table = table_id(raw)
    statements = [s for s in function_policy(raw, "MeasurementsApiRole")
                  if any(a.startswith("dynamodb:") for a in _actions(s))]
    (statement,) = statements
    assert sorted(_actions(statement)) == ["dynamodb:Query", "dynamodb:UpdateItem"]
    assert statement["Resource"] == {"Fn::GetAtt": [table, "Arn"]}  # the table only: it has no index


def test_the_api_function_knows_its_table_and_the_cursor_key_but_no_idempotency_table(dev):
    raw = dev.merged
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "MeasurementsApiFunction")]
    variables = function["Properties"]["Environment"]["Variables"]
    assert variables["DEVICE_MEASUREMENTS_TABLE_NAME"] == {"Ref": table_id(raw)}
    assert "CURSOR_SECRET_ARN" in variables  # the readings list is paged
    assert "IDEMPOTENCY_TABLE_NAME" not in variables  # a repeated ingest is harmless by construction


def _actions(statement: dict[str, Any]) -> list[str]:
    actions = statement["Action"]
    return actions if isinstance(actions, list) else [actions]
