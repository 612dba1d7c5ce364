"""Cart's pure rules: why a cart change was refused, what a price record announces, what TTL removed."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
)

from functions.cart.abandoned_carts import expiry_day, removed_by_ttl
from functions.cart.price_notifier import price_change
from functions.cart.repository import CartRecord, cart_refusal, visible
from functions.cart.schema import (
    HOLDER_BUCKET_SECONDS,
    HOLDER_MARGIN_SECONDS,
    HOLDER_SHARDS,
    MAX_LINES,
    HolderPeak,
    holder_expiry,
    holder_keys,
    holder_shard,
    holder_shards,
)
from functions.cart.service import check_day
from functions.shared.errors import ConflictError, InvalidInputError, NotFoundError
from functions.shared.parked import PermanentRecordError

NOW = 1_800_000_000
LINE = {"quantity": 1, "updatedAt": "2026-11-22T12:00:00+00:00"}
CART = {"owner": "alice", "status": "OPEN", "expiresAt": NOW + 60, "lines": {"A": LINE}}


def code(error) -> tuple[type, str] | None:
    return None if error is None else (type(error), error.code)


@pytest.mark.parametrize(("item", "kwargs", "expected"), [
    (None, {}, (NotFoundError, "CART_NOT_FOUND")),
    ({**CART, "owner": "mallory"}, {}, (NotFoundError, "CART_NOT_FOUND")),
    ({**CART, "expiresAt": NOW}, {}, (NotFoundError, "CART_NOT_FOUND")),  # expired at its expiresAt
    ({**CART, "status": "CHECKED_OUT"}, {}, (ConflictError, "CART_CHECKED_OUT")),
    ({**CART, "lines": {f"S{n}": LINE for n in range(MAX_LINES)}}, {"sku": "NEW"}, (ConflictError, "CART_FULL")),
    ({**CART, "lines": {f"S{n}": LINE for n in range(MAX_LINES)}}, {"sku": "S1"}, None),  # a held SKU still changes
    ({**CART, "lines": {}}, {"needs_lines": True}, (ConflictError, "CART_EMPTY")),
    (CART, {}, None),  # nothing wrong with it now: the caller retries
])
def test_cart_refusal(item, kwargs, expected):
    assert code(cart_refusal(item, "alice", NOW, **kwargs)) == expected


def test_a_cart_is_visible_to_its_owner_until_its_expiry():
    record = CartRecord("c", "alice", "OPEN", "t", "t", NOW + 1, ())
    now = datetime.fromtimestamp(NOW, UTC)
    assert visible(record, "alice", now)
    assert not visible(record, "bob", now)
    assert not visible(record, "alice", datetime.fromtimestamp(NOW + 1, UTC))
    assert not visible(None, "alice", now)


def price_record(event: str, old: dict | None, new: dict | None) -> DynamoDBRecord:
    def image(values: dict) -> dict:
        return {k: ({"N": str(v)} if isinstance(v, (int, Decimal)) else {"S": v}) for k, v in values.items()}

    dynamodb: dict = {"Keys": {"sku": {"S": "A"}}, "SequenceNumber": "1", "StreamViewType": "NEW_AND_OLD_IMAGES"}
    if old is not None:
        dynamodb["OldImage"] = image(old)
    if new is not None:
        dynamodb["NewImage"] = image(new)
    return DynamoDBRecord({"eventName": event, "dynamodb": dynamodb})


PRICE = {"sku": "A", "price": Decimal("12.50"), "currency": "USD", "version": 1, "updatedAt": "2026-11-22T12:00:00"}


def test_a_price_record_announces_a_change_only_when_the_amount_or_currency_changed():
    change = price_change(price_record("MODIFY", PRICE, {**PRICE, "price": Decimal(11), "version": 2}))
    assert (change.sku, change.old_price, change.new_price, change.version) == ("A", Decimal("12.50"), 11, 2)
    assert price_change(price_record("MODIFY", PRICE, {**PRICE, "version": 2})) is None
    assert price_change(price_record("MODIFY", PRICE, {**PRICE, "currency": "EUR", "version": 2})).currency == "EUR"
    assert price_change(price_record("INSERT", None, PRICE)) is None
    assert price_change(price_record("REMOVE", PRICE, None)) is None


@pytest.mark.parametrize("broken", [{"price": "12.50"}, {"version": "x"}, {"sku": ""}])
def test_a_malformed_price_record_is_permanent(broken):
    with pytest.raises(PermanentRecordError):
        price_change(price_record("MODIFY", PRICE, {**PRICE, **broken}))


def test_only_the_dynamodb_service_identity_is_a_ttl_removal():
    assert removed_by_ttl({"userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"}})
    assert not removed_by_ttl({})
    assert not removed_by_ttl({"userIdentity": {"type": "Service", "principalId": "lambda.amazonaws.com"}})
    assert not removed_by_ttl({"userIdentity": {"type": "User", "principalId": "dynamodb.amazonaws.com"}})


def test_an_abandoned_cart_counts_on_the_utc_day_of_its_expiry():
    assert expiry_day({"expiresAt": Decimal(int(datetime(2026, 11, 22, 23, 59, tzinfo=UTC).timestamp()))}) == (
        "2026-11-22")
    with pytest.raises(PermanentRecordError):
        expiry_day({})


def test_a_day_must_be_a_real_calendar_day():
    assert check_day("2026-02-28") == "2026-02-28"
    for bad in ("2026-02-30", "2026-2-3", "yesterday"):
        with pytest.raises(InvalidInputError):
            check_day(bad)


def test_the_holder_shards_come_from_the_stated_peak_and_spread_a_skus_carts():
    # 10,000 adds of one SKU a second, one unit each, over keys kept at half of 1,000 WCU
    assert holder_shards() == HOLDER_SHARDS == 20
    assert holder_shards(HolderPeak(sku_adds_per_s=1_000)) == 2
    keys = holder_keys("COFFEE")
    assert keys[0] == "COFFEE#0" and len(set(keys)) == HOLDER_SHARDS
    counts = [0] * HOLDER_SHARDS
    for n in range(20_000):
        counts[holder_shard(f"{n:032x}")] += 1
    assert max(counts) < 1.1 * 20_000 / HOLDER_SHARDS  # even: no shard takes much more than its share
    assert holder_shard("c0ffee0000000000000000000000a11c") == holder_shard("c0ffee0000000000000000000000a11c")


@pytest.mark.parametrize("expires", [0, 1, HOLDER_BUCKET_SECONDS - 1, HOLDER_BUCKET_SECONDS, NOW, NOW + 123_457])
def test_a_holder_outlives_its_carts_expiry_by_the_margin_until_the_week_moves(expires):
    week_end = (expires // HOLDER_BUCKET_SECONDS + 1) * HOLDER_BUCKET_SECONDS
    assert holder_expiry(expires) == week_end + HOLDER_MARGIN_SECONDS
    # any later expiry in the same week keeps the holder valid past it: no rewrite is needed until the week moves
    assert holder_expiry(week_end - 1) == holder_expiry(expires) > week_end - 1 + HOLDER_MARGIN_SECONDS - 1
