"""Order entry (seed 004): the 14 access patterns and the writes that keep their edges right, handler -> service ->
repository on moto, under the function's IAM role. The example data (seeds/order_entry.py) is the fixture."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest

from functions.order_entry import api
from functions.order_entry.schema import ORDER_ENTRY_TABLE, shard_count, shard_of
from seeds import order_entry as seed
from tests.functional.conftest import error, ok
from tests.functional.order_entry_support import (  # noqa: F401 (fixtures)
    ADMIN,
    P,
    all_pages,
    client_fixture,
    clock_fixture,
    items,
    place,
    seeded_fixture,
    table_fixture,
)
from tests.support import iam

H1 = "from=2026-01-01&to=2026-06-30"


def ids(orders: list[dict]) -> list[str]:
    return [order["orderId"] for order in orders]


def names(people: list[dict]) -> list[str]:
    return [person["name"] for person in people]


# --- the 14 access patterns ---------------------------------------------------------------------------

def test_pattern_1_employee_details_by_id(seeded):
    employee = ok(seeded.call("GET", f"{P}/employees/150"))
    assert employee == {"employeeId": "150", "name": "Peter Tucker", "email": "150@example.com", "jobId": "SA_REP",
                        "jobSince": "2021-01-30", "departmentId": "SALES", "warehouseId": "SEA",
                        "hireDate": "2021-01-30", "managerId": "145"}
    assert "salaryCents" not in employee
    assert error(seeded.call("GET", f"{P}/employees/999")) == (404, "EMPLOYEE_NOT_FOUND")


def test_pattern_2_employees_by_name_lists_namesakes(seeded):
    ok(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN, body={
        "employeeId": "190", "name": "Peter Tucker", "email": "p2@example.com", "jobId": "ST_CLERK",
        "departmentId": "SHIPPING", "warehouseId": "MUC", "hireDate": "2026-03-01", "salaryCents": 300000}), 201)
    found = all_pages(seeded, f"{P}/employees?name=Peter%20Tucker", limit=1)
    assert [e["employeeId"] for e in found] == ["150", "190"]
    assert ok(seeded.call("GET", f"{P}/employees?name=Nobody"))["items"] == []


def test_pattern_3_current_job_is_the_newest_job_history_record(seeded):
    assert ok(seeded.call("GET", f"{P}/employees/125/current-job")) == {
        "employeeId": "125", "jobId": "SH_CLERK", "startDate": "2024-03-01", "title": "Shipping Clerk"}
    assert ok(seeded.call("GET", f"{P}/employees/145/current-job"))["jobId"] == "SA_MAN"
    assert error(seeded.call("GET", f"{P}/employees/999/current-job")) == (404, "EMPLOYEE_NOT_FOUND")


def test_pattern_4_customer_orders_in_a_date_range_merge_every_status(seeded, calls):
    assert ids(all_pages(seeded, f"{P}/customers/C1/orders?{H1}")) == ["O-1001", "O-1002", "O-1006"]
    statuses = [o["status"] for o in ok(seeded.call("GET", f"{P}/customers/C1/orders?{H1}"))["items"]]
    assert statuses == ["DELIVERED", "SHIPPED", "OPEN"]
    calls.clear()
    assert ids(ok(seeded.call("GET", f"{P}/customers/C1/orders?from=2026-02-01&to=2026-02-28"))["items"]) == ["O-1002"]
    queries = calls.of("Query")
    assert len(queries) == 4 and {p["IndexName"] for p, _ in queries} == {"GSI1"}  # one Query per status


def test_a_reversed_date_range_is_400_naming_both_fields_without_a_read(seeded, calls):
    # docs/order-entry.md: `from` after `to` is 400 VALIDATION_FAILED naming both fields
    calls.clear()
    # nothing is read at all, so an unknown customer is refused for its range, not looked up
    for url in (f"{P}/customers/C1/orders", f"{P}/reps/150/orders", f"{P}/orders", f"{P}/customers/NOPE/orders"):
        reply = seeded.call("GET", f"{url}?from=2026-06-30&to=2026-01-01")
        assert error(reply) == (400, "VALIDATION_FAILED"), url
        assert [d["field"] for d in reply.body["error"]["details"]] == ["query.from", "query.to"]
    assert calls.names() == []
    # one day is a range (from = to)
    assert ids(ok(seeded.call("GET", f"{P}/customers/C1/orders?from=2026-02-01&to=2026-02-28"))["items"]) == ["O-1002"]


def test_a_malformed_date_names_its_format_with_an_example(seeded):
    # README: a 400 names the field; the message says what the value should look like, not a regular expression
    reply = seeded.call("GET", f"{P}/orders?from=2026-02-30&to=2026-03-01")
    assert error(reply) == (400, "VALIDATION_FAILED")
    assert reply.body["error"]["details"] == [
        {"field": "query.from", "message": "expected a date YYYY-MM-DD, e.g. 2026-01-31"}]
    a_malformed_cursor = seeded.call("GET", f"{P}/orders?{H1}&cursor=forged")
    assert error(a_malformed_cursor) == (400, "INVALID_CURSOR")  # as a forged well-shaped one is


def test_pattern_5_open_orders_read_every_shard_in_parallel_with_one_cursor(seeded, calls):
    calls.clear()
    page = ok(seeded.call("GET", f"{P}/orders?{H1}&limit=3"))
    queries = [p for p, _ in calls.of("Query")]
    assert len(queries) == shard_count() == 15
    assert {p["IndexName"] for p in queries} == {"GSI2"}
    partitions = {p["ExpressionAttributeValues"][":pk"]["S"] for p in queries}  # as sent on the wire
    assert partitions == {f"ORDERS#{n}" for n in range(15)}
    assert ids(page["items"]) == ["O-1003", "O-1005", "O-1006"] and page["nextCursor"]
    assert ids(all_pages(seeded, f"{P}/orders?{H1}")) == ["O-1003", "O-1005", "O-1006", "O-1008"]
    assert ids(all_pages(seeded, f"{P}/orders?status=SHIPPED&{H1}", limit=1)) == ["O-1002", "O-1007"]
    assert ids(ok(seeded.call("GET", f"{P}/orders?from=2026-03-01&to=2026-04-30"))["items"]) == ["O-1005", "O-1006"]


def test_pattern_5_many_orders_over_many_shards_come_back_once_each_in_date_order(seeded, clock):
    placed = []
    for n in range(30):
        clock.day(f"2026-05-{1 + n % 3:02d}")
        placed.append(ok(place(seeded, "C2", ("P500", 1)), 201))
    shards = Counter(shard_of(order["orderId"], shard_count()) for order in placed)
    assert len(shards) > 5  # spread over shards by the hash of the id
    found = all_pages(seeded, f"{P}/orders?from=2026-05-01&to=2026-05-03", limit=7)
    expected = sorted(placed, key=lambda o: (o["orderDate"], o["orderId"]))
    assert ids(found) == ids(expected)


def test_pattern_6_recent_hires_show_confidential_fields_to_admins_only(seeded):
    hires = ok(seeded.call("GET", f"{P}/recent-hires?since=2025-01-01"))["items"]
    # the manager is public, as in the employee's details (pattern 1); salary and commission are not
    assert hires == [{"employeeId": "181", "name": "Jean Fleaur", "hireDate": "2026-02-23", "managerId": "145"},
                     {"employeeId": "180", "name": "Winston Taylor", "hireDate": "2025-01-24", "managerId": "145"}]
    admin = ok(seeded.call("GET", f"{P}/recent-hires?since=2025-01-01", user="root", groups=ADMIN))["items"]
    assert admin[0]["salaryCents"] == 310000 and admin[0]["managerId"] == "145"
    assert len(all_pages(seeded, f"{P}/recent-hires?since=2000-01-01", limit=4)) == 6


def test_pattern_7_employees_in_a_warehouse(seeded):
    assert names(all_pages(seeded, f"{P}/warehouses/SEA/employees")) == ["John Russell", "Peter Tucker", "Winston Taylor"]
    assert names(all_pages(seeded, f"{P}/warehouses/MUC/employees")) == ["Janette King", "Jean Fleaur", "Julia Nayer"]


def test_pattern_8_a_products_order_lines_and_its_stock_per_warehouse(seeded):
    page = ok(seeded.call("GET", f"{P}/products/P100/order-items"))
    assert [(line["orderId"], line["quantity"]) for line in page["orderLines"]] == [
        ("O-1001", 2), ("O-1004", 1), ("O-1006", 2)]
    assert page["inventories"] == [{"warehouseId": "MUC", "productId": "P100", "quantity": 25},
                                   {"warehouseId": "SEA", "productId": "P100", "quantity": 40}]
    first = ok(seeded.call("GET", f"{P}/products/P100/order-items?limit=2"))
    assert len(first["orderLines"]) == 2 and first["inventories"] == [] and first["nextCursor"]


def test_pattern_9_customers_by_account_rep(seeded):
    assert names(all_pages(seeded, f"{P}/reps/150/customers", limit=1)) == ["Acme Corp", "Globex"]
    assert names(ok(seeded.call("GET", f"{P}/reps/180/customers"))["items"]) == ["Initech"]


def test_pattern_10_a_reps_orders_by_date_over_every_status(seeded):
    assert ids(all_pages(seeded, f"{P}/reps/150/orders?{H1}")) == ["O-1001", "O-1002", "O-1003", "O-1006", "O-1007"]
    assert ids(ok(seeded.call("GET", f"{P}/reps/150/orders?from=2026-02-01&to=2026-04-30"))["items"]) == [
        "O-1002", "O-1003", "O-1006"]
    assert ids(ok(seeded.call("GET", f"{P}/reps/180/orders?{H1}"))["items"]) == ["O-1004", "O-1005", "O-1008"]


def test_pattern_11_employees_with_a_job_follow_job_changes(seeded):
    assert names(ok(seeded.call("GET", f"{P}/jobs/SA_REP/employees"))["items"]) == ["Peter Tucker", "Winston Taylor"]
    assert names(ok(seeded.call("GET", f"{P}/jobs/SA_MAN/employees"))["items"]) == ["Janette King", "John Russell"]
    assert names(ok(seeded.call("GET", f"{P}/jobs/ST_CLERK/employees"))["items"]) == ["Jean Fleaur"]


def test_pattern_12_inventory_by_product_and_warehouse(seeded):
    assert ok(seeded.call("GET", f"{P}/warehouses/SEA/inventory/P200")) == {
        "warehouseId": "SEA", "productId": "P200", "quantity": 12}
    assert error(seeded.call("GET", f"{P}/warehouses/SEA/inventory/P400")) == (404, "INVENTORY_NOT_FOUND")


def test_pattern_13_total_inventory_follows_receipts_and_moves(seeded):
    assert ok(seeded.call("GET", f"{P}/products/P100"))["totalInventory"] == 65
    ok(seeded.call("POST", f"{P}/warehouses/MUC/inventory/P100/receipts", user="root", groups=ADMIN,
                   body={"quantity": 10}), 201)
    moved = ok(seeded.call("POST", f"{P}/inventory-moves", user="root", groups=ADMIN, body={
        "productId": "P100", "fromWarehouseId": "SEA", "toWarehouseId": "MUC", "quantity": 15}), 201)
    assert (moved["source"]["quantity"], moved["destination"]["quantity"]) == (25, 50)
    assert ok(seeded.call("GET", f"{P}/products/P100"))["totalInventory"] == 75
    assert error(seeded.call("GET", f"{P}/products/P999")) == (404, "PRODUCT_NOT_FOUND")


def test_pattern_14_reps_ranked_by_order_total_per_quarter(seeded, clock):
    q1 = ok(seeded.call("GET", f"{P}/quarters/2026-Q1/reps"))["items"]
    assert q1 == [{"repId": "150", "quarter": "2026-Q1", "totalCents": 176000, "orderCount": 3},
                  {"repId": "180", "quarter": "2026-Q1", "totalCents": 35600, "orderCount": 1}]  # O-1004 cancelled
    # When rep 180's customer orders enough in Q2, 180 overtakes 150 there
    clock.day("2026-06-10")
    ok(place(seeded, "C3", ("P200", 4)), 201)
    q2 = all_pages(seeded, f"{P}/quarters/2026-Q2/reps", limit=1)
    assert [(r["repId"], r["totalCents"]) for r in q2] == [("180", 20600 + 4 * 59900), ("150", 207600)]
    assert ok(seeded.call("GET", f"{P}/quarters/2027-Q1/reps"))["items"] == []


@pytest.mark.parametrize(("url", "code", "key"), [  # key: the one GetItem of the entity after the empty list
    (f"{P}/warehouses/NOPE/employees", "WAREHOUSE_NOT_FOUND", "WAREHOUSE#NOPE"),
    (f"{P}/jobs/NOPE/employees", "JOB_NOT_FOUND", "JOB#NOPE"),
    (f"{P}/products/NOPE/order-items", "PRODUCT_NOT_FOUND", "PRODUCT#NOPE"),
    (f"{P}/customers/NOPE/orders?{H1}", "CUSTOMER_NOT_FOUND", "CUSTOMER#NOPE"),
    (f"{P}/reps/NOPE/customers", "EMPLOYEE_NOT_FOUND", "HR-CONFIDENTIAL"),  # an employee's own item
    (f"{P}/reps/NOPE/orders?{H1}", "EMPLOYEE_NOT_FOUND", "HR-CONFIDENTIAL"),
])
def test_a_list_under_an_unknown_entity_is_404(seeded, calls, url, code, key):
    calls.clear()
    assert error(seeded.call("GET", url)) == (404, code)
    *listed, last = calls.names()
    assert listed and set(listed) == {"Query"} and last == "GetItem"
    ((lookup, _),) = calls.of("GetItem")
    assert lookup["Key"]["SK"] == {"S": key} and lookup["ProjectionExpression"] == "PK"  # as sent on the wire
    assert lookup["Key"]["PK"]["S"].endswith("#NOPE")


def test_a_list_under_a_known_entity_with_nothing_in_it_is_empty(seeded):
    for kind, entity in (("warehouse", "OSL"), ("job", "AC_MGR")):
        body = {"name": "New", "parentId": "1700"} if kind == "warehouse" else {"name": "New"}
        ok(seeded.call("PUT", f"{P}/reference/{kind}/{entity}", user="root", groups=ADMIN, body=body))
        assert ok(seeded.call("GET", f"{P}/{kind}s/{entity}/employees"))["items"] == []
    assert ok(seeded.call("GET", f"{P}/reps/145/customers"))["items"] == []  # a manager, rep of no one
    for url in (f"{P}/customers/C1/orders?from=2025-01-01&to=2025-06-30",
                f"{P}/reps/150/orders?from=2025-01-01&to=2025-06-30"):
        assert ok(seeded.call("GET", url))["items"] == []
    ok(seeded.call("PUT", f"{P}/products/P999", user="root", groups=ADMIN, body={"name": "New", "priceCents": 100}))
    assert ok(seeded.call("GET", f"{P}/products/P999/order-items")) == {
        "orderLines": [], "inventories": [], "nextCursor": None}


# --- writes and their rules ---------------------------------------------------------------------------

HIRE = {"employeeId": "200", "name": "Ada Byron", "email": "ada@example.com", "jobId": "ST_CLERK",
        "departmentId": "SHIPPING", "warehouseId": "SEA", "hireDate": "2026-04-01", "salaryCents": 350000,
        "managerId": "145"}


def test_a_hire_writes_the_employee_and_every_edge_in_one_transaction(seeded, table, calls):
    calls.clear()
    ok(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN, body=HIRE), 201)
    assert calls.names().count("TransactWriteItems") == 1
    stored = {item["SK"] for item in items(table) if item["PK"] == "EMPLOYEE#200"}
    assert stored == {"NAME#Ada Byron", "HR-CONFIDENTIAL", "JOB#ST_CLERK", "WAREHOUSE#SEA", "JH#2026-04-01#ST_CLERK"}
    assert "Ada Byron" in names(ok(seeded.call("GET", f"{P}/warehouses/SEA/employees"))["items"])


def test_a_hire_refuses_a_taken_id_and_missing_references_writing_nothing(seeded, table):
    before = len(items(table))
    assert error(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN,
                             body={**HIRE, "employeeId": "150"})) == (409, "EMPLOYEE_EXISTS")
    for field, code in (("warehouseId", "WAREHOUSE_NOT_FOUND"), ("departmentId", "DEPARTMENT_NOT_FOUND"),
                        ("managerId", "MANAGER_NOT_FOUND"), ("jobId", "JOB_NOT_FOUND")):
        assert error(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN,
                                 body={**HIRE, field: "NOPE"})) == (404, code)
    assert len(items(table)) == before


def test_a_hire_naming_the_employee_as_their_own_manager_writes_nothing(seeded, table):
    # One transaction cannot both put the employee and check them as the manager (DynamoDB refuses two actions on one
    # item); no such manager exists before the hire: 404, or 409 when the employee is already hired
    before = items(table)
    assert error(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN,
                             body={**HIRE, "managerId": "200"})) == (404, "MANAGER_NOT_FOUND")
    assert error(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN,
                             body={**HIRE, "employeeId": "150", "managerId": "150"})) == (409, "EMPLOYEE_EXISTS")
    assert items(table) == before


def test_a_hire_retried_with_its_idempotency_key_is_answered_once(seeded, table):
    headers = {"Idempotency-Key": "hire-200"}
    first = ok(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN, body=HIRE, headers=headers), 201)
    again = ok(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN, body=HIRE, headers=headers), 201)
    assert first == again
    assert error(seeded.call("POST", f"{P}/employees", user="root", groups=ADMIN, body=HIRE)) == (409, "EMPLOYEE_EXISTS")


def test_a_job_change_moves_the_job_edge_and_adds_a_history_record(seeded, table):
    change = ok(seeded.call("POST", f"{P}/employees/181/job-changes", user="root", groups=ADMIN,
                            body={"jobId": "SH_CLERK", "startDate": "2026-05-01"}), 201)
    assert change == {"employeeId": "181", "jobId": "SH_CLERK", "startDate": "2026-05-01", "title": "Shipping Clerk"}
    assert ok(seeded.call("GET", f"{P}/employees/181/current-job"))["jobId"] == "SH_CLERK"
    assert ok(seeded.call("GET", f"{P}/employees/181"))["jobId"] == "SH_CLERK"
    assert names(ok(seeded.call("GET", f"{P}/jobs/ST_CLERK/employees"))["items"]) == []
    assert "Jean Fleaur" in names(ok(seeded.call("GET", f"{P}/jobs/SH_CLERK/employees"))["items"])
    history = sorted(item["SK"] for item in items(table) if item["PK"] == "EMPLOYEE#181" and item["SK"].startswith("JH#"))
    assert history == ["JH#2026-02-23#ST_CLERK", "JH#2026-05-01#SH_CLERK"]


def test_job_change_rules(seeded, table):
    def change(employee: str, job: str, start: str):
        return seeded.call("POST", f"{P}/employees/{employee}/job-changes", user="root", groups=ADMIN,
                           body={"jobId": job, "startDate": start})

    before = len(items(table))
    assert error(change("181", "ST_CLERK", "2026-05-01")) == (409, "SAME_JOB")
    assert error(change("181", "SH_CLERK", "2026-02-23")) == (409, "START_NOT_AFTER_CURRENT_JOB")
    assert error(change("181", "NOPE", "2026-05-01")) == (404, "JOB_NOT_FOUND")
    assert error(change("999", "SH_CLERK", "2026-05-01")) == (404, "EMPLOYEE_NOT_FOUND")
    assert change("181", "SH_CLERK", "2026-05-01", ).status == 201
    assert len(items(table)) == before + 1  # the edge moved (one out, one in) and one history record


def test_placing_an_order_writes_header_lines_rep_edge_and_quarter_total_at_once(seeded, table, calls, clock):
    clock.day("2026-03-02")
    calls.clear()
    order = ok(place(seeded, "C2", ("P100", 1), ("P300", 3)), 201)
    assert calls.names().count("TransactWriteItems") == 1
    assert (order["repId"], order["status"], order["totalCents"]) == ("150", "OPEN", 24900 + 3 * 8900)
    stored = [item for item in items(table) if item["PK"] == f"ORDER#{order['orderId']}"]
    header = next(item for item in stored if item["SK"] == "CUSTOMER#C2")
    assert header["GSI2PK"] == f"ORDERS#{shard_of(order['orderId'], 15)}"
    assert header["GSI2SK"] == header["Data"] == f"OPEN#2026-03-02#{order['orderId']}"
    assert {item["SK"] for item in stored} == {"CUSTOMER#C2", "REP#150", "PRODUCT#P100", "PRODUCT#P300"}
    assert "GSI2PK" not in {k for item in stored if item["SK"] != "CUSTOMER#C2" for k in item}  # headers only
    q1 = ok(seeded.call("GET", f"{P}/quarters/2026-Q1/reps"))["items"][0]
    assert (q1["repId"], q1["totalCents"], q1["orderCount"]) == ("150", 176000 + 51600, 4)
    assert ok(seeded.call("GET", f"{P}/orders/{order['orderId']}"))["lines"][0]["unitPriceCents"] in (24900, 8900)


def test_an_order_naming_one_product_twice_is_400_naming_the_repeated_line(seeded, table, calls):
    # docs/order-entry.md: 1–25 lines, one per product, else 400 VALIDATION_FAILED; nothing read, nothing written
    before = items(table)
    calls.clear()
    reply = place(seeded, "C1", ("P100", 1), ("P200", 1), ("P100", 2))
    assert error(reply) == (400, "VALIDATION_FAILED")
    assert [d["field"] for d in reply.body["error"]["details"]] == ["body.lines.2.productId"]
    assert calls.names() == [] and items(table) == before


def test_an_order_is_refused_whole_for_bad_input_unknown_references_and_non_admins(seeded, table):
    before = len(items(table))
    assert error(place(seeded, "NOPE", ("P100", 1))) == (404, "CUSTOMER_NOT_FOUND")
    assert error(place(seeded, "C1", ("P100", 1), ("P999", 1))) == (404, "PRODUCT_NOT_FOUND")
    assert error(place(seeded, "C1", *[(f"P{n}", 1) for n in range(26)])) == (400, "VALIDATION_FAILED")
    assert error(place(seeded, "C1")) == (400, "VALIDATION_FAILED")
    assert error(place(seeded, "C1", ("P100", 0))) == (400, "VALIDATION_FAILED")
    assert seeded.call("POST", f"{P}/orders", body={"customerId": "C1", "lines": [{"productId": "P100", "quantity": 1}]},
                       user="alice").status == 403
    assert error(seeded.call("GET", f"{P}/orders/O-9999")) == (404, "ORDER_NOT_FOUND")
    assert len(items(table)) == before


def test_an_order_retried_with_its_idempotency_key_is_placed_once(seeded, table):
    first = ok(place(seeded, "C1", ("P400", 1), key="order-1"), 201)
    again = ok(place(seeded, "C1", ("P400", 1), key="order-1"), 201)
    assert first["orderId"] == again["orderId"]
    headers = [item for item in items(table) if item["SK"] == "CUSTOMER#C1" and item["PK"].startswith("ORDER#")]
    assert len(headers) == 4  # the example's three and this one


def test_a_keyed_order_that_failed_is_forgotten_so_its_retry_is_placed(seeded, table):
    # Given an order refused under an Idempotency-Key (the kit deletes its in-progress record: DeleteItem)
    assert error(place(seeded, "NOPE", ("P400", 1), key="order-2")) == (404, "CUSTOMER_NOT_FOUND")
    # When the client fixes the order and retries with the same key, then it is placed, not replayed as the 404
    placed = ok(place(seeded, "C1", ("P400", 1), key="order-2"), 201)
    assert placed["customerId"] == "C1"


def test_an_order_placed_at_a_price_that_changed_meanwhile_is_a_409(seeded, table, monkeypatch):
    # Given the price changes between the read and the transaction
    repository = api.service().repository
    read = repository.get_products

    def stale(product_ids):
        found = read(product_ids)
        with iam.meanwhile():  # an admin changes the price, between the order's read and its transaction
            repository.put_product("P400", "Desk lamp", 4_500)
        return found

    monkeypatch.setattr(repository, "get_products", stale)
    assert error(place(seeded, "C1", ("P400", 1))) == (409, "PRICE_CHANGED")


def test_a_status_change_moves_the_order_in_both_indexes_and_follows_the_transitions(seeded, table):
    def patch(order: str, status: str):
        return seeded.call("PATCH", f"{P}/orders/{order}", user="root", groups=ADMIN, body={"status": status})

    assert ok(patch("O-1003", "SHIPPED"))["status"] == "SHIPPED"
    stored = {item["SK"]: item for item in items(table) if item["PK"] == "ORDER#O-1003"}
    assert stored["CUSTOMER#C2"]["GSI2SK"] == stored["CUSTOMER#C2"]["Data"] == "SHIPPED#2026-02-20#O-1003"
    assert stored["REP#150"]["Data"] == "SHIPPED#2026-02-20#O-1003"
    assert "O-1003" not in ids(all_pages(seeded, f"{P}/orders?{H1}"))
    assert "O-1003" in ids(all_pages(seeded, f"{P}/orders?status=SHIPPED&{H1}"))
    assert ok(patch("O-1003", "SHIPPED"))["status"] == "SHIPPED"  # a repeat changes nothing
    assert error(patch("O-1003", "OPEN")) == (409, "INVALID_TRANSITION")
    assert error(patch("O-1004", "SHIPPED")) == (409, "INVALID_TRANSITION")
    assert error(patch("O-9999", "SHIPPED")) == (404, "ORDER_NOT_FOUND")
    assert patch("O-1005", "LOST").status == 400
    assert seeded.call("PATCH", f"{P}/orders/O-1005", body={"status": "SHIPPED"}).status == 403


def test_a_cancelled_order_leaves_its_reps_quarter_total(seeded):
    ok(seeded.call("PATCH", f"{P}/orders/O-1003", user="root", groups=ADMIN, body={"status": "CANCELLED"}))
    q1 = ok(seeded.call("GET", f"{P}/quarters/2026-Q1/reps"))["items"][0]
    assert (q1["repId"], q1["totalCents"], q1["orderCount"]) == ("150", 176000 - 48500, 2)


def test_concurrent_orders_keep_the_quarter_total_exact(seeded, atomic_dynamodb, clock):
    clock.day("2026-09-01")
    with ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: place(seeded, "C3", ("P500", 1)), range(12)))  # one rep: one hot item
    assert [r.status for r in replies] == [201] * 12
    q3 = ok(seeded.call("GET", f"{P}/quarters/2026-Q3/reps"))["items"]
    assert q3 == [{"repId": "180", "quarter": "2026-Q3", "totalCents": 12 * 1900, "orderCount": 12}]


def test_stock_moves_in_one_transaction_or_not_at_all(seeded, table):
    def move(body: dict):
        return seeded.call("POST", f"{P}/inventory-moves", user="root", groups=ADMIN,
                           body={"productId": "P200", "fromWarehouseId": "MUC", "toWarehouseId": "SEA", **body})

    assert error(move({"quantity": 9})) == (409, "INSUFFICIENT_STOCK")
    assert error(move({"productId": "P300", "quantity": 1})) == (409, "INSUFFICIENT_STOCK")  # no row in MUC
    assert error(move({"toWarehouseId": "NOPE", "quantity": 1})) == (404, "WAREHOUSE_NOT_FOUND")
    # docs/order-entry.md: a move is between two warehouses; to the same one is 400 naming both fields
    for quantity in (1, 9):
        same = move({"toWarehouseId": "MUC", "quantity": quantity})
        assert error(same) == (400, "VALIDATION_FAILED")
        assert [d["field"] for d in same.body["error"]["details"]] == ["body.fromWarehouseId", "body.toWarehouseId"]
    assert ok(seeded.call("GET", f"{P}/warehouses/MUC/inventory/P200"))["quantity"] == 8
    assert ok(move({"quantity": 8}), 201)["destination"]["quantity"] == 20
    assert ok(seeded.call("GET", f"{P}/products/P200"))["totalInventory"] == 20
    assert error(seeded.call("POST", f"{P}/warehouses/NOPE/inventory/P200/receipts", user="root", groups=ADMIN,
                             body={"quantity": 1})) == (404, "WAREHOUSE_NOT_FOUND")
    assert error(seeded.call("POST", f"{P}/warehouses/SEA/inventory/P999/receipts", user="root", groups=ADMIN,
                             body={"quantity": 1})) == (404, "PRODUCT_NOT_FOUND")


def test_reference_products_and_customers_are_admin_puts(seeded):
    assert ok(seeded.call("PUT", f"{P}/reference/region/AS", user="root", groups=ADMIN, body={"name": "Asia"})) == {
        "kind": "region", "id": "AS", "name": "Asia", "parentId": None}
    assert seeded.call("PUT", f"{P}/reference/planet/X", user="root", groups=ADMIN, body={"name": "X"}).status == 400
    assert seeded.call("PUT", f"{P}/reference/region/AS", body={"name": "Asia"}).status == 403
    renamed = ok(seeded.call("PUT", f"{P}/products/P100", user="root", groups=ADMIN,
                             body={"name": "Chair", "priceCents": 19900}))
    assert renamed["totalInventory"] == 65  # a product's put never resets its stock
    assert error(seeded.call("PUT", f"{P}/customers/C1", user="root", groups=ADMIN,
                             body={"name": "Acme Corp", "repId": "180"})) == (409, "CUSTOMER_HAS_ANOTHER_REP")
    assert error(seeded.call("PUT", f"{P}/customers/C9", user="root", groups=ADMIN,
                             body={"name": "Nobody", "repId": "999"})) == (404, "EMPLOYEE_NOT_FOUND")
    assert ok(seeded.call("PUT", f"{P}/customers/C1", user="root", groups=ADMIN,
                          body={"name": "Acme Corp", "repId": "150"}))["repId"] == "150"


def test_a_references_parent_must_exist_and_be_of_its_parent_kind(seeded, table):
    before = items(table)
    for kind, parent, code in (("country", "NOPE", "REGION_NOT_FOUND"), ("location", "NOPE", "COUNTRY_NOT_FOUND"),
                               ("warehouse", "NOPE", "LOCATION_NOT_FOUND"), ("department", "NOPE", "LOCATION_NOT_FOUND"),
                               ("warehouse", "US", "LOCATION_NOT_FOUND")):  # US is a country, not a location
        assert error(seeded.call("PUT", f"{P}/reference/{kind}/X1", user="root", groups=ADMIN,
                                 body={"name": "X", "parentId": parent})) == (404, code)
    for kind in ("region", "job"):  # no parent kind: no such parent (the body's schema cannot depend on the path)
        assert error(seeded.call("PUT", f"{P}/reference/{kind}/X1", user="root", groups=ADMIN,
                                 body={"name": "X", "parentId": "EU"})) == (404, "PARENT_NOT_FOUND")
    assert items(table) == before
    assert ok(seeded.call("PUT", f"{P}/reference/country/FR", user="root", groups=ADMIN,
                          body={"name": "France", "parentId": "EU"})) == {
        "kind": "country", "id": "FR", "name": "France", "parentId": "EU"}
    assert ok(seeded.call("PUT", f"{P}/reference/location/3000", user="root", groups=ADMIN,
                          body={"name": "Paris"}))["parentId"] is None  # a parent is optional


@pytest.mark.parametrize("url", [
    f"{P}/orders?from=2026-02-30&to=2026-03-01", f"{P}/orders?from=2026-03-02&to=2026-03-01",
    f"{P}/orders?to=2026-03-01", f"{P}/customers/C1/orders?from=2026-01-01", f"{P}/recent-hires?since=yesterday",
    f"{P}/quarters/2026-Q5/reps", f"{P}/employees?name=a%23b", f"{P}/orders?{H1}&cursor=forged",
])
def test_bad_queries_are_400(seeded, url):
    assert seeded.call("GET", url).status == 400


def test_a_cursor_is_bound_to_its_list(seeded):
    cursor = ok(seeded.call("GET", f"{P}/orders?{H1}&limit=1"))["nextCursor"]
    assert error(seeded.call("GET", f"{P}/reps/150/orders?{H1}&cursor={cursor}")) == (400, "INVALID_CURSOR")
    assert error(seeded.call("GET", f"{P}/orders?from=2026-01-01&to=2026-12-31&cursor={cursor}")) == (
        400, "INVALID_CURSOR")


def test_every_read_is_a_key_based_get_query_or_batch_get(seeded, calls, clock):
    calls.clear()
    for url in (f"{P}/employees/150", f"{P}/employees?name=Peter%20Tucker", f"{P}/employees/125/current-job",
                f"{P}/customers/C1/orders?{H1}", f"{P}/orders?{H1}", f"{P}/recent-hires?since=2020-01-01",
                f"{P}/warehouses/SEA/employees", f"{P}/products/P100/order-items", f"{P}/reps/150/customers",
                f"{P}/reps/150/orders?{H1}", f"{P}/jobs/SA_REP/employees", f"{P}/warehouses/SEA/inventory/P100",
                f"{P}/products/P100", f"{P}/quarters/2026-Q1/reps"):
        ok(seeded.call("GET", url))
    ok(place(seeded, "C1", ("P100", 1)), 201)
    assert set(calls.names()) <= {"GetItem", "Query", "BatchGetItem", "TransactWriteItems"}
    for params, _ in calls.of("Query"):
        assert "FilterExpression" not in params and "KeyConditionExpression" in params


def test_the_example_data_loads_twice_changing_nothing(seeded, table):
    before = sorted(items(table), key=lambda item: (item["PK"], item["SK"]))
    seed.load({ORDER_ENTRY_TABLE.env_var: table})
    after = sorted(boto3.resource("dynamodb").Table(table).scan()["Items"], key=lambda item: (item["PK"], item["SK"]))
    assert after == before


def test_a_write_that_races_another_is_409_and_writes_nothing(seeded, table, monkeypatch):
    # Each write is conditioned on what its service read (`jobId = :old AND jobSince < :start`, `status = :old`, the
    # customer's `repId`): another write landing between the read and the transaction refuses it whole.
    repository = api.service().repository
    real_change_job, real_change_status = repository.change_job, repository.change_status

    def job_changed_meanwhile(employee, job_id, start, title):
        with iam.meanwhile():  # the other write
            assert real_change_job(employee, "SA_REP", "2026-04-01", "Sales Representative") is None
        return real_change_job(employee, job_id, start, title)

    monkeypatch.setattr(repository, "change_job", job_changed_meanwhile)
    before = items(table)
    reply = seeded.call("POST", f"{P}/employees/181/job-changes", user="root", groups=ADMIN,
                        body={"jobId": "SH_CLERK", "startDate": "2026-05-01"})
    assert error(reply) == (409, "JOB_CHANGED")
    assert len(items(table)) == len(before) + 1  # the other write's history record only
    assert ok(seeded.call("GET", f"{P}/employees/181/current-job"))["jobId"] == "SA_REP"

    def status_changed_meanwhile(order, status):
        with iam.meanwhile():  # the other write
            assert real_change_status(order, "CANCELLED") is None
        return real_change_status(order, status)

    monkeypatch.setattr(repository, "change_status", status_changed_meanwhile)
    reply = seeded.call("PATCH", f"{P}/orders/O-1005", user="root", groups=ADMIN, body={"status": "SHIPPED"})
    assert error(reply) == (409, "STATUS_CHANGED")
    assert ok(seeded.call("GET", f"{P}/orders/O-1005", user="root", groups=ADMIN))["status"] == "CANCELLED"

    read_customer = repository.get_customer

    def customer_changed_meanwhile(customer_id):  # its rep, as read, is no longer the stored one
        customer = read_customer(customer_id)
        return customer.model_copy(update={"rep_id": "156" if customer.rep_id != "156" else "150"})

    monkeypatch.setattr(repository, "get_customer", customer_changed_meanwhile)
    before = items(table)
    assert error(place(seeded, "C1", ("P400", 1))) == (409, "CUSTOMER_CHANGED")
    assert items(table) == before
