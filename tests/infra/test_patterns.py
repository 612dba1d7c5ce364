"""Patterns in the template: one table (`PK`, `SK`) with the overloaded GSI1 and the sparse GSI2, the routes the
function serves, and the API function's exact grants."""

from __future__ import annotations

from typing import Any

from functions.patterns.api import app as patterns_app
from infra.domains.patterns import DOMAIN
from tests.infra.test_stack import (
    assert_served_behind_a_token,
    keys,
    logical_id,
    template_routes,
)


def table_id(raw: dict[str, Any]) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", "PatternsPatternsTable")


def test_one_table_with_generic_keys_and_two_all_projected_indexes(dev):
    props = dev.merged["Resources"][table_id(dev.merged)]["Properties"]
    assert keys(props["KeySchema"]) == [("PK", "HASH"), ("SK", "RANGE")]
    indexes = {index["IndexName"]: index for index in props["GlobalSecondaryIndexes"]}
    assert set(indexes) == {"GSI1", "GSI2"}
    assert keys(indexes["GSI1"]["KeySchema"]) == [("GSI1PK", "HASH"), ("GSI1SK", "RANGE")]
    assert keys(indexes["GSI2"]["KeySchema"]) == [("GSI2PK", "HASH"), ("GSI2SK", "RANGE")]
    # Whole issues, users and orders are answered from the indexes: no second read per item
    assert all(index["Projection"] == {"ProjectionType": "ALL"} for index in indexes.values())
    assert sorted((a["AttributeName"], a["AttributeType"]) for a in props["AttributeDefinitions"]) == [
        ("GSI1PK", "S"), ("GSI1SK", "S"), ("GSI2PK", "S"), ("GSI2SK", "S"), ("PK", "S"), ("SK", "S"),
    ]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert not {"StreamSpecification", "TimeToLiveSpecification", "LocalSecondaryIndexes"} & set(props)


def test_the_function_knows_its_table_the_cursor_key_and_the_idempotency_table(dev):
    raw = dev.merged
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "PatternsApiFunction")]["Properties"]
    variables = function["Environment"]["Variables"]
    assert variables["PATTERNS_TABLE_NAME"] == {"Ref": table_id(raw)}
    assert "CURSOR_SECRET_ARN" in variables and "IDEMPOTENCY_TABLE_NAME" in variables  # issue creates are keyed
    assert function["Handler"] == "functions.patterns.api.lambda_handler"


def test_routes_are_the_ones_the_function_serves_and_all_need_a_token(dev):
    routes = {(m, p) for m, p in template_routes(dev.merged) if p.startswith("/patterns/")}
    assert routes == {(r.method, r.path) for r in DOMAIN.routes}
    assert_served_behind_a_token(dev.merged, routes, patterns_app)
