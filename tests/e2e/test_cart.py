"""Cart over HTTP on the local runtime: the example carts, carts filled concurrently, price changes reaching the
owners through the Prices stream, and carts aging out through TTL and the Carts stream."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import boto3
import pytest

from seeds import cart as seed
from tests.support.waiting import eventually

ADMIN = ("admin",)


@pytest.fixture(scope="module")
def dynamodb(runtime):
    return boto3.client("dynamodb", endpoint_url=runtime.aws_endpoint, region_name=runtime.region,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def table(runtime, construct_id: str) -> str:
    (name,) = [t.name for stack in runtime.stacks for logical_id, t in stack.tables.items()
               if logical_id.startswith(f"Cart{construct_id}")]
    return name


def ok(reply, status: int = 200):
    assert reply.status_code == status, reply.text
    return reply.json() if reply.content else None


def new_sku(api, price: str = "10.00") -> str:
    sku = f"E2E-{uuid.uuid4().hex[:10]}"
    ok(api.call("PUT", f"/cart/prices/{sku}", user="root", groups=ADMIN, json={"price": price}))
    return sku


def new_cart(api, user: str, lines: dict[str, int]) -> str:
    cart_id = ok(api.call("POST", "/cart/carts", user=user), 201)["cartId"]
    for sku, quantity in lines.items():
        ok(api.call("PUT", f"/cart/carts/{cart_id}/lines/{sku}", user=user, json={"quantity": quantity}))
    return cart_id


def test_the_example_carts_and_prices_are_served_to_their_owners_only(api):
    alice = ok(api.call("GET", f"/cart/carts/{seed.ALICE_CART}", user="alice"))
    assert {line["sku"]: line["quantity"] for line in alice["lines"]} == seed.CARTS[seed.ALICE_CART][1]
    assert alice["status"] == "OPEN" and alice["lineCount"] == 2
    assert api.call("GET", f"/cart/carts/{seed.ALICE_CART}", user="bob").status_code == 404
    bob = ok(api.call("GET", f"/cart/carts/{seed.BOB_CART}", user="bob"))
    assert {line["sku"] for line in bob["lines"]} == set(seed.CARTS[seed.BOB_CART][1])
    assert ok(api.call("GET", "/cart/prices/SKU-COFFEE", user="carol"))["price"] == "12.50"
    # my cart's prices: the current price of each of its SKUs, the cart's owner only
    prices = ok(api.call("GET", f"/cart/carts/{seed.ALICE_CART}/prices", user="alice"))
    assert {p["sku"]: p["price"] for p in prices} == {sku: f"{seed.PRICES[sku]:.2f}"
                                                      for sku in seed.CARTS[seed.ALICE_CART][1]}
    assert api.call("GET", f"/cart/carts/{seed.ALICE_CART}/prices", user="bob").status_code == 404
    assert api.call("GET", f"/cart/carts/{seed.ALICE_CART}", user=None).status_code == 401


def test_a_price_change_reaches_each_owner_holding_the_sku_once_through_the_stream(api, runtime):
    sku, other = new_sku(api), new_sku(api)
    alice_cart = new_cart(api, "alice", {sku: 1, other: 1})
    bob_cart = new_cart(api, "bob", {sku: 2})
    new_cart(api, "carol", {other: 1})
    assert runtime.streams.wait_idle(timeout=10)  # the holder index has caught up with the carts (seconds)

    ok(api.call("PUT", f"/cart/prices/{sku}", user="root", groups=ADMIN, json={"price": "7.50"}))

    def notified(user: str) -> list[dict]:
        return [n for n in ok(api.call("GET", "/cart/notifications", user=user))["items"] if n["sku"] == sku]

    (alice,) = eventually(lambda: notified("alice"))
    (bob,) = eventually(lambda: notified("bob"))
    assert (alice["oldPrice"], alice["newPrice"], alice["cartIds"]) == ("10.00", "7.50", [alice_cart])
    assert bob["cartIds"] == [bob_cart]
    assert runtime.streams.wait_idle(timeout=10)
    assert notified("carol") == [] and len(notified("alice")) == 1


def test_concurrent_line_changes_over_http_lose_nothing(api):
    skus = [new_sku(api, "1.00") for _ in range(12)]
    cart_id = new_cart(api, "dave", {})
    requests = skus + skus[:4]  # four of them twice, at the same time

    def put(sku: str) -> int:
        return api.call("PUT", f"/cart/carts/{cart_id}/lines/{sku}", user="dave", json={"quantity": 2}).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(put, requests))
    assert set(statuses) == {200}, statuses
    cart = ok(api.call("GET", f"/cart/carts/{cart_id}", user="dave"))
    assert {line["sku"]: line["quantity"] for line in cart["lines"]} == dict.fromkeys(skus, 2)
    assert cart["lineCount"] == len(skus)


def age(dynamodb, runtime, cart_id: str, seconds: int) -> int:
    """Idle time passing: the cart's expiry moved to `seconds` from now (what a week without changes does)."""
    expires_at = int(time.time()) + seconds
    dynamodb.update_item(TableName=table(runtime, "CartTable"), Key={"cartId": {"S": cart_id}},
                         UpdateExpression="SET expiresAt = :e", ExpressionAttributeValues={":e": {"N": str(expires_at)}})
    return expires_at


def stored(dynamodb, runtime, cart_id: str) -> bool:
    return "Item" in dynamodb.get_item(TableName=table(runtime, "CartTable"), ConsistentRead=True,
                                       Key={"cartId": {"S": cart_id}})


def test_an_idle_cart_expires_and_is_removed_by_ttl(api, runtime, dynamodb):
    sku = new_sku(api)
    cart_id = new_cart(api, "erin", {sku: 1})
    age(dynamodb, runtime, cart_id, 2)
    # served until its expiry, never after, whether or not the sweeper has removed it yet
    eventually(lambda: api.call("GET", f"/cart/carts/{cart_id}", user="erin").status_code == 404)
    assert api.call("PUT", f"/cart/carts/{cart_id}/lines/{sku}", user="erin", json={"quantity": 2}).status_code == 404
    # the sweeper removes the cart, its lines with it (one item)
    eventually(lambda: not stored(dynamodb, runtime, cart_id), timeout=15)
    assert runtime.streams.wait_idle(timeout=10)
    assert runtime.dlq_messages() == {arn: [] for arn in runtime.dlq_messages()}


def test_an_abandoned_cart_is_counted_on_its_expiry_day_after_ttl(api, runtime, dynamodb):
    sku = new_sku(api)
    cart_id = new_cart(api, "frank", {sku: 1})
    day = datetime.fromtimestamp(age(dynamodb, runtime, cart_id, 2), UTC).date().isoformat()
    before = ok(api.call("GET", f"/cart/abandoned?day={day}", user="root", groups=ADMIN))["abandonedCarts"]
    eventually(lambda: not stored(dynamodb, runtime, cart_id), timeout=15)
    assert runtime.streams.wait_idle(timeout=10)
    after = ok(api.call("GET", f"/cart/abandoned?day={day}", user="root", groups=ADMIN))["abandonedCarts"]
    assert after == before + 1
