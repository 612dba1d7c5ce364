"""Cart API (seed 002, "Data Modeling Exercise #1"): carts of the signed-in user, prices, notifications,
abandoned-cart counts. Each route: validated input, one call into the service."""

from __future__ import annotations

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
from functions.shared import kit

router = kit.DomainRouter(ROUTES)

CartIdPath = Annotated[str, Path(pattern=CART_ID_PATTERN)]
SkuPath = Annotated[str, Path(pattern=SKU_PATTERN)]


@kit.per_container
def service() -> CartService:
    return CartService(CartRepository(TableNames(kit.settings())))


Service = Annotated[CartService, kit.Depends(service)]


def _owner() -> str:
    return kit.caller_of(app).username


# --- carts (the caller's own) -------------------------------------------------------------------------


@router.serve
def create_cart(svc: Service, idempotency_key: kit.IdempotencyKey = None) -> Response[Cart]:
    """Create an empty cart for the caller."""
    owner = _owner()
    return kit.create_once(app, operation="cart.create", key=idempotency_key, request={},
                           make=lambda: svc.create_cart(owner))


@router.serve
def get_cart(cart_id: CartIdPath, svc: Service) -> Cart:
    """Read a cart with its lines."""
    return svc.get_cart(_owner(), cart_id)


@router.serve
def set_line(cart_id: CartIdPath, sku: SkuPath, line: LineIn, svc: Service) -> Cart:
    """Set the quantity of one SKU in a cart."""
    return svc.set_line(_owner(), cart_id, sku, line.quantity)


@router.serve
def remove_line(cart_id: CartIdPath, sku: SkuPath, svc: Service) -> Response[None]:
    """Remove one SKU from a cart."""
    svc.remove_line(_owner(), cart_id, sku)
    return Response(status_code=204)


@router.serve
def clear(cart_id: CartIdPath, svc: Service) -> Response[None]:
    """Remove every line of a cart."""
    svc.clear(_owner(), cart_id)
    return Response(status_code=204)


@router.serve
def check_out(cart_id: CartIdPath, svc: Service) -> Cart:
    """Check out a cart: price its lines and close it."""
    return svc.check_out(_owner(), cart_id)


# --- prices -------------------------------------------------------------------------------------------


@router.serve
def put_price(sku: SkuPath, price: PriceIn, svc: Service) -> Price:
    """Set the price of a SKU."""
    return svc.put_price(sku, price)


@router.serve
def get_price(sku: SkuPath, svc: Service) -> Price:
    """Read the current price of a SKU."""
    return svc.get_price(sku)


# --- notifications and abandoned carts ----------------------------------------------------------------


@router.serve
def notifications(svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT, cursor: kit.Cursor = None) -> NotificationPage:
    """List the caller's price-change notifications."""
    owner = _owner()
    return kit.paginate(app, NotificationPage, cursor,
                        lambda start: svc.notifications_of(owner, limit=limit, start_key=start), owner=owner)


@router.serve
def abandoned(day: Annotated[str, Query(pattern=kit.DAY_PATTERN, description="a UTC day, YYYY-MM-DD")],
              svc: Service) -> AbandonedCount:
    """Count the carts abandoned on a day."""
    return svc.abandoned_on(day)


app, lambda_handler = kit.serve(router)
