"""Cart example data: the seed's carts (a cartId, a date-time, a set of SKUs) as two open carts, and their prices.

Written through the repository, so the same rules hold as for the API (a line needs a priced SKU). Ids are fixed,
a cart is filled only when this load created it, and an unchanged price writes nothing: loading twice changes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from botocore.exceptions import ClientError

from functions.cart.repository import CartRepository, TableNames
from functions.cart.schema import DEFAULT_IDLE_TTL_SECONDS, IDLE_TTL_ENV
from functions.shared import ddb
from functions.shared.settings import Settings

PRICES = {"SKU-COFFEE": Decimal("12.50"), "SKU-MUG": Decimal("8.00"), "SKU-GRINDER": Decimal("49.90")}
ALICE_CART = "c0ffee0000000000000000000000a11c"
BOB_CART = "c0ffee00000000000000000000000b0b"
CARTS = {
    ALICE_CART: ("alice", {"SKU-COFFEE": 2, "SKU-MUG": 1}),
    BOB_CART: ("bob", {"SKU-COFFEE": 1, "SKU-GRINDER": 1}),
}


def load(env: Mapping[str, str], now: datetime | None = None) -> None:
    settings = Settings(env)
    repository = CartRepository(TableNames(settings))
    now = now or datetime.now(UTC)
    expires_at = int((now + timedelta(seconds=settings.integer(IDLE_TTL_ENV, DEFAULT_IDLE_TTL_SECONDS))).timestamp())
    for sku, price in PRICES.items():
        repository.put_price(sku, price, "USD", now)
    for cart_id, (owner, lines) in CARTS.items():
        try:
            repository.create_cart(cart_id, owner, now, expires_at)
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            continue  # loaded before
        for sku, quantity in lines.items():
            repository.set_line(cart_id, owner, sku, quantity, now=now, expires_at=expires_at)
