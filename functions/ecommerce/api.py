"""Ecommerce API (seed 003, "e-Commerce Application"): customers unique on username and email, named addresses,
orders with their items, the customer with their most recent orders."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from aws_lambda_powertools.event_handler import Response, content_types
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
from functions.shared.auth import caller_of
from functions.shared.handler import api_handler
from functions.shared.http import DomainRouter, build_resolver
from functions.shared.idempotency import IdempotencyKey, create_once
from functions.shared.models import dump
from functions.shared.observability import metrics
from functions.shared.pagination import (
    DEFAULT_LIMIT,
    Cursor,
    Limit,
    binding,
    cursor_codec,
    paginate,
)
from functions.shared.settings import settings

router = DomainRouter(ROUTES)

UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
OrderIdPath = Annotated[str, Path(pattern=ORDER_ID_PATTERN, description="a KSUID")]
AddressName = Annotated[
    str, Query(max_length=ADDRESS_NAME_MAX_LENGTH, pattern=ADDRESS_NAME_PATTERN, description="the address's name")
]


@lru_cache(maxsize=1)
def service() -> EcommerceService:
    return EcommerceService(EcommerceRepository(settings()))


def orders_list(username: str) -> str:
    """The cursor binding shared by the overview (its nextCursor) and the orders list it continues."""
    return f"ecommerce.orders/{username}"


def _self_or_admin(username: str) -> None:
    service().require_self_or_admin(caller_of(app), username)


# --- customers ------------------------------------------------------------------------------------------

@router.serve
def sign_up(request: SignUpIn) -> Response[Customer]:
    """Sign up a customer with a unique username and email."""
    _self_or_admin(request.username)
    result = service().sign_up(request)
    if result.created:
        metrics.add_metric(name="CustomerSignedUp", unit="Count", value=1)
    return Response(status_code=201 if result.created else 200, content_type=content_types.APPLICATION_JSON,
                    body=dump(result.customer))


@router.serve
def customer_with_recent_orders(username: UsernamePath) -> CustomerOverview:
    """Read a customer with their most recent orders."""
    _self_or_admin(username)
    overview = service().customer_with_recent_orders(username)
    return CustomerOverview(
        customer=overview.customer, orders=overview.orders,
        next_cursor=cursor_codec().encode(overview.last_key, binding(orders_list(username))),
    )


@router.serve
def change_email(username: UsernamePath, change: EmailChangeIn) -> Customer:
    """Change a customer's email."""
    _self_or_admin(username)
    return service().change_email(username, change)


@router.serve
def put_address(username: UsernamePath, address: AddressIn) -> Customer:
    """Create or replace one of a customer's named addresses."""
    _self_or_admin(username)
    return service().put_address(username, address.name, address.address())


@router.serve
def delete_address(username: UsernamePath, name: AddressName) -> Customer:
    """Delete one of a customer's named addresses."""
    _self_or_admin(username)
    return service().delete_address(username, name.strip())


# --- orders ---------------------------------------------------------------------------------------------

@router.serve
def place_order(username: UsernamePath, order: OrderIn, idempotency_key: IdempotencyKey = None) -> Response[Order]:
    """Place an order for a customer."""
    _self_or_admin(username)
    response = create_once(app, operation="ecommerce.place_order", key=idempotency_key,
                           request={"username": username, **order.model_dump(mode="json")},
                           make=lambda: service().place_order(username, order))
    metrics.add_metric(name="OrderPlaced", unit="Count", value=1)
    return response


@router.serve
def orders_of(username: UsernamePath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> OrderPage:
    """List a customer's orders, newest first."""
    _self_or_admin(username)
    return paginate(
        OrderPage, orders_list(username), cursor,
        lambda start: service().orders_of(username, limit=limit, start_key=start),
    )


@router.serve
def order_with_items(username: UsernamePath, order_id: OrderIdPath) -> OrderWithItems:
    """Read an order with its items."""
    _self_or_admin(username)
    return service().order_with_items(username, order_id)


@router.serve
def set_status(username: UsernamePath, order_id: OrderIdPath, change: StatusIn) -> Order:
    """Change an order's status."""
    caller = caller_of(app)
    service().require_self_or_admin(caller, username)
    return service().set_status(caller, username, order_id, change.status)


app = build_resolver()
app.include_router(router)

lambda_handler = api_handler(app)
