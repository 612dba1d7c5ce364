"""Cart (seed 002, "Data Modeling Exercise #1"): four tables, the API function, the price notifier and the
abandoned-carts consumer, routes and grants."""

from __future__ import annotations

from aws_cdk import Duration
from constructs import Construct

from functions.cart.routes import ROUTES
from functions.cart.schema import (
    CART_TABLE,
    CARTS_BY_SKU_INDEX,
    DEFAULT_IDLE_TTL_SECONDS,
    HEADER_SK,
    IDLE_TTL_ENV,
    NOTIFICATION_TABLE,
    PRICE_TABLE,
    STATS_TABLE,
    TABLES,
)
from infra.constructs.api_domain import ApiDomain, Consumer, Grant, SharedInfra

# Exactly what functions/cart/repository.py calls for the API, table by table (the functional suite fails on a
# missing or unused grant).
GRANTS = [
    # create (Put), get (Query), line and checkout changes (Update), line removal and clear (Delete)
    Grant(CART_TABLE, ("Query", "PutItem", "UpdateItem", "DeleteItem")),
    # a line needs a priced SKU (ConditionCheck); set (Update) and read (Get) prices
    Grant(PRICE_TABLE, ("GetItem", "UpdateItem", "ConditionCheckItem")),
    Grant(NOTIFICATION_TABLE, ("Query",)),
    Grant(STATS_TABLE, ("GetItem",)),
]

# Lambda event filtering (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html) drops, before
# any invocation, the records a consumer's code ignores; each consumer still checks them itself. DynamoDB values are
# matched in their typed form ({"S": [...]}: "Using event filtering with a DynamoDB event source").
# The notifier acts on MODIFY only: a first price (INSERT) is in no cart, no route deletes a price (REMOVE). A MODIFY
# that leaves amount and currency as they were still reaches it: a filter cannot compare the old and new images.
PRICE_CHANGES = {"eventName": ["MODIFY"]}
# The abandoned-carts consumer acts on a header's REMOVE only: every line write and the header's INSERT and MODIFY
# (every cart change refreshes it) are dropped. Every header REMOVE passes, TTL's or not: any removed header's lines
# must go; only TTL's (userIdentity, checked by the consumer) count as abandoned.
HEADER_REMOVALS = {"eventName": ["REMOVE"], "dynamodb": {"Keys": {"sk": {"S": [HEADER_SK]}}}}

# Price changes → the carts holding the SKU (CartsBySkuIndex) → one notification per owner and price version.
PRICE_NOTIFIER = Consumer(
    "PriceNotifier",
    module="price_notifier",
    source=PRICE_TABLE,
    grants=(
        Grant(CART_TABLE, ("BatchGetItem",), indexes=(CARTS_BY_SKU_INDEX,)),
        # markers read first (BatchGet), then each owner's marker and notification in one transaction
        Grant(NOTIFICATION_TABLE, ("BatchGetItem", "PutItem", "UpdateItem")),
    ),
    # One record can fan out to many owners: few records per batch, more time per batch.
    batch_size=10,
    timeout=Duration.seconds(120),
    max_record_age=Duration.hours(6),
    filters=(PRICE_CHANGES,),
)

# TTL removals of cart headers → their lines deleted, abandoned carts counted per day.
ABANDONED_CARTS = Consumer(
    "AbandonedCarts",
    module="abandoned_carts",
    source=CART_TABLE,
    grants=(
        Grant(CART_TABLE, ("Query", "BatchWriteItem")),
        Grant(STATS_TABLE, ("PutItem", "UpdateItem")),
    ),
    batch_size=100,
    max_record_age=Duration.hours(6),
    filters=(HEADER_REMOVALS,),
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
        tables=TABLES, routes=ROUTES, grants=GRANTS, consumers=[PRICE_NOTIFIER, ABANDONED_CARTS],
        environment={IDLE_TTL_ENV: str(idle_ttl_seconds(scope))},
    )
