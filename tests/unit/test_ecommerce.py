"""Ecommerce pure logic: KSUIDs, the order size limit, totals, the status transitions, retried sign-ups."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from functions.ecommerce import ksuid
from functions.ecommerce.models import Customer, OrderIn, OrderItem, SignUpIn
from functions.ecommerce.repository import is_retry_of
from functions.ecommerce.service import (
    ALLOWED_FROM,
    MAX_ORDER_ITEMS,
    check_order_size,
    order_total,
)
from functions.shared.errors import InvalidInputError

MOMENT = datetime(2026, 11, 23, 7, 30, tzinfo=UTC)


def test_a_ksuid_is_27_base62_characters_and_keeps_its_second():
    made = ksuid.new(MOMENT)
    assert len(made) == 27 and set(made) <= set(ksuid.ALPHABET)
    assert ksuid.timestamp(made) == MOMENT
    assert ksuid.timestamp("1VrgXBQ0VCshuQUnh1HrDIHQNwY") == datetime(2020, 1, 3, 1, 57, 44, tzinfo=UTC)  # the seed's


def test_later_ksuids_sort_after_earlier_ones_whatever_their_random_part():
    earlier = [ksuid.new(MOMENT + timedelta(seconds=s), bytes([255]) * 16) for s in range(0, 50, 7)]
    later = [ksuid.new(MOMENT + timedelta(seconds=s + 1), bytes(16)) for s in range(0, 50, 7)]
    assert all(e < lt for e, lt in zip(earlier, later))
    years = [ksuid.new(MOMENT + timedelta(days=365 * n)) for n in range(10)]
    assert years == sorted(years)


def test_ksuid_encoding_round_trips_and_pads():
    assert ksuid.encode(0) == "0" * 27
    assert ksuid.encode(2**160 - 1) == "aWgEPTl1tmebfsQzFP4bxwgy80V"  # the largest KSUID
    assert ksuid.decode(ksuid.encode(12345678901234567890)) == 12345678901234567890
    with pytest.raises(ValueError):
        ksuid.new(datetime(2010, 1, 1, tzinfo=UTC))


def test_the_order_size_limit_comes_from_the_100_action_transaction():
    assert MAX_ORDER_ITEMS == 98
    item = {"itemId": "a", "description": "A", "price": "1"}
    check_order_size(OrderIn(items=[{**item, "itemId": f"i{n}"} for n in range(98)]))
    with pytest.raises(InvalidInputError) as refused:
        check_order_size(OrderIn(items=[{**item, "itemId": f"i{n}"} for n in range(99)]))
    assert refused.value.code == "ORDER_TOO_LARGE" and "98" in refused.value.message


def test_an_order_total_is_price_times_quantity_in_cents():
    lines = [OrderItem(order_id="o", item_id="a", description="A", price=Decimal("9.99"), quantity=3),
             OrderItem(order_id="o", item_id="b", description="B", price=Decimal("0.10"), quantity=1)]
    assert order_total(lines) == Decimal("30.07")


def test_transitions_lead_forward_only():
    assert ALLOWED_FROM == {"SHIPPED": ("PLACED",), "DELIVERED": ("SHIPPED",), "CANCELLED": ("PLACED",)}


def test_a_sign_up_is_a_retry_only_when_it_asks_for_the_same_customer():
    stored = Customer(username="a", name="A", email="a@example.com")
    assert is_retry_of(stored, SignUpIn(username="a", name="A", email="A@Example.com"))
    assert not is_retry_of(stored, SignUpIn(username="a", name="A", email="b@example.com"))
    assert not is_retry_of(stored, SignUpIn(username="a", name="B", email="a@example.com"))
