"""Cart in the template: the Carts table (one item per cart, TTL, both images streamed, no index), the holder index
(`<sku>#<n>` + cartId, TTL), Prices (streamed with both images), notifications and stats, the two consumers'
mappings (and the records their filters let through), and the idle TTL from the stack's configuration."""

from __future__ import annotations

import json
from typing import Any

import aws_cdk as cdk
import pytest

from functions.cart.schema import DEFAULT_IDLE_TTL_SECONDS, IDLE_TTL_ENV
from infra.domains.cart import idle_ttl_seconds
from tests.infra.test_stack import keys, logical_id, resources


def table(raw: dict[str, Any], construct_id: str) -> dict[str, Any]:
    return raw["Resources"][logical_id(raw, "AWS::DynamoDB::Table", f"Cart{construct_id}")]["Properties"]


def test_a_cart_is_one_item_expiring_by_ttl_its_changes_streamed_with_both_images(dev):
    props = table(dev.merged, "CartTable")
    assert keys(props["KeySchema"]) == [("cartId", "HASH")]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert props["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert "GlobalSecondaryIndexes" not in props


def test_the_holder_index_is_a_table_keyed_by_sku_shard_and_cart_aging_out_by_ttl(dev):
    props = table(dev.merged, "HolderTable")
    assert keys(props["KeySchema"]) == [("holder", "HASH"), ("cartId", "RANGE")]
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    assert not {"GlobalSecondaryIndexes", "StreamSpecification"} & set(props)


def test_prices_stream_both_images_and_notifications_and_stats_are_keyed_reads(dev):
    raw = dev.merged
    prices = table(raw, "PriceTable")
    assert keys(prices["KeySchema"]) == [("sku", "HASH")]
    assert prices["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    notes = table(raw, "NotificationTable")
    assert keys(notes["KeySchema"]) == [("owner", "HASH"), ("sk", "RANGE")]
    assert not {"GlobalSecondaryIndexes", "StreamSpecification", "TimeToLiveSpecification"} & set(notes)
    stats = table(raw, "StatsTable")
    assert keys(stats["KeySchema"]) == [("pk", "HASH")]
    assert stats["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}


@pytest.mark.parametrize(("consumer", "source", "batch", "timeout"), [
    ("CartPriceNotifierConsumerFunction", "PriceTable", 10, 120),
    ("CartAbandonedCartsConsumerFunction", "CartTable", 100, 30),
])
def test_consumers_read_their_streams_with_bounded_retries_bisect_max_age_and_a_dlq(dev, consumer, source, batch,
                                                                                    timeout):
    raw = dev.merged
    function = logical_id(raw, "AWS::Lambda::Function", consumer)
    (mapping,) = [m for m in resources(raw, "AWS::Lambda::EventSourceMapping").values()
                  if m["Properties"]["FunctionName"] == {"Ref": function}]
    props = mapping["Properties"]
    assert props["EventSourceArn"] == {
        "Fn::GetAtt": [logical_id(raw, "AWS::DynamoDB::Table", f"Cart{source}"), "StreamArn"]}
    assert (props["BatchSize"], props["MaximumRetryAttempts"], props["MaximumRecordAgeInSeconds"]) == (
        batch, 5, 6 * 3600)
    assert props["BisectBatchOnFunctionError"] is True
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert "OnFailure" in props["DestinationConfig"]
    assert raw["Resources"][function]["Properties"]["Timeout"] == timeout


def test_each_cart_consumer_is_sent_only_the_records_its_code_acts_on(dev):
    raw = dev.merged
    patterns = {}
    for mapping in resources(raw, "AWS::Lambda::EventSourceMapping").values():
        function = mapping["Properties"]["FunctionName"]["Ref"]
        filters = mapping["Properties"].get("FilterCriteria", {"Filters": []})["Filters"]
        patterns[function] = [json.loads(f["Pattern"]) for f in filters]
    notifier = logical_id(raw, "AWS::Lambda::Function", "CartPriceNotifierConsumerFunction")
    abandoned = logical_id(raw, "AWS::Lambda::Function", "CartAbandonedCartsConsumerFunction")
    # Price changes only: a first price or a removed one is dropped before any invocation
    assert patterns.pop(notifier) == [{"eventName": ["MODIFY"]}]
    # A cart's REMOVE (TTL's or anyone's), and an open cart's writes (the holder index), in DynamoDB's typed form
    assert patterns.pop(abandoned) == [
        {"eventName": ["REMOVE"]},
        {"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"status": {"S": ["OPEN"]}}}},
    ]


def test_the_idle_ttl_reaches_the_api_function_from_the_stacks_configuration(dev):
    raw = dev.merged
    api = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "CartApiFunction")]["Properties"]
    assert api["Environment"]["Variables"][IDLE_TTL_ENV] == str(DEFAULT_IDLE_TTL_SECONDS) == str(7 * 24 * 3600)


def test_the_idle_ttl_is_a_context_setting_within_bounds():
    app = cdk.App(context={"cartIdleTtlSeconds": "600"})
    assert idle_ttl_seconds(cdk.Stack(app, "S")) == 600
    with pytest.raises(ValueError, match="cartIdleTtlSeconds"):
        idle_ttl_seconds(cdk.Stack(cdk.App(context={"cartIdleTtlSeconds": "5"}), "S"))
