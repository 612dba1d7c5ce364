"""Order entry API (seed 004, the relational HR and order-entry schema): the 14 access patterns and the writes that
keep their edges right. Each route is a validated input and one call into the service (the repository, for a
read whose only rule is its key)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.order_entry import models
from functions.order_entry.repository import OrderEntryRepository
from functions.order_entry.service import OrderEntryService
from functions.shared import kit
from functions.shared.auth import ADMIN
from functions.shared.pages import Page, StartKey

P = "/order-entry"
router = kit.DomainRouter.of(__file__)

From = Annotated[str, Query(alias="from", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")]
To = Annotated[str, Query(alias="to", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")]


service = kit.service(OrderEntryService, OrderEntryRepository)
Service = Annotated[OrderEntryService, kit.Depends(service)]
Repository = Annotated[OrderEntryRepository, kit.Depends(kit.repository_of(service))]


def _day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise kit.InvalidInputError(
            f"{name} is not a real day",
            details=[{"field": f"query.{name}", "message": "must be a real YYYY-MM-DD"}],
        ) from error


def _after(start: StartKey) -> str | None:
    """The merged lists' cursor: the `<date>#<orderId>` of the last order a page returned."""
    return None if start is None else str(start["after"])


def _dated_orders(first: str, last: str, page: kit.PageRequest, fetch: Callable[..., Page]) -> models.OrderPage:
    """One page of a list of orders merged by date from several Queries: `fetch(first_day, last_day, after=...)`."""
    days = _day(first, "from"), _day(last, "to")
    return page.page(models.OrderPage, lambda start: fetch(*days, after=_after(start)))


# --- reference entities, products, customers (admin) --------------------------------------------------


@router.serve
def put_reference(kind: Annotated[models.ReferenceKind, Path()], entity_id: models.IdPath, body: models.ReferenceIn,
                  svc: Service) -> models.Reference:
    """Create or replace a reference entity (region, country, location, job, department, warehouse).

    A country's `parentId` is a region, a location's a country, a warehouse's or department's a location; it must
    exist. Regions and jobs have no parent (404 PARENT_NOT_FOUND for one given)."""
    return svc.put_reference(kind, entity_id, body)


@router.serve
def put_product(product_id: models.IdPath, body: models.ProductIn, svc: Service) -> models.Product:
    """Create or replace a product (its stock is kept by receipts and moves)."""
    return svc.put_product(product_id, body)


@router.serve
def put_customer(customer_id: models.IdPath, body: models.CustomerIn, svc: Service) -> models.Customer:
    """Create a customer with its account-rep edge, or rename it (its rep stays)."""
    return svc.put_customer(customer_id, body)


# --- employees ----------------------------------------------------------------------------------------


@router.serve
def hire(body: models.HireIn, svc: Service, create: kit.CreateOnce,
         idempotency_key: kit.IdempotencyKey = None) -> Response[models.Employee]:
    """Hire an employee: the employee, confidential, job, warehouse and first job-history items in one transaction."""
    return create(operation="order-entry.hire", key=idempotency_key, request=body.model_dump(mode="json"),
                  make=lambda: svc.hire(body))


@router.serve
def get_employee(employee_id: models.IdPath, svc: Service) -> models.Employee:
    """Look up an employee's details by id (pattern 1)."""
    return svc.get_employee(employee_id)


@router.serve
@kit.paged
def employees_named(name: Annotated[str, Query(pattern=models.NAME_PATTERN, max_length=models.NAME_MAX_LENGTH)],
                    repo: Repository,
                    page: kit.PageRequest) -> models.EmployeePage:
    """Find employees by name (pattern 2, GSI1)."""
    return page.of(models.EmployeePage, repo.employees_named, name)


@router.serve
def current_job(employee_id: models.IdPath, svc: Service) -> models.JobHistory:
    """An employee's current job only: the newest job-history item (pattern 3)."""
    return svc.current_job(employee_id)


@router.serve
def change_job(employee_id: models.IdPath, body: models.JobChangeIn, svc: Service, create: kit.CreateOnce,
               idempotency_key: kit.IdempotencyKey = None) -> Response[models.JobHistory]:
    """Change an employee's job: a new job-history item and the moved job edge, in one transaction."""
    return create(operation=f"order-entry.job-change/{employee_id}", key=idempotency_key,
                  request=body.model_dump(mode="json"), make=lambda: svc.change_job(employee_id, body))


@router.serve
@kit.paged
def recent_hires(since: Annotated[str, Query(pattern=kit.DAY_PATTERN)], svc: Service, caller: kit.Caller,
                 page: kit.PageRequest) -> models.HirePage | models.PublicHirePage:
    """Employees hired since a day (pattern 6); salary and commission only for admins.

    Salary and commission only for admins; the manager is public, as in an employee's details (pattern 1)."""
    confidential = caller.is_in(ADMIN)
    day = _day(since, "since")
    def fetch(start: StartKey) -> Page:
        return svc.recent_hires(day, confidential=confidential, limit=page.limit, start_key=start)

    if confidential:
        return page.page(models.HirePage, fetch)
    return page.page(models.PublicHirePage, fetch)


@router.serve
@kit.paged
def warehouse_employees(warehouse_id: models.IdPath, svc: Service, page: kit.PageRequest) -> models.EmployeeEdgePage:
    """Employees working in a warehouse (pattern 7, GSI1)."""
    return page.of(models.EmployeeEdgePage, svc.warehouse_employees, warehouse_id)


@router.serve
@kit.paged
def job_employees(job_id: models.IdPath, svc: Service, page: kit.PageRequest) -> models.EmployeeEdgePage:
    """Employees holding a job title (pattern 11, GSI1)."""
    return page.of(models.EmployeeEdgePage, svc.job_employees, job_id)


# --- products and stock -------------------------------------------------------------------------------


@router.serve
def get_product(product_id: models.IdPath, svc: Service) -> models.Product:
    """A product with its total inventory over every warehouse (pattern 13)."""
    return svc.get_product(product_id)


@router.serve
@kit.paged
def product_activity(product_id: models.IdPath, svc: Service, page: kit.PageRequest) -> models.ProductActivityPage:
    """A product's order lines and its stock in each warehouse (pattern 8, GSI1).

    The product's order lines and, after them, its stock in each warehouse."""

    def build(items: list[Any], next_cursor: str | None) -> models.ProductActivityPage:
        return models.ProductActivityPage(
            order_lines=[i for i in items if not isinstance(i, models.Inventory)],
            inventories=[i for i in items if isinstance(i, models.Inventory)],
            next_cursor=next_cursor,
        )

    return page.of(build, svc.product_activity, product_id)


@router.serve
def get_inventory(warehouse_id: models.IdPath, product_id: models.IdPath, svc: Service) -> models.Inventory:
    """A product's stock in one warehouse (pattern 12)."""
    return svc.get_inventory(warehouse_id, product_id)


@router.serve
def receive(warehouse_id: models.IdPath, product_id: models.IdPath, body: models.ReceiptIn, svc: Service,
            create: kit.CreateOnce,
            idempotency_key: kit.IdempotencyKey = None) -> Response[models.Inventory]:
    """Receive stock into a warehouse: the warehouse's row and the product's total in one transaction."""
    return create(operation=f"order-entry.receipt/{warehouse_id}/{product_id}", key=idempotency_key,
                  request=body.model_dump(mode="json"),
                  make=lambda: svc.receive(warehouse_id, product_id, body.quantity))


@router.serve
def move(body: models.MoveIn, svc: Service, create: kit.CreateOnce,
         idempotency_key: kit.IdempotencyKey = None) -> Response[models.Move]:
    """Move stock between two warehouses in one transaction (the total does not change)."""
    return create(operation="order-entry.move", key=idempotency_key, request=body.model_dump(mode="json"),
                  make=lambda: svc.move(body))


# --- customers, reps and orders -----------------------------------------------------------------------


@router.serve
def place_order(body: models.OrderIn, svc: Service, create: kit.CreateOnce,
                idempotency_key: kit.IdempotencyKey = None) -> Response[models.Order]:
    """Place an order with its lines: order, lines, rep edge and the rep's quarter total in one transaction."""
    return create(operation="order-entry.order", key=idempotency_key,
                  request=body.model_dump(mode="json"), make=lambda: svc.place_order(body))


@router.serve
def get_order(order_id: models.IdPath, svc: Service) -> models.Order:
    """An order with its lines."""
    return svc.get_order(order_id)


@router.serve
def change_status(order_id: models.IdPath, body: models.StatusChange, svc: Service) -> models.Order:
    """Change an order's status: it moves in GSI2's sort key; a cancellation leaves the rep's total."""
    return svc.change_status(order_id, body.status)


@router.serve
@kit.paged
def orders_in_status(first: From, last: To, svc: Service, page: kit.PageRequest,
                     status: Annotated[models.OrderStatus, Query()] = "OPEN") -> models.OrderPage:
    """Orders in a status over a date range, across every customer (pattern 5, GSI2 shards merged).

    One Query per GSI2 shard, in parallel, merged; one cursor over every shard."""
    return _dated_orders(first, last, page, partial(svc.orders_in_status, status, limit=page.limit))


@router.serve
@kit.paged
def customer_orders(customer_id: models.IdPath, first: From, last: To, svc: Service,
                    page: kit.PageRequest) -> models.OrderPage:
    """A customer's orders in a date range, every status merged by date (pattern 4, GSI1).

    One Query per status, in parallel, merged by date."""
    return _dated_orders(first, last, page, partial(svc.customer_orders, customer_id, limit=page.limit))


@router.serve
@kit.paged
def rep_customers(rep_id: models.IdPath, svc: Service, page: kit.PageRequest) -> models.CustomerPage:
    """An account rep's customers (pattern 9, GSI1)."""
    return page.of(models.CustomerPage, svc.rep_customers, rep_id)


@router.serve
@kit.paged
def rep_orders(rep_id: models.IdPath, first: From, last: To, svc: Service, page: kit.PageRequest) -> models.OrderPage:
    """An account rep's orders in a date range, every status merged by date (pattern 10, GSI1).

    One Query per status, in parallel, merged by date."""
    return _dated_orders(first, last, page, partial(svc.rep_orders, rep_id, limit=page.limit))


@router.serve
@kit.paged
def rep_ranking(quarter: models.QuarterPath, repo: Repository, page: kit.PageRequest) -> models.RepQuarterPage:
    """Account reps ranked by order total in a quarter (pattern 14, GSI1, descending)."""
    return page.of(models.RepQuarterPage, repo.rep_ranking, quarter)


app, lambda_handler = kit.serve(router)
