"""Order entry: the only module that talks to DynamoDB, one method per access pattern (docs/order-entry.md).

Every rule is DynamoDB's to enforce, in one request:
- a hire is one transaction: the employee's items and edges, `attribute_not_exists` on its HR-CONFIDENTIAL item
  (an id is hired once), ConditionChecks on the job, department, warehouse (and manager) it points to;
- a job change moves the job edge and adds a job history record in one transaction, conditioned on the job it
  read (`jobId = :old`) and on starting after the current job;
- an order is placed in one transaction: header, lines, rep edge, the rep's quarter total (optimistic: conditioned
  on the total it read), a ConditionCheck on the customer's rep and on each product's price read;
- a status change moves the header (GSI1 `Data`, GSI2 sort key) and the rep edge together, conditioned on the
  status it read; a cancellation takes the order out of its rep's quarter total in the same transaction;
- stock moves between warehouses in one transaction (`quantity >= :q` on the source), and a receipt adds to the
  warehouse's row and the product's `totalInventory` together, so the total always equals the rows' sum.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Key

from functions.order_entry import models
from functions.order_entry.schema import (
    CONFIDENTIAL,
    GSI1,
    GSI2,
    ORDER_ENTRY_TABLE,
    REFERENCE_PARENTS,
    SHARDS_ENV,
    customer_data,
    customer_key,
    employee_data,
    employee_pk,
    entity_key,
    job_history_sk,
    job_sk,
    join,
    name_sk,
    order_line_data,
    order_pk,
    padded_total,
    product_key,
    quarter_of,
    rep_key,
    shard_count,
    shard_of,
    shard_pk,
    status_range,
    status_sk,
    warehouse_key,
)
from functions.shared import ddb
from functions.shared.errors import ThrottledError
from functions.shared.models import from_item
from functions.shared.pages import Page, StartKey, read_page
from functions.shared.settings import Settings, TableName

EMPLOYEE_NOT_FOUND = "EMPLOYEE_NOT_FOUND"
ORDER_NOT_FOUND = "ORDER_NOT_FOUND"
OPTIMISTIC_ATTEMPTS = 12
OPTIMISTIC_BACKOFF_SECONDS = 0.005
MAX_PARALLEL_QUERIES = 16


@dataclass(frozen=True)
class Ranged:
    """One Query of a fan-out: a partition of an index, a status's date range in it."""

    index: str
    partition_attribute: str
    partition: str
    sort_attribute: str
    status: str


class OrderEntryRepository:
    table_name = TableName(ORDER_ENTRY_TABLE)

    def __init__(self, settings: Settings, shards: int | None = None) -> None:
        self.settings = settings
        self.shards = shards or settings.integer(SHARDS_ENV, shard_count())

    @property
    def table(self) -> Any:
        return ddb.table(self.table_name)

    # --- reference entities --------------------------------------------------------------------------

    def put_reference(self, reference: models.Reference) -> ddb.ConditionFailed | None:
        """Create or replace a region, country, location, department, job or warehouse: PutItem on its own key, or,
        with a `parentId`, TransactWriteItems of that Put and a ConditionCheck that the parent (of the kind
        REFERENCE_PARENTS names) exists; the failed check comes back as `parent`."""
        item = {**entity_key(reference.kind, reference.id), "type": reference.kind, "kind": reference.kind,
                "id": reference.id, "name": reference.name}
        parent_kind = REFERENCE_PARENTS.get(reference.kind)
        if not reference.parent_id or parent_kind is None:  # a parent for a kind without one: the service's 404
            self.table.put_item(Item=item)
            return None
        item["parentId"] = reference.parent_id
        parent = entity_key(parent_kind, reference.parent_id)
        return ddb.transact_write([("reference", self._put(item)), ("parent", self._exists(parent))])

    def get_reference(self, kind: str, entity_id: str) -> models.Reference | None:
        """A reference entity: GetItem on `<KIND>#id`, `<KIND>#id`."""
        item = self.table.get_item(Key=entity_key(kind, entity_id)).get("Item")
        return None if item is None else from_item(models.Reference, item)

    # --- employees -----------------------------------------------------------------------------------

    def hire(self, hire: models.HireIn, title: str) -> ddb.ConditionFailed | None:
        """Hire (TransactWriteItems): the details item (`NAME#<name>`), HR-CONFIDENTIAL (`attribute_not_exists`),
        the job and warehouse edges, the first job history record; ConditionChecks on what it points to."""
        pk, day = employee_pk(hire.employee_id), hire.hire_date.isoformat()
        details = {"employeeId": hire.employee_id, "name": hire.name}
        edge_data = employee_data(hire.name, hire.employee_id)
        employee = models.Employee(employee_id=hire.employee_id, name=hire.name, email=hire.email, job_id=hire.job_id,
                            job_since=day, department_id=hire.department_id, warehouse_id=hire.warehouse_id,
                            hire_date=day, manager_id=hire.manager_id)
        confidential = {"PK": pk, "SK": CONFIDENTIAL, "Data": day, "type": "confidential", **details, "hireDate": day,
                        "salaryCents": hire.salary_cents, "commissionPct": Decimal(str(hire.commission_pct))}
        if hire.manager_id:
            confidential["managerId"] = hire.manager_id
        actions: list[tuple[str, dict[str, Any]]] = [
            ("employee", self._put(confidential, "attribute_not_exists(PK)")),
            ("details", self._put({"PK": pk, "SK": name_sk(hire.name), "Data": pk, "type": "employee",
                                   **employee.model_dump(by_alias=True, exclude_none=True)})),
            ("job-edge", self._put({"PK": pk, "SK": job_sk(hire.job_id), "Data": edge_data, "type": "job-edge",
                                    **details})),
            ("warehouse-edge", self._put({"PK": pk, "SK": warehouse_key(hire.warehouse_id), "Data": edge_data,
                                          "type": "warehouse-edge", **details})),
            ("history", self._put(self._history_item(hire.employee_id, day, hire.job_id, title))),
            ("job", self._exists(entity_key("job", hire.job_id))),
            ("department", self._exists(entity_key("department", hire.department_id))),
            ("warehouse", self._exists(entity_key("warehouse", hire.warehouse_id))),
        ]
        if hire.manager_id:
            actions.append(("manager", self._exists({"PK": employee_pk(hire.manager_id), "SK": CONFIDENTIAL})))
        return ddb.transact_write(actions)

    def get_employee(self, employee_id: str) -> models.Employee | None:
        """Pattern 1, an employee's details by id: Query `PK = EMPLOYEE#e AND begins_with(SK, NAME#)`, Limit 1."""
        items = self.table.query(
            KeyConditionExpression=Key("PK").eq(employee_pk(employee_id)) & Key("SK").begins_with(name_sk("")),
            Limit=1,
        )["Items"]
        return from_item(models.Employee, items[0]) if items else None

    def employees_named(self, name: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 2, employees by name: Query GSI1 `SK = NAME#<name>` (namesakes ordered by id)."""
        return self._page(limit, start_key, _model(models.Employee), IndexName=GSI1,
                          KeyConditionExpression=Key("SK").eq(name_sk(name)))

    def current_job(self, employee_id: str) -> models.JobHistory | None:
        """Pattern 3, the current job only: Query `PK = EMPLOYEE#e AND begins_with(SK, JH#)`, newest first,
        Limit 1 (job history records sort by start date)."""
        items = self.table.query(
            KeyConditionExpression=Key("PK").eq(employee_pk(employee_id)) & Key("SK").begins_with("JH#"),
            ScanIndexForward=False, Limit=1,
        )["Items"]
        return from_item(models.JobHistory, items[0]) if items else None

    def change_job(self, employee: models.Employee, job_id: str, start: str, title: str) -> ddb.ConditionFailed | None:
        """Change an employee's job (TransactWriteItems): Update the details item (`jobId = :old AND jobSince <
        :start`), Delete the old job edge, Put the new one and a job history record, ConditionCheck the job."""
        pk = employee_pk(employee.employee_id)
        details = {"employeeId": employee.employee_id, "name": employee.name}
        return ddb.transact_write([
            ("employee", {"Update": {
                "TableName": self.table_name, "Key": {"PK": pk, "SK": name_sk(employee.name)},
                "UpdateExpression": "SET jobId = :new, jobSince = :start",
                "ConditionExpression": "jobId = :old AND jobSince < :start",
                "ExpressionAttributeValues": {":new": job_id, ":old": employee.job_id, ":start": start},
            }}),
            ("old-job-edge", {"Delete": {"TableName": self.table_name,
                                         "Key": {"PK": pk, "SK": job_sk(employee.job_id)}}}),
            ("new-job-edge", self._put({"PK": pk, "SK": job_sk(job_id), "type": "job-edge", **details,
                                        "Data": employee_data(employee.name, employee.employee_id)})),
            ("history", self._put(self._history_item(employee.employee_id, start, job_id, title),
                                  "attribute_not_exists(PK)")),
            ("job", self._exists(entity_key("job", job_id))),
        ])

    def recent_hires(self, since: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 6, employees hired on or after a day: Query GSI1 `SK = HR-CONFIDENTIAL AND Data >= :since`,
        newest first."""
        return self._page(limit, start_key, _hire, IndexName=GSI1, ScanIndexForward=False,
                          KeyConditionExpression=Key("SK").eq(CONFIDENTIAL) & Key("Data").gte(since))

    def warehouse_employees(self, warehouse_id: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 7, employees of a warehouse: Query GSI1 `SK = WAREHOUSE#w AND begins_with(Data, EMPLOYEE#)`."""
        return self._edges(warehouse_key(warehouse_id), limit, start_key)

    def job_employees(self, job_id: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 11, employees with a job: Query GSI1 `SK = JOB#j AND begins_with(Data, EMPLOYEE#)`."""
        return self._edges(job_sk(job_id), limit, start_key)

    def _edges(self, partition: str, limit: int, start_key: StartKey) -> Page:
        return self._page(limit, start_key, _model(models.EmployeeEdge), IndexName=GSI1,
                          KeyConditionExpression=Key("SK").eq(partition) & Key("Data").begins_with("EMPLOYEE#"))

    # --- customers and products ----------------------------------------------------------------------

    def put_customer(self, customer: models.Customer) -> ddb.ConditionFailed | None:
        """Create a customer, or rename one (TransactWriteItems): the customer item, conditioned on being new or
        keeping its rep (`attribute_not_exists(PK) OR repId = :rep`), its rep edge (`CUSTOMER#c`, `REP#r`), and a
        ConditionCheck that the rep is an employee (their HR-CONFIDENTIAL item)."""
        fields = {"customerId": customer.customer_id, "name": customer.name, "repId": customer.rep_id}
        pk = customer_key(customer.customer_id)
        return ddb.transact_write([
            ("customer", {"Put": {
                "TableName": self.table_name, "Item": {**entity_key("customer", customer.customer_id),
                                                       "type": "customer", **fields},
                "ConditionExpression": "attribute_not_exists(PK) OR repId = :rep",
                "ExpressionAttributeValues": {":rep": customer.rep_id},
            }}),
            ("rep-edge", self._put({"PK": pk, "SK": rep_key(customer.rep_id), "type": "customer-rep", **fields,
                                    "Data": customer_data(customer.name, customer.customer_id)})),
            ("rep", self._exists({"PK": employee_pk(customer.rep_id), "SK": CONFIDENTIAL})),
        ])

    def exists(self, kind: str, entity_id: str) -> bool:
        """Whether an entity exists: GetItem of its own item, keys only (an employee's is HR-CONFIDENTIAL, the item
        the hire's and the customer's ConditionChecks name)."""
        key = {"PK": employee_pk(entity_id), "SK": CONFIDENTIAL} if kind == "employee" else entity_key(kind, entity_id)
        return ddb.exists(self.table, key)

    def get_customer(self, customer_id: str) -> models.Customer | None:
        """A customer: GetItem on `CUSTOMER#c`, `CUSTOMER#c`."""
        item = self.table.get_item(Key=entity_key("customer", customer_id)).get("Item")
        return None if item is None else from_item(models.Customer, item)

    def rep_customers(self, rep_id: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 9, a rep's customers: Query GSI1 `SK = REP#r AND begins_with(Data, CUSTOMER#)` (by name)."""
        return self._page(limit, start_key, _model(models.Customer), IndexName=GSI1,
                          KeyConditionExpression=Key("SK").eq(rep_key(rep_id)) & Key("Data").begins_with("CUSTOMER#"))

    def put_product(self, product_id: str, name: str, price_cents: int) -> models.Product:
        """Create a product or change its name and price (UpdateItem): its `totalInventory` starts at 0 and only
        stock receipts change it."""
        response = self.table.update_item(
            Key=entity_key("product", product_id),
            UpdateExpression=("SET #type = :type, productId = :id, #name = :name, priceCents = :price, "
                              "totalInventory = if_not_exists(totalInventory, :zero)"),
            ExpressionAttributeNames={"#type": "type", "#name": "name"},
            ExpressionAttributeValues={":type": "product", ":id": product_id, ":name": name, ":price": price_cents,
                                       ":zero": 0},
            ReturnValues="ALL_NEW",
        )
        return from_item(models.Product, response["Attributes"])

    def get_product(self, product_id: str) -> models.Product | None:
        """Pattern 13, a product with its total inventory: GetItem on `PRODUCT#p`, `PRODUCT#p`."""
        item = self.table.get_item(Key=entity_key("product", product_id)).get("Item")
        return None if item is None else from_item(models.Product, item)

    def get_products(self, product_ids: Sequence[str]) -> dict[str, models.Product]:
        """Products by id: BatchGetItem (the prices an order is placed at)."""
        items = ddb.batch_get(self.table_name, [entity_key("product", p) for p in ddb.unique(product_ids)])
        return {item["productId"]: from_item(models.Product, item) for item in items}

    # --- stock ---------------------------------------------------------------------------------------

    def receive(self, warehouse_id: str, product_id: str, quantity: int) -> ddb.ConditionFailed | None:
        """Receive stock (TransactWriteItems): ADD to the warehouse's row and to the product's `totalInventory`
        together; ConditionChecks that the warehouse and the product exist."""
        return ddb.transact_write([
            ("inventory", self._add_stock(warehouse_id, product_id, quantity)),
            ("product", {"Update": {
                "TableName": self.table_name, "Key": entity_key("product", product_id),
                "UpdateExpression": "ADD totalInventory :q", "ConditionExpression": "attribute_exists(PK)",
                "ExpressionAttributeValues": {":q": quantity},
            }}),
            ("warehouse", self._exists(entity_key("warehouse", warehouse_id))),
        ])

    def move(self, product_id: str, source: str, destination: str, quantity: int) -> ddb.ConditionFailed | None:
        """Move stock (TransactWriteItems): the source row `ADD quantity -q` conditioned on `quantity >= q`, the
        destination row `ADD quantity q`, a ConditionCheck on the destination warehouse; the total is unchanged."""
        minus = self._add_stock(source, product_id, -quantity)
        minus["Update"]["ConditionExpression"] = "quantity >= :q"
        minus["Update"]["ExpressionAttributeValues"][":q"] = quantity
        return ddb.transact_write([
            ("source", minus),
            ("destination", self._add_stock(destination, product_id, quantity)),
            ("warehouse", self._exists(entity_key("warehouse", destination))),
        ])

    def _add_stock(self, warehouse_id: str, product_id: str, quantity: int) -> dict[str, Any]:
        return {"Update": {
            "TableName": self.table_name,
            "Key": {"PK": warehouse_key(warehouse_id), "SK": product_key(product_id)},
            "UpdateExpression": (
                "ADD quantity :delta SET #type = :type, warehouseId = :w, productId = :p, #data = :data"),
            "ExpressionAttributeNames": {"#type": "type", "#data": "Data"},
            "ExpressionAttributeValues": {":delta": quantity, ":type": "inventory", ":w": warehouse_id,
                                          ":p": product_id, ":data": warehouse_key(warehouse_id)},
        }}

    def get_inventory(self, warehouse_id: str, product_id: str) -> models.Inventory | None:
        """Pattern 12, a product's stock in a warehouse: GetItem on `WAREHOUSE#w`, `PRODUCT#p`."""
        item = self.table.get_item(Key={"PK": warehouse_key(warehouse_id), "SK": product_key(product_id)}).get("Item")
        return None if item is None else from_item(models.Inventory, item)

    def product_activity(self, product_id: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 8, a product's order lines and its stock per warehouse: Query GSI1 `SK = PRODUCT#p` (stock rows
        sort under `WAREHOUSE#…`, after the lines' `ORDER#<date>#…`)."""
        return self._page(limit, start_key, _line_or_inventory, IndexName=GSI1,
                          KeyConditionExpression=Key("SK").eq(product_key(product_id)))

    # --- orders --------------------------------------------------------------------------------------

    def place_order(self, order: models.Order) -> ddb.ConditionFailed | None:
        """Place an order (TransactWriteItems): Put the header (GSI1 `Data`, GSI2 shard and sort key), a line per
        product and the rep edge; ConditionCheck the customer's rep and each product's price as read; Update the
        rep's quarter total, conditioned on the total read (re-read and retried when another order moved it)."""
        day, lines = order.order_date, order.lines or []
        header = self._order_item(order, customer_key(order.customer_id), "order")
        header.update(GSI2PK=shard_pk(shard_of(order.order_id, self.shards)), GSI2SK=header["Data"])
        actions: list[tuple[str, dict[str, Any]]] = [
            ("order", self._put(header, "attribute_not_exists(PK)")),
            ("rep-edge", self._put(self._order_item(order, rep_key(order.rep_id), "order-rep"))),
            ("customer", {"ConditionCheck": {
                "TableName": self.table_name, "Key": entity_key("customer", order.customer_id),
                "ConditionExpression": "repId = :rep", "ExpressionAttributeValues": {":rep": order.rep_id},
            }}),
        ]
        for line in lines:
            actions.append((f"line:{line.product_id}", self._put({
                "PK": order_pk(order.order_id), "SK": product_key(line.product_id), "type": "line",
                "Data": order_line_data(day, order.order_id), **line.model_dump(by_alias=True)})))
            actions.append((f"price:{line.product_id}", {"ConditionCheck": {
                "TableName": self.table_name, "Key": entity_key("product", line.product_id),
                "ConditionExpression": "priceCents = :price",
                "ExpressionAttributeValues": {":price": line.unit_price_cents},
            }}))
        return self._with_quarter(order.rep_id, quarter_of(day), order.total_cents, 1, actions)

    def get_order(self, order_id: str) -> models.Order | None:
        """An order with its lines: Query `PK = ORDER#o` (header `CUSTOMER#…`, lines `PRODUCT#…`, rep edge)."""
        items = self.table.query(KeyConditionExpression=Key("PK").eq(order_pk(order_id)))["Items"]
        header = next((item for item in items if item.get("type") == "order"), None)
        if header is None:
            return None
        lines = [from_item(models.OrderLine, item) for item in items if item.get("type") == "line"]
        return from_item(models.Order, header).model_copy(update={"lines": lines})

    def change_status(self, order: models.Order, status: models.OrderStatus) -> ddb.ConditionFailed | None:
        """Change an order's status (TransactWriteItems): the header's `status`, GSI1 `Data` and GSI2 sort key and
        the rep edge's, conditioned on the status read; a cancellation also takes the order's total out of its
        rep's quarter (optimistic, as when placing it)."""
        sort_key = status_sk(status, order.order_date, order.order_id)
        actions = [
            ("order", self._set_status(order, customer_key(order.customer_id), status, sort_key, "GSI2SK")),
            ("rep-edge", self._set_status(order, rep_key(order.rep_id), status, sort_key)),
        ]
        if status == "CANCELLED":
            return self._with_quarter(order.rep_id, quarter_of(order.order_date), -order.total_cents, -1, actions)
        return ddb.transact_write(actions)

    def customer_orders(self, customer_id: str, first: str, last: str, *, limit: int, after: str | None) -> Page:
        """Pattern 4, a customer's orders in a date range: for each status, Query GSI1 `SK = CUSTOMER#c AND Data
        BETWEEN <S>#<first># AND <S>#<last>#~`, in parallel, merged by (date, order id)."""
        queries = [Ranged(GSI1, "SK", customer_key(customer_id), "Data", s) for s in models.ORDER_STATUSES]
        return self._fan_out(queries, first, last, limit, after)

    def rep_orders(self, rep_id: str, first: str, last: str, *, limit: int, after: str | None) -> Page:
        """Pattern 10, a rep's orders in a date range: for each status, Query GSI1 `SK = REP#r AND Data BETWEEN
        <S>#<first># AND <S>#<last>#~`, in parallel, merged by (date, order id)."""
        queries = [Ranged(GSI1, "SK", rep_key(rep_id), "Data", s) for s in models.ORDER_STATUSES]
        return self._fan_out(queries, first, last, limit, after)

    def orders_in_status(self, status: models.OrderStatus, first: str, last: str, *, limit: int,
                         after: str | None) -> Page:
        """Pattern 5, every order in a status (OPEN) in a date range: for each of the N shards, Query GSI2 `GSI2PK =
        ORDERS#<shard> AND GSI2SK BETWEEN <S>#<first># AND <S>#<last>#~`, in parallel, merged by (date, order id)."""
        queries = [Ranged(GSI2, "GSI2PK", shard_pk(shard), "GSI2SK", status) for shard in range(self.shards)]
        return self._fan_out(queries, first, last, limit, after)

    def rep_ranking(self, quarter: str, *, limit: int, start_key: StartKey) -> Page:
        """Pattern 14, reps ranked by order total in a quarter: Query GSI1 `SK = <YYYY>-Q<n>`, descending (`Data`
        is the zero-padded total)."""
        return self._page(limit, start_key, _model(models.RepQuarter), IndexName=GSI1, ScanIndexForward=False,
                          KeyConditionExpression=Key("SK").eq(quarter))

    def get_rep_quarter(self, rep_id: str, quarter: str) -> models.RepQuarter | None:
        """A rep's total in a quarter: GetItem on `REP#r`, `<YYYY>-Q<n>`."""
        item = self.table.get_item(Key={"PK": rep_key(rep_id), "SK": quarter}).get("Item")
        return None if item is None else from_item(models.RepQuarter, item)

    # --- helpers -------------------------------------------------------------------------------------

    def _order_item(self, order: models.Order, sk: str, kind: str) -> dict[str, Any]:
        fields = order.model_dump(by_alias=True, exclude={"lines"}, exclude_none=True)
        return {"PK": order_pk(order.order_id), "SK": sk, "type": kind, **fields,
                "Data": status_sk(order.status, order.order_date, order.order_id)}

    def _set_status(self, order: models.Order, sk: str, status: str, sort_key: str, *also: str) -> dict[str, Any]:
        sets = ", ".join(["#status = :new", "#data = :sk", *(f"{name} = :sk" for name in also)])
        return {"Update": {
            "TableName": self.table_name, "Key": {"PK": order_pk(order.order_id), "SK": sk},
            "UpdateExpression": f"SET {sets}", "ConditionExpression": "#status = :old",
            "ExpressionAttributeNames": {"#status": "status", "#data": "Data"},
            "ExpressionAttributeValues": {":new": status, ":old": order.status, ":sk": sort_key},
        }}

    def _with_quarter(self, rep_id: str, quarter: str, delta: int, count: int,
                      actions: list[tuple[str, dict[str, Any]]]) -> ddb.ConditionFailed | None:
        """`actions` plus the rep's quarter total moved by `delta`, conditioned on the total read (GetItem): when
        another order moved it first, read it again and retry; any other failed condition is the caller's."""
        for attempt in range(OPTIMISTIC_ATTEMPTS):
            if attempt:  # another order of this rep's won the race: back off (jittered) before reading again
                time.sleep(ddb.jitter(OPTIMISTIC_BACKOFF_SECONDS * 2 ** min(attempt, 5)))
            current = self.get_rep_quarter(rep_id, quarter)
            failed = ddb.transact_write([*actions, ("quarter", self._quarter_update(rep_id, quarter, current,
                                                                                    delta, count))])
            if failed is None or failed.names != ("quarter",):
                return failed
        raise ThrottledError("the rep's quarter total kept changing; retry")

    def _quarter_update(self, rep_id: str, quarter: str, current: models.RepQuarter | None, delta: int,
                        count: int) -> dict[str, Any]:
        total = (current.total_cents if current else 0) + delta
        values: dict[str, Any] = {":total": total, ":data": padded_total(total), ":rep": rep_id, ":quarter": quarter,
                                  ":count": count}
        if current is None:
            condition = "attribute_not_exists(PK)"
        else:
            condition, values[":old"] = "totalCents = :old", current.total_cents
        return {"Update": {
            "TableName": self.table_name, "Key": {"PK": rep_key(rep_id), "SK": quarter},
            "UpdateExpression": ("SET totalCents = :total, #data = :data, repId = :rep, quarter = :quarter "
                                 "ADD orderCount :count"),
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {"#data": "Data"}, "ExpressionAttributeValues": values,
        }}

    def _history_item(self, employee_id: str, start: str, job_id: str, title: str) -> dict[str, Any]:
        return {"PK": employee_pk(employee_id), "SK": job_history_sk(start, job_id), "type": "job-history",
                "employeeId": employee_id, "jobId": job_id, "startDate": start, "title": title}

    def _put(self, item: dict[str, Any], condition: str | None = None) -> dict[str, Any]:
        put: dict[str, Any] = {"TableName": self.table_name, "Item": item}
        if condition:
            put["ConditionExpression"] = condition
        return {"Put": put}

    def _exists(self, key: dict[str, str]) -> dict[str, Any]:
        return {"ConditionCheck": {"TableName": self.table_name, "Key": key,
                                   "ConditionExpression": "attribute_exists(PK)"}}

    def _page(self, limit: int, start_key: StartKey, parse: Callable[[dict[str, Any]], Any], **query: Any) -> Page:
        return read_page(self.table.query, parse, limit=limit, start_key=start_key, **query)

    def _fan_out(self, queries: Sequence[Ranged], first: str, last: str, limit: int, after: str | None) -> Page:
        """Up to `limit` orders of several Queries (statuses, shards), run in parallel and merged by their sort
        key after the status (`<date>#<orderId>`, unique). `after` is the last one a previous page returned: each
        Query resumes there (BETWEEN is inclusive: that one order is dropped). Each Query reads at most limit + 1
        items, so a page costs at most len(queries) × (limit + 1) items read."""
        # Each Query runs in the caller's context (a copy each): what the request set there (the Powertools
        # logger's keys, the caller's identity in the tests' IAM check) holds in the worker threads too.
        contexts = [contextvars.copy_context() for _ in queries]
        with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL_QUERIES, len(queries))) as pool:
            results = list(pool.map(lambda ctx, q: ctx.run(self._ranged, q, first, last, limit + 1, after),
                                    contexts, queries))
        candidates: list[tuple[str, dict[str, Any]]] = []
        bound: str | None = None  # a Query cut short by 1 MB: nothing past its last item is known yet
        for items, more in results:
            candidates += [(merge_key(item, q.sort_attribute), item) for q, item in items]
            if more and items:
                last_seen = merge_key(items[-1][1], items[-1][0].sort_attribute)
                bound = last_seen if bound is None else min(bound, last_seen)
        candidates.sort(key=lambda pair: pair[0])
        known = [pair for pair in candidates if bound is None or pair[0] <= bound]
        page = known[:limit]
        more_left = len(candidates) > len(page) or bound is not None
        return Page(items=[_order(item) for _, item in page],
                    last_key={"after": page[-1][0]} if more_left and page else None)

    def _ranged(self, query: Ranged, first: str, last: str, limit: int,
                after: str | None) -> tuple[list[tuple[Ranged, dict[str, Any]]], bool]:
        """One Query of a fan-out on the shared resource's client (thread-safe, unlike the resource; it takes and
        returns plain Python values as the Table methods do): (its items after `after`, whether more remain)."""
        low, high = status_range(query.status, first, last)
        if after is not None:
            low = join(query.status, after)
        response = ddb.resource().meta.client.query(
            TableName=self.table_name, IndexName=query.index, Limit=limit,
            KeyConditionExpression="#pk = :pk AND #sk BETWEEN :low AND :high",
            ExpressionAttributeNames={"#pk": query.partition_attribute, "#sk": query.sort_attribute},
            ExpressionAttributeValues={":pk": query.partition, ":low": low, ":high": high},
        )
        items = response.get("Items", [])
        kept = [(query, item) for item in items if after is None or merge_key(item, query.sort_attribute) > after]
        return kept, "LastEvaluatedKey" in response


def merge_key(item: dict[str, Any], sort_attribute: str) -> str:
    """`<date>#<orderId>`: an order's place in a merged list, whatever its status."""
    return item[sort_attribute].split("#", 1)[1]


def _model(model: type) -> Callable[[dict[str, Any]], Any]:
    return lambda item: from_item(model, item)


def _order(item: dict[str, Any]) -> models.Order:
    return from_item(models.Order, item)


def _hire(item: dict[str, Any]) -> models.Hire:
    return models.Hire(employee_id=item["employeeId"], name=item["name"], hire_date=item["hireDate"],
                salary_cents=int(item["salaryCents"]), commission_pct=float(item.get("commissionPct", 0)),
                manager_id=item.get("managerId"))


def _line_or_inventory(item: dict[str, Any]) -> models.OrderLine | models.Inventory:
    return from_item(models.Inventory, item) if item.get("type") == "inventory" else from_item(models.OrderLine, item)
