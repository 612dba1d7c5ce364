"""Order entry: its entities and access patterns, declared once. docs/order-entry.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("entity", "PK", "SK", "Data (GSI1 sort key)", "GSI2PK / GSI2SK"),
    rows=(
        ("region, country, location, department, job, warehouse", "`<KIND>#id`", "`<KIND>#id`", "–", "–"),
        ("employee (details)", "`EMPLOYEE#e`", "`NAME#<name>`", "`EMPLOYEE#e`", "–"),
        ("employee confidential", "`EMPLOYEE#e`", "`HR-CONFIDENTIAL`", "`<hire date>`", "–"),
        ("employee's current job (edge)", "`EMPLOYEE#e`", "`JOB#<job>`", "`EMPLOYEE#<name>#e`", "–"),
        ("employee's warehouse (edge)", "`EMPLOYEE#e`", "`WAREHOUSE#<w>`", "`EMPLOYEE#<name>#e`", "–"),
        ("job history", "`EMPLOYEE#e`", "`JH#<start>#<job>`", "–", "–"),
        ("customer", "`CUSTOMER#c`", "`CUSTOMER#c`", "–", "–"),
        ("customer's rep (edge)", "`CUSTOMER#c`", "`REP#r`", "`CUSTOMER#<name>#c`", "–"),
        ("product (with `totalInventory`)", "`PRODUCT#p`", "`PRODUCT#p`", "–", "–"),
        ("inventory", "`WAREHOUSE#w`", "`PRODUCT#p`", "`WAREHOUSE#w`", "–"),
        ("order header", "`ORDER#o`", "`CUSTOMER#c`", "`<STATUS>#<date>#o`", "`ORDERS#<shard>` / `<STATUS>#<date>#o`"),
        ("order's rep (edge)", "`ORDER#o`", "`REP#r`", "`<STATUS>#<date>#o`", "–"),
        ("order line", "`ORDER#o`", "`PRODUCT#p`", "`ORDER#<date>#o`", "–"),
        ("rep quarter total", "`REP#r`", "`<YYYY>-Q<n>`", "zero-padded total in cents", "–"),
    ),
)

COLUMNS: Columns = columns(who=False)

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="1 employee by id",
        route="`GET /order-entry/employees/{employeeId}`",
        who=None,
        source="table",
        key_condition="`PK = EMPLOYEE#e AND begins_with(SK, NAME#)`, Limit 1",
        repository_method="`get_employee`",
        tests="`test_pattern_1_employee_details_by_id`, `test_pattern_1_an_employee_by_id_over_http`",
    ),
    AccessPattern(
        name="2 employees by name",
        route="`GET /order-entry/employees?name=`",
        who=None,
        source="GSI1",
        key_condition="`SK = NAME#<name>`",
        repository_method="`employees_named`",
        tests="`test_pattern_2_employees_by_name_lists_namesakes`, `test_pattern_2_employees_by_name_over_http`",
    ),
    AccessPattern(
        name="3 current job",
        route="`GET /order-entry/employees/{employeeId}/current-job`",
        who=None,
        source="table",
        key_condition="`PK = EMPLOYEE#e AND begins_with(SK, JH#)`, descending, Limit 1",
        repository_method="`current_job`",
        tests="`test_pattern_3_current_job_is_the_newest_job_history_record`, `test_pattern_3_current_job_over_http`",
    ),
    AccessPattern(
        name="4 a customer's orders by date",
        route="`GET /order-entry/customers/{customerId}/orders?from=&to=`",
        who=None,
        source="GSI1",
        key_condition=(
            "per status, in parallel: `SK = CUSTOMER#c AND Data BETWEEN <S>#from# AND <S>#to#~`, merged; an empty "
            "first page: GetItem of the customer (404 `CUSTOMER_NOT_FOUND`)"
        ),
        repository_method="`customer_orders`",
        tests=(
            "`test_pattern_4_customer_orders_in_a_date_range_merge_every_status`, "
            "`test_a_list_under_an_unknown_entity_is_404`, "
            "`test_pattern_4_a_customers_orders_in_every_status_over_http`"
        ),
    ),
    AccessPattern(
        name="5 OPEN orders by date, all customers",
        route="`GET /order-entry/orders?status=OPEN&from=&to=`",
        who=None,
        source="GSI2",
        key_condition=(
            "per shard 0..N-1, in parallel: `GSI2PK = ORDERS#n AND GSI2SK BETWEEN OPEN#from# AND OPEN#to#~`, merged, "
            "one cursor"
        ),
        repository_method="`orders_in_status`",
        tests=(
            "`test_pattern_5_open_orders_read_every_shard_in_parallel_with_one_cursor`, "
            "`test_pattern_5_many_orders_over_many_shards_come_back_once_each_in_date_order`, "
            "`test_pattern_5_open_orders_over_every_shard_over_http`, "
            "`test_a_placed_order_shows_in_patterns_5_and_14_and_a_status_change_moves_it`"
        ),
    ),
    AccessPattern(
        name="6 recent hires",
        route="`GET /order-entry/recent-hires?since=`",
        who=None,
        source="GSI1",
        key_condition="`SK = HR-CONFIDENTIAL AND Data >= since`, descending",
        repository_method="`recent_hires`",
        tests=(
            "`test_pattern_6_recent_hires_show_confidential_fields_to_admins_only`, "
            "`test_pattern_6_recent_hires_confidential_only_for_admins_over_http`"
        ),
    ),
    AccessPattern(
        name="7 employees of a warehouse",
        route="`GET /order-entry/warehouses/{warehouseId}/employees`",
        who=None,
        source="GSI1",
        key_condition=(
            "`SK = WAREHOUSE#w AND begins_with(Data, EMPLOYEE#)`; an empty first page: GetItem of the warehouse (404 "
            "`WAREHOUSE_NOT_FOUND`)"
        ),
        repository_method="`warehouse_employees`",
        tests=(
            "`test_pattern_7_employees_in_a_warehouse`, `test_pattern_7_employees_of_a_warehouse_over_http`, "
            "`test_a_list_under_an_unknown_entity_is_404`"
        ),
    ),
    AccessPattern(
        name="8 a product's order lines and stock",
        route="`GET /order-entry/products/{productId}/order-items`",
        who=None,
        source="GSI1",
        key_condition="`SK = PRODUCT#p`; an empty first page: GetItem of the product (404 `PRODUCT_NOT_FOUND`)",
        repository_method="`product_activity`",
        tests=(
            "`test_pattern_8_a_products_order_lines_and_its_stock_per_warehouse`, "
            "`test_a_list_under_an_unknown_entity_is_404`, "
            "`test_pattern_8_a_products_order_lines_and_stock_over_http`"
        ),
    ),
    AccessPattern(
        name="9 customers by rep",
        route="`GET /order-entry/reps/{repId}/customers`",
        who=None,
        source="GSI1",
        key_condition=(
            "`SK = REP#r AND begins_with(Data, CUSTOMER#)`; an empty first page: GetItem of the employee's "
            "HR-CONFIDENTIAL (404 `EMPLOYEE_NOT_FOUND`)"
        ),
        repository_method="`rep_customers`",
        tests=(
            "`test_pattern_9_customers_by_account_rep`, `test_pattern_9_customers_of_a_rep_over_http`, "
            "`test_a_list_under_an_unknown_entity_is_404`"
        ),
    ),
    AccessPattern(
        name="10 a rep's orders by date",
        route="`GET /order-entry/reps/{repId}/orders?from=&to=`",
        who=None,
        source="GSI1",
        key_condition=(
            "per status, in parallel: `SK = REP#r AND Data BETWEEN <S>#from# AND <S>#to#~`, merged; an empty first "
            "page: GetItem of the employee's HR-CONFIDENTIAL (404 `EMPLOYEE_NOT_FOUND`)"
        ),
        repository_method="`rep_orders`",
        tests=(
            "`test_pattern_10_a_reps_orders_by_date_over_every_status`, `test_a_list_under_an_unknown_entity_is_404`, "
            "`test_pattern_10_a_reps_orders_in_every_status_over_http`"
        ),
    ),
    AccessPattern(
        name="11 employees by job",
        route="`GET /order-entry/jobs/{jobId}/employees`",
        who=None,
        source="GSI1",
        key_condition=(
            "`SK = JOB#j AND begins_with(Data, EMPLOYEE#)`; an empty first page: GetItem of the job (404 "
            "`JOB_NOT_FOUND`)"
        ),
        repository_method="`job_employees`",
        tests=(
            "`test_pattern_11_employees_with_a_job_follow_job_changes`, `test_a_list_under_an_unknown_entity_is_404`, "
            "`test_pattern_11_employees_with_a_job_over_http`"
        ),
    ),
    AccessPattern(
        name="12 stock by product and warehouse",
        route="`GET /order-entry/warehouses/{warehouseId}/inventory/{productId}`",
        who=None,
        source="table",
        key_condition="GetItem `WAREHOUSE#w`, `PRODUCT#p`",
        repository_method="`get_inventory`",
        tests=(
            "`test_pattern_12_inventory_by_product_and_warehouse`, "
            "`test_pattern_12_stock_of_a_product_in_a_warehouse_over_http`"
        ),
    ),
    AccessPattern(
        name="13 total inventory",
        route="`GET /order-entry/products/{productId}`",
        who=None,
        source="table",
        key_condition="GetItem `PRODUCT#p`, `PRODUCT#p`",
        repository_method="`get_product`",
        tests=(
            "`test_pattern_13_total_inventory_follows_receipts_and_moves`, `test_pattern_13_total_inventory_over_http`"
        ),
    ),
    AccessPattern(
        name="14 reps ranked per quarter",
        route="`GET /order-entry/quarters/{quarter}/reps`",
        who=None,
        source="GSI1",
        key_condition="`SK = <YYYY>-Q<n>`, descending",
        repository_method="`rep_ranking`",
        tests=(
            "`test_pattern_14_reps_ranked_by_order_total_per_quarter`, "
            "`test_pattern_14_reps_ranked_by_order_total_over_http`, "
            "`test_a_placed_order_shows_in_patterns_5_and_14_and_a_status_change_moves_it`"
        ),
    ),
    AccessPattern(
        name="hire",
        route="`POST /order-entry/employees`",
        who=None,
        source="table",
        key_condition="TransactWriteItems",
        repository_method="`OrderEntryRepository.hire`",
        tests=(
            "`test_a_hire_writes_the_employee_and_every_edge_in_one_transaction`, "
            "`test_a_hire_refuses_a_taken_id_and_missing_references_writing_nothing`, "
            "`test_a_hire_retried_with_its_idempotency_key_is_answered_once`"
        ),
    ),
    AccessPattern(
        name="change job",
        route="`POST /order-entry/employees/{employeeId}/job-changes`",
        who=None,
        source="table",
        key_condition="TransactWriteItems",
        repository_method="`change_job`",
        tests="`test_a_job_change_moves_the_job_edge_and_adds_a_history_record`, `test_job_change_rules`",
    ),
    AccessPattern(
        name="place an order",
        route="`POST /order-entry/orders`",
        who=None,
        source="table",
        key_condition="TransactWriteItems",
        repository_method="`place_order`",
        tests=(
            "`test_placing_an_order_writes_header_lines_rep_edge_and_quarter_total_at_once`, "
            "`test_an_order_is_refused_whole_for_bad_input_unknown_references_and_non_admins`, "
            "`test_concurrent_orders_keep_the_quarter_total_exact`, "
            "`test_a_placed_order_shows_in_patterns_5_and_14_and_a_status_change_moves_it`"
        ),
    ),
    AccessPattern(
        name="change status",
        route="`PATCH /order-entry/orders/{orderId}`",
        who=None,
        source="table",
        key_condition="TransactWriteItems",
        repository_method="`change_status`",
        tests=(
            "`test_a_status_change_moves_the_order_in_both_indexes_and_follows_the_transitions`, "
            "`test_a_cancelled_order_leaves_its_reps_quarter_total`, "
            "`test_a_placed_order_shows_in_patterns_5_and_14_and_a_status_change_moves_it`"
        ),
    ),
    AccessPattern(
        name="receive and move stock",
        route=(
            "`POST /order-entry/warehouses/{warehouseId}/inventory/{productId}/receipts`, `POST "
            "/order-entry/inventory-moves`"
        ),
        who=None,
        source="table",
        key_condition="TransactWriteItems",
        repository_method="`receive`, `move`",
        tests="`test_stock_moves_in_one_transaction_or_not_at_all`",
    ),
    AccessPattern(
        name="reference data, products, customers",
        route=(
            "`PUT /order-entry/reference/{kind}/{entityId}`, `PUT /order-entry/products/{productId}`, `PUT "
            "/order-entry/customers/{customerId}`"
        ),
        who=None,
        source="table",
        key_condition=(
            "PutItem / UpdateItem / TransactWriteItems (a reference with a `parentId`: Put + ConditionCheck on the "
            "parent)"
        ),
        repository_method="`put_reference`, `put_product`, `put_customer`",
        tests=(
            "`test_reference_products_and_customers_are_admin_puts`, "
            "`test_a_references_parent_must_exist_and_be_of_its_parent_kind`"
        ),
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/order_entry.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "productId": "P100",
    "employeeId": "150",
    "warehouseId": "SEA",
    "jobId": "SA_REP",
    "orderId": "O-1001",
    "customerId": "C1",
    "repId": "150",
    "quarter": "2026-Q1",
    "kind": "warehouse",
    "entityId": "SEA",
    "from": "2026-01-01",
    "to": "2026-12-31",
    "since": "2020-01-01",
    "name": "Peter Tucker",
}

# The seed's user (seeds/order_entry.py), whom the explorer runs the patterns as (`make token USER=alice`):
# any signed-in caller reads the order-entry data.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_order_entry_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='an employee id is hired once',
        enforced_by='`attribute_not_exists` on HR-CONFIDENTIAL',
        refusal='409 `EMPLOYEE_EXISTS`',
        tests=(
            API + 'test_a_hire_refuses_a_taken_id_and_missing_references_writing_nothing',
        ),
    ),
    Rule(
        rule="a hire's job, department, warehouse, manager exist",
        enforced_by='ConditionChecks',
        refusal='404 `<KIND>_NOT_FOUND`',
        tests=(
            API + 'test_a_hire_refuses_a_taken_id_and_missing_references_writing_nothing',
        ),
    ),
    Rule(
        rule=(
            "a reference's `parentId` names an existing entity of its parent kind (country → region, location → "
            'country, warehouse and department → location; regions and jobs have none)'
        ),
        enforced_by="ConditionCheck in the Put's transaction; a service check",
        refusal=(
            "404 `REGION_NOT_FOUND`, `COUNTRY_NOT_FOUND`, `LOCATION_NOT_FOUND`; `PARENT_NOT_FOUND` for a region's or "
            "job's"
        ),
        tests=(
            API + 'test_a_references_parent_must_exist_and_be_of_its_parent_kind',
        ),
    ),
    Rule(
        rule=(
            'an employee is not their own manager (the check and the Put would name one item: DynamoDB refuses the '
            'transaction)'
        ),
        enforced_by='service check before the transaction',
        refusal='404 `MANAGER_NOT_FOUND` (none exists before the hire), 409 `EMPLOYEE_EXISTS`',
        tests=(
            API + 'test_a_hire_naming_the_employee_as_their_own_manager_writes_nothing',
        ),
    ),
    Rule(
        rule='a job change is another job, starting after the current one',
        enforced_by='service check + `jobId = :old AND jobSince < :start`',
        refusal='409 `SAME_JOB`, `START_NOT_AFTER_CURRENT_JOB`, `JOB_CHANGED`',
        tests=(
            API + 'test_job_change_rules',
            API + 'test_a_write_that_races_another_is_409_and_writes_nothing',
        ),
    ),
    Rule(
        rule="an order's customer, products and prices",
        enforced_by='GetItem/BatchGetItem + ConditionChecks on rep and price',
        refusal='404 `CUSTOMER_NOT_FOUND`, `PRODUCT_NOT_FOUND`; 409 `PRICE_CHANGED`, `CUSTOMER_CHANGED`',
        tests=(
            API + 'test_an_order_is_refused_whole_for_bad_input_unknown_references_and_non_admins',
            API + 'test_an_order_placed_at_a_price_that_changed_meanwhile_is_a_409',
            API + 'test_a_write_that_races_another_is_409_and_writes_nothing',
        ),
    ),
    Rule(
        rule='1–25 lines, one per product, quantity ≥ 1',
        enforced_by='validation; one per product: a service check before any read',
        refusal='400 `VALIDATION_FAILED` (a repeated product names its line, `body.lines.<n>.productId`)',
        tests=(
            API + 'test_an_order_is_refused_whole_for_bad_input_unknown_references_and_non_admins',
            API + 'test_an_order_naming_one_product_twice_is_400_naming_the_repeated_line',
        ),
    ),
    Rule(
        rule="a date range's `from` is not after its `to` (patterns 4, 5, 10)",
        enforced_by='service check before any read',
        refusal='400 `VALIDATION_FAILED` naming `query.from` and `query.to`',
        tests=(
            API + 'test_a_reversed_date_range_is_400_naming_both_fields_without_a_read',
        ),
    ),
    Rule(
        rule='status transitions OPEN→SHIPPED/CANCELLED, SHIPPED→DELIVERED',
        enforced_by='service table + `status = :old`',
        refusal='409 `INVALID_TRANSITION`, `STATUS_CHANGED`',
        tests=(
            API + 'test_a_status_change_moves_the_order_in_both_indexes_and_follows_the_transitions',
            API + 'test_a_write_that_races_another_is_409_and_writes_nothing',
        ),
    ),
    Rule(
        rule='stock never negative; moves between two existing, different warehouses',
        enforced_by='`quantity >= :q`, ConditionCheck; different: a service check before any read',
        refusal=(
            '409 `INSUFFICIENT_STOCK`, 404 `WAREHOUSE_NOT_FOUND`, 400 `VALIDATION_FAILED` naming '
            '`body.fromWarehouseId` and `body.toWarehouseId`'
        ),
        tests=(
            API + 'test_stock_moves_in_one_transaction_or_not_at_all',
        ),
    ),
    Rule(
        rule='a customer keeps its rep; a rep is an employee',
        enforced_by='`attribute_not_exists(PK) OR repId = :rep`, ConditionCheck',
        refusal='409 `CUSTOMER_HAS_ANOTHER_REP`, 404 `EMPLOYEE_NOT_FOUND`',
        tests=(
            API + 'test_reference_products_and_customers_are_admin_puts',
        ),
    ),
    Rule(
        rule='writes are admin-only; confidential fields only for admins',
        enforced_by=(
            "`admin_only`; pattern 6 answers non-admins names, dates and managers (public in pattern 1's details too), "
            'never salary or commission'
        ),
        refusal='403',
        tests=(
            API + 'test_reference_products_and_customers_are_admin_puts',
            API + 'test_pattern_6_recent_hires_show_confidential_fields_to_admins_only',
        ),
    ),
)
