"""Order entry's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "order-entry",
    put_reference=Route("PUT", "/order-entry/reference/{kind}/{entityId}", group=ADMIN, responses={
        404: "404 COUNTRY_NOT_FOUND, LOCATION_NOT_FOUND, PARENT_NOT_FOUND, REGION_NOT_FOUND",
    }),
    put_product=Route("PUT", "/order-entry/products/{productId}", group=ADMIN),
    put_customer=Route("PUT", "/order-entry/customers/{customerId}", group=ADMIN, responses={
        404: "404 EMPLOYEE_NOT_FOUND",
        409: "409 CUSTOMER_HAS_ANOTHER_REP",
    }),
    hire=Route("POST", "/order-entry/employees", group=ADMIN, responses={
        404: "404 DEPARTMENT_NOT_FOUND, JOB_NOT_FOUND, MANAGER_NOT_FOUND, WAREHOUSE_NOT_FOUND",
        409: "409 EMPLOYEE_EXISTS",
        201: "hired",
    }),
    get_employee=Route("GET", "/order-entry/employees/{employeeId}", responses={404: "404 EMPLOYEE_NOT_FOUND"}),
    employees_named=Route("GET", "/order-entry/employees", paged=True),
    current_job=Route("GET", "/order-entry/employees/{employeeId}/current-job", responses={
        404: "404 EMPLOYEE_NOT_FOUND",
    }),
    change_job=Route("POST", "/order-entry/employees/{employeeId}/job-changes", group=ADMIN, responses={
        404: "404 EMPLOYEE_NOT_FOUND, JOB_NOT_FOUND",
        409: "409 SAME_JOB, START_NOT_AFTER_CURRENT_JOB, JOB_CHANGED",
        201: "the new job history record",
    }),
    recent_hires=Route("GET", "/order-entry/recent-hires", paged=True),
    warehouse_employees=Route("GET", "/order-entry/warehouses/{warehouseId}/employees", paged=True, responses={
        404: "404 WAREHOUSE_NOT_FOUND",
    }),
    job_employees=Route("GET", "/order-entry/jobs/{jobId}/employees", paged=True, responses={404: "404 JOB_NOT_FOUND"}),
    get_product=Route("GET", "/order-entry/products/{productId}", responses={404: "404 PRODUCT_NOT_FOUND"}),
    product_activity=Route("GET", "/order-entry/products/{productId}/order-items", paged=True, responses={
        404: "404 PRODUCT_NOT_FOUND",
    }),
    get_inventory=Route("GET", "/order-entry/warehouses/{warehouseId}/inventory/{productId}", responses={
        404: "404 INVENTORY_NOT_FOUND",
    }),
    receive=Route(
        "POST", "/order-entry/warehouses/{warehouseId}/inventory/{productId}/receipts", group=ADMIN,
        responses={
            404: "404 PRODUCT_NOT_FOUND, WAREHOUSE_NOT_FOUND",
            201: "received: the warehouse's stock of the product",
        },
    ),
    move=Route("POST", "/order-entry/inventory-moves", group=ADMIN, responses={
        404: "404 WAREHOUSE_NOT_FOUND",
        409: "409 INSUFFICIENT_STOCK",
        201: "moved",
    }),
    place_order=Route("POST", "/order-entry/orders", group=ADMIN, responses={
        404: "404 CUSTOMER_NOT_FOUND, PRODUCT_NOT_FOUND",
        409: "409 PRICE_CHANGED, CUSTOMER_CHANGED",
        201: "placed",
    }),
    get_order=Route("GET", "/order-entry/orders/{orderId}", responses={404: "404 ORDER_NOT_FOUND"}),
    change_status=Route("PATCH", "/order-entry/orders/{orderId}", group=ADMIN, responses={
        404: "404 ORDER_NOT_FOUND",
        409: "409 INVALID_TRANSITION, STATUS_CHANGED",
    }),
    orders_in_status=Route("GET", "/order-entry/orders", paged=True),
    customer_orders=Route("GET", "/order-entry/customers/{customerId}/orders", paged=True, responses={
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    rep_customers=Route("GET", "/order-entry/reps/{repId}/customers", paged=True, responses={
        404: "404 EMPLOYEE_NOT_FOUND",
    }),
    rep_orders=Route("GET", "/order-entry/reps/{repId}/orders", paged=True, responses={404: "404 EMPLOYEE_NOT_FOUND"}),
    rep_ranking=Route("GET", "/order-entry/quarters/{quarter}/reps", paged=True),
)
