"""Ecommerce: handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from functions.ecommerce import api
from functions.ecommerce.models import OrderIn, SignUpIn
from functions.ecommerce.repository import MAX_ADDRESSES
from functions.ecommerce.schema import ECOMMERCE_TABLE, customer_key, email_key
from functions.ecommerce.service import MAX_ORDER_ITEMS
from functions.shared.errors import ConflictError
from seeds import ecommerce as seed
from tests.functional.conftest import client_for, error, fresh_tables, make_table

ADMIN = ("admin",)
BASE = "/ecommerce/customers"
START = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


class Clock:
    """One second later at each call: orders placed in a test have distinct, increasing KSUID seconds."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


def make_clocked_table(monkeypatch) -> str:
    name = make_table(ECOMMERCE_TABLE, monkeypatch)
    monkeypatch.setattr(api.service(), "_clock", Clock())
    return name


table = fresh_tables(api, name="table", make=make_clocked_table)  # the table's name
client = client_for(api, "table")


def items(table: str) -> list[dict[str, Any]]:
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


def get(table: str, key: dict[str, str]) -> dict[str, Any] | None:
    return boto3.resource("dynamodb").Table(table).get_item(Key=key, ConsistentRead=True).get("Item")


def sign_up(client, username: str, email: str, name: str = "A Customer", **kwargs):
    return client.call("POST", BASE, body={"username": username, "name": name, "email": email},
                       user=kwargs.pop("user", username), **kwargs)


def place(client, username: str, count: int = 2, **kwargs):
    body = {"items": [{"itemId": f"book-{i}", "description": f"Book {i}", "price": "10.50", "quantity": 1 + i % 2}
                      for i in range(count)]}
    return client.call("POST", f"{BASE}/{username}/orders", body=body, user=kwargs.pop("user", username), **kwargs)


# --- customers --------------------------------------------------------------------------------------------

def test_a_sign_up_writes_the_customer_and_its_email_marker_in_one_transaction(client, table, calls):
    reply = sign_up(client, "alice", " Alice@Example.com ", name="Alice")
    assert (reply.status, reply.body) == (201, {"username": "alice", "name": "Alice", "email": "alice@example.com",
                                                "addresses": {}})
    assert calls.names() == ["TransactWriteItems"]
    assert get(table, email_key("alice@example.com"))["username"] == "alice"
    assert get(table, customer_key("alice"))["entityType"] == "Customer"


def test_a_taken_username_is_409_username_taken_and_a_taken_email_409_email_taken(client, table):
    assert sign_up(client, "alice", "alice@example.com").status == 201
    assert error(sign_up(client, "alice", "other@example.com")) == (409, "USERNAME_TAKEN")
    assert error(sign_up(client, "bob", "ALICE@example.com")) == (409, "EMAIL_TAKEN")
    assert len(items(table)) == 2  # nothing of bob's was written


def test_a_retried_sign_up_answers_200_with_the_stored_customer(client):
    first = sign_up(client, "alice", "alice@example.com")
    again = sign_up(client, "alice", "alice@example.com")
    assert (first.status, again.status, again.body) == (201, 200, first.body)


def test_only_the_customer_or_an_admin_signs_up_and_bad_input_is_400(client, table):
    assert error(sign_up(client, "alice", "a@example.com", user="mallory")) == (403, "FORBIDDEN")
    assert sign_up(client, "carol", "c@example.com", user="root", groups=ADMIN).status == 201
    assert error(sign_up(client, "bad#name", "b@example.com")) == (400, "VALIDATION_FAILED")
    assert error(sign_up(client, "dave", "not-an-email")) == (400, "VALIDATION_FAILED")
    assert len(items(table)) == 2


def test_20_concurrent_sign_ups_sharing_an_email_give_exactly_one_customer(table, atomic_dynamodb):
    service = api.service()

    def attempt(i: int) -> str:
        try:
            service.sign_up(SignUpIn(username=f"user{i}", name="Same", email="shared@example.com"))
            return "created"
        except ConflictError as error:
            return error.code

    with ThreadPoolExecutor(max_workers=20) as pool:
        outcomes = Counter(pool.map(attempt, range(20)))
    assert outcomes == {"created": 1, "EMAIL_TAKEN": 19}
    assert Counter(item["entityType"] for item in items(table)) == {"Customer": 1, "CustomerEmail": 1}


def test_a_change_of_email_moves_the_marker_and_frees_the_old_email(client, table):
    sign_up(client, "alice", "old@example.com")
    sign_up(client, "bob", "bob@example.com")
    changed = client.call("PUT", f"{BASE}/alice/email", body={"email": "new@example.com"}, user="alice")
    assert (changed.status, changed.body["email"]) == (200, "new@example.com")
    assert get(table, email_key("old@example.com")) is None
    assert get(table, email_key("new@example.com"))["username"] == "alice"
    taken = client.call("PUT", f"{BASE}/bob/email", body={"email": "new@example.com"}, user="bob")
    assert error(taken) == (409, "EMAIL_TAKEN")
    assert get(table, customer_key("bob"))["email"] == "bob@example.com"
    assert sign_up(client, "carol", "old@example.com").status == 201  # the old email is free
    same = client.call("PUT", f"{BASE}/alice/email", body={"email": "new@example.com"}, user="alice")
    assert same.status == 200
    assert error(client.call("PUT", f"{BASE}/nobody/email", body={"email": "x@example.com"}, user="nobody")) == (
        404, "CUSTOMER_NOT_FOUND")


# --- addresses --------------------------------------------------------------------------------------------

def test_named_addresses_are_created_updated_and_deleted_on_the_customer_item(client, table, calls):
    sign_up(client, "alice", "alice@example.com")
    calls.clear()
    home = {"name": "Home", "street": "1 Main St", "city": "Omaha", "state": "NE"}
    reply = client.call("PUT", f"{BASE}/alice/addresses", body=home, user="alice")
    assert reply.status == 200
    assert reply.body["addresses"] == {"Home": {"street": "1 Main St", "city": "Omaha", "state": "NE",
                                                "postalCode": None, "country": None}}
    parents = {"name": "Parents' House", "street": "9 Elm St", "city": "Lincoln"}
    client.call("PUT", f"{BASE}/alice/addresses", body=parents, user="alice")
    moved = client.call("PUT", f"{BASE}/alice/addresses", body={**home, "street": "2 Main St"}, user="alice")
    assert moved.body["addresses"]["Home"]["street"] == "2 Main St"
    assert calls.names() == ["UpdateItem"] * 3
    deleted = client.call("DELETE", f"{BASE}/alice/addresses?name=Parents%27%20House", user="alice")
    assert (deleted.status, list(deleted.body["addresses"])) == (200, ["Home"])
    again = client.call("DELETE", f"{BASE}/alice/addresses?name=Parents%27%20House", user="alice")
    assert (again.status, list(again.body["addresses"])) == (200, ["Home"])
    assert list(get(table, customer_key("alice"))["addresses"]) == ["Home"]


def test_addresses_are_bounded_and_the_refusal_says_the_bound(client, table):
    sign_up(client, "alice", "alice@example.com")
    for i in range(MAX_ADDRESSES):
        body = {"name": f"Place {i}", "street": f"{i} Main St", "city": "Omaha"}
        assert client.call("PUT", f"{BASE}/alice/addresses", body=body, user="alice").status == 200
    over = client.call("PUT", f"{BASE}/alice/addresses", body={"name": "One more", "street": "x", "city": "y"},
                       user="alice")
    assert error(over) == (409, "TOO_MANY_ADDRESSES") and str(MAX_ADDRESSES) in over.body["error"]["message"]
    update = {"name": "Place 3", "street": "changed", "city": "Omaha"}
    assert client.call("PUT", f"{BASE}/alice/addresses", body=update, user="alice").status == 200  # not new
    assert len(get(table, customer_key("alice"))["addresses"]) == MAX_ADDRESSES


def test_addresses_of_a_missing_customer_are_404_and_of_another_403(client):
    body = {"name": "Home", "street": "1 Main St", "city": "Omaha"}
    assert error(client.call("PUT", f"{BASE}/ghost/addresses", body=body, user="ghost")) == (404, "CUSTOMER_NOT_FOUND")
    assert error(client.call("DELETE", f"{BASE}/ghost/addresses?name=Home", user="ghost")) == (404, "CUSTOMER_NOT_FOUND")
    assert error(client.call("PUT", f"{BASE}/alice/addresses", body=body, user="bob")) == (403, "FORBIDDEN")
    assert error(client.call("PUT", f"{BASE}/alice/addresses", body={**body, "name": "  "}, user="alice")) == (
        400, "VALIDATION_FAILED")


# --- orders -----------------------------------------------------------------------------------------------

def test_an_order_and_its_items_are_placed_in_one_transaction(client, table, calls):
    sign_up(client, "alice", "alice@example.com")
    calls.clear()
    reply = place(client, "alice", 3)
    assert reply.status == 201
    order = reply.body
    assert (order["status"], order["numberOfItems"], order["amount"]) == ("PLACED", 4, "42.00")
    assert len(order["orderId"]) == 27
    assert calls.names() == ["TransactWriteItems"]
    (params, _), = calls.of("TransactWriteItems")
    assert [next(iter(action)) for action in params["TransactItems"]] == ["ConditionCheck", "Put", "Put", "Put", "Put"]
    stored = {item["SK"]: item for item in items(table)}
    assert stored[f"#ORDER#{order['orderId']}"]["GSI1PK"] == f"ORDER#{order['orderId']}"
    item = stored[f"ORDER#{order['orderId']}#ITEM#book-0"]
    assert (item["PK"], item["GSI1PK"], item["GSI1SK"]) == (item["SK"], f"ORDER#{order['orderId']}", "ITEM#book-0")


def test_an_order_with_all_its_items_is_one_query_of_gsi1(client, calls):
    sign_up(client, "alice", "alice@example.com")
    order = place(client, "alice", 3).body
    calls.clear()
    reply = client.call("GET", f"{BASE}/alice/orders/{order['orderId']}", user="alice")
    assert reply.status == 200
    assert reply.body["order"] == order
    assert [item["itemId"] for item in reply.body["items"]] == ["book-0", "book-1", "book-2"]
    assert reply.body["items"][1] == {"orderId": order["orderId"], "itemId": "book-1", "description": "Book 1",
                                      "price": "10.50", "quantity": 2}
    (params, _), = calls.of("Query")
    assert calls.names() == ["Query"] and params["IndexName"] == "GSI1"


def test_an_order_of_another_customer_or_unknown_is_404(client):
    sign_up(client, "alice", "alice@example.com")
    sign_up(client, "bob", "bob@example.com")
    order = place(client, "alice").body
    assert error(client.call("GET", f"{BASE}/bob/orders/{order['orderId']}", user="bob")) == (404, "ORDER_NOT_FOUND")
    assert error(client.call("GET", f"{BASE}/alice/orders/{'0' * 27}", user="alice")) == (404, "ORDER_NOT_FOUND")
    assert error(client.call("GET", f"{BASE}/alice/orders/{order['orderId']}", user="bob")) == (403, "FORBIDDEN")
    assert error(client.call("GET", f"{BASE}/alice/orders/not-a-ksuid", user="alice")) == (400, "VALIDATION_FAILED")


def test_an_order_larger_than_the_transaction_allows_is_400_saying_the_limit_and_writes_nothing(client, table, calls):
    sign_up(client, "alice", "alice@example.com")
    calls.clear()
    too_big = place(client, "alice", MAX_ORDER_ITEMS + 1)
    assert error(too_big) == (400, "ORDER_TOO_LARGE")
    assert f"at most {MAX_ORDER_ITEMS} items" in too_big.body["error"]["message"]
    assert "100 actions" in too_big.body["error"]["message"]
    assert calls.names() == [] and len(items(table)) == 2
    assert place(client, "alice", MAX_ORDER_ITEMS).status == 201
    assert len(items(table)) == 2 + 1 + MAX_ORDER_ITEMS


def test_bad_orders_are_400_and_an_order_for_a_missing_customer_404_writing_nothing(client, table):
    duplicate = {"items": [{"itemId": "a", "description": "A", "price": 1}, {"itemId": "a", "description": "A",
                                                                              "price": 1}]}
    sign_up(client, "alice", "alice@example.com")
    assert error(client.call("POST", f"{BASE}/alice/orders", body=duplicate, user="alice")) == (400, "VALIDATION_FAILED")
    assert error(client.call("POST", f"{BASE}/alice/orders", body={"items": []}, user="alice")) == (
        400, "VALIDATION_FAILED")
    cheap = {"items": [{"itemId": "a", "description": "A", "price": "1.001"}]}
    assert error(client.call("POST", f"{BASE}/alice/orders", body=cheap, user="alice")) == (400, "VALIDATION_FAILED")
    # a price far past the bound is refused by it, not a 502 (rounding it to the cent overflowed Decimal's context)
    huge = {"items": [{"itemId": "a", "description": "A", "price": 1.6052323214657963e308}]}
    assert error(client.call("POST", f"{BASE}/alice/orders", body=huge, user="alice")) == (400, "VALIDATION_FAILED")
    assert error(place(client, "ghost")) == (404, "CUSTOMER_NOT_FOUND")
    assert error(place(client, "alice", user="bob")) == (403, "FORBIDDEN")
    assert len(items(table)) == 2


def test_a_retried_order_with_the_same_idempotency_key_is_placed_once(client, table):
    sign_up(client, "alice", "alice@example.com")
    first = place(client, "alice", headers={"Idempotency-Key": "k-1"})
    again = place(client, "alice", headers={"Idempotency-Key": "k-1"})
    assert (first.status, again.status, again.body) == (201, 201, first.body)
    assert Counter(item["entityType"] for item in items(table))["Order"] == 1


def test_the_customer_and_ten_most_recent_orders_are_one_query_then_older_orders_page_by_cursor(client, calls):
    sign_up(client, "alice", "alice@example.com")
    placed = [place(client, "alice", 1).body["orderId"] for _ in range(13)]
    assert placed == sorted(placed)  # KSUIDs of later seconds sort after
    calls.clear()
    overview = client.call("GET", f"{BASE}/alice", user="alice")
    assert overview.status == 200
    assert overview.body["customer"]["username"] == "alice"
    assert [o["orderId"] for o in overview.body["orders"]] == placed[::-1][:10]
    (params, _), = calls.of("Query")
    assert calls.names() == ["Query"]
    assert (params["ScanIndexForward"], params["Limit"]) == (False, 11)
    calls.clear()
    older = client.call("GET", f"{BASE}/alice/orders?limit=2&cursor={overview.body['nextCursor']}", user="alice")
    assert [o["orderId"] for o in older.body["items"]] == placed[::-1][10:12]
    last = client.call("GET", f"{BASE}/alice/orders?limit=2&cursor={older.body['nextCursor']}", user="alice")
    assert ([o["orderId"] for o in last.body["items"]], last.body["nextCursor"]) == (placed[:1], None)
    assert calls.names() == ["Query", "Query"]
    everything = client.call("GET", f"{BASE}/alice/orders?limit=100", user="alice")
    assert [o["orderId"] for o in everything.body["items"]] == placed[::-1]


def test_a_customer_without_orders_and_errors_of_the_overview(client):
    sign_up(client, "alice", "alice@example.com")
    reply = client.call("GET", f"{BASE}/alice", user="alice")
    assert (reply.status, reply.body["orders"], reply.body["nextCursor"]) == (200, [], None)
    assert client.call("GET", f"{BASE}/alice/orders", user="alice").body == {"items": [], "nextCursor": None}
    assert error(client.call("GET", f"{BASE}/ghost", user="ghost")) == (404, "CUSTOMER_NOT_FOUND")
    assert error(client.call("GET", f"{BASE}/ghost/orders", user="ghost")) == (404, "CUSTOMER_NOT_FOUND")
    assert error(client.call("GET", f"{BASE}/alice", user="bob")) == (403, "FORBIDDEN")
    assert client.call("GET", f"{BASE}/alice", user="root", groups=ADMIN).status == 200


def test_a_cursor_of_another_customer_is_400(client):
    for name in ("alice", "bob"):
        sign_up(client, name, f"{name}@example.com")
    for _ in range(3):
        place(client, "alice", 1)
    cursor = client.call("GET", f"{BASE}/alice/orders?limit=1", user="alice").body["nextCursor"]
    assert error(client.call("GET", f"{BASE}/bob/orders?cursor={cursor}", user="bob")) == (400, "INVALID_CURSOR")


# --- status -----------------------------------------------------------------------------------------------

def status(client, username: str, order_id: str, to: str, **kwargs):
    return client.call("PUT", f"{BASE}/{username}/orders/{order_id}/status", body={"status": to},
                       user=kwargs.pop("user", "root"), groups=kwargs.pop("groups", ADMIN))


def test_an_order_moves_through_allowed_transitions_only(client, calls):
    sign_up(client, "alice", "alice@example.com")
    order_id = place(client, "alice").body["orderId"]
    calls.clear()
    shipped = status(client, "alice", order_id, "SHIPPED")
    assert (shipped.status, shipped.body["status"]) == (200, "SHIPPED")
    (params, _), = calls.of("UpdateItem")
    assert "#status IN (:from0)" in params["ConditionExpression"]
    refused = status(client, "alice", order_id, "CANCELLED")
    assert error(refused) == (409, "INVALID_STATUS_TRANSITION") and "is SHIPPED" in refused.body["error"]["message"]
    assert status(client, "alice", order_id, "SHIPPED").status == 200  # a repeat is a no-op, not a conflict
    assert status(client, "alice", order_id, "DELIVERED").body["status"] == "DELIVERED"
    got = client.call("GET", f"{BASE}/alice/orders/{order_id}", user="alice")
    assert got.body["order"]["status"] == "DELIVERED"


def test_a_customer_may_cancel_but_not_ship_and_bad_statuses_are_400_or_404(client):
    sign_up(client, "alice", "alice@example.com")
    order_id = place(client, "alice").body["orderId"]
    assert error(status(client, "alice", order_id, "SHIPPED", user="alice", groups=())) == (403, "FORBIDDEN")
    cancelled = status(client, "alice", order_id, "CANCELLED", user="alice", groups=())
    assert (cancelled.status, cancelled.body["status"]) == (200, "CANCELLED")
    assert error(status(client, "alice", order_id, "SHIPPED")) == (409, "INVALID_STATUS_TRANSITION")
    assert error(status(client, "alice", order_id, "PLACED")) == (400, "VALIDATION_FAILED")
    assert error(status(client, "alice", "0" * 27, "SHIPPED")) == (404, "ORDER_NOT_FOUND")
    assert error(status(client, "bob", order_id, "CANCELLED", user="bob", groups=())) == (404, "ORDER_NOT_FOUND")


# --- the seed ---------------------------------------------------------------------------------------------

def test_the_seed_loads_twice_without_change_and_answers_the_seeds_questions(client, table):
    env = {ECOMMERCE_TABLE.env_var: table}
    seed.load(env)
    first = sorted(items(table), key=lambda i: (i["PK"], i["SK"]))
    seed.load(env)
    assert sorted(items(table), key=lambda i: (i["PK"], i["SK"])) == first
    alex = client.call("GET", f"{BASE}/alexdebrie", user="alexdebrie").body
    assert alex["customer"]["name"] == "Alex DeBrie" and set(alex["customer"]["addresses"]) == {"Home", "Business"}
    assert [o["orderId"] for o in alex["orders"]] == ["1YRfXS14inXwIJEf9tO5hWnL2pi", "1VrgXBQ0VCshuQUnh1HrDIHQNwY"]
    order = client.call("GET", f"{BASE}/alexdebrie/orders/1VrgXBQ0VCshuQUnh1HrDIHQNwY", user="alexdebrie").body
    assert (order["order"]["amount"], len(order["items"])) == ("32.97", 2)
    vito = client.call("GET", f"{BASE}/the_don", user="the_don").body
    assert "Parents' House" in vito["customer"]["addresses"] and len(vito["orders"]) == 1


def test_order_input_model_refuses_duplicate_items():
    with pytest.raises(ValueError):
        OrderIn.model_validate({"items": [{"itemId": "a", "description": "A", "price": 1}] * 2})


def test_a_failed_order_is_forgotten_by_its_idempotency_key_so_the_retry_places_it(client, table):
    refused = place(client, "alice", headers={"Idempotency-Key": "k-2"})
    assert error(refused) == (404, "CUSTOMER_NOT_FOUND")
    sign_up(client, "alice", "alice@example.com")
    retried = place(client, "alice", headers={"Idempotency-Key": "k-2"})
    assert retried.status == 201
    assert Counter(item["entityType"] for item in items(table))["Order"] == 1


def test_another_customers_email_addresses_and_orders_are_403(client):
    # Documented since the fuzzer, as a plain user, got them undocumented
    # (docs/adr/0062-schemathesis-fuzzes-the-description.md).
    for method, path, body in (("PUT", "/alice/email", {"email": "x@example.com"}),
                               ("DELETE", "/alice/addresses?name=Home", None), ("GET", "/alice/orders", None)):
        assert error(client.call(method, BASE + path, body=body, user="bob")) == (403, "FORBIDDEN"), (method, path)


def test_an_email_change_reads_again_when_the_customer_changed_and_gives_up_after_3_reads(client, table, monkeypatch):
    # Given another request that changes alice's email between the service's read and its transaction, twice
    sign_up(client, "alice", "first@example.com")
    repository = api.service().repository
    real_change = type(repository).change_email
    races = iter(["second@example.com", "third@example.com"])

    def racing_change(self, customer, new_email):
        if (racing := next(races, None)) is not None:  # another request's whole change, markers and all
            real_change(self, self.get_customer("alice", consistent=True), racing)
        return real_change(self, customer, new_email)

    monkeypatch.setattr(type(repository), "change_email", racing_change)
    # When alice changes her email: the transaction's `email = :old` refuses the two stale reads
    changed = client.call("PUT", f"{BASE}/alice/email", body={"email": "new@example.com"}, user="alice")
    # Then the third read is current and the change applies to the customer as read
    assert (changed.status, changed.body["email"]) == (200, "new@example.com")
    assert get(table, customer_key("alice"))["email"] == "new@example.com"
    assert get(table, email_key("new@example.com"))["username"] == "alice"

    # A customer that changes before every one of the service's reads is 429 THROTTLED, and nothing is written
    races = iter([f"race-{n}@example.com" for n in range(3)])
    busy = client.call("PUT", f"{BASE}/alice/email", body={"email": "other@example.com"}, user="alice")
    assert error(busy) == (429, "THROTTLED")
    assert get(table, customer_key("alice"))["email"] == "race-2@example.com"
    assert get(table, email_key("other@example.com")) is None
    assert get(table, email_key("race-2@example.com"))["username"] == "alice"
