"""Cart API (seed 002, "Data Modeling Exercise #1"): carts of the signed-in user, prices, notifications,
abandoned-cart counts. Each route: validated input, one call into the service (the repository, for a read whose
only rule is its key)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.cart import models
from functions.cart.repository import CartRepository, TableNames
from functions.cart.service import CartService
from functions.shared import kit

router = kit.DomainRouter.of(__file__)


service = kit.service(CartService, CartRepository, TableNames)
Service = Annotated[CartService, kit.Depends(service)]
Repository = Annotated[CartRepository, kit.Depends(kit.repository_of(service))]


def _owner(caller: kit.Caller) -> str:
    """Carts and notifications are the caller's own, kept under their username."""
    return caller.username


Owner = Annotated[str, kit.Depends(_owner)]


# --- carts (the caller's own) -------------------------------------------------------------------------


@router.serve
def create_cart(svc: Service, owner: Owner, create: kit.CreateOnce,
                idempotency_key: kit.IdempotencyKey = None) -> Response[models.Cart]:
    """Create an empty cart for the caller."""
    return create(operation="cart.create", key=idempotency_key, request={},
                  make=lambda: svc.create_cart(owner))


@router.serve
def get_cart(cart_id: models.CartIdPath, svc: Service, owner: Owner) -> models.Cart:
    """Read a cart with its lines."""
    return svc.get_cart(owner, cart_id)


@router.serve
def set_line(cart_id: models.CartIdPath, sku: models.SkuPath, line: models.LineIn, svc: Service,
             owner: Owner) -> models.Cart:
    """Set the quantity of one SKU in a cart."""
    return svc.set_line(owner, cart_id, sku, line.quantity)


@router.serve
def remove_line(cart_id: models.CartIdPath, sku: models.SkuPath, svc: Service, owner: Owner) -> Response[None]:
    """Remove one SKU from a cart."""
    svc.remove_line(owner, cart_id, sku)
    return Response(status_code=204)


@router.serve
def clear(cart_id: models.CartIdPath, svc: Service, owner: Owner) -> Response[None]:
    """Remove every line of a cart."""
    svc.clear(owner, cart_id)
    return Response(status_code=204)


@router.serve
def check_out(cart_id: models.CartIdPath, svc: Service, owner: Owner) -> models.Cart:
    """Check out a cart: price its lines and close it."""
    return svc.check_out(owner, cart_id)


# --- prices -------------------------------------------------------------------------------------------


@router.serve
def put_price(sku: models.SkuPath, price: models.PriceIn, svc: Service) -> models.Price:
    """Set the price of a SKU."""
    return svc.put_price(sku, price)


@router.serve
def get_price(sku: models.SkuPath, svc: Service) -> models.Price:
    """Read the current price of a SKU."""
    return svc.get_price(sku)


@router.serve
def prices_in_cart(cart_id: models.CartIdPath, svc: Service, owner: Owner) -> list[models.Price]:
    """Read the current price of each SKU in a cart, by SKU."""
    return svc.prices_in(owner, cart_id)


# --- notifications and abandoned carts ----------------------------------------------------------------


@router.serve
@kit.paged
def notifications(repo: Repository, owner: Owner, page: kit.PageRequest) -> models.NotificationPage:
    """List the caller's price-change notifications."""
    return page.of(models.NotificationPage, repo.notifications_of, owner, bound_to={"owner": owner})


@router.serve
def abandoned(day: Annotated[str, Query(pattern=kit.DAY_PATTERN, description="a UTC day, YYYY-MM-DD")],
              svc: Service) -> models.AbandonedCount:
    """Count the carts abandoned on a day."""
    return svc.abandoned_on(day)


app, lambda_handler = kit.serve(router)
