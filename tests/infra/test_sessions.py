"""Sessions in the template: the seed's table structure (SessionToken key, UserIndex on Username KEYS_ONLY, TTL on
`TTL`), no stream, the function's exact grants, and the session lifetime from the stack's configuration."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import pytest

from functions.sessions.schema import DEFAULT_LIFETIME_SECONDS, LIFETIME_ENV
from infra.domains.sessions import lifetime_seconds
from tests.infra.test_stack import keys, logical_id


def table_id(raw: dict[str, Any]) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", "SessionsSessionTable")


def test_sessions_are_keyed_by_token_listed_by_user_keys_only_and_expire_by_ttl(dev):
    props = dev.merged["Resources"][table_id(dev.merged)]["Properties"]
    assert keys(props["KeySchema"]) == [("SessionToken", "HASH")]
    (index,) = props["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "UserIndex"
    assert keys(index["KeySchema"]) == [("Username", "HASH")]
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert props["TimeToLiveSpecification"] == {"AttributeName": "TTL", "Enabled": True}
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert "StreamSpecification" not in props


def test_the_session_lifetime_reaches_the_api_function_from_the_stacks_configuration(dev):
    raw = dev.merged
    api = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "SessionsApiFunction")]["Properties"]
    assert api["Environment"]["Variables"][LIFETIME_ENV] == str(DEFAULT_LIFETIME_SECONDS) == str(7 * 24 * 3600)


def test_the_session_lifetime_is_a_context_setting_within_bounds():
    assert lifetime_seconds(cdk.Stack(cdk.App(context={"sessionLifetimeSeconds": "600"}), "S")) == 600
    with pytest.raises(ValueError, match="sessionLifetimeSeconds"):
        lifetime_seconds(cdk.Stack(cdk.App(context={"sessionLifetimeSeconds": "5"}), "S"))
