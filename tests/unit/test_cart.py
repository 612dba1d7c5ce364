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
from functions.cart.repository import CartRecord, header_refusal
from functions.cart.schema import MAX_LINES
from functions.cart.service import check_day, visible
from functions.shared.errors import ConflictError, InvalidInputError, NotFoundError
from functions.shared.parked import PermanentRecordError

NOW = 1_800_000_000
HEADER = {"owner": "alice", "status": "OPEN", "expiresAt": NOW + 60, "skus": {"A"}, "version": 3}


def code(error) -> tuple[type, str] | None:
    return None if error is None else (type(error), error.code)


@pytest.mark.parametrize(("item", "kwargs", "expected"), [
    (None, {}, (NotFoundError, "CART_NOT_FOUND")),
    ({**HEADER, "owner": "mallory"}, {}, (NotFoundError, "CART_NOT_FOUND")),
    ({**HEADER, "expiresAt": NOW}, {}, (NotFoundError, "CART_NOT_FOUND")),  # expired at its expiresAt
    ({**HEADER, "status": "CHECKED_OUT"}, {}, (ConflictError, "CART_CHECKED_OUT")),
    ({**HEADER, "skus": {f"S{n}" for n in range(MAX_LINES)}}, {"sku": "NEW"}, (ConflictError, "CART_FULL")),
    ({**HEADER, "skus": {f"S{n}" for n in range(MAX_LINES)}}, {"sku": "S1"}, None),  # a held SKU still changes
    ({k: v for k, v in HEADER.items() if k != "skus"}, {"needs_lines": True}, (ConflictError, "CART_EMPTY")),
    (HEADER, {}, None),  # nothing wrong with it now: the caller reads again
])
def test_header_refusal(item, kwargs, expected):
    assert code(header_refusal(item, "alice", NOW, **kwargs)) == expected


def test_a_cart_is_visible_to_its_owner_until_its_expiry():
    record = CartRecord("c", "alice", "OPEN", 1, "t", "t", NOW + 1, ())
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
