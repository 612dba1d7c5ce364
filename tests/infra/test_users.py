"""Users in the template: the seed's Users table (UserId) with its email index projecting what the lookup answers,
no stream or TTL, and grants that are exactly the repository's calls (Query only on the index, no Scan)."""

from __future__ import annotations

from typing import Any

from tests.infra.test_stack import logical_id

TABLE = "UsersUsersTable"


def table_props(raw: dict[str, Any]) -> dict[str, Any]:
    return raw["Resources"][logical_id(raw, "AWS::DynamoDB::Table", TABLE)]["Properties"]


def test_users_table_is_keyed_by_user_id_with_the_email_index_projecting_the_join_date(dev):
    props = table_props(dev.merged)
    assert props["KeySchema"] == [{"AttributeName": "UserId", "KeyType": "HASH"}]
    assert props["GlobalSecondaryIndexes"] == [{
        "IndexName": "UsersEmailIndex",
        "KeySchema": [{"AttributeName": "Email", "KeyType": "HASH"}],
        # UserId (the table key) is always projected; JoinDate completes the answer; no OwnerId (markers are not in it)
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["JoinDate"]},
    }]
    assert sorted(props["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == [
        {"AttributeName": "Email", "AttributeType": "S"},
        {"AttributeName": "UserId", "AttributeType": "S"},
    ]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    # nothing expires and nothing consumes changes
    assert not {"TimeToLiveSpecification", "StreamSpecification", "LocalSecondaryIndexes", "TableName"} & set(props)


def test_the_api_function_knows_its_table_and_neither_cursor_key_nor_idempotency_table(dev):
    raw = dev.merged
    table = logical_id(raw, "AWS::DynamoDB::Table", TABLE)
    variables = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "UsersApiFunction")]["Properties"][
        "Environment"]["Variables"]
    assert variables["USERS_TABLE_NAME"] == {"Ref": table}
    # no list route (no cursor key) and no Idempotency-Key (a sign-up is idempotent by its user id)
    assert "CURSOR_SECRET_ARN" not in variables and "IDEMPOTENCY_TABLE_NAME" not in variables
