# ruff: noqa: F811 (pytest fixtures imported from cart_support are requested by name)
"""The Cart stream consumers on moto: records read back from the tables' real streams and handed over as Lambda's
event source mapping would, then redelivered, reordered and malformed."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime

import pytest
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

from functions.cart import abandoned_carts, price_notifier
from functions.cart.schema import (
    CART_TABLE,
    HOLDER_SHARDS,
    HOLDER_TABLE,
    NOTIFICATION_TABLE,
    PRICE_TABLE,
    STATS_TABLE,
    holder_expiry,
    holder_key,
    holder_shard,
)
from functions.shared import ddb, parked
from infra.domains.cart import ABANDONED_CARTS, PRICE_NOTIFIER
from local.streams.filters import FilterCriteria
from tests.functional.cart_support import (  # noqa: F401 (fixtures)
    ADMIN,
    IDLE,
    Stream,
    abandoned,
    atomic_moto,
    by_ttl,
    cart_item,
    client,
    clock,
    index_holders,
    new_cart,
    notifier,
    raw_items,
    set_price,
    tables,
)
from tests.functional.conftest import LambdaContext, error, ok
from tests.functional.parked_support import REPLAY, assert_parked, parked_items

NO_FAILURES = {"batchItemFailures": []}


@pytest.fixture
def prices(tables):
    return Stream(tables[PRICE_TABLE.env_var])


@pytest.fixture
def carts(tables):
    return Stream(tables[CART_TABLE.env_var])


@pytest.fixture
def shop(client, prices):
    for sku, price in (("COFFEE", "12.50"), ("MUG", "8.00")):
        set_price(client, sku, price)
    prices.new()  # the INSERTs: no cart can hold an unpriced SKU, so they notify nobody
    return client


def notes(client, user: str, query: str = "") -> dict:
    return ok(client.call("GET", f"/cart/notifications{query}", user=user))


def summary(client, user: str) -> list[tuple[str, str, str, int, list[str]]]:
    return [(n["sku"], n["oldPrice"], n["newPrice"], n["priceVersion"], n["cartIds"])
            for n in notes(client, user)["items"]]


# --- price-change notifications -------------------------------------------------------------------------

def test_a_price_change_notifies_each_owner_of_an_open_live_cart_holding_the_sku_once(
        shop, prices, carts, clock, tables):
    expired = new_cart(shop, "erin", {"COFFEE": 1})
    clock.advance(days=6)
    alice_1 = new_cart(shop, "alice", {"COFFEE": 2})
    alice_2 = new_cart(shop, "alice", {"COFFEE": 1, "MUG": 1})
    bob = new_cart(shop, "bob", {"COFFEE": 1})
    new_cart(shop, "carol", {"MUG": 4})  # holds another SKU
    bought = new_cart(shop, "dave", {"COFFEE": 1})
    ok(shop.call("POST", f"/cart/carts/{bought}/checkout", user="dave"))
    removed = new_cart(shop, "frank", {"COFFEE": 1, "MUG": 1})
    ok(shop.call("DELETE", f"/cart/carts/{removed}/lines/COFFEE", user="frank"), 204)
    index_holders(carts)
    clock.advance(days=2)  # erin's cart is past its TTL, not yet removed
    assert cart_item(tables[CART_TABLE.env_var], expired) is not None
    # the holder index is a superset: erin's, dave's and frank's carts held COFFEE once, and keep their holders
    assert sorted(holders_of(tables, "COFFEE")) == sorted([expired, alice_1, alice_2, bob, bought, removed])

    set_price(shop, "COFFEE", "11.00")
    assert notifier(prices.new()) == NO_FAILURES

    assert summary(shop, "alice") == [("COFFEE", "12.50", "11.00", 2, sorted([alice_1, alice_2]))]
    assert summary(shop, "bob") == [("COFFEE", "12.50", "11.00", 2, [bob])]
    for nobody in ("carol", "dave", "erin", "frank"):
        assert notes(shop, nobody) == {"items": [], "nextCursor": None}


def test_a_currency_change_notifies_with_the_old_currency_beside_the_new(shop, prices, carts):
    # docs/cart.md: a notification carries oldPrice in oldCurrency and newPrice in currency
    new_cart(shop, "alice", {"COFFEE": 1, "MUG": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "12.50", currency="EUR")  # the amount alone stays: a change of currency
    set_price(shop, "MUG", "7.00")  # the amount alone changes
    assert notifier(prices.new()) == NO_FAILURES
    answered = {n["sku"]: (n["oldPrice"], n["oldCurrency"], n["newPrice"], n["currency"])
                for n in notes(shop, "alice")["items"]}
    assert answered == {"COFFEE": ("12.50", "USD", "12.50", "EUR"), "MUG": ("8.00", "USD", "7.00", "USD")}


def test_redelivered_and_reordered_price_records_never_notify_twice_nor_an_older_price_after_a_newer(
        shop, prices, carts, tables):
    new_cart(shop, "alice", {"COFFEE": 1})
    new_cart(shop, "bob", {"COFFEE": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "11.00")
    set_price(shop, "COFFEE", "10.00")
    older, newer = prices.new()
    assert [r["dynamodb"]["NewImage"]["version"]["N"] for r in (older, newer)] == ["2", "3"]

    # When the newer record arrives first, then again, then the older one, in one batch and again in another
    assert notifier([newer]) == NO_FAILURES
    assert notifier([newer, older, newer]) == NO_FAILURES
    assert notifier([older]) == NO_FAILURES

    # Then each owner holds exactly one notification: the newest price
    for owner in ("alice", "bob"):
        assert [(sku, new, version) for sku, _, new, version, _ in summary(shop, owner)] == [("COFFEE", "10.00", 3)]
    markers = [item for item in raw_items(tables[NOTIFICATION_TABLE.env_var]) if item["sk"].startswith("SKU#")]
    assert sorted((m["owner"], m["lastNotifiedVersion"]) for m in markers) == [("alice", 3), ("bob", 3)]


def test_in_order_price_changes_each_notify_and_list_newest_first_in_pages(shop, prices, carts, clock):
    new_cart(shop, "alice", {"COFFEE": 1, "MUG": 1})
    index_holders(carts)
    for sku, price in (("COFFEE", "11.00"), ("MUG", "7.00"), ("COFFEE", "10.00")):
        clock.advance(minutes=1)
        set_price(shop, sku, price)
    assert notifier(prices.new()) == NO_FAILURES
    assert [(sku, new) for sku, _, new, _, _ in summary(shop, "alice")] == [
        ("COFFEE", "10.00"), ("MUG", "7.00"), ("COFFEE", "11.00")]
    first = notes(shop, "alice", "?limit=2")
    rest = notes(shop, "alice", f"?limit=2&cursor={first['nextCursor']}")
    assert [n["newPrice"] for n in first["items"] + rest["items"]] == ["10.00", "7.00", "11.00"]
    assert rest["nextCursor"] is None
    # a cursor is bound to its owner's list
    assert error(shop.call("GET", f"/cart/notifications?cursor={first['nextCursor']}", user="bob")) == (
        400, "INVALID_CURSOR")


def test_the_notifier_reads_only_the_carts_holding_the_sku(shop, prices, carts, tables, calls):
    holders = [new_cart(shop, f"user-{n}", {"COFFEE": 1}) for n in range(3)]
    for n in range(10):
        new_cart(shop, f"other-{n}", {"MUG": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "9.99")
    records = prices.new()
    calls.clear()
    assert notifier(records) == NO_FAILURES
    assert "Scan" not in calls.names()
    # one Query per shard of the SKU's holder key, none of another SKU's
    queries = calls.of("Query")
    assert sorted(q["ExpressionAttributeValues"][":v0"]["S"] for q, _ in queries) == sorted(
        holder_key("COFFEE", n) for n in range(HOLDER_SHARDS))
    assert {q["TableName"] for q, _ in queries} == {tables[HOLDER_TABLE.env_var]}
    assert sum(response["Count"] for _, response in queries) == len(holders)
    headers, markers = (params["RequestItems"] for params, _ in calls.of("BatchGetItem"))
    assert list(headers) == [tables[CART_TABLE.env_var]] and len(headers[tables[CART_TABLE.env_var]]["Keys"]) == 3
    assert list(markers) == [tables[NOTIFICATION_TABLE.env_var]]  # the owners' markers, before any transaction
    assert len(markers[tables[NOTIFICATION_TABLE.env_var]]["Keys"]) == len(holders)
    assert len(calls.of("TransactWriteItems")) == len(holders)


def test_many_owners_are_notified_several_at_a_time_each_once(shop, prices, carts, tables, monkeypatch):
    atomic_moto(monkeypatch)  # the owners' transactions run on threads: each request atomic, as DynamoDB's are
    owners = [f"owner-{n:02d}" for n in range(2 * price_notifier.NOTIFY_WORKERS + 3)]
    for owner in owners:
        new_cart(shop, owner, {"COFFEE": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "11.00")
    records = prices.new()
    assert notifier(records) == NO_FAILURES
    assert notifier(records) == NO_FAILURES  # again: every marker holds the version, nobody twice
    for owner in owners:
        assert [n["newPrice"] for n in notes(shop, owner)["items"]] == ["11.00"], owner


def test_a_retried_price_change_transacts_only_for_the_owners_not_yet_notified(shop, prices, carts, tables, calls):
    """A record retried after a timeout part-way (a SKU in many carts) must make progress: the owners done before
    are skipped on their markers, with no transaction that could only fail its condition."""
    for owner in ("alice", "bob"):
        new_cart(shop, owner, {"COFFEE": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "11.00")
    (record,) = prices.new()
    assert notifier([record]) == NO_FAILURES
    new_cart(shop, "carol", {"COFFEE": 1})  # not reached by the first attempt
    index_holders(carts)
    calls.clear()
    assert notifier([record]) == NO_FAILURES
    (transaction, _), = calls.of("TransactWriteItems")
    assert transaction["TransactItems"][0]["Update"]["Key"]["owner"] == {"S": "carol"}
    assert [len(notes(shop, owner)["items"]) for owner in ("alice", "bob", "carol")] == [1, 1, 1]
    calls.clear()
    assert notifier([record]) == NO_FAILURES
    assert calls.of("TransactWriteItems") == []


def test_an_unchanged_amount_a_new_sku_or_a_removed_price_notifies_nobody(shop, prices, carts, tables):
    new_cart(shop, "alice", {"COFFEE": 1})
    index_holders(carts)
    set_price(shop, "TEA", "3.00")  # INSERT
    set_price(shop, "COFFEE", "12.50")  # the same price: nothing written, nothing streamed
    records = prices.new()
    assert [r["eventName"] for r in records] == ["INSERT"]
    ddb.table(tables[PRICE_TABLE.env_var]).delete_item(Key={"sku": "TEA"})
    records += prices.new()
    assert notifier(records) == NO_FAILURES
    assert raw_items(tables[NOTIFICATION_TABLE.env_var]) == []


@pytest.mark.parametrize("damage", [
    pytest.param(lambda image: image.pop("price"), id="no-price"),
    # a notification could not be made of it: parked, not retried until Lambda gives up on it
    pytest.param(lambda image: image.update(updatedAt={"S": "last tuesday"}), id="unreadable-updatedAt"),
])
def test_a_malformed_price_record_is_parked_and_the_batch_goes_on(shop, prices, carts, tables, damage):
    new_cart(shop, "alice", {"COFFEE": 1, "MUG": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "11.00")
    set_price(shop, "MUG", "7.00")
    broken, good = prices.new()
    broken = copy.deepcopy(broken)
    damage(broken["dynamodb"]["NewImage"])
    assert notifier([broken, good]) == NO_FAILURES
    assert [sku for sku, *_ in summary(shop, "alice")] == ["MUG"]
    (item,) = parked_items(price_notifier.CONSUMER)
    assert_parked(item, price_notifier.CONSUMER, broken, "PermanentRecordError", parked.PENDING)
    # a replay cannot apply it either: it stays pending
    replay = price_notifier.lambda_handler(REPLAY, LambdaContext())
    assert (replay["replayed"], replay["stillFailing"]) == (0, 1)


def test_a_parked_price_change_is_replayed_once(shop, prices, carts, tables):
    new_cart(shop, "alice", {"COFFEE": 1})
    index_holders(carts)
    set_price(shop, "COFFEE", "11.00")
    (record,) = prices.new()
    # parked by a defect since fixed (the operator's story): the record itself is fine
    parked.ParkedRecords(price_notifier.CONSUMER).park(record, RuntimeError("a defect since fixed"))
    first = price_notifier.lambda_handler(REPLAY, LambdaContext())
    again = price_notifier.lambda_handler(REPLAY, LambdaContext())
    assert (first["replayed"], again["replayed"]) == (1, 0)
    assert [new for _, _, new, _, _ in summary(shop, "alice")] == ["11.00"]
    assert parked_items(price_notifier.CONSUMER)[0]["status"] == parked.REPLAYED
    assert notifier([record]) == NO_FAILURES  # the stream's own delivery finds it done
    assert len(notes(shop, "alice")["items"]) == 1


# --- the holder index ------------------------------------------------------------------------------------

def holders_of(tables, sku: str) -> list[str]:
    """The carts the holder index lists for a SKU, over all its shards (a test-side read)."""
    return [item["cartId"] for item in raw_items(tables[HOLDER_TABLE.env_var])
            if item["holder"].rsplit("#", 1)[0] == sku]


def test_an_open_carts_new_skus_get_holders_on_the_carts_shard_and_quantities_write_nothing(
        shop, carts, tables, clock):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1, "MUG": 2})
    ok(shop.call("PUT", f"/cart/carts/{cart_id}/lines/COFFEE", body={"quantity": 5}))  # a quantity: no new SKU
    records = carts.new()
    outcomes = [abandoned_carts.record_handler(DynamoDBRecord(r)) for r in records]
    assert outcomes == ["ignored", "wrote 1 holders", "wrote 1 holders", "ignored"]
    expires = cart_item(tables[CART_TABLE.env_var], cart_id)["expiresAt"]
    shard = holder_shard(cart_id)
    assert sorted((h["holder"], h["cartId"], h["expiresAt"]) for h in raw_items(tables[HOLDER_TABLE.env_var])) == [
        (f"COFFEE#{shard}", cart_id, holder_expiry(int(expires))), (f"MUG#{shard}", cart_id, holder_expiry(int(expires)))]
    # the holder outlives the cart's expiry by a day at least, whatever the day of the week
    assert holder_expiry(int(expires)) >= int(expires) + 24 * 3600
    # redelivered, alone and in a batch: the same items, nothing more
    before = raw_items(tables[HOLDER_TABLE.env_var])
    assert abandoned(records + records) == NO_FAILURES
    assert raw_items(tables[HOLDER_TABLE.env_var]) == before


def test_a_removed_line_or_a_checkout_writes_no_holder_and_a_later_week_rewrites_them_all(shop, carts, tables, clock):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1, "MUG": 1})
    index_holders(carts)
    ok(shop.call("DELETE", f"/cart/carts/{cart_id}/lines/MUG"), 204)
    written = raw_items(tables[HOLDER_TABLE.env_var])
    assert [abandoned_carts.record_handler(DynamoDBRecord(r)) for r in carts.new()] == ["ignored"]
    # a change that moves the cart's expiry into a later week rewrites the holders of what it holds now (the cart
    # changed every 4 days: alive, and its expiry crosses a week's end within two changes)
    for _ in range(2):
        clock.advance(days=4)
        ok(shop.call("PUT", f"/cart/carts/{cart_id}/lines/COFFEE", body={"quantity": 2}))
        index_holders(carts)
    expires = int(cart_item(tables[CART_TABLE.env_var], cart_id)["expiresAt"])
    after = {h["holder"]: h["expiresAt"] for h in raw_items(tables[HOLDER_TABLE.env_var])}
    assert after[holder_key("COFFEE", holder_shard(cart_id))] == holder_expiry(expires) > written[0]["expiresAt"]
    assert after[holder_key("MUG", holder_shard(cart_id))] == next(
        h["expiresAt"] for h in written if h["holder"].startswith("MUG#"))  # left to age out
    # a checked-out cart is never indexed again, whatever moves
    clock.advance(days=6)
    ok(shop.call("POST", f"/cart/carts/{cart_id}/checkout"))
    (checkout,) = carts.new()
    assert abandoned_carts.record_handler(DynamoDBRecord(checkout)) == "ignored"


def test_a_malformed_cart_record_is_parked_and_the_batch_goes_on(shop, carts, tables):
    new_cart(shop, "alice", {"COFFEE": 1})
    new_cart(shop, "bob", {"MUG": 1})
    records = [r for r in carts.new() if r["eventName"] == "MODIFY"]
    broken, good = copy.deepcopy(records[0]), records[1]
    del broken["dynamodb"]["NewImage"]["expiresAt"]
    assert abandoned([broken, good]) == NO_FAILURES
    assert holders_of(tables, "MUG") and not holders_of(tables, "COFFEE")
    (item,) = parked_items(abandoned_carts.CONSUMER)
    assert_parked(item, abandoned_carts.CONSUMER, broken, "PermanentRecordError", parked.PENDING)
    replay = abandoned_carts.lambda_handler(REPLAY, LambdaContext())
    assert (replay["replayed"], replay["stillFailing"]) == (0, 1)


def test_holder_puts_left_unprocessed_are_retried_with_backoff_then_left_to_the_streams_retry(
        shop, carts, tables, monkeypatch):
    new_cart(shop, "alice", {"COFFEE": 1})
    records = carts.new()
    dynamodb = ddb.resource().meta.client
    original = dynamodb.batch_write_item
    rounds: list[dict] = []

    def never(**kwargs):  # a throttled table: every put comes back unprocessed
        rounds.append(kwargs)
        return {"UnprocessedItems": kwargs["RequestItems"]}

    monkeypatch.setattr("functions.shared.ddb.BATCH_BACKOFF_SECONDS", 0.001)
    monkeypatch.setattr(dynamodb, "batch_write_item", never)
    # bounded rounds, then a transient failure: not parked, failed for Lambda to retry
    failures = abandoned(records)["batchItemFailures"]
    assert len(failures) == 1 and len(rounds) == ddb.BATCH_WRITE_ROUNDS and holders_of(tables, "COFFEE") == []
    assert parked_items(abandoned_carts.CONSUMER) == []
    monkeypatch.setattr(dynamodb, "batch_write_item", original)
    assert abandoned(records) == NO_FAILURES
    assert len(holders_of(tables, "COFFEE")) == 1


def test_a_parked_cart_record_is_replayed_once(shop, carts, tables):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1})
    (record,) = [r for r in carts.new() if r["eventName"] == "MODIFY"]
    parked.ParkedRecords(abandoned_carts.CONSUMER).park(record, RuntimeError("a defect since fixed"))
    first = abandoned_carts.lambda_handler(REPLAY, LambdaContext())
    again = abandoned_carts.lambda_handler(REPLAY, LambdaContext())
    assert (first["replayed"], again["replayed"]) == (1, 0)
    assert holders_of(tables, "COFFEE") == [cart_id]


# --- abandoned carts ------------------------------------------------------------------------------------

def expire_by_ttl(tables, cart_id: str) -> None:
    """What DynamoDB's TTL process does to an expired cart (the test plays the service)."""
    ddb.table(tables[CART_TABLE.env_var]).delete_item(Key={"cartId": cart_id})


def abandoned_count(client, day: str) -> int:
    return ok(client.call("GET", f"/cart/abandoned?day={day}", user="root", groups=ADMIN))["abandonedCarts"]


def expiry_day(clock) -> str:
    return datetime.fromtimestamp(int((clock.now + IDLE).timestamp()), UTC).date().isoformat()


def test_a_ttl_removal_of_an_open_cart_is_counted_once_on_its_expiry_day(shop, carts, tables, clock):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1, "MUG": 2})
    day = expiry_day(clock)
    assert abandoned(carts.new()) == NO_FAILURES  # inserts and updates: nothing to do
    expire_by_ttl(tables, cart_id)
    (removal,) = carts.new()
    assert abandoned([by_ttl(removal)]) == NO_FAILURES
    assert abandoned_count(shop, day) == 1
    # redelivered, alone and in a batch
    assert abandoned([by_ttl(removal), by_ttl(removal)]) == NO_FAILURES
    assert abandoned_count(shop, day) == 1
    assert raw_item_of_stats(tables, f"ABANDONED#{cart_id}")["day"] == day


def raw_item_of_stats(tables, pk: str) -> dict:
    return next(item for item in raw_items(tables[STATS_TABLE.env_var]) if item["pk"] == pk)


def test_a_delete_without_the_ttl_identity_is_not_counted(shop, carts, tables, clock):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1})
    carts.new()
    expire_by_ttl(tables, cart_id)  # the same delete, by someone else: no userIdentity
    assert abandoned(carts.new()) == NO_FAILURES
    assert abandoned_count(shop, expiry_day(clock)) == 0
    assert raw_items(tables[STATS_TABLE.env_var]) == []


def test_a_checked_out_cart_aging_out_is_not_abandoned(shop, carts, tables, clock):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1})
    ok(shop.call("POST", f"/cart/carts/{cart_id}/checkout"))
    carts.new()
    expire_by_ttl(tables, cart_id)
    (removal,) = carts.new()
    assert abandoned([by_ttl(removal)]) == NO_FAILURES
    assert raw_items(tables[STATS_TABLE.env_var]) == []


def test_a_ttl_removal_without_its_old_image_is_parked_and_the_batch_goes_on(shop, carts, tables, clock):
    broken_cart = new_cart(shop, "alice", {"COFFEE": 1})
    good_cart = new_cart(shop, "bob", {"MUG": 1})
    carts.new()
    expire_by_ttl(tables, broken_cart)
    expire_by_ttl(tables, good_cart)
    broken, good = (by_ttl(r) for r in carts.new())
    del broken["dynamodb"]["OldImage"]
    assert abandoned([broken, good]) == NO_FAILURES
    assert abandoned_count(shop, expiry_day(clock)) == 1
    (item,) = parked_items(abandoned_carts.CONSUMER)
    assert_parked(item, abandoned_carts.CONSUMER, broken, "PermanentRecordError", parked.PENDING)
    replay = abandoned_carts.lambda_handler(REPLAY, LambdaContext())
    assert (replay["replayed"], replay["stillFailing"]) == (0, 1)


def test_a_parked_ttl_removal_is_replayed_once(shop, carts, tables, clock):
    cart_id = new_cart(shop, "alice", {"COFFEE": 1})
    carts.new()
    expire_by_ttl(tables, cart_id)
    (removal,) = (by_ttl(r) for r in carts.new())
    # parked by a defect since fixed (the operator's story): the record itself is fine
    parked.ParkedRecords(abandoned_carts.CONSUMER).park(removal, RuntimeError("a defect since fixed"))
    first = abandoned_carts.lambda_handler(REPLAY, LambdaContext())
    again = abandoned_carts.lambda_handler(REPLAY, LambdaContext())
    assert (first["replayed"], again["replayed"]) == (1, 0)
    assert parked_items(abandoned_carts.CONSUMER)[0]["status"] == parked.REPLAYED
    assert abandoned([removal]) == NO_FAILURES  # the stream's own delivery finds it counted
    assert abandoned_count(shop, expiry_day(clock)) == 1


# --- what the mappings' filters drop --------------------------------------------------------------------

def mapping_filter(consumer) -> FilterCriteria:
    """The consumer's FilterCriteria as the stack declares it, applied as Lambda (and the local runtime) applies it."""
    return FilterCriteria(tuple(json.dumps(pattern) for pattern in consumer.filters))


def test_the_mappings_filters_drop_only_records_the_consumers_ignore(shop, prices, carts, tables):
    # Given every kind of write a cart and a price go through
    kept_cart = new_cart(shop, "alice", {"COFFEE": 1, "MUG": 2})
    ok(shop.call("DELETE", f"/cart/carts/{kept_cart}/lines/MUG"), 204)
    bought = new_cart(shop, "alice", {"COFFEE": 1})
    ok(shop.call("POST", f"/cart/carts/{bought}/checkout"))
    deleted_cart = new_cart(shop, "alice", {"MUG": 1})
    expire_by_ttl(tables, kept_cart)
    expire_by_ttl(tables, deleted_cart)  # someone's delete: no TTL identity
    cart_records = carts.new()
    ttl_removal = next(r for r in cart_records if r["dynamodb"]["Keys"]["cartId"]["S"] == kept_cart
                       and r["eventName"] == "REMOVE")
    cart_records[cart_records.index(ttl_removal)] = by_ttl(ttl_removal)
    set_price(shop, "TEA", "3.00")  # INSERT
    set_price(shop, "COFFEE", "13.00")  # MODIFY
    ddb.table(tables[PRICE_TABLE.env_var]).delete_item(Key={"sku": "TEA"})  # REMOVE
    price_records = prices.new()

    events = {}
    for consumer, module, records in ((ABANDONED_CARTS, abandoned_carts, cart_records),
                                      (PRICE_NOTIFIER, price_notifier, price_records)):
        # When the mapping's filter sorts them
        criteria = mapping_filter(consumer)
        dropped = [r for r in records if not criteria.matches(r)]
        kept = [r for r in records if criteria.matches(r)]
        # Then every dropped record is one the consumer's code ignores, and it drops some of them
        assert [module.record_handler(DynamoDBRecord(r)) for r in dropped] == ["ignored"] * len(dropped)
        assert len(dropped) > 0 and len(kept) > 0
        events[module.CONSUMER] = sorted({r["eventName"] for r in kept})
    # and what passes is what they act on: every removal (TTL's and anyone's), every open cart's write
    assert events == {abandoned_carts.CONSUMER: ["INSERT", "MODIFY", "REMOVE"], price_notifier.CONSUMER: ["MODIFY"]}
    removals = [r for r in cart_records if r["eventName"] == "REMOVE"]
    assert len(removals) == 2 and all(mapping_filter(ABANDONED_CARTS).matches(r) for r in removals)
    checkout = next(r for r in cart_records if r["eventName"] == "MODIFY"
                    and r["dynamodb"]["NewImage"]["status"]["S"] == "CHECKED_OUT")
    assert not mapping_filter(ABANDONED_CARTS).matches(checkout)
