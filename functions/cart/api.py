"""Cart API (seed 002, "Data Modeling Exercise #1"): carts of the signed-in user, prices, notifications,
abandoned-cart counts. Each route: validated input, one call into the service."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.cart.models import (
    CART_ID_PATTERN,
    SKU_PATTERN,
    AbandonedCount,
    Cart,
    LineIn,
    NotificationPage,
    Price,
    PriceIn,
)
from functions.cart.repository import CartRepository, TableNames
from functions.cart.routes import ROUTES
from functions.cart.service import CartService
from functions.shared.auth import caller_of
from functions.shared.handler import api_handler
from functions.shared.http import DomainRouter, build_resolver
from functions.shared.idempotency import IdempotencyKey, create_once
from functions.shared.models import DAY_PATTERN
from functions.shared.pagination import DEFAULT_LIMIT, Cursor, Limit, paginate
from functions.shared.settings import settings

router = DomainRouter(ROUTES)

CartIdPath = Annotated[str, Path(pattern=CART_ID_PATTERN)]
SkuPath = Annotated[str, Path(pattern=SKU_PATTERN)]


@lru_cache(maxsize=1)
def service() -> CartService:
    return CartService(CartRepository(TableNames(settings())))


def _owner() -> str:
    return caller_of(app).username


# --- carts (the caller's own) -------------------------------------------------------------------------

@router.serve
def create_cart(idempotency_key: IdempotencyKey = None) -> Response[Cart]:
    """Create an empty cart for the caller."""
    owner = _owner()
    return create_once(app, operation="cart.create", key=idempotency_key, request={},
                       make=lambda: service().create_cart(owner))


@router.serve
def get_cart(cart_id: CartIdPath) -> Cart:
    """Read a cart with its lines."""
    return service().get_cart(_owner(), cart_id)


@router.serve
def set_line(cart_id: CartIdPath, sku: SkuPath, line: LineIn) -> Cart:
    """Set the quantity of one SKU in a cart."""
    return service().set_line(_owner(), cart_id, sku, line.quantity)


@router.serve
def remove_line(cart_id: CartIdPath, sku: SkuPath) -> Response[None]:
    """Remove one SKU from a cart."""
    service().remove_line(_owner(), cart_id, sku)
    return Response(status_code=204)


@router.serve
def clear(cart_id: CartIdPath) -> Response[None]:
    """Remove every line of a cart."""
    service().clear(_owner(), cart_id)
    return Response(status_code=204)


@router.serve
def check_out(cart_id: CartIdPath) -> Cart:
    """Check out a cart: price its lines and close it."""
    return service().check_out(_owner(), cart_id)


# --- prices -------------------------------------------------------------------------------------------

@router.serve
def put_price(sku: SkuPath, price: PriceIn) -> Price:
    """Set the price of a SKU."""
    return service().put_price(sku, price)


@router.serve
def get_price(sku: SkuPath) -> Price:
    """Read the current price of a SKU."""
    return service().get_price(sku)


# --- notifications and abandoned carts ----------------------------------------------------------------

@router.serve
def notifications(limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> NotificationPage:
    """List the caller's price-change notifications."""
    owner = _owner()
    return paginate(
        NotificationPage, f"cart.notifications/{owner}", cursor,
        lambda start: service().notifications_of(owner, limit=limit, start_key=start),
    )


@router.serve
def abandoned(day: Annotated[str, Query(pattern=DAY_PATTERN, description="a UTC day, YYYY-MM-DD")]) -> AbandonedCount:
    """Count the carts abandoned on a day."""
    return service().abandoned_on(day)


app = build_resolver()
app.include_router(router)

lambda_handler = api_handler(app)
