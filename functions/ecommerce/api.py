"""Ecommerce API (seed 003, "e-Commerce Application"): customers unique on username and email, named addresses,
orders with their items, the customer with their most recent orders."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.ecommerce import models
from functions.ecommerce.repository import EcommerceRepository
from functions.ecommerce.service import EcommerceService
from functions.shared import kit
from functions.shared.cursors import cursor_codec, route_binding

router = kit.DomainRouter.of(__file__)

AddressName = Annotated[
    str, Query(max_length=models.ADDRESS_NAME_MAX_LENGTH, pattern=models.ADDRESS_NAME_PATTERN,
               description="the address's name")
]


service = kit.service(EcommerceService, EcommerceRepository)
Service = Annotated[EcommerceService, kit.Depends(service)]


def orders_list(username: str) -> str:
    """The cursor binding of the orders list (`orders_of`), which the overview's nextCursor continues."""
    route = router.routes["orders_of"]
    return route_binding(route.method, route.path, username=username)


# --- customers ------------------------------------------------------------------------------------------


@router.serve
def sign_up(request: models.SignUpIn, svc: Service, caller: kit.Caller) -> Response[models.Customer]:
    """Sign up a customer with a unique username and email."""
    svc.require_self_or_admin(caller, request.username)
    result = svc.sign_up(request)
    return kit.created(result.created, result.customer, metric="CustomerSignedUp")


@router.serve
def customer_with_recent_orders(username: models.UsernamePath, svc: Service,
                                caller: kit.Caller) -> models.CustomerOverview:
    """Read a customer with their most recent orders."""
    svc.require_self_or_admin(caller, username)
    customer, overview = svc.customer_with_recent_orders(username)
    return models.CustomerOverview(customer=customer, orders=overview.orders,
                            next_cursor=cursor_codec().encode(overview.last_key, orders_list(username)))


@router.serve
def change_email(username: models.UsernamePath, change: models.EmailChangeIn, svc: Service,
                 caller: kit.Caller) -> models.Customer:
    """Change a customer's email."""
    svc.require_self_or_admin(caller, username)
    return svc.change_email(username, change)


@router.serve
def put_address(username: models.UsernamePath, address: models.AddressIn, svc: Service,
                caller: kit.Caller) -> models.Customer:
    """Create or replace one of a customer's named addresses."""
    svc.require_self_or_admin(caller, username)
    return svc.put_address(username, address.name, address.address())


@router.serve
def delete_address(username: models.UsernamePath, name: AddressName, svc: Service,
                   caller: kit.Caller) -> models.Customer:
    """Delete one of a customer's named addresses."""
    svc.require_self_or_admin(caller, username)
    return svc.delete_address(username, name.strip())


# --- orders ---------------------------------------------------------------------------------------------


@router.serve
def place_order(username: models.UsernamePath, order: models.OrderIn, svc: Service, caller: kit.Caller,
                create: kit.CreateOnce,
                idempotency_key: kit.IdempotencyKey = None) -> Response[models.Order]:
    """Place an order for a customer."""
    svc.require_self_or_admin(caller, username)
    response = create(operation="ecommerce.place_order", key=idempotency_key,
                      request={"username": username, **order.model_dump(mode="json")},
                      make=lambda: svc.place_order(username, order))
    kit.metrics.add_metric(name="OrderPlaced", unit="Count", value=1)
    return response


@router.serve
@kit.paged
def orders_of(username: models.UsernamePath, svc: Service, caller: kit.Caller,
              page: kit.PageRequest) -> models.OrderPage:
    """List a customer's orders, newest first."""
    svc.require_self_or_admin(caller, username)
    return page.of(models.OrderPage, svc.orders_of, username)


@router.serve
def order_with_items(username: models.UsernamePath, order_id: models.OrderIdPath, svc: Service,
                     caller: kit.Caller) -> models.OrderWithItems:
    """Read an order with its items."""
    svc.require_self_or_admin(caller, username)
    return svc.order_with_items(username, order_id)


@router.serve
def set_status(username: models.UsernamePath, order_id: models.OrderIdPath, change: models.StatusIn, svc: Service,
               caller: kit.Caller) -> models.Order:
    """Change an order's status."""
    svc.require_self_or_admin(caller, username)
    return svc.set_status(caller, username, order_id, change.status)


app, lambda_handler = kit.serve(router)
