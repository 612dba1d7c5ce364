"""Ecommerce API models (camelCase on the wire and in the stored items; `from_item` drops the keys)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import Field, StringConstraints, field_validator

from functions.ecommerce import ksuid
from functions.shared.models import (
    WHITE_SPACE,
    WHITE_SPACE_CHARS,
    ApiModel,
    JsonInt,
    PageOf,
    money_rules,
    normalized_rules,
    stripped_rules,
)

# No "#": a username or item id must never reach into another key's shape (`CUSTOMER#a#…`).
USERNAME_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
ITEM_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
ORDER_ID_PATTERN = ksuid.PATTERN

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
OrderIdPath = Annotated[str, Path(pattern=ORDER_ID_PATTERN, description="a KSUID")]

EMAIL_PATTERN = rf"^[^@/#{WHITE_SPACE}]+@[^@/#{WHITE_SPACE}]+\.[^@/#{WHITE_SPACE}]+$"
EMAIL_MAX_LENGTH = 254
ADDRESS_NAME_MAX_LENGTH = 40
# Printable, not only spaces: "Home", "Parents' House".
ADDRESS_NAME_PATTERN = rf"^[^\x00-\x1f\x7f]*[^{WHITE_SPACE}][^\x00-\x1f\x7f]*$"

Status = Literal["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"]
TargetStatus = Literal["SHIPPED", "DELIVERED", "CANCELLED"]


def normalize_email(value: str) -> str:
    """The form an email is unique in: trimmed, lower-cased."""
    return value.strip(WHITE_SPACE_CHARS).lower()


Email = Annotated[str, *normalized_rules(normalize_email, EMAIL_PATTERN, EMAIL_MAX_LENGTH)]
Username = Annotated[str, StringConstraints(pattern=USERNAME_PATTERN)]
Text = Annotated[str, *stripped_rules(1, 200)]
Region = Annotated[str, *stripped_rules(0, 100)]  # a state or a country
PostalCode = Annotated[str, *stripped_rules(0, 20)]
AddressName = Annotated[
    str, StringConstraints(strip_whitespace=True, max_length=ADDRESS_NAME_MAX_LENGTH, pattern=ADDRESS_NAME_PATTERN)
]
Money = Annotated[Decimal, *money_rules(positive=False)]


class SignUpIn(ApiModel):
    username: Username
    name: Text
    email: Email


class EmailChangeIn(ApiModel):
    email: Email


class Address(ApiModel):
    street: Text
    city: Text
    state: Region | None = None
    postal_code: PostalCode | None = None
    country: Region | None = None


class AddressIn(Address):
    name: AddressName

    def address(self) -> Address:
        return Address(**self.model_dump(exclude={"name"}))


class Customer(ApiModel):
    username: str
    name: str
    email: str
    addresses: dict[str, Address] = Field(default_factory=dict)


class OrderItemIn(ApiModel):
    item_id: Annotated[str, StringConstraints(pattern=ITEM_ID_PATTERN)]
    description: Annotated[str, *stripped_rules(1, 500)]
    price: Money
    quantity: Annotated[JsonInt, Field(ge=1, le=1000, strict=True)] = 1


class OrderIn(ApiModel):
    # The 98-item bound is the service's (ORDER_TOO_LARGE, a message that says why); here only "at least one".
    items: Annotated[list[OrderItemIn], Field(min_length=1)]

    @field_validator("items")
    @classmethod
    def _distinct_items(cls, items: list[OrderItemIn]) -> list[OrderItemIn]:
        # One item per key: a TransactWriteItems may not touch one item twice.
        if len({item.item_id for item in items}) != len(items):
            raise ValueError("each itemId appears once per order (use quantity)")
        return items


class OrderItem(ApiModel):
    order_id: str
    item_id: str
    description: str
    price: Decimal
    quantity: int


class Order(ApiModel):
    order_id: str
    username: str
    created_at: str
    status: Status
    number_of_items: int
    amount: Decimal


class StatusIn(ApiModel):
    status: TargetStatus


class OrderWithItems(ApiModel):
    order: Order
    items: list[OrderItem]


class CustomerOverview(ApiModel):
    customer: Customer
    orders: list[Order]
    next_cursor: str | None = None  # for GET …/orders: the orders older than these


class OrderPage(PageOf[Order]):
    pass
