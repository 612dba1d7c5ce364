"""Order entry example data for `make run` (seed 004): every access pattern answers something.

Two regions, three countries, two locations and two warehouses (Seattle, Munich); two departments and four jobs;
six employees, three with a job change (job histories), in both warehouses; five products with stock in several
warehouses; three customers of two account reps; eight orders over two quarters of 2026 in every status.

Written through the domain's repository and service. Loading twice changes nothing: reference items and products
are puts of the same values, a hire or a job change already made is skipped, stock is received only into a row
that does not exist yet, and orders have fixed ids (a placed one is not placed again; a status already reached
is left as it is).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from functions.order_entry.models import (
    CustomerIn,
    HireIn,
    JobChangeIn,
    Order,
    OrderLine,
    ProductIn,
    ReferenceIn,
)
from functions.order_entry.repository import OrderEntryRepository
from functions.order_entry.service import OrderEntryService
from functions.shared.errors import ConflictError
from functions.shared.settings import Settings

REFERENCE = (
    ("region", "EU", "Europe", None), ("region", "AM", "Americas", None),
    ("country", "US", "United States of America", "AM"), ("country", "DE", "Germany", "EU"),
    ("country", "UK", "United Kingdom", "EU"),
    ("location", "1700", "2004 Charade Rd, Seattle", "US"), ("location", "2900", "Schwanthalerstr 7031, Munich", "DE"),
    ("warehouse", "SEA", "Seattle warehouse", "1700"), ("warehouse", "MUC", "Munich warehouse", "2900"),
    ("department", "SALES", "Sales", "1700"), ("department", "SHIPPING", "Shipping", "2900"),
    ("job", "SA_REP", "Sales Representative", None), ("job", "SA_MAN", "Sales Manager", None),
    ("job", "ST_CLERK", "Stock Clerk", None), ("job", "SH_CLERK", "Shipping Clerk", None),
)
# (id, name, job, department, warehouse, hire date, salary in cents, manager)
EMPLOYEES = (
    ("145", "John Russell", "SA_MAN", "SALES", "SEA", "2019-10-01", 1_400_000, None),
    ("150", "Peter Tucker", "SA_REP", "SALES", "SEA", "2021-01-30", 1_000_000, "145"),
    ("156", "Janette King", "SA_REP", "SALES", "MUC", "2022-01-30", 1_000_000, "145"),
    ("125", "Julia Nayer", "ST_CLERK", "SHIPPING", "MUC", "2023-07-16", 320_000, "145"),
    ("180", "Winston Taylor", "ST_CLERK", "SHIPPING", "SEA", "2025-01-24", 320_000, "145"),
    ("181", "Jean Fleaur", "ST_CLERK", "SHIPPING", "MUC", "2026-02-23", 310_000, "145"),
)
# (employee, new job, from): histories with two records
JOB_CHANGES = (("125", "SH_CLERK", "2024-03-01"), ("180", "SA_REP", "2026-01-05"), ("156", "SA_MAN", "2025-06-01"))
PRODUCTS = (("P100", "Ergonomic chair", 24_900), ("P200", "Standing desk", 59_900), ("P300", "Monitor arm", 8_900),
            ("P400", "Desk lamp", 3_900), ("P500", "Cable tray", 1_900))
# (warehouse, product, quantity)
STOCK = (("SEA", "P100", 40), ("MUC", "P100", 25), ("SEA", "P200", 12), ("MUC", "P200", 8), ("SEA", "P300", 100),
         ("MUC", "P400", 60), ("SEA", "P500", 200), ("MUC", "P500", 150))
CUSTOMERS = (("C1", "Acme Corp", "150"), ("C2", "Globex", "150"), ("C3", "Initech", "180"))
# (order id, customer, day, lines, final status)
ORDERS = (
    ("O-1001", "C1", "2026-01-12", (("P100", 2), ("P300", 2)), "DELIVERED"),
    ("O-1002", "C1", "2026-02-03", (("P200", 1),), "SHIPPED"),
    ("O-1003", "C2", "2026-02-20", (("P400", 10), ("P500", 5)), "OPEN"),
    ("O-1004", "C3", "2026-03-15", (("P100", 1),), "CANCELLED"),
    ("O-1005", "C3", "2026-03-28", (("P300", 4),), "OPEN"),
    ("O-1006", "C1", "2026-04-07", (("P200", 2), ("P100", 2)), "OPEN"),
    ("O-1007", "C2", "2026-05-19", (("P500", 20),), "SHIPPED"),
    ("O-1008", "C3", "2026-06-02", (("P400", 3), ("P300", 1)), "OPEN"),
)
PATHS = {"SHIPPED": ("SHIPPED",), "DELIVERED": ("SHIPPED", "DELIVERED"), "CANCELLED": ("CANCELLED",), "OPEN": ()}


def load(env: Mapping[str, str]) -> None:
    repository = OrderEntryRepository(Settings(env))
    service = OrderEntryService(repository)
    for kind, entity_id, name, parent in REFERENCE:
        service.put_reference(kind, entity_id, ReferenceIn(name=name, parent_id=parent))
    _employees(service)
    prices = {}
    for product_id, name, price in PRODUCTS:
        service.put_product(product_id, ProductIn(name=name, price_cents=price))
        prices[product_id] = price
    for warehouse, product, quantity in STOCK:
        if repository.get_inventory(warehouse, product) is None:
            service.receive(warehouse, product, quantity)
    for customer_id, name, rep in CUSTOMERS:
        service.put_customer(customer_id, CustomerIn(name=name, rep_id=rep))
    reps = {customer_id: rep for customer_id, _, rep in CUSTOMERS}
    for order_id, customer_id, day, lines, status in ORDERS:
        _order(service, repository, order_id, customer_id, reps[customer_id], day, lines, prices, status)


def _employees(service: OrderEntryService) -> None:
    for employee_id, name, job, department, warehouse, hired, salary, manager in EMPLOYEES:
        try:
            service.hire(HireIn(employee_id=employee_id, name=name, email=f"{employee_id}@example.com", job_id=job,
                                department_id=department, warehouse_id=warehouse, hire_date=date.fromisoformat(hired),
                                salary_cents=salary, commission_pct=0.2 if job.startswith("SA_") else 0.0,
                                manager_id=manager))
        except ConflictError:
            pass  # hired by an earlier load
    for employee_id, job, start in JOB_CHANGES:
        if service.current_job(employee_id).job_id != job:
            service.change_job(employee_id, JobChangeIn(job_id=job, start_date=date.fromisoformat(start)))


def _order(service: OrderEntryService, repository: OrderEntryRepository, order_id: str, customer_id: str, rep: str,
           day: str, lines: tuple[tuple[str, int], ...], prices: dict[str, int], status: str) -> None:
    order_lines = [OrderLine(order_id=order_id, product_id=product, quantity=quantity,
                             unit_price_cents=prices[product], order_date=day) for product, quantity in lines]
    order = Order(order_id=order_id, customer_id=customer_id, rep_id=rep, status="OPEN", order_date=day,
                  total_cents=sum(line.quantity * line.unit_price_cents for line in order_lines), lines=order_lines)
    if repository.get_order(order_id) is None:
        failed = repository.place_order(order)
        assert failed is None, failed
    for step in PATHS[status]:
        current = service.get_order(order_id).status
        if current != status and step != current:
            service.change_status(order_id, step)  # type: ignore[arg-type]
