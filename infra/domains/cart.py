"""Cart (seed 002, "Data Modeling Exercise #1"): five tables, the API function, the price notifier and the Carts
stream's consumer (abandoned carts, the holder index), routes and grants
(docs/adr/0107-cart-one-item-holders-from-the-stream.md)."""

from __future__ import annotations

from aws_cdk import Duration
from constructs import Construct

from functions.cart.schema import (
    CART_TABLE,
    DEFAULT_IDLE_TTL_SECONDS,
    HOLDER_TABLE,
    IDLE_TTL_ENV,
    NOTIFICATION_TABLE,
    OPEN,
    PRICE_TABLE,
    STATS_TABLE,
    TABLES,
)
from functions.shared.domain import load
from infra.constructs.api_domain import ApiDomain, Consumer, Grant, SharedInfra, pattern_grants

# The domain as functions/cart/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("cart")


# Lambda event filtering (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html) drops, before
# any invocation, the records a consumer's code ignores; each consumer still checks them itself. DynamoDB values are
# matched in their typed form ({"S": [...]}: "Using event filtering with a DynamoDB event source").
# The notifier acts on MODIFY only: a first price (INSERT) is in no cart, no route deletes a price (REMOVE). A MODIFY
# that leaves amount and currency as they were still reaches it: a filter cannot compare the old and new images.
PRICE_CHANGES = {"eventName": ["MODIFY"]}
# The Carts stream's consumer counts REMOVEs (every one passes, TTL's or not; only TTL's, by userIdentity, checked by
# the consumer, count as abandoned) and indexes an open cart's INSERT and MODIFY: a checked-out cart's writes are
# dropped (a checkout adds no SKU). A change of quantities still passes: a filter cannot compare old and new lines.
CART_REMOVALS = {"eventName": ["REMOVE"]}
OPEN_CART_WRITES = {"eventName": ["INSERT", "MODIFY"], "dynamodb": {"NewImage": {"status": {"S": [OPEN]}}}}

# Price changes -> the carts holding the SKU (CartHolders, then the carts) -> one notification per owner and version.
PRICE_NOTIFIER = Consumer(
    "PriceNotifier",
    module="price_notifier",
    source=PRICE_TABLE,
    grants=(
        Grant(HOLDER_TABLE, ("Query",)),
        Grant(CART_TABLE, ("BatchGetItem",)),
        # markers read first (BatchGet), then each owner's marker and notification in one transaction
        Grant(NOTIFICATION_TABLE, ("BatchGetItem", "PutItem", "UpdateItem")),
    ),
    # One record can fan out to many owners: few records per batch, more time per batch.
    batch_size=10,
    timeout=Duration.seconds(120),
    max_record_age=Duration.hours(6),
    filters=(PRICE_CHANGES,),
)

# The Carts stream's one reader (a stream shard takes two at most): TTL removals of carts -> abandoned carts counted
# per day; open carts' new SKUs -> CartHolders (`<sku>#<n>`), the index the price notifier reads.
ABANDONED_CARTS = Consumer(
    "AbandonedCarts",
    module="abandoned_carts",
    source=CART_TABLE,
    grants=(
        Grant(STATS_TABLE, ("PutItem", "UpdateItem")),
        Grant(HOLDER_TABLE, ("BatchWriteItem",)),
    ),
    batch_size=100,
    max_record_age=Duration.hours(6),  # a change's old holders outlive it by a day at least (holder_expiry)
    filters=(CART_REMOVALS, OPEN_CART_WRITES),
)


def idle_ttl_seconds(scope: Construct) -> int:
    """The idle TTL of a cart: `-c cartIdleTtlSeconds=…` (a stage can shorten it), else the default (7 days)."""
    seconds = int(scope.node.try_get_context("cartIdleTtlSeconds") or DEFAULT_IDLE_TTL_SECONDS)
    if not 60 <= seconds <= 365 * 24 * 3600:
        raise ValueError(f"cartIdleTtlSeconds must be 60..31536000, not {seconds}")
    return seconds


def cart(scope: Construct, shared: SharedInfra) -> ApiDomain:
    return ApiDomain(
        scope, "Cart", shared=shared, service="cart", package="functions.cart",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES),
        consumers=[PRICE_NOTIFIER, ABANDONED_CARTS],
        environment={IDLE_TTL_ENV: str(idle_ttl_seconds(scope))},
    )
