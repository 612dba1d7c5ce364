"""Ecommerce in the template: the seed's single table (PK, SK) with GSI1 (GSI1PK, GSI1SK, all attributes), no stream
or TTL, the cursor key and idempotency table wired in, and grants that are exactly the repository's calls."""

from __future__ import annotations

from typing import Any

from tests.infra.test_stack import logical_id

TABLE = "EcommerceEcommerceTable"


def table_props(raw: dict[str, Any]) -> dict[str, Any]:
    return raw["Resources"][logical_id(raw, "AWS::DynamoDB::Table", TABLE)]["Properties"]


def test_the_table_has_the_seeds_generic_keys_and_gsi1(dev):
    props = table_props(dev.merged)
    assert props["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]
    assert props["GlobalSecondaryIndexes"] == [{
        "IndexName": "GSI1",
        "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
        # the order detail page shows every attribute of the order and its items
        "Projection": {"ProjectionType": "ALL"},
    }]
    assert sorted(props["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == [
        {"AttributeName": name, "AttributeType": "S"} for name in ("GSI1PK", "GSI1SK", "PK", "SK")
    ]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    # orders are kept: nothing expires, nothing consumes changes
    assert not {"TimeToLiveSpecification", "StreamSpecification", "LocalSecondaryIndexes", "TableName"} & set(props)


def test_the_api_function_knows_its_table_the_cursor_key_and_the_idempotency_table(dev):
    raw = dev.merged
    table = logical_id(raw, "AWS::DynamoDB::Table", TABLE)
    variables = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "EcommerceApiFunction")]["Properties"][
        "Environment"]["Variables"]
    assert variables["ECOMMERCE_TABLE_NAME"] == {"Ref": table}
    # the overview and the orders list sign cursors; a placed order takes an Idempotency-Key
    assert "CURSOR_SECRET_ARN" in variables and "IDEMPOTENCY_TABLE_NAME" in variables
