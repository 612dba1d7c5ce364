"""Order entry in the template: one table (`PK`, `SK`) with GSI1 on (`SK`, `Data`) and the write-sharded GSI2, the
shard count N computed from the seed's formula in the function's environment, the routes the function serves, and
the API function's exact grants."""

from __future__ import annotations

from typing import Any

from functions.order_entry.api import app as order_entry_app
from functions.order_entry.schema import SHARDS_ENV
from infra.domains.order_entry import DOMAIN
from tests.infra.test_stack import (
    assert_served_behind_a_token,
    keys,
    logical_id,
    template_routes,
)


def table_id(raw: dict[str, Any]) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", "OrderEntryOrderEntryTable")


def test_one_adjacency_list_table_whose_sort_key_is_gsi1s_partition_key(dev):
    props = dev.merged["Resources"][table_id(dev.merged)]["Properties"]
    assert keys(props["KeySchema"]) == [("PK", "HASH"), ("SK", "RANGE")]
    indexes = {index["IndexName"]: index for index in props["GlobalSecondaryIndexes"]}
    assert set(indexes) == {"GSI1", "GSI2"}
    assert keys(indexes["GSI1"]["KeySchema"]) == [("SK", "HASH"), ("Data", "RANGE")]  # the seed's inverted index
    assert keys(indexes["GSI2"]["KeySchema"]) == [("GSI2PK", "HASH"), ("GSI2SK", "RANGE")]
    assert all(index["Projection"] == {"ProjectionType": "ALL"} for index in indexes.values())
    assert sorted((a["AttributeName"], a["AttributeType"]) for a in props["AttributeDefinitions"]) == [
        ("Data", "S"), ("GSI2PK", "S"), ("GSI2SK", "S"), ("PK", "S"), ("SK", "S"),
    ]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert not {"StreamSpecification", "TimeToLiveSpecification", "LocalSecondaryIndexes"} & set(props)


def test_the_function_knows_its_table_its_shard_count_the_cursor_key_and_the_idempotency_table(dev):
    raw = dev.merged
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "OrderEntryApiFunction")]["Properties"]
    variables = function["Environment"]["Variables"]
    assert variables["ORDER_ENTRY_TABLE_NAME"] == {"Ref": table_id(raw)}
    assert variables[SHARDS_ENV] == "15"  # the seed's N = 13, padded
    assert "CURSOR_SECRET_ARN" in variables and "IDEMPOTENCY_TABLE_NAME" in variables
    assert function["Handler"] == "functions.order_entry.api.lambda_handler"


def test_routes_are_the_ones_the_function_serves_and_all_need_a_token(dev):
    routes = {(m, p) for m, p in template_routes(dev.merged) if p.startswith("/order-entry")}
    assert routes == {(r.method, r.path) for r in DOMAIN.routes}
    assert_served_behind_a_token(dev.merged, routes, order_entry_app)
