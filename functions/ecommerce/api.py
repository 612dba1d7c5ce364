"""Ecommerce API (seed 003, "e-Commerce Application"): customers unique on username and email, named addresses,
orders with their items, the customer with their most recent orders."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.ecommerce.models import (
    ADDRESS_NAME_MAX_LENGTH,
    ADDRESS_NAME_PATTERN,
    AddressIn,
    Customer,
    CustomerOverview,
    EmailChangeIn,
    Order,
    OrderIdPath,
    OrderIn,
    OrderPage,
    OrderWithItems,
    SignUpIn,
    StatusIn,
    UsernamePath,
)
from functions.ecommerce.repository import EcommerceRepository
from functions.ecommerce.service import EcommerceService
from functions.shared import kit
from functions.shared.cursors import cursor_codec, route_binding

router = kit.DomainRouter.of(__file__)

AddressName = Annotated[
    str, Query(max_length=ADDRESS_NAME_MAX_LENGTH, pattern=ADDRESS_NAME_PATTERN, description="the address's name")
]


service = kit.service(EcommerceService, EcommerceRepository)
Service = Annotated[EcommerceService, kit.Depends(service)]


def orders_list(username: str) -> str:
    """The cursor binding of the orders list (`orders_of`), which the overview's nextCursor continues."""
    route = router.routes["orders_of"]
    return route_binding(route.method, route.path, username=username)


# --- customers ------------------------------------------------------------------------------------------


@router.serve
def sign_up(request: SignUpIn, svc: Service, caller: kit.Caller) -> Response[Customer]:
    """Sign up a customer with a unique username and email."""
    svc.require_self_or_admin(caller, request.username)
    result = svc.sign_up(request)
    return kit.created(result.created, result.customer, metric="CustomerSignedUp")


@router.serve
def customer_with_recent_orders(username: UsernamePath, svc: Service, caller: kit.Caller) -> CustomerOverview:
    """Read a customer with their most recent orders."""
    svc.require_self_or_admin(caller, username)
    customer, overview = svc.customer_with_recent_orders(username)
    return CustomerOverview(customer=customer, orders=overview.orders,
                            next_cursor=cursor_codec().encode(overview.last_key, orders_list(username)))


@router.serve
def change_email(username: UsernamePath, change: EmailChangeIn, svc: Service, caller: kit.Caller) -> Customer:
    """Change a customer's email."""
    svc.require_self_or_admin(caller, username)
    return svc.change_email(username, change)


@router.serve
def put_address(username: UsernamePath, address: AddressIn, svc: Service, caller: kit.Caller) -> Customer:
    """Create or replace one of a customer's named addresses."""
    svc.require_self_or_admin(caller, username)
    return svc.put_address(username, address.name, address.address())


@router.serve
def delete_address(username: UsernamePath, name: AddressName, svc: Service, caller: kit.Caller) -> Customer:
    """Delete one of a customer's named addresses."""
    svc.require_self_or_admin(caller, username)
    return svc.delete_address(username, name.strip())


# --- orders ---------------------------------------------------------------------------------------------


@router.serve
def place_order(username: UsernamePath, order: OrderIn, svc: Service, caller: kit.Caller, create: kit.CreateOnce,
                idempotency_key: kit.IdempotencyKey = None) -> Response[Order]:
    """Place an order for a customer."""
    svc.require_self_or_admin(caller, username)
    response = create(operation="ecommerce.place_order", key=idempotency_key,
                      request={"username": username, **order.model_dump(mode="json")},
                      make=lambda: svc.place_order(username, order))
    kit.metrics.add_metric(name="OrderPlaced", unit="Count", value=1)
    return response


@router.serve
@kit.paged
def orders_of(username: UsernamePath, svc: Service, caller: kit.Caller, page: kit.PageRequest) -> OrderPage:
    """List a customer's orders, newest first."""
    svc.require_self_or_admin(caller, username)
    return page.page(OrderPage, lambda start: svc.orders_of(username, limit=page.limit, start_key=start))


@router.serve
def order_with_items(username: UsernamePath, order_id: OrderIdPath, svc: Service, caller: kit.Caller) -> OrderWithItems:
    """Read an order with its items."""
    svc.require_self_or_admin(caller, username)
    return svc.order_with_items(username, order_id)


@router.serve
def set_status(username: UsernamePath, order_id: OrderIdPath, change: StatusIn, svc: Service,
               caller: kit.Caller) -> Order:
    """Change an order's status."""
    svc.require_self_or_admin(caller, username)
    return svc.set_status(caller, username, order_id, change.status)


app, lambda_handler = kit.serve(router)
