# ruff: noqa: F811 (pytest fixtures imported from cart_support are requested by name)
"""Cart API: handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from functions.cart import api
from functions.cart.repository import CartRepository
from functions.cart.schema import (
    CART_TABLE,
    CARTS_BY_SKU_INDEX,
    HEADER_SK,
    MAX_LINES,
    PRICE_TABLE,
    STATS_TABLE,
)
from functions.shared.errors import ThrottledError
from tests.functional.cart_support import (  # noqa: F401 (fixtures)
    ADMIN,
    IDLE,
    atomic_moto,
    client,
    clock,
    error,
    new_cart,
    ok,
    raw_item,
    raw_items,
    set_price,
    tables,
)

CARTS = "/cart/carts"


@pytest.fixture
def shop(client):
    """Three priced SKUs."""
    for sku, price in (("COFFEE", "12.50"), ("MUG", "8.00"), ("GRINDER", "49.90")):
        set_price(client, sku, price)
    return client


def lines_of(body) -> dict[str, int]:
    return {line["sku"]: line["quantity"] for line in body["lines"]}


def header(tables, cart_id):
    return raw_item(tables[CART_TABLE.env_var], {"cartId": cart_id, "sk": HEADER_SK})


# --- carts -----------------------------------------------------------------------------------------------

def test_a_user_creates_a_cart_fills_it_and_reads_it_back_in_one_query(shop, tables, clock, calls):
    created = ok(shop.call("POST", CARTS, user="alice"), 201)
    assert (created["owner"], created["status"], created["lines"], created["lineCount"]) == ("alice", "OPEN", [], 0)
    assert created["expiresAt"] == int((clock.now + IDLE).timestamp())
    cart_id = created["cartId"]
    ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/COFFEE", body={"quantity": 2}))
    filled = ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/MUG", body={"quantity": 1}))
    assert lines_of(filled) == {"COFFEE": 2, "MUG": 1} and filled["lineCount"] == 2
    # the header keeps the seed's set of SKUs
    assert header(tables, cart_id)["skus"] == {"COFFEE", "MUG"}
    calls.clear()
    got = ok(shop.call("GET", f"{CARTS}/{cart_id}"))
    assert got == filled
    assert calls.names() == ["Query"]
    (params, _), = calls.of("Query")
    assert params["TableName"] == tables[CART_TABLE.env_var] and "IndexName" not in params


def test_setting_a_line_sets_its_quantity_and_repeating_it_changes_nothing_else(shop, tables):
    cart_id = new_cart(shop, lines={"COFFEE": 2})
    again = ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/COFFEE", body={"quantity": 2}))
    assert lines_of(again) == {"COFFEE": 2} and again["lineCount"] == 1
    changed = ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/COFFEE", body={"quantity": 5}))
    assert lines_of(changed) == {"COFFEE": 5} and changed["lineCount"] == 1
    line = raw_item(tables[CART_TABLE.env_var], {"cartId": cart_id, "sk": "LINE#COFFEE"})
    assert (line["lineSku"], line["owner"], line["quantity"]) == ("COFFEE", "alice", 5)


def test_every_change_refreshes_the_idle_ttl(shop, tables, clock):
    cart_id = new_cart(shop)
    for method, path, body in (
        ("PUT", "lines/COFFEE", {"quantity": 1}),
        ("DELETE", "lines/COFFEE", None),
        ("PUT", "lines/MUG", {"quantity": 1}),
        ("DELETE", "lines", None),
        ("PUT", "lines/MUG", {"quantity": 3}),
        ("POST", "checkout", None),
    ):
        clock.advance(days=5)  # idle for less than the TTL each time: alive only because each change refreshed it
        reply = shop.call(method, f"{CARTS}/{cart_id}/{path}", body=body)
        assert reply.status in (200, 204), (method, path, reply.body)
        assert header(tables, cart_id)["expiresAt"] == int((clock.now + IDLE).timestamp())


def test_an_expired_cart_not_yet_removed_by_ttl_is_404_everywhere_and_unchanged(shop, tables, clock):
    cart_id = new_cart(shop, lines={"COFFEE": 1})
    clock.advance(seconds=IDLE.total_seconds() - 1)
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lineCount"] == 1
    clock.advance(seconds=1)  # expiresAt is now: expired, though TTL has not removed it
    before = header(tables, cart_id)
    assert before is not None
    for method, path, body in (
        ("GET", "", None),
        ("PUT", "/lines/MUG", {"quantity": 1}),
        ("DELETE", "/lines/COFFEE", None),
        ("DELETE", "/lines", None),
        ("POST", "/checkout", None),
    ):
        assert error(shop.call(method, f"{CARTS}/{cart_id}{path}", body=body)) == (404, "CART_NOT_FOUND"), path
    assert header(tables, cart_id) == before
    assert len(raw_items(tables[CART_TABLE.env_var])) == 2


def test_another_users_cart_is_404_for_every_route_and_unchanged(shop, tables):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1})
    before = raw_items(tables[CART_TABLE.env_var])
    for method, path, body in (
        ("GET", "", None),
        ("PUT", "/lines/MUG", {"quantity": 1}),
        ("DELETE", "/lines/COFFEE", None),
        ("DELETE", "/lines", None),
        ("POST", "/checkout", None),
    ):
        assert error(shop.call(method, f"{CARTS}/{cart_id}{path}", body=body, user="mallory")) == (
            404, "CART_NOT_FOUND"), path
    assert error(shop.call("GET", f"{CARTS}/{'f' * 32}")) == (404, "CART_NOT_FOUND")
    assert raw_items(tables[CART_TABLE.env_var]) == before


def test_only_priced_skus_go_in_a_cart(shop, tables):
    cart_id = new_cart(shop)
    assert error(shop.call("PUT", f"{CARTS}/{cart_id}/lines/UNPRICED", body={"quantity": 1})) == (404, "SKU_NOT_FOUND")
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lines"] == []
    assert "skus" not in header(tables, cart_id) and header(tables, cart_id)["version"] == 1


def test_a_cart_holds_at_most_max_lines_and_a_held_sku_can_still_change(client, tables):
    for n in range(MAX_LINES + 1):
        set_price(client, f"SKU-{n}", "1.00")
    cart_id = new_cart(client, lines={f"SKU-{n}": 1 for n in range(MAX_LINES)})
    full = client.call("PUT", f"{CARTS}/{cart_id}/lines/SKU-{MAX_LINES}", body={"quantity": 1})
    assert error(full) == (409, "CART_FULL")
    assert ok(client.call("PUT", f"{CARTS}/{cart_id}/lines/SKU-0", body={"quantity": 7}))["lineCount"] == MAX_LINES
    # a full cart clears and checks out in one transaction (header + 50 lines ≤ 100 actions)
    ok(client.call("POST", f"{CARTS}/{cart_id}/checkout"))
    assert all("lineSku" not in item for item in raw_items(tables[CART_TABLE.env_var]))


def test_remove_a_line_and_clear_a_cart_safe_to_repeat(shop, tables):
    cart_id = new_cart(shop, lines={"COFFEE": 1, "MUG": 2, "GRINDER": 1})
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines/MUG").status == 204
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines/MUG").status == 204
    assert lines_of(ok(shop.call("GET", f"{CARTS}/{cart_id}"))) == {"COFFEE": 1, "GRINDER": 1}
    assert header(tables, cart_id)["skus"] == {"COFFEE", "GRINDER"}
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines").status == 204
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines").status == 204
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lines"] == []
    assert [item["sk"] for item in raw_items(tables[CART_TABLE.env_var])] == [HEADER_SK]
    assert "skus" not in header(tables, cart_id)


def test_clear_reads_again_when_a_line_arrives_between_its_read_and_its_write(shop, tables, clock, monkeypatch):
    cart_id = new_cart(shop, lines={"COFFEE": 1})
    real_get = CartRepository.get_cart
    arrived = []

    def get_then_someone_adds(self, wanted):
        record = real_get(self, wanted)
        if not arrived:  # another request adds a line after our read
            arrived.append("MUG")
            expires = int((clock.now + IDLE).timestamp())
            self.set_line(cart_id, "alice", "MUG", 1, clock.now, expires)
        return record

    monkeypatch.setattr(CartRepository, "get_cart", get_then_someone_adds)
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines").status == 204
    monkeypatch.setattr(CartRepository, "get_cart", real_get)
    assert arrived and ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lines"] == []
    assert [item["sk"] for item in raw_items(tables[CART_TABLE.env_var])] == [HEADER_SK]  # no line left behind


def test_check_out_leaves_the_sku_index_refuses_changes_and_is_safe_to_repeat(shop, tables):
    cart_id = new_cart(shop, lines={"COFFEE": 1, "MUG": 2})
    out = ok(shop.call("POST", f"{CARTS}/{cart_id}/checkout"))
    assert out["status"] == "CHECKED_OUT" and lines_of(out) == {"COFFEE": 1, "MUG": 2}
    assert ok(shop.call("POST", f"{CARTS}/{cart_id}/checkout")) == out  # a retry answers the same
    lines = [item for item in raw_items(tables[CART_TABLE.env_var]) if item["sk"] != HEADER_SK]
    assert len(lines) == 2 and all("lineSku" not in line for line in lines)
    for method, path, body in (("PUT", "/lines/MUG", {"quantity": 1}), ("DELETE", "/lines/MUG", None),
                               ("DELETE", "/lines", None)):
        assert error(shop.call(method, f"{CARTS}/{cart_id}{path}", body=body)) == (409, "CART_CHECKED_OUT")
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}")) == out
    empty = new_cart(shop)
    assert error(shop.call("POST", f"{CARTS}/{empty}/checkout")) == (409, "CART_EMPTY")


def test_concurrent_line_changes_to_one_cart_lose_nothing(client, tables, monkeypatch):
    atomic_moto(monkeypatch)
    skus = [f"SKU-{n}" for n in range(24)]
    for sku in skus:
        set_price(client, sku, "2.00")
    cart_id = new_cart(client)

    def put(sku: str) -> int:
        return client.call("PUT", f"{CARTS}/{cart_id}/lines/{sku}", body={"quantity": 3}).status

    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(put, skus + skus[:8]))  # 8 of them twice, at the same time
    assert set(statuses) == {200}
    cart = ok(client.call("GET", f"{CARTS}/{cart_id}"))
    assert lines_of(cart) == dict.fromkeys(skus, 3) and cart["lineCount"] == 24
    assert header(tables, cart_id)["skus"] == set(skus)


def test_a_retried_create_returns_the_same_cart_and_a_failed_one_is_forgotten(shop, tables, monkeypatch):
    key = {"Idempotency-Key": "create-1"}
    first = ok(shop.call("POST", CARTS, headers=key), 201)
    assert ok(shop.call("POST", CARTS, headers=key), 201) == first
    assert ok(shop.call("POST", CARTS, headers=key, user="bob"), 201) != first  # keys are per caller
    assert len(raw_items(tables[CART_TABLE.env_var])) == 2

    real_create = CartRepository.create_cart

    def throttled(self, *args, **kwargs):
        raise ThrottledError("busy")

    monkeypatch.setattr(CartRepository, "create_cart", throttled)
    assert error(shop.call("POST", CARTS, headers={"Idempotency-Key": "create-2"})) == (429, "THROTTLED")
    monkeypatch.setattr(CartRepository, "create_cart", real_create)
    retried = ok(shop.call("POST", CARTS, headers={"Idempotency-Key": "create-2"}), 201)
    assert retried["cartId"] != first["cartId"] and len(raw_items(tables[CART_TABLE.env_var])) == 3


@pytest.mark.parametrize(("method", "path", "body", "field"), [
    ("PUT", "/lines/COFFEE", {"quantity": 0}, "body.quantity"),
    ("PUT", "/lines/COFFEE", {"quantity": 1000}, "body.quantity"),
    ("PUT", "/lines/COFFEE", {"quantity": "2"}, "body.quantity"),
    ("PUT", "/lines/COFFEE", {"quantity": 1, "price": 1}, "body.price"),
    ("PUT", "/lines/BAD%23SKU", {"quantity": 1}, "path.sku"),
])
def test_bad_input_is_400_writing_nothing(shop, tables, method, path, body, field):
    cart_id = new_cart(shop)
    before = raw_items(tables[CART_TABLE.env_var])
    reply = shop.call(method, f"{CARTS}/{cart_id}{path}", body=body)
    assert error(reply) == (400, "VALIDATION_FAILED") and field in reply.body["error"]["message"]
    assert raw_items(tables[CART_TABLE.env_var]) == before


def test_a_malformed_cart_id_is_400(shop):
    reply = shop.call("GET", f"{CARTS}/not-a-cart-id")
    assert error(reply) == (400, "VALIDATION_FAILED")


# --- prices ----------------------------------------------------------------------------------------------

def test_an_admin_sets_prices_anyone_signed_in_reads_them(client, tables):
    assert error(client.call("PUT", "/cart/prices/COFFEE", body={"price": "1.00"}, user="alice")) == (403, "FORBIDDEN")
    first = set_price(client, "COFFEE", "12.50")
    assert (first["sku"], first["price"], first["currency"], first["version"]) == ("COFFEE", "12.50", "USD", 1)
    assert ok(client.call("GET", "/cart/prices/COFFEE", user="bob")) == first
    changed = set_price(client, "COFFEE", "11.00")
    assert (changed["price"], changed["version"]) == ("11.00", 2)
    assert error(client.call("GET", "/cart/prices/TEA")) == (404, "PRICE_NOT_FOUND")


def test_setting_the_same_price_again_writes_nothing(client, tables, calls):
    first = set_price(client, "COFFEE", "12.50")
    assert set_price(client, "COFFEE", "12.5") == first  # the same amount: version unchanged, no stream record
    assert set_price(client, "COFFEE", "12.50", "EUR")["version"] == 2  # another currency is a change


@pytest.mark.parametrize("body", [{"price": 0}, {"price": "-1"}, {"price": "1.234"}, {"price": "abc"},
                                  {"price": "1.00", "currency": "usd"}, {}])
def test_a_bad_price_is_400_writing_nothing(client, tables, body):
    reply = client.call("PUT", "/cart/prices/COFFEE", body=body, user="root", groups=ADMIN)
    assert error(reply) == (400, "VALIDATION_FAILED")
    assert raw_items(tables[PRICE_TABLE.env_var]) == []


# --- abandoned carts (the read; the counting is the consumer's: test_cart_consumers.py) ---------------------

def test_abandoned_carts_of_a_day_are_read_by_admins_only(client, tables):
    ddb_stats = tables[STATS_TABLE.env_var]
    from functions.shared import ddb

    ddb.table(ddb_stats).put_item(Item={"pk": "DAY#2026-11-20", "abandonedCarts": 3})
    assert ok(client.call("GET", "/cart/abandoned?day=2026-11-20", user="root", groups=ADMIN)) == {
        "day": "2026-11-20", "abandonedCarts": 3}
    assert ok(client.call("GET", "/cart/abandoned?day=2026-11-21", user="root", groups=ADMIN))["abandonedCarts"] == 0
    assert error(client.call("GET", "/cart/abandoned?day=2026-11-20", user="alice")) == (403, "FORBIDDEN")
    assert error(client.call("GET", "/cart/abandoned?day=2026-02-30", user="root", groups=ADMIN)) == (
        400, "VALIDATION_FAILED")
    assert error(client.call("GET", "/cart/abandoned", user="root", groups=ADMIN)) == (400, "VALIDATION_FAILED")


def test_the_sku_index_holds_open_carts_lines_only(shop, tables):
    open_cart = new_cart(shop, lines={"COFFEE": 1})
    bought = new_cart(shop, "bob", {"COFFEE": 2})
    ok(shop.call("POST", f"{CARTS}/{bought}/checkout", user="bob"))
    from boto3.dynamodb.conditions import Key

    from functions.shared import ddb

    indexed = ddb.table(tables[CART_TABLE.env_var]).query(
        IndexName=CARTS_BY_SKU_INDEX, KeyConditionExpression=Key("lineSku").eq("COFFEE"))["Items"]
    assert [(item["cartId"], item["owner"]) for item in indexed] == [(open_cart, "alice")]
    assert api.service().repository.carts_holding("COFFEE")[0].cart_id == open_cart
