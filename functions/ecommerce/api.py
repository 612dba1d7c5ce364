"""Ecommerce API (seed 003, "e-Commerce Application"): customers unique on username and email, named addresses,
orders with their items, the customer with their most recent orders."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.ecommerce.models import (
    ADDRESS_NAME_MAX_LENGTH,
    ADDRESS_NAME_PATTERN,
    ORDER_ID_PATTERN,
    USERNAME_PATTERN,
    AddressIn,
    Customer,
    CustomerOverview,
    EmailChangeIn,
    Order,
    OrderIn,
    OrderPage,
    OrderWithItems,
    SignUpIn,
    StatusIn,
)
from functions.ecommerce.repository import EcommerceRepository
from functions.ecommerce.routes import ROUTES
from functions.ecommerce.service import EcommerceService
from functions.shared import kit
from functions.shared.pagination import cursor_codec, route_binding

router = kit.DomainRouter(ROUTES)

UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
OrderIdPath = Annotated[str, Path(pattern=ORDER_ID_PATTERN, description="a KSUID")]
AddressName = Annotated[
    str, Query(max_length=ADDRESS_NAME_MAX_LENGTH, pattern=ADDRESS_NAME_PATTERN, description="the address's name")
]


@kit.per_container
def service() -> EcommerceService:
    return EcommerceService(EcommerceRepository(kit.settings()))


Service = Annotated[EcommerceService, kit.Depends(service)]


def orders_list(username: str) -> str:
    """The cursor binding of the orders list (`orders_of`), which the overview's nextCursor continues."""
    route = ROUTES["orders_of"]
    return route_binding(route.method, route.path, username=username)


def _self_or_admin(svc: EcommerceService, username: str) -> None:
    svc.require_self_or_admin(kit.caller_of(app), username)


# --- customers ------------------------------------------------------------------------------------------


@router.serve
def sign_up(request: SignUpIn, svc: Service) -> Response[Customer]:
    """Sign up a customer with a unique username and email."""
    _self_or_admin(svc, request.username)
    result = svc.sign_up(request)
    if result.created:
        kit.metrics.add_metric(name="CustomerSignedUp", unit="Count", value=1)
    return kit.answer(201 if result.created else 200, result.customer)


@router.serve
def customer_with_recent_orders(username: UsernamePath, svc: Service) -> CustomerOverview:
    """Read a customer with their most recent orders."""
    _self_or_admin(svc, username)
    customer, overview = svc.customer_with_recent_orders(username)
    return CustomerOverview(customer=customer, orders=overview.orders,
                            next_cursor=cursor_codec().encode(overview.last_key, orders_list(username)))


@router.serve
def change_email(username: UsernamePath, change: EmailChangeIn, svc: Service) -> Customer:
    """Change a customer's email."""
    _self_or_admin(svc, username)
    return svc.change_email(username, change)


@router.serve
def put_address(username: UsernamePath, address: AddressIn, svc: Service) -> Customer:
    """Create or replace one of a customer's named addresses."""
    _self_or_admin(svc, username)
    return svc.put_address(username, address.name, address.address())


@router.serve
def delete_address(username: UsernamePath, name: AddressName, svc: Service) -> Customer:
    """Delete one of a customer's named addresses."""
    _self_or_admin(svc, username)
    return svc.delete_address(username, name.strip())


# --- orders ---------------------------------------------------------------------------------------------


@router.serve
def place_order(username: UsernamePath, order: OrderIn, svc: Service,
                idempotency_key: kit.IdempotencyKey = None) -> Response[Order]:
    """Place an order for a customer."""
    _self_or_admin(svc, username)
    response = kit.create_once(app, operation="ecommerce.place_order", key=idempotency_key,
                               request={"username": username, **order.model_dump(mode="json")},
                               make=lambda: svc.place_order(username, order))
    kit.metrics.add_metric(name="OrderPlaced", unit="Count", value=1)
    return response


@router.serve
def orders_of(username: UsernamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
              cursor: kit.Cursor = None) -> OrderPage:
    """List a customer's orders, newest first."""
    _self_or_admin(svc, username)
    return kit.paginate(app, OrderPage, cursor, lambda start: svc.orders_of(username, limit=limit, start_key=start))


@router.serve
def order_with_items(username: UsernamePath, order_id: OrderIdPath, svc: Service) -> OrderWithItems:
    """Read an order with its items."""
    _self_or_admin(svc, username)
    return svc.order_with_items(username, order_id)


@router.serve
def set_status(username: UsernamePath, order_id: OrderIdPath, change: StatusIn, svc: Service) -> Order:
    """Change an order's status."""
    caller = kit.caller_of(app)
    svc.require_self_or_admin(caller, username)
    return svc.set_status(caller, username, order_id, change.status)


app, lambda_handler = kit.serve(router)
