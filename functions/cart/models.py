"""Cart API models: camelCase on the wire, times in UTC, prices as exact decimals (strings in JSON)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import Field, StringConstraints

from functions.shared.models import ApiModel, JsonInt, PageOf, money_rules

# No "#": a SKU is part of the keys <sku>#<n> (CartHolders), SKU#<sku> and NOTE#<time>#<sku>.
SKU_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
CART_ID_PATTERN = r"^[0-9a-f]{32}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
CartIdPath = Annotated[str, Path(pattern=CART_ID_PATTERN)]
SkuPath = Annotated[str, Path(pattern=SKU_PATTERN)]

MAX_QUANTITY = 999

Sku = Annotated[str, StringConstraints(pattern=SKU_PATTERN)]
Quantity = Annotated[JsonInt, Field(ge=1, le=MAX_QUANTITY, strict=True)]
Money = Annotated[Decimal, *money_rules(positive=True)]
Currency = Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")]
CartStatus = Literal["OPEN", "CHECKED_OUT"]


class LineIn(ApiModel):
    quantity: Quantity


class Line(ApiModel):
    sku: str
    quantity: int
    updated_at: datetime


class Cart(ApiModel):
    cart_id: str
    owner: str
    status: CartStatus
    lines: list[Line]
    line_count: int
    created_at: datetime
    updated_at: datetime
    expires_at: int = Field(
        description="epoch seconds after which the idle cart is gone (TTL), refreshed by every change")


class PriceIn(ApiModel):
    price: Money
    currency: Currency = "USD"


class Price(ApiModel):
    sku: str
    price: Decimal
    currency: str
    version: int
    updated_at: datetime


class Notification(ApiModel):
    sku: str
    old_price: Decimal
    new_price: Decimal
    currency: str = Field(description="the currency of newPrice")
    old_currency: str | None = Field(description="the currency of oldPrice (null only in a notification stored "
                                                 "before it was recorded)")
    price_version: int
    changed_at: datetime
    cart_ids: list[str]


class NotificationPage(PageOf[Notification]):
    pass


class AbandonedCount(ApiModel):
    day: str
    abandoned_carts: int
