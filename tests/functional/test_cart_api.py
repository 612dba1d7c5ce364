# ruff: noqa: F811 (pytest fixtures imported from cart_support are requested by name)
"""Cart API: handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from functions.cart.repository import CartRepository
from functions.cart.schema import (
    CART_TABLE,
    MAX_LINES,
    PRICE_TABLE,
    STATS_TABLE,
)
from functions.shared import ddb
from functions.shared.errors import ThrottledError
from tests.functional.cart_support import (  # noqa: F401 (fixtures)
    ADMIN,
    IDLE,
    atomic_moto,
    cart_item,
    client,
    clock,
    new_cart,
    raw_items,
    set_price,
    tables,
)
from tests.functional.conftest import error, ok
from tests.support import iam

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
    """The cart's one item (docs/adr/0107-cart-one-item-holders-from-the-stream.md)."""
    return cart_item(tables[CART_TABLE.env_var], cart_id)


def skus(tables, cart_id) -> set[str]:
    return set(header(tables, cart_id)["lines"])


# --- carts -----------------------------------------------------------------------------------------------

def test_a_user_creates_a_cart_fills_it_and_reads_it_back_in_one_get(shop, tables, clock, calls):
    created = ok(shop.call("POST", CARTS, user="alice"), 201)
    assert (created["owner"], created["status"], created["lines"], created["lineCount"]) == ("alice", "OPEN", [], 0)
    assert created["expiresAt"] == int((clock.now + IDLE).timestamp())
    cart_id = created["cartId"]
    ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/COFFEE", body={"quantity": 2}))
    filled = ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/MUG", body={"quantity": 1}))
    assert lines_of(filled) == {"COFFEE": 2, "MUG": 1} and filled["lineCount"] == 2
    # one item holds the seed's set of SKUs, each with its quantity
    assert skus(tables, cart_id) == {"COFFEE", "MUG"}
    calls.clear()
    got = ok(shop.call("GET", f"{CARTS}/{cart_id}"))
    assert got == filled
    assert calls.names() == ["GetItem"]
    (params, _), = calls.of("GetItem")
    assert params["TableName"] == tables[CART_TABLE.env_var] and params["Key"] == {"cartId": {"S": cart_id}}


def test_setting_a_line_sets_its_quantity_and_repeating_it_changes_nothing_else(shop, tables):
    cart_id = new_cart(shop, lines={"COFFEE": 2})
    again = ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/COFFEE", body={"quantity": 2}))
    assert lines_of(again) == {"COFFEE": 2} and again["lineCount"] == 1
    changed = ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/COFFEE", body={"quantity": 5}))
    assert lines_of(changed) == {"COFFEE": 5} and changed["lineCount"] == 1
    line = header(tables, cart_id)["lines"]["COFFEE"]
    assert line["quantity"] == 5 and header(tables, cart_id)["owner"] == "alice"


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
    assert len(raw_items(tables[CART_TABLE.env_var])) == 1


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


def test_only_priced_skus_go_in_a_cart(shop, tables, calls, clock):
    cart_id = new_cart(shop)
    before = header(tables, cart_id)
    assert error(shop.call("PUT", f"{CARTS}/{cart_id}/lines/UNPRICED", body={"quantity": 1})) == (404, "SKU_NOT_FOUND")
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lines"] == []
    assert header(tables, cart_id) == before  # nothing written
    # a price set a moment ago is not refused (the check reads again, strongly consistent, before a no)
    set_price(shop, "UNPRICED", "1.00")
    assert [line["sku"] for line in ok(shop.call(
        "PUT", f"{CARTS}/{cart_id}/lines/UNPRICED", body={"quantity": 1}))["lines"]] == ["UNPRICED"]
    # a price is never deleted: once seen, a SKU's price is not read again by this container
    calls.clear()
    ok(shop.call("PUT", f"{CARTS}/{cart_id}/lines/UNPRICED", body={"quantity": 2}))
    assert calls.names() == ["UpdateItem"]


def test_a_cart_holds_at_most_max_lines_and_a_held_sku_can_still_change(client, tables):
    for n in range(MAX_LINES + 1):
        set_price(client, f"SKU-{n}", "1.00")
    cart_id = new_cart(client, lines={f"SKU-{n}": 1 for n in range(MAX_LINES)})
    full = client.call("PUT", f"{CARTS}/{cart_id}/lines/SKU-{MAX_LINES}", body={"quantity": 1})
    assert error(full) == (409, "CART_FULL")
    assert ok(client.call("PUT", f"{CARTS}/{cart_id}/lines/SKU-0", body={"quantity": 7}))["lineCount"] == MAX_LINES
    # a removed line makes room again
    assert client.call("DELETE", f"{CARTS}/{cart_id}/lines/SKU-1").status == 204
    assert ok(client.call("PUT", f"{CARTS}/{cart_id}/lines/SKU-{MAX_LINES}", body={"quantity": 1}))["lineCount"] == (
        MAX_LINES)
    assert ok(client.call("POST", f"{CARTS}/{cart_id}/checkout"))["lineCount"] == MAX_LINES


def test_remove_a_line_and_clear_a_cart_safe_to_repeat(shop, tables):
    cart_id = new_cart(shop, lines={"COFFEE": 1, "MUG": 2, "GRINDER": 1})
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines/MUG").status == 204
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines/MUG").status == 204
    assert lines_of(ok(shop.call("GET", f"{CARTS}/{cart_id}"))) == {"COFFEE": 1, "GRINDER": 1}
    assert skus(tables, cart_id) == {"COFFEE", "GRINDER"}
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines").status == 204
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines").status == 204
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lines"] == []
    assert len(raw_items(tables[CART_TABLE.env_var])) == 1 and skus(tables, cart_id) == set()


def test_clear_removes_every_line_there_is_even_one_added_while_it_ran(shop, tables, clock, monkeypatch):
    cart_id = new_cart(shop, lines={"COFFEE": 1})
    real_update = ddb.update_conditional
    arrived = []

    def someone_adds_first(table, **params):
        if not arrived and params["UpdateExpression"].startswith("SET #lines = :empty"):
            arrived.append("MUG")  # another request adds a line after the clear began, before its write
            expires = int((clock.now + IDLE).timestamp())
            with iam.meanwhile():
                CartRepository.set_line(api_repository(), cart_id, "alice", "MUG", 1, now=clock.now,
                                        expires_at=expires)
        return real_update(table, **params)

    monkeypatch.setattr(ddb, "update_conditional", someone_adds_first)
    assert shop.call("DELETE", f"{CARTS}/{cart_id}/lines").status == 204
    monkeypatch.setattr(ddb, "update_conditional", real_update)
    assert arrived and ok(shop.call("GET", f"{CARTS}/{cart_id}"))["lines"] == []
    assert skus(tables, cart_id) == set()  # no line left behind: the clear is one write of the item holding them


def api_repository() -> CartRepository:
    from functions.cart import api

    return api.app.dependency_overrides[api.service]().repository


def test_check_out_refuses_changes_and_is_safe_to_repeat(shop, tables):
    cart_id = new_cart(shop, lines={"COFFEE": 1, "MUG": 2})
    out = ok(shop.call("POST", f"{CARTS}/{cart_id}/checkout"))
    assert out["status"] == "CHECKED_OUT" and lines_of(out) == {"COFFEE": 1, "MUG": 2}
    assert ok(shop.call("POST", f"{CARTS}/{cart_id}/checkout")) == out  # a retry answers the same
    for method, path, body in (("PUT", "/lines/MUG", {"quantity": 1}), ("DELETE", "/lines/MUG", None),
                               ("DELETE", "/lines", None)):
        assert error(shop.call(method, f"{CARTS}/{cart_id}{path}", body=body)) == (409, "CART_CHECKED_OUT")
    assert ok(shop.call("GET", f"{CARTS}/{cart_id}")) == out
    assert error(shop.call("POST", f"{CARTS}/{cart_id}/checkout", user="bob")) == (404, "CART_NOT_FOUND")
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
    assert set(header(tables, cart_id)["lines"]) == set(skus)


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


def test_a_cart_answers_the_current_price_of_each_of_its_skus_in_two_reads(shop, tables, calls):
    # Given alice's cart holding two of the three priced SKUs, one of them repriced since it went in
    cart_id = new_cart(shop, "alice", {"MUG": 2, "COFFEE": 1})
    set_price(shop, "COFFEE", "11.75")
    calls.clear()
    # When she asks for its prices
    prices = ok(shop.call("GET", f"{CARTS}/{cart_id}/prices", user="alice"))
    # Then each SKU of the cart is answered at its current price, by SKU, and nothing else
    assert [(p["sku"], p["price"], p["currency"], p["version"]) for p in prices] == [
        ("COFFEE", "11.75", "USD", 2), ("MUG", "8.00", "USD", 1)]
    # in two reads: the cart (GetItem), then its SKUs' prices in one BatchGetItem of the Prices table
    assert calls.names() == ["GetItem", "BatchGetItem"]
    (params, _), = calls.of("BatchGetItem")
    assert list(params["RequestItems"]) == [tables[PRICE_TABLE.env_var]]
    assert sorted(key["sku"]["S"] for key in params["RequestItems"][tables[PRICE_TABLE.env_var]]["Keys"]) == [
        "COFFEE", "MUG"]
    # an empty cart has no prices, without a batch; another user's cart is 404
    empty = new_cart(shop, "alice")
    calls.clear()
    assert ok(shop.call("GET", f"{CARTS}/{empty}/prices", user="alice")) == []
    assert calls.names() == ["GetItem"]
    assert error(shop.call("GET", f"{CARTS}/{cart_id}/prices", user="mallory")) == (404, "CART_NOT_FOUND")


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
