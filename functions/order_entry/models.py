"""Order entry API models: camelCase on the wire and in the stored items' attributes (`from_item`)."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import Field, StringConstraints

from functions.shared.models import ApiModel, Day, JsonInt, JsonNumber, PageOf, rounded, stripped_rules

# Ids become parts of keys: no separator (`#`), no spaces.
ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
# Names become parts of keys too (employees by name, customers by name): letters, digits, spaces, . ' -, no `#`.
# (Surrounding spaces are trimmed: the pattern asks for one character that is not a space.)
NAME_PATTERN = r"^[A-Za-z0-9 .'-]*[A-Za-z0-9.'-][A-Za-z0-9 .'-]*$"
NAME_MAX_LENGTH = 100
QUARTER_PATTERN = r"^\d{4}-Q[1-4]$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
IdPath = Annotated[str, Path(pattern=ID_PATTERN)]
QuarterPath = Annotated[str, Path(pattern=QUARTER_PATTERN)]
Id = Annotated[str, StringConstraints(pattern=ID_PATTERN)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, max_length=NAME_MAX_LENGTH, pattern=NAME_PATTERN)]
Text = Annotated[str, *stripped_rules(1, 200)]

OrderStatus = Literal["OPEN", "SHIPPED", "DELIVERED", "CANCELLED"]
ORDER_STATUSES: tuple[OrderStatus, ...] = ("OPEN", "SHIPPED", "DELIVERED", "CANCELLED")
ReferenceKind = Literal["region", "country", "location", "department", "job", "warehouse"]
MAX_ORDER_LINES = 25
Cents = Annotated[JsonInt, Field(ge=0, le=10**11, strict=True)]
Quantity = Annotated[JsonInt, Field(ge=1, le=1_000_000, strict=True)]


# --- reference entities (regions, countries, locations, departments, jobs, warehouses) ---------------

class ReferenceIn(ApiModel):
    name: Text
    parent_id: Id | None = None  # a country's region, a location's country, a warehouse's location …


class Reference(ApiModel):
    kind: ReferenceKind
    id: str
    name: str
    parent_id: str | None = None


# --- employees ----------------------------------------------------------------------------------------

class HireIn(ApiModel):
    employee_id: Id
    name: Name
    email: Text
    job_id: Id
    department_id: Id
    warehouse_id: Id
    hire_date: Day
    salary_cents: Cents
    commission_pct: Annotated[JsonNumber, Field(ge=0, le=1), rounded(9)] = 0.0
    manager_id: Id | None = None


class Employee(ApiModel):
    """Pattern 1 and 2: the employee's details, without the confidential ones (salary, commission)."""

    employee_id: str
    name: str
    email: str
    job_id: str
    job_since: str
    department_id: str
    warehouse_id: str
    hire_date: str
    manager_id: str | None = None


class EmployeePage(PageOf[Employee]):
    pass


class JobChangeIn(ApiModel):
    job_id: Id
    start_date: Day


class JobHistory(ApiModel):
    """A job history record: the current one is the newest (pattern 3)."""

    employee_id: str
    job_id: str
    start_date: str
    title: str | None = None


class PublicHire(ApiModel):
    """Pattern 6 as everyone sees it: who was hired when, and their manager (public, as in pattern 1's details)."""

    employee_id: str
    name: str
    hire_date: str
    manager_id: str | None = None


class Hire(PublicHire):
    """Pattern 6 as admins see it: with the confidential fields of the HR-CONFIDENTIAL item."""

    salary_cents: int
    commission_pct: float


class HirePage(PageOf[Hire]):
    pass


class PublicHirePage(PageOf[PublicHire]):
    pass


class EmployeeEdge(ApiModel):
    """Patterns 7 and 11: an employee found through a warehouse or a job."""

    employee_id: str
    name: str


class EmployeeEdgePage(PageOf[EmployeeEdge]):
    pass


# --- customers, products, stock -----------------------------------------------------------------------

class CustomerIn(ApiModel):
    name: Name
    rep_id: Id


class Customer(ApiModel):
    customer_id: str
    name: str
    rep_id: str


class CustomerPage(PageOf[Customer]):
    pass


class ProductIn(ApiModel):
    name: Text
    price_cents: Cents


class Product(ApiModel):
    """Pattern 13: a product with its total inventory over every warehouse."""

    product_id: str
    name: str
    price_cents: int
    total_inventory: int = 0


class Inventory(ApiModel):
    """Pattern 12: one product's stock in one warehouse."""

    warehouse_id: str
    product_id: str
    quantity: int


class ReceiptIn(ApiModel):
    quantity: Quantity


class MoveIn(ApiModel):
    product_id: Id
    from_warehouse_id: Id
    to_warehouse_id: Id
    quantity: Quantity  # two different warehouses (OrderEntryService.move)


class Move(ApiModel):
    product_id: str
    source: Inventory
    destination: Inventory


# --- orders -------------------------------------------------------------------------------------------

class LineIn(ApiModel):
    product_id: Id
    quantity: Quantity


class OrderIn(ApiModel):
    customer_id: Id
    # One line per product, checked by OrderEntryService (`one_line_per_product`): JSON Schema cannot state it.
    lines: Annotated[list[LineIn], Field(min_length=1, max_length=MAX_ORDER_LINES)]


class OrderLine(ApiModel):
    order_id: str
    product_id: str
    quantity: int
    unit_price_cents: int
    order_date: str


class Order(ApiModel):
    order_id: str
    customer_id: str
    rep_id: str
    status: OrderStatus
    order_date: str
    total_cents: int
    lines: list[OrderLine] | None = None


class OrderPage(PageOf[Order]):
    pass


class StatusChange(ApiModel):
    status: OrderStatus


class ProductActivityPage(ApiModel):
    """Pattern 8: a product's order lines and its stock in each warehouse, in one GSI1 partition."""

    next_cursor: str | None = None
    order_lines: list[OrderLine]
    inventories: list[Inventory]


class RepQuarter(ApiModel):
    """Pattern 14: an account rep's order total in a quarter (cancelled orders leave it)."""

    rep_id: str
    quarter: str
    total_cents: int
    order_count: int


class RepQuarterPage(PageOf[RepQuarter]):
    pass
