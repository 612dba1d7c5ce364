"""Cart rules that are not storage: ids, the idle TTL, what a caller may see."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from functions.cart import models
from functions.cart.repository import CartRecord, CartRepository
from functions.cart.schema import DEFAULT_IDLE_TTL_SECONDS, IDLE_TTL_ENV
from functions.shared.errors import InvalidInputError, NotFoundError
from functions.shared.models import parse_day
from functions.shared.settings import settings


def utc_now() -> datetime:
    return datetime.now(UTC)


def idle_ttl() -> timedelta:
    return timedelta(seconds=settings().integer(IDLE_TTL_ENV, DEFAULT_IDLE_TTL_SECONDS))


def epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def as_cart(record: CartRecord) -> models.Cart:
    return models.Cart(
        cart_id=record.cart_id, owner=record.owner, status=record.status,  # type: ignore[arg-type]
        lines=sorted(record.lines, key=lambda line: line.sku), line_count=len(record.lines),
        created_at=record.created_at, updated_at=record.updated_at,  # type: ignore[arg-type]
        expires_at=record.expires_at,
    )


def check_day(day: str) -> str:
    try:
        return parse_day(day).isoformat()
    except ValueError as error:
        raise InvalidInputError(
            "day must be a real YYYY-MM-DD", details=[{"field": "query.day", "message": "not a day"}]
        ) from error


class CartService:
    def __init__(self, repository: CartRepository, clock: Callable[[], datetime] = utc_now) -> None:
        self.repository = repository
        self._clock = clock

    def _expiry(self, now: datetime) -> int:
        return epoch(now + idle_ttl())

    # carts

    def create_cart(self, owner: str) -> models.Cart:
        now = self._clock()
        cart_id = uuid.uuid4().hex
        self.repository.create_cart(cart_id, owner, now, self._expiry(now))
        return self.get_cart(owner, cart_id)

    def get_cart(self, owner: str, cart_id: str) -> models.Cart:
        return as_cart(self._cart(owner, cart_id))

    def _cart(self, owner: str, cart_id: str) -> CartRecord:
        return self.repository.visible_cart(cart_id, owner, self._clock())

    def set_line(self, owner: str, cart_id: str, sku: str, quantity: int) -> models.Cart:
        now = self._clock()
        return as_cart(self.repository.set_line(cart_id, owner, sku, quantity, now=now, expires_at=self._expiry(now)))

    def remove_line(self, owner: str, cart_id: str, sku: str) -> None:
        now = self._clock()
        self.repository.remove_line(cart_id, owner, sku, now, self._expiry(now))

    def clear(self, owner: str, cart_id: str) -> None:
        now = self._clock()
        self.repository.clear(cart_id, owner, now, self._expiry(now))

    def check_out(self, owner: str, cart_id: str) -> models.Cart:
        """Check out an open cart; checking out a checked-out cart again answers it as it is (safe to repeat)."""
        now = self._clock()
        return as_cart(self.repository.check_out(cart_id, owner, now, self._expiry(now)))

    # prices

    def put_price(self, sku: str, request: models.PriceIn) -> models.Price:
        price, _ = self.repository.put_price(sku, Decimal(request.price), request.currency, self._clock())
        return price

    def prices_in(self, owner: str, cart_id: str) -> list[models.Price]:
        return self.repository.prices_of([line.sku for line in self._cart(owner, cart_id).lines])

    def get_price(self, sku: str) -> models.Price:
        price = self.repository.get_price(sku)
        if price is None:
            raise NotFoundError(f"no price for SKU {sku}", code="PRICE_NOT_FOUND")
        return price

    # notifications and abandoned carts

    def abandoned_on(self, day: str) -> models.AbandonedCount:
        day = check_day(day)
        return models.AbandonedCount(day=day, abandoned_carts=self.repository.abandoned_on(day))
