"""Ecommerce rules that are not storage: who may act for whom, what counts as a retried sign-up, an order's size
limit and totals, the allowed status transitions, and reading again when a customer changed under an optimistic
write."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

from functions.ecommerce import ksuid, models
from functions.ecommerce.repository import EcommerceRepository, Overview, SignUp
from functions.shared import auth
from functions.shared.auth import ADMIN, Caller
from functions.shared.ddb import TRANSACTION_MAX_ACTIONS
from functions.shared.errors import (
    ConflictError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    ThrottledError,
    found,
)
from functions.shared.pages import Page, StartKey

# An order takes one ConditionCheck (the customer) and one Put (the order) of a transaction's actions.
ORDER_OVERHEAD_ACTIONS = 2
MAX_ORDER_ITEMS = TRANSACTION_MAX_ACTIONS - ORDER_OVERHEAD_ACTIONS
PLACED: models.Status = "PLACED"
# Where each status may be reached from; a customer may only cancel.
ALLOWED_FROM: dict[str, tuple[str, ...]] = {
    "SHIPPED": ("PLACED",),
    "DELIVERED": ("SHIPPED",),
    "CANCELLED": ("PLACED",),
}
CUSTOMER_TARGETS = frozenset({"CANCELLED"})
# Optimistic writes read the customer, then write on condition it is unchanged, this many times at most.
ATTEMPTS = 3
CENT = Decimal("0.01")


def utc_now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def check_order_size(request: models.OrderIn) -> None:
    if len(request.items) > MAX_ORDER_ITEMS:
        raise InvalidInputError(
            f"an order holds at most {MAX_ORDER_ITEMS} items: it is written in one DynamoDB transaction of at most "
            f"{TRANSACTION_MAX_ACTIONS} actions, {ORDER_OVERHEAD_ACTIONS} of them for the customer check and the "
            f"order; this one has {len(request.items)}",
            code="ORDER_TOO_LARGE",
            details=[{"field": "body.items", "message": f"at most {MAX_ORDER_ITEMS} items"}],
        )


def order_total(items: list[models.OrderItem]) -> Decimal:
    return sum((item.price * item.quantity for item in items), Decimal(0)).quantize(CENT)


class EcommerceService:
    def __init__(self, repository: EcommerceRepository, clock: Callable[[], datetime] = utc_now) -> None:
        self.repository = repository
        self._clock = clock

    @staticmethod
    def require_self_or_admin(caller: Caller, username: str) -> None:
        auth.require_self_or_admin(caller, username, who="customer")

    # customers

    def sign_up(self, request: models.SignUpIn) -> SignUp:
        """Created (201), or the same customer already there (a retry: 200), or 409 USERNAME_TAKEN / EMAIL_TAKEN."""
        return self.repository.sign_up(models.Customer(username=request.username, name=request.name,
                                                       email=request.email))

    def get_customer(self, username: str, *, consistent: bool = False) -> models.Customer:
        return found(self.repository.get_customer(username, consistent=consistent), f"no customer {username}",
                     "CUSTOMER_NOT_FOUND")

    def change_email(self, username: str, change: models.EmailChangeIn) -> models.Customer:
        """The same email: no write. Otherwise one conditioned transaction; read again if the customer changed."""
        for _ in range(ATTEMPTS):
            customer = self.get_customer(username, consistent=True)
            if customer.email == change.email:
                return customer
            changed = self.repository.change_email(customer, change.email)
            if changed is not None:
                return changed
        raise ThrottledError("the customer kept changing; retry")

    def put_address(self, username: str, name: str, address: models.Address) -> models.Customer:
        return found(self.repository.put_address(username, name, address), f"no customer {username}",
                     "CUSTOMER_NOT_FOUND")

    def delete_address(self, username: str, name: str) -> models.Customer:
        return found(self.repository.delete_address(username, name), f"no customer {username}", "CUSTOMER_NOT_FOUND")

    # orders

    def customer_with_recent_orders(self, username: str) -> tuple[models.Customer, Overview]:
        """The customer (404 when there is none) and the read that found them with their newest orders."""
        overview = self.repository.customer_with_recent_orders(username)
        return found(overview.customer, f"no customer {username}", "CUSTOMER_NOT_FOUND"), overview

    def orders_of(self, username: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.orders_of(username, limit=limit, start_key=start_key)
        if not page.items and start_key is None:
            self.get_customer(username)  # no orders, or no customer: tell them apart (404)
        return page

    def place_order(self, username: str, request: models.OrderIn) -> models.Order:
        check_order_size(request)
        now = self._clock()
        order_id = ksuid.new(now)
        items = [models.OrderItem(order_id=order_id, **item.model_dump()) for item in request.items]
        order = models.Order(order_id=order_id, username=username, created_at=iso(now), status=PLACED,
                      number_of_items=sum(item.quantity for item in items), amount=order_total(items))
        if not self.repository.place_order(order, items):
            raise NotFoundError(f"no customer {username}", code="CUSTOMER_NOT_FOUND")
        return order

    def order_with_items(self, username: str, order_id: str) -> models.OrderWithItems:
        order, items = self.repository.order_with_items(order_id)
        if order is None or order.username != username:
            raise NotFoundError(f"no order {order_id} of {username}", code="ORDER_NOT_FOUND")
        return models.OrderWithItems(order=order, items=items)

    def set_status(self, caller: Caller, username: str, order_id: str, status: str) -> models.Order:
        """Move an order along ALLOWED_FROM (a repeat of the same move answers the order as it is); 409 otherwise."""
        if status not in CUSTOMER_TARGETS and not caller.is_in(ADMIN):
            raise ForbiddenError(f"only an admin may mark an order {status}")
        change = self.repository.set_status(username, order_id, status, ALLOWED_FROM[status], iso(self._clock()))
        if change.order is None:
            raise NotFoundError(f"no order {order_id} of {username}", code="ORDER_NOT_FOUND")
        if not change.changed and change.order.status != status:
            raise ConflictError(
                f"an order goes to {status} only from {' or '.join(ALLOWED_FROM[status])}; "
                f"order {order_id} is {change.order.status}",
                code="INVALID_STATUS_TRANSITION",
            )
        return change.order
