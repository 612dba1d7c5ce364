"""The seed's customers (seed 003, "e-Commerce Application"): Alex DeBrie and Vito Corleone, their addresses, orders
and order items, written through the repository (so the emails are reserved too). The order ids are the seed's KSUIDs
(`1VrgXBQ0VCshuQUnh1HrDIHQNwY`, `1YRfXS14inXwIJEf9tO5hWnL2pi` appear in its snippets; Vito's is one of the same form).
Loading twice changes nothing: a stored customer is found, not written again, and a stored order id is refused."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from functions.ecommerce import ksuid
from functions.ecommerce.models import Address, Customer, Order, OrderItem
from functions.ecommerce.repository import EcommerceRepository
from functions.ecommerce.service import iso, order_total
from functions.shared.errors import ConflictError
from functions.shared.settings import Settings

ALEX = Customer(
    username="alexdebrie", name="Alex DeBrie", email="alexdebrie1@gmail.com",
    addresses={
        "Home": Address(street="111 1st Street", city="Omaha", state="NE", postal_code="68102", country="USA"),
        "Business": Address(street="123 Main Street", city="Omaha", state="NE", postal_code="68102", country="USA"),
    },
)
VITO = Customer(
    username="the_don", name="Vito Corleone", email="vito.corleone@gmail.com",
    addresses={
        "Home": Address(street="1 Corleone Way", city="Long Beach", state="NY", postal_code="11561", country="USA"),
        "Parents' House": Address(street="Via Corleone 1", city="Corleone", country="Italy"),
    },
)
CUSTOMERS = [ALEX, VITO]


def _order(username: str, order_id: str, status: str, items: list[tuple[str, str, str, int]]) -> tuple[Order, list[OrderItem]]:
    lines = [OrderItem(order_id=order_id, item_id=item_id, description=description, price=Decimal(price),
                       quantity=quantity) for item_id, description, price, quantity in items]
    order = Order(order_id=order_id, username=username, created_at=iso(ksuid.timestamp(order_id)), status=status,
                  number_of_items=sum(line.quantity for line in lines), amount=order_total(lines))
    return order, lines


ORDERS = [
    _order("alexdebrie", "1VrgXBQ0VCshuQUnh1HrDIHQNwY", "SHIPPED", [
        ("1VrgXHCXY2ICLjeq0shPUv2N6Fo", "The Mysterious Benedict Society", "9.99", 1),
        ("1VrgXLDmHGaiTlWkrqBlZ4Pcyz6", "Harry Potter and the Sorcerer's Stone", "11.49", 2),
    ]),
    _order("alexdebrie", "1YRfXS14inXwIJEf9tO5hWnL2pi", "PLACED", [
        ("1YRfXWgamKpCHQJHHlK97R7iPtU", "Goodnight Moon", "6.99", 1),
    ]),
    _order("the_don", "1WeadNNGQaSlCcDmR2DKk6MGeQF", "DELIVERED", [
        ("1WeadRnkXJvdZcpZaXbWzwPgS2m", "The Godfather", "14.99", 1),
    ]),
]


def load(env: Mapping[str, str]) -> None:
    repository = EcommerceRepository(Settings(env))
    for customer in CUSTOMERS:
        try:
            repository.sign_up(customer.model_copy(update={"addresses": {}}))
        except ConflictError:
            pass  # the email is someone else's in a shared table: leave it
        for name, address in customer.addresses.items():
            repository.put_address(customer.username, name, address)
    for order, items in ORDERS:
        try:
            repository.place_order(order, items)
        except ConflictError:
            pass  # placed by an earlier load
