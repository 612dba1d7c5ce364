"""Ecommerce: its entities and access patterns, declared once. docs/ecommerce.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("entity", "PK", "SK", "other attributes"),
    rows=(
        (
            "Customer",
            "`CUSTOMER#<Username>`",
            "`CUSTOMER#<Username>`",
            "`username`, `name`, `email`, `addresses` (map: name → `{street, city, state?, postalCode?, country?}`)",
        ),
        ("CustomerEmail", "`CUSTOMEREMAIL#<Email>`", "`CUSTOMEREMAIL#<Email>`", "`email`, `username` (whose it is)"),
        ("Address", "— (an entry of the customer's `addresses` map, at most 20)", "—", ""),
        (
            "Order",
            "`CUSTOMER#<Username>`",
            "`#ORDER#<OrderId>`",
            "`orderId` (KSUID), `username`, `createdAt`, `status`, `numberOfItems`, `amount`, `updatedAt`?",
        ),
        (
            "OrderItem",
            "`ORDER#<OrderId>#ITEM#<ItemId>`",
            "`ORDER#<OrderId>#ITEM#<ItemId>`",
            "`orderId`, `itemId`, `description`, `price`, `quantity`",
        ),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="create a customer (unique username and email)",
        route="`POST /ecommerce/customers` `{username, name, email}` → 201 (200: a retry of the same sign-up)",
        who="self or admin",
        source="table",
        key_condition=(
            "TransactWriteItems: Put Customer `attribute_not_exists(PK)` + Put CustomerEmail `attribute_not_exists(PK)`"
        ),
        repository_method="`sign_up`",
        tests=(
            "`test_a_sign_up_writes_the_customer_and_its_email_marker_in_one_transaction`, "
            "`test_a_taken_username_is_409_username_taken_and_a_taken_email_409_email_taken`, "
            "`test_a_retried_sign_up_answers_200_with_the_stored_customer`, "
            "`test_20_concurrent_sign_ups_sharing_an_email_give_exactly_one_customer`, e2e "
            "`test_20_concurrent_sign_ups_sharing_an_email_give_one_201`"
        ),
    ),
    AccessPattern(
        name="change a customer's email",
        route="`PUT /ecommerce/customers/{username}/email` `{email}`",
        who="self or admin",
        source="table",
        key_condition=(
            "GetItem Customer (consistent), then TransactWriteItems: Update Customer `email = :old`, Delete old "
            "CustomerEmail `username = :user`, Put new CustomerEmail `attribute_not_exists(PK)`"
        ),
        repository_method="`get_customer`, `change_email`",
        tests=(
            "`test_a_change_of_email_moves_the_marker_and_frees_the_old_email`, e2e "
            "`test_a_changed_email_frees_the_old_one`"
        ),
    ),
    AccessPattern(
        name="create / update a mailing address",
        route="`PUT /ecommerce/customers/{username}/addresses` `{name, street, city, …}`",
        who="self or admin",
        source="table",
        key_condition=(
            "UpdateItem `PK = SK = CUSTOMER#<u>`: `SET addresses.#name = :a` if the customer exists and "
            "(`attribute_exists(addresses.#name)` or `size(addresses) < 20`)"
        ),
        repository_method="`put_address`",
        tests=(
            "`test_named_addresses_are_created_updated_and_deleted_on_the_customer_item`, "
            "`test_addresses_are_bounded_and_the_refusal_says_the_bound`, "
            "`test_addresses_of_a_missing_customer_are_404_and_of_another_403`, e2e "
            "`test_addresses_are_named_and_bounded`"
        ),
    ),
    AccessPattern(
        name="delete a mailing address",
        route="`DELETE /ecommerce/customers/{username}/addresses?name=`",
        who="self or admin",
        source="table",
        key_condition="UpdateItem `REMOVE addresses.#name` if the customer exists",
        repository_method="`delete_address`",
        tests="`test_named_addresses_are_created_updated_and_deleted_on_the_customer_item`",
    ),
    AccessPattern(
        name="place an order",
        route=(
            "`POST /ecommerce/customers/{username}/orders` `{items: [{itemId, description, price, quantity}]}` → 201 "
            "(`Idempotency-Key`)"
        ),
        who="self or admin",
        source="table (+ GSI1 keys)",
        key_condition=(
            "TransactWriteItems: ConditionCheck Customer `attribute_exists(PK)`, Put Order `attribute_not_exists(PK)`, "
            "Put each OrderItem (≤ 98)"
        ),
        repository_method="`place_order`",
        tests=(
            "`test_an_order_and_its_items_are_placed_in_one_transaction`, "
            "`test_an_order_larger_than_the_transaction_allows_is_400_saying_the_limit_and_writes_nothing`, "
            "`test_bad_orders_are_400_and_an_order_for_a_missing_customer_404_writing_nothing`, "
            "`test_a_retried_order_with_the_same_idempotency_key_is_placed_once`, "
            "`test_a_failed_order_is_forgotten_by_its_idempotency_key_so_the_retry_places_it`, e2e "
            "`test_an_order_of_99_items_is_400_and_writes_nothing`"
        ),
    ),
    AccessPattern(
        name="update an order's status",
        route="`PUT /ecommerce/customers/{username}/orders/{orderId}/status` `{status}`",
        who="admin; the customer may only cancel",
        source="table",
        key_condition=(
            "UpdateItem `PK = CUSTOMER#<u>, SK = #ORDER#<id>`: `SET #status = :to` if it exists and `#status IN "
            "(:from…)`"
        ),
        repository_method="`set_status`",
        tests=(
            "`test_an_order_moves_through_allowed_transitions_only`, "
            "`test_a_customer_may_cancel_but_not_ship_and_bad_statuses_are_400_or_404`, e2e "
            "`test_an_order_is_placed_read_and_shipped`"
        ),
    ),
    AccessPattern(
        name="view customer & most recent orders",
        route="`GET /ecommerce/customers/{username}` → `{customer, orders, nextCursor}`",
        who="self or admin",
        source="table",
        key_condition="`PK = CUSTOMER#<u>`, ScanIndexForward=False, Limit=11",
        repository_method="`customer_with_recent_orders`",
        tests=(
            "`test_the_customer_and_ten_most_recent_orders_are_one_query_then_older_orders_page_by_cursor`, "
            "`test_a_customer_without_orders_and_errors_of_the_overview`, e2e "
            "`test_the_seeds_customers_and_their_orders_are_answered`"
        ),
    ),
    AccessPattern(
        name="older orders, page by page",
        route="`GET /ecommerce/customers/{username}/orders?limit=&cursor=`",
        who="self or admin",
        source="table",
        key_condition=(
            "`PK = CUSTOMER#<u> AND begins_with(SK, \"#ORDER#\")`, ScanIndexForward=False, from the last order seen"
        ),
        repository_method="`orders_of`",
        tests=(
            "`test_the_customer_and_ten_most_recent_orders_are_one_query_then_older_orders_page_by_cursor`, "
            "`test_a_cursor_of_another_customer_is_400`, e2e `test_twelve_orders_newest_first_then_older_by_cursor`"
        ),
    ),
    AccessPattern(
        name="view order & order items",
        route="`GET /ecommerce/customers/{username}/orders/{orderId}` → `{order, items}`",
        who="self or admin",
        source="GSI1",
        key_condition="`GSI1PK = ORDER#<orderId>`",
        repository_method="`order_with_items`",
        tests=(
            "`test_an_order_with_all_its_items_is_one_query_of_gsi1`, "
            "`test_an_order_of_another_customer_or_unknown_is_404`, e2e "
            "`test_the_seeds_customers_and_their_orders_are_answered`"
        ),
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/ecommerce.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "username": "alexdebrie",
    "orderId": "1VrgXBQ0VCshuQUnh1HrDIHQNwY",
}

# The seed's user (seeds/ecommerce.py), whom the explorer runs the patterns as (`make token USER=alexdebrie`):
# the seed's customer Alex DeBrie.
PERSONA = "alexdebrie"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_ecommerce_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='one customer per username',
        enforced_by='Put Customer `attribute_not_exists(PK)` in the sign-up transaction',
        refusal='409 `USERNAME_TAKEN` (the same sign-up again: 200, the stored customer)',
        tests=(
            API + 'test_a_taken_username_is_409_username_taken_and_a_taken_email_409_email_taken',
            API + 'test_a_retried_sign_up_answers_200_with_the_stored_customer',
        ),
    ),
    Rule(
        rule='one customer per email (lower-cased)',
        enforced_by='Put CustomerEmail `attribute_not_exists(PK)` in the sign-up / email-change transaction',
        refusal='409 `EMAIL_TAKEN`',
        tests=(
            API + 'test_a_taken_username_is_409_username_taken_and_a_taken_email_409_email_taken',
            API + 'test_20_concurrent_sign_ups_sharing_an_email_give_exactly_one_customer',
        ),
    ),
    Rule(
        rule='an email change starts from the email read',
        enforced_by='Update Customer `email = :old`',
        refusal='read again (3 times), then 429',
        tests=(
            API + 'test_an_email_change_reads_again_when_the_customer_changed_and_gives_up_after_3_reads',
        ),
    ),
    Rule(
        rule='at most 20 addresses',
        enforced_by='UpdateItem `size(addresses) < :max` for a new name',
        refusal='409 `TOO_MANY_ADDRESSES` (the message says 20)',
        tests=(
            API + 'test_addresses_are_bounded_and_the_refusal_says_the_bound',
        ),
    ),
    Rule(
        rule='at most 98 items per order',
        enforced_by='the service, before any write (100 transaction actions − 2)',
        refusal='400 `ORDER_TOO_LARGE` (the message says 98 and why)',
        tests=(
            API + 'test_an_order_larger_than_the_transaction_allows_is_400_saying_the_limit_and_writes_nothing',
        ),
    ),
    Rule(
        rule='an order needs its customer',
        enforced_by='ConditionCheck Customer `attribute_exists(PK)`',
        refusal='404 `CUSTOMER_NOT_FOUND`',
        tests=(
            API + 'test_bad_orders_are_400_and_an_order_for_a_missing_customer_404_writing_nothing',
        ),
    ),
    Rule(
        rule='an item once per order',
        enforced_by='the request model',
        refusal='400 `VALIDATION_FAILED`',
        tests=(
            API + 'test_bad_orders_are_400_and_an_order_for_a_missing_customer_404_writing_nothing',
        ),
    ),
    Rule(
        rule='allowed status transitions',
        enforced_by='UpdateItem `#status IN (:from…)`',
        refusal='409 `INVALID_STATUS_TRANSITION`; unknown order 404 `ORDER_NOT_FOUND`',
        tests=(
            API + 'test_an_order_moves_through_allowed_transitions_only',
            API + 'test_an_order_of_another_customer_or_unknown_is_404',
        ),
    ),
    Rule(
        rule='a customer only cancels',
        enforced_by='the service',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_a_customer_may_cancel_but_not_ship_and_bad_statuses_are_400_or_404',
        ),
    ),
    Rule(
        rule="one's own records only (unless admin)",
        enforced_by='the service, before any read',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_another_customers_email_addresses_and_orders_are_403',
        ),
    ),
    Rule(
        rule='a placed order is not placed twice by a retry',
        enforced_by='`Idempotency-Key` (shared idempotency table)',
        refusal='the first answer again',
        tests=(
            API + 'test_a_retried_order_with_the_same_idempotency_key_is_placed_once',
            API + 'test_a_failed_order_is_forgotten_by_its_idempotency_key_so_the_retry_places_it',
        ),
    ),
    Rule(
        rule='bad input',
        enforced_by='the request models, nothing written',
        refusal='400 `VALIDATION_FAILED`, `INVALID_CURSOR`',
        tests=(
            API + 'test_only_the_customer_or_an_admin_signs_up_and_bad_input_is_400',
            API + 'test_a_cursor_of_another_customer_is_400',
        ),
    ),
)
