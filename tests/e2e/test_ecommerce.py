"""Ecommerce over HTTP on the local runtime: the seed's customers and orders, sign-up races on one email, the order
size limit, addresses, newest-first orders and the cursor to older ones, an order's status."""

from __future__ import annotations

import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from functions.ecommerce.repository import MAX_ADDRESSES
from functions.ecommerce.service import MAX_ORDER_ITEMS
from seeds import ecommerce as seed

ADMIN = ("admin",)
BASE = "/ecommerce/customers"


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def sign_up(api, username: str, email: str | None = None):
    email = email or f"{username}@example.com"
    return api.call("POST", BASE, user=username, json={"username": username, "name": "E2E Customer", "email": email})


def place(api, username: str, count: int = 1):
    items = [{"itemId": f"book-{i}", "description": f"Book {i}", "price": "4.25", "quantity": 1} for i in range(count)]
    return api.call("POST", f"{BASE}/{username}/orders", user=username, json={"items": items})


def test_the_seeds_customers_and_their_orders_are_answered(api):
    alex = api.call("GET", f"{BASE}/alexdebrie", user="alexdebrie")
    assert alex.status_code == 200, alex.text
    body = alex.json()
    assert (body["customer"]["name"], body["customer"]["email"]) == ("Alex DeBrie", seed.ALEX.email)
    assert set(body["customer"]["addresses"]) == {"Home", "Business"}
    assert [o["orderId"] for o in body["orders"]] == ["1YRfXS14inXwIJEf9tO5hWnL2pi", "1VrgXBQ0VCshuQUnh1HrDIHQNwY"]
    detail = api.call("GET", f"{BASE}/alexdebrie/orders/1VrgXBQ0VCshuQUnh1HrDIHQNwY", user="alexdebrie").json()
    assert (detail["order"]["status"], detail["order"]["amount"], detail["order"]["numberOfItems"]) == (
        "SHIPPED", "32.97", 3)
    assert {item["description"] for item in detail["items"]} == {
        "The Mysterious Benedict Society", "Harry Potter and the Sorcerer's Stone"}
    vito = api.call("GET", f"{BASE}/the_don", user="root", groups=ADMIN).json()
    assert vito["customer"]["name"] == "Vito Corleone" and "Parents' House" in vito["customer"]["addresses"]
    assert [o["status"] for o in vito["orders"]] == ["DELIVERED"]
    assert api.call("GET", f"{BASE}/the_don", user="alexdebrie").status_code == 403


def test_20_concurrent_sign_ups_sharing_an_email_give_one_201(api):
    email = f"{fresh('shared')}@example.com"
    users = [fresh(f"u{i}") for i in range(20)]

    def attempt(username: str):
        reply = sign_up(api, username, email)
        return reply.status_code, reply.json()

    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(attempt, users))
    assert Counter(status for status, _ in replies) == {201: 1, 409: 19}, replies
    assert {body["error"]["code"] for status, body in replies if status == 409} == {"EMAIL_TAKEN"}
    (winner,) = [body["username"] for status, body in replies if status == 201]
    losers = [user for user in users if user != winner]
    assert {api.call("GET", f"{BASE}/{user}", user=user).status_code for user in losers} == {404}
    assert sign_up(api, winner).json()["error"]["code"] == "USERNAME_TAKEN"


def test_an_order_of_99_items_is_400_and_writes_nothing(api):
    username = fresh("big")
    assert sign_up(api, username).status_code == 201
    too_big = place(api, username, MAX_ORDER_ITEMS + 1)
    assert too_big.status_code == 400, too_big.text
    assert too_big.json()["error"]["code"] == "ORDER_TOO_LARGE"
    assert "at most 98 items" in too_big.json()["error"]["message"]
    assert api.call("GET", f"{BASE}/{username}", user=username).json()["orders"] == []
    assert api.call("GET", f"{BASE}/{username}/orders", user=username).json()["items"] == []
    largest = place(api, username, MAX_ORDER_ITEMS)
    assert largest.status_code == 201, largest.text
    detail = api.call("GET", f"{BASE}/{username}/orders/{largest.json()['orderId']}", user=username).json()
    assert len(detail["items"]) == MAX_ORDER_ITEMS


def test_twelve_orders_newest_first_then_older_by_cursor(api):
    username = fresh("shopper")
    assert sign_up(api, username).status_code == 201
    placed = [place(api, username).json()["orderId"] for _ in range(12)]
    newest_first = sorted(placed, reverse=True)
    overview = api.call("GET", f"{BASE}/{username}", user=username).json()
    assert [o["orderId"] for o in overview["orders"]] == newest_first[:10]
    older = api.call("GET", f"{BASE}/{username}/orders?limit=5&cursor={overview['nextCursor']}", user=username).json()
    assert [o["orderId"] for o in older["items"]] == newest_first[10:]


def test_an_order_is_placed_read_and_shipped(api):
    username = fresh("buyer")
    assert sign_up(api, username).status_code == 201
    order = place(api, username, 2).json()
    path = f"{BASE}/{username}/orders/{order['orderId']}"
    assert api.call("PUT", f"{path}/status", user=username, json={"status": "SHIPPED"}).status_code == 403
    shipped = api.call("PUT", f"{path}/status", user="root", groups=ADMIN, json={"status": "SHIPPED"})
    assert (shipped.status_code, shipped.json()["status"]) == (200, "SHIPPED")
    late = api.call("PUT", f"{path}/status", user=username, json={"status": "CANCELLED"})
    assert (late.status_code, late.json()["error"]["code"]) == (409, "INVALID_STATUS_TRANSITION")
    assert api.call("GET", path, user=username).json()["order"]["status"] == "SHIPPED"


def test_addresses_are_named_and_bounded(api):
    username = fresh("mover")
    assert sign_up(api, username).status_code == 201
    for i in range(MAX_ADDRESSES):
        name = "Parents' House" if i == 0 else f"Place {i}"
        reply = api.call("PUT", f"{BASE}/{username}/addresses", user=username,
                         json={"name": name, "street": f"{i} Elm St", "city": "Omaha"})
        assert reply.status_code == 200, reply.text
    over = api.call("PUT", f"{BASE}/{username}/addresses", user=username,
                    json={"name": "Home", "street": "1 Main St", "city": "Omaha"})
    assert (over.status_code, over.json()["error"]["code"]) == (409, "TOO_MANY_ADDRESSES")
    removed = api.call("DELETE", f"{BASE}/{username}/addresses", user=username, params={"name": "Parents' House"})
    assert removed.status_code == 200 and "Parents' House" not in removed.json()["addresses"]
    again = api.call("PUT", f"{BASE}/{username}/addresses", user=username,
                     json={"name": "Home", "street": "1 Main St", "city": "Omaha"})
    assert again.status_code == 200 and len(again.json()["addresses"]) == MAX_ADDRESSES


def test_a_changed_email_frees_the_old_one(api):
    alice, carol = fresh("alice"), fresh("carol")
    old, new = f"{alice}@old.example.com", f"{alice}@new.example.com"
    assert sign_up(api, alice, old).status_code == 201
    changed = api.call("PUT", f"{BASE}/{alice}/email", user=alice, json={"email": new})
    assert (changed.status_code, changed.json()["email"]) == (200, new)
    assert sign_up(api, carol, old).status_code == 201
    taken = api.call("PUT", f"{BASE}/{carol}/email", user=carol, json={"email": new})
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "EMAIL_TAKEN")
