"""Order entry rules that are not storage: what is missing, which status changes are allowed, who sees what,
and the error each failed transaction action means (by the action's name)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime

from functions.order_entry import models
from functions.order_entry.repository import (
    EMPLOYEE_NOT_FOUND,
    ORDER_NOT_FOUND,
    REFERENCE_PARENTS,
    OrderEntryRepository,
)
from functions.shared.ddb import ConditionFailed
from functions.shared.errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    check_range,
    found,
)
from functions.shared.pages import Page, StartKey, listed_under

Clock = Callable[[], datetime]

# Allowed status changes: an order is OPEN until it ships or is cancelled; a shipped order is delivered.
TRANSITIONS: dict[str, frozenset[str]] = {
    "OPEN": frozenset({"SHIPPED", "CANCELLED"}),
    "SHIPPED": frozenset({"DELIVERED"}),
    "DELIVERED": frozenset(),
    "CANCELLED": frozenset(),
}


def utc_now() -> datetime:
    return datetime.now(UTC)


def allowed(current: str, wanted: str) -> bool:
    return wanted in TRANSITIONS[current]


def _missing(kind: str, entity_id: str) -> NotFoundError:
    return NotFoundError(f"no {kind} {entity_id}", code=f"{kind.upper()}_NOT_FOUND")


class OrderEntryService:
    def __init__(self, repository: OrderEntryRepository, clock: Clock = utc_now,
                 new_id: Callable[[], str] = lambda: uuid.uuid4().hex) -> None:
        self.repository = repository
        self.clock = clock
        self.new_id = new_id

    def _known(self, page: Page, first_page: bool, kind: str, entity_id: str) -> Page:
        """A list under an entity whose partition or index does not hold the entity's own item: an empty first page
        costs one keys-only GetItem of the entity, so an unknown one is 404 and one with nothing listed an empty
        list."""
        return listed_under(page, first_page, lambda: self.repository.exists(kind, entity_id),
                            _missing(kind, entity_id))

    # --- reference entities --------------------------------------------------------------------------

    def put_reference(self, kind: models.ReferenceKind, entity_id: str,
                      request: models.ReferenceIn) -> models.Reference:
        """A reference entity; its `parentId` must name an existing entity of its parent kind (REFERENCE_PARENTS),
        and regions and jobs have none."""
        parent_kind = REFERENCE_PARENTS.get(kind)
        if request.parent_id and parent_kind is None:
            # schema-valid (the body's schema cannot depend on the path's kind), so not a 400: no such parent
            raise NotFoundError(f"a {kind} has no parent kind: leave parentId out", code="PARENT_NOT_FOUND")
        reference = models.Reference(kind=kind, id=entity_id, **request.model_dump())
        if self.repository.put_reference(reference) is not None:
            raise _missing(str(parent_kind), str(request.parent_id))
        return reference

    # --- employees -----------------------------------------------------------------------------------

    def hire(self, request: models.HireIn) -> models.Employee:
        if request.manager_id == request.employee_id:
            # The manager's ConditionCheck and the employee's Put would name one item, which DynamoDB refuses for the
            # whole transaction (a ValidationException, a 5xx). No such manager can exist before the hire: 404, or
            # 409 for an employee already hired, as the transaction would order the two.
            if self.repository.exists("employee", request.employee_id):
                raise ConflictError(f"employee {request.employee_id} exists", code="EMPLOYEE_EXISTS")
            raise _missing("manager", request.employee_id)
        job = found(self.repository.get_reference("job", request.job_id), f"no job {request.job_id}", "JOB_NOT_FOUND")
        failed = self.repository.hire(request, job.name)
        if failed is not None:
            if failed.name == "employee":
                raise ConflictError(f"employee {request.employee_id} exists", code="EMPLOYEE_EXISTS")
            raise _missing(failed.name, getattr(request, f"{failed.name}_id"))
        return self.get_employee(request.employee_id)

    def get_employee(self, employee_id: str) -> models.Employee:
        return found(self.repository.get_employee(employee_id), f"no employee {employee_id}", EMPLOYEE_NOT_FOUND)

    def current_job(self, employee_id: str) -> models.JobHistory:
        return found(self.repository.current_job(employee_id), f"no employee {employee_id}", EMPLOYEE_NOT_FOUND)

    def change_job(self, employee_id: str, request: models.JobChangeIn) -> models.JobHistory:
        """The employee's new job from `startDate`: after the current one started, and not the same job."""
        employee = self.get_employee(employee_id)
        start = request.start_date.isoformat()
        if request.job_id == employee.job_id:
            raise ConflictError(f"{employee_id} already has job {request.job_id}", code="SAME_JOB")
        if start <= employee.job_since:
            raise ConflictError(f"the current job started on {employee.job_since}: a change starts after it",
                                code="START_NOT_AFTER_CURRENT_JOB")
        job = found(self.repository.get_reference("job", request.job_id), f"no job {request.job_id}", "JOB_NOT_FOUND")
        failed = self.repository.change_job(employee, request.job_id, start, job.name)
        if failed is not None:
            if failed.name == "job":
                raise _missing("job", request.job_id)
            raise ConflictError("the employee's job changed meanwhile; read it and retry", code="JOB_CHANGED")
        return models.JobHistory(employee_id=employee_id, job_id=request.job_id, start_date=start, title=job.name)

    def recent_hires(self, since: date, *, confidential: bool, limit: int, start_key: StartKey) -> Page:
        """Hires on or after `since`, newest first; salary and commission only for admins (the manager is public, as
        in an employee's details)."""
        page = self.repository.recent_hires(since.isoformat(), limit=limit, start_key=start_key)
        if not confidential:
            page.items = [models.PublicHire(employee_id=h.employee_id, name=h.name, hire_date=h.hire_date,
                                     manager_id=h.manager_id) for h in page.items]
        return page

    def warehouse_employees(self, warehouse_id: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.warehouse_employees(warehouse_id, limit=limit, start_key=start_key)
        return self._known(page, start_key is None, "warehouse", warehouse_id)

    def job_employees(self, job_id: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.job_employees(job_id, limit=limit, start_key=start_key)
        return self._known(page, start_key is None, "job", job_id)

    # --- customers, products, stock ------------------------------------------------------------------

    def put_customer(self, customer_id: str, request: models.CustomerIn) -> models.Customer:
        customer = models.Customer(customer_id=customer_id, name=request.name, rep_id=request.rep_id)
        failed = self.repository.put_customer(customer)
        if failed is None:
            return customer
        if failed.name == "rep":
            raise NotFoundError(f"no employee {request.rep_id} to be the account rep", code=EMPLOYEE_NOT_FOUND)
        raise ConflictError(f"customer {customer_id} has another account rep", code="CUSTOMER_HAS_ANOTHER_REP")

    def rep_customers(self, rep_id: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.rep_customers(rep_id, limit=limit, start_key=start_key)
        return self._known(page, start_key is None, "employee", rep_id)

    def put_product(self, product_id: str, request: models.ProductIn) -> models.Product:
        return self.repository.put_product(product_id, request.name, request.price_cents)

    def get_product(self, product_id: str) -> models.Product:
        return found(self.repository.get_product(product_id), f"no product {product_id}", "PRODUCT_NOT_FOUND")

    def product_activity(self, product_id: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.product_activity(product_id, limit=limit, start_key=start_key)
        return self._known(page, start_key is None, "product", product_id)

    def receive(self, warehouse_id: str, product_id: str, quantity: int) -> models.Inventory:
        failed = self.repository.receive(warehouse_id, product_id, quantity)
        if failed is not None:
            raise _missing(failed.name, warehouse_id if failed.name == "warehouse" else product_id)
        return self.get_inventory(warehouse_id, product_id)

    def move(self, request: models.MoveIn) -> models.Move:
        if request.from_warehouse_id == request.to_warehouse_id:
            # A move is between two warehouses (docs/order-entry.md); to the same one it would move nothing, and one
            # transaction cannot touch the row twice. JSON Schema cannot say that two fields differ: checked here.
            raise InvalidInputError(
                "a move needs two different warehouses",
                details=[{"field": "body.fromWarehouseId", "message": "must differ from toWarehouseId"},
                         {"field": "body.toWarehouseId", "message": "must differ from fromWarehouseId"}])
        failed = self.repository.move(request.product_id, request.from_warehouse_id, request.to_warehouse_id,
                                      request.quantity)
        if failed is not None:
            if failed.name == "warehouse":
                raise _missing("warehouse", request.to_warehouse_id)
            raise ConflictError(f"{request.from_warehouse_id} holds fewer than {request.quantity} of "
                                f"{request.product_id}", code="INSUFFICIENT_STOCK")
        return models.Move(product_id=request.product_id,
                    source=self.get_inventory(request.from_warehouse_id, request.product_id),
                    destination=self.get_inventory(request.to_warehouse_id, request.product_id))

    def get_inventory(self, warehouse_id: str, product_id: str) -> models.Inventory:
        return found(self.repository.get_inventory(warehouse_id, product_id),
                     f"no stock of {product_id} in {warehouse_id}", "INVENTORY_NOT_FOUND")

    # --- orders --------------------------------------------------------------------------------------

    def place_order(self, request: models.OrderIn) -> models.Order:
        """An OPEN order for today at the products' current prices, credited to the customer's account rep."""
        one_line_per_product(request)
        customer = found(self.repository.get_customer(request.customer_id), f"no customer {request.customer_id}",
                         "CUSTOMER_NOT_FOUND")
        products = self.repository.get_products([line.product_id for line in request.lines])
        missing = [line.product_id for line in request.lines if line.product_id not in products]
        if missing:
            raise NotFoundError(f"no product {', '.join(missing)}", code="PRODUCT_NOT_FOUND")
        order_id, day = self.new_id(), self.clock().date().isoformat()
        lines = [models.OrderLine(order_id=order_id, product_id=line.product_id, quantity=line.quantity,
                           unit_price_cents=products[line.product_id].price_cents, order_date=day)
                 for line in request.lines]
        order = models.Order(order_id=order_id, customer_id=customer.customer_id, rep_id=customer.rep_id, status="OPEN",
                      order_date=day, total_cents=sum(line.quantity * line.unit_price_cents for line in lines),
                      lines=lines)
        failed = self.repository.place_order(order)
        if failed is not None:
            raise _placement_conflict(failed)
        return order

    def get_order(self, order_id: str) -> models.Order:
        return found(self.repository.get_order(order_id), f"no order {order_id}", ORDER_NOT_FOUND)

    def change_status(self, order_id: str, status: models.OrderStatus) -> models.Order:
        """Move an order along TRANSITIONS; asking for the status it has already changes nothing."""
        order = self.get_order(order_id)
        if order.status == status:
            return order
        if not allowed(order.status, status):
            raise ConflictError(f"an order {order.status} cannot become {status}", code="INVALID_TRANSITION")
        failed = self.repository.change_status(order, status)
        if failed is not None:
            raise ConflictError("the order's status changed meanwhile; read it and retry", code="STATUS_CHANGED")
        return order.model_copy(update={"status": status})

    def customer_orders(self, customer_id: str, first: date, last: date, *, limit: int, after: str | None) -> Page:
        check_range(first, last)
        page = self.repository.customer_orders(customer_id, first.isoformat(), last.isoformat(), limit=limit,
                                               after=after)
        return self._known(page, after is None, "customer", customer_id)

    def rep_orders(self, rep_id: str, first: date, last: date, *, limit: int, after: str | None) -> Page:
        check_range(first, last)
        page = self.repository.rep_orders(rep_id, first.isoformat(), last.isoformat(), limit=limit, after=after)
        return self._known(page, after is None, "employee", rep_id)

    def orders_in_status(self, status: models.OrderStatus, first: date, last: date, *, limit: int,
                         after: str | None) -> Page:
        check_range(first, last)
        return self.repository.orders_in_status(status, first.isoformat(), last.isoformat(), limit=limit,
                                                after=after)


def one_line_per_product(request: models.OrderIn) -> None:
    """One line per product (docs/order-entry.md): a product's line is one item (`ORDER#…`, `PRODUCT#…`), so a
    second line of it would have to be merged into the first, silently. JSON Schema's `uniqueItems` compares whole
    lines, not one field of them: checked here, before any read, naming each repeated line."""
    first_line: dict[str, int] = {}
    repeated = []
    for index, line in enumerate(request.lines):
        if line.product_id in first_line:
            repeated.append({"field": f"body.lines.{index}.productId",
                             "message": f"{line.product_id} is already line {first_line[line.product_id]}"})
        else:
            first_line[line.product_id] = index
    if repeated:
        raise InvalidInputError("an order has one line per product", details=repeated)


def _placement_conflict(failed: ConditionFailed) -> ConflictError:
    if failed.name == "customer":
        return ConflictError("the customer's account rep changed meanwhile; retry", code="CUSTOMER_CHANGED")
    if failed.name.startswith("price:"):
        return ConflictError(f"the price of {failed.name[6:]} changed meanwhile; retry", code="PRICE_CHANGED")
    return ConflictError("the order exists", code="ORDER_EXISTS")
