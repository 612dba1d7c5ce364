"""Cart: its entities and access patterns, declared once. docs/cart.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, StreamDemo, columns

ENTITIES: EntityTable = EntityTable(
    columns=("table", "partition key", "sort key", "other attributes", "indexes, TTL, stream"),
    rows=(
        (
            "Carts: header",
            "`cartId` (32 hex)",
            "`sk = \"#cart\"`",
            (
                "`owner`, `status` (`OPEN`|`CHECKED_OUT`), `skus` (the seed's String Set; absent when empty; ≤ 50), "
                "`version` (+1 a change), `createdAt`, `updatedAt`, `expiresAt` (epoch s)"
            ),
            "TTL `expiresAt`; stream `OLD_IMAGE`",
        ),
        (
            "Carts: line",
            "`cartId`",
            "`sk = \"LINE#<sku>\"`",
            "`sku`, `quantity` (1..999), `owner`, `updatedAt`, `lineSku` (= sku, only while the cart is open)",
            "**CartsBySkuIndex** (`lineSku`, `cartId`), projects `owner`: sparse, lines of open carts only",
        ),
        (
            "Prices",
            "`sku`",
            "—",
            "`price` (exact decimal), `currency`, `version` (+1 a change), `updatedAt`",
            "stream `NEW_AND_OLD_IMAGES`",
        ),
        (
            "CartNotifications: notification",
            "`owner`",
            "`sk = \"NOTE#<changedAt>#<sku>\"`",
            "`sku`, `oldPrice`, `oldCurrency`, `newPrice`, `currency`, `priceVersion`, `changedAt`, `cartIds`",
            "—",
        ),
        ("CartNotifications: marker", "`owner`", "`sk = \"SKU#<sku>\"`", "`lastNotifiedVersion`", "—"),
        ("CartStats: day", "`pk = \"DAY#<yyyy-mm-dd>\"`", "—", "`abandonedCarts`", "—"),
        (
            "CartStats: marker",
            "`pk = \"ABANDONED#<cartId>\"`",
            "—",
            "`day`, `expiresAt` (3 days: longer than the stream keeps a record)",
            "TTL `expiresAt`",
        ),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="create a cart",
        route="`POST /cart/carts` → 201 (`Idempotency-Key` optional)",
        who="signed in (owner)",
        source="Carts",
        key_condition="PutItem header `attribute_not_exists(cartId)`",
        repository_method="`create_cart`",
        tests=(
            "`test_a_user_creates_a_cart_fills_it_and_reads_it_back_in_one_query`, "
            "`test_a_retried_create_returns_the_same_cart_and_a_failed_one_is_forgotten`"
        ),
    ),
    AccessPattern(
        name="get my cart",
        route="`GET /cart/carts/{cartId}`",
        who="owner",
        source="Carts",
        key_condition=(
            "Query `cartId = :id` (header + ≤ 50 lines, one page, consistent); 404 if not the caller's or `expiresAt ≤ "
            "now`"
        ),
        repository_method="`get_cart`",
        tests=(
            "`test_a_user_creates_a_cart_fills_it_and_reads_it_back_in_one_query`, "
            "`test_an_expired_cart_not_yet_removed_by_ttl_is_404_everywhere_and_unchanged`, "
            "`test_another_users_cart_is_404_for_every_route_and_unchanged`, e2e "
            "`test_the_example_carts_and_prices_are_served_to_their_owners_only`"
        ),
    ),
    AccessPattern(
        name="set a line's quantity",
        route="`PUT /cart/carts/{cartId}/lines/{sku}` `{quantity}`",
        who="owner",
        source="Carts + Prices",
        key_condition=(
            "TransactWriteItems: Update header (changeable; room for a new SKU; `ADD skus`, TTL and version) + "
            "ConditionCheck price exists + Update line `SET quantity, lineSku`"
        ),
        repository_method="`set_line`",
        tests=(
            "`test_setting_a_line_sets_its_quantity_and_repeating_it_changes_nothing_else`, "
            "`test_only_priced_skus_go_in_a_cart`, "
            "`test_a_cart_holds_at_most_max_lines_and_a_held_sku_can_still_change`, "
            "`test_concurrent_line_changes_to_one_cart_lose_nothing`, e2e "
            "`test_concurrent_line_changes_over_http_lose_nothing`"
        ),
    ),
    AccessPattern(
        name="remove a line",
        route="`DELETE /cart/carts/{cartId}/lines/{sku}` → 204",
        who="owner",
        source="Carts",
        key_condition="TransactWriteItems: Update header (changeable; `DELETE skus`) + Delete line",
        repository_method="`remove_line`",
        tests="`test_remove_a_line_and_clear_a_cart_safe_to_repeat`",
    ),
    AccessPattern(
        name="clear a cart",
        route="`DELETE /cart/carts/{cartId}/lines` → 204",
        who="owner",
        source="Carts",
        key_condition=(
            "Query the cart, then TransactWriteItems: Update header (changeable, `version = :seen`; `REMOVE skus`) + "
            "Delete each line read (read again if the version moved)"
        ),
        repository_method="`clear`",
        tests=(
            "`test_remove_a_line_and_clear_a_cart_safe_to_repeat`, "
            "`test_clear_reads_again_when_a_line_arrives_between_its_read_and_its_write`"
        ),
    ),
    AccessPattern(
        name="check out",
        route="`POST /cart/carts/{cartId}/checkout`",
        who="owner",
        source="Carts",
        key_condition=(
            "Query the cart, then TransactWriteItems: Update header (changeable, not empty, `version = :seen`; `status "
            "= CHECKED_OUT`) + Update each line `REMOVE lineSku` (leaves the index)"
        ),
        repository_method="`check_out`",
        tests=(
            "`test_check_out_leaves_the_sku_index_refuses_changes_and_is_safe_to_repeat`, "
            "`test_the_sku_index_holds_open_carts_lines_only`"
        ),
    ),
    AccessPattern(
        name="set a price",
        route="`PUT /cart/prices/{sku}` `{price, currency}`",
        who="admin",
        source="Prices",
        key_condition="UpdateItem `ADD version 1` if new or different (the same price writes and streams nothing)",
        repository_method="`put_price`",
        tests=(
            "`test_an_admin_sets_prices_anyone_signed_in_reads_them`, "
            "`test_setting_the_same_price_again_writes_nothing`, `test_a_bad_price_is_400_writing_nothing`"
        ),
    ),
    AccessPattern(
        name="get a price",
        route="`GET /cart/prices/{sku}`",
        who="signed in",
        source="Prices",
        key_condition="GetItem `sku = :sku`",
        repository_method="`get_price`",
        tests="`test_an_admin_sets_prices_anyone_signed_in_reads_them`",
    ),
    AccessPattern(
        name="notify a price change",
        route="Prices stream → `price_notifier.py`",
        who="Lambda",
        source="CartsBySkuIndex, Carts, CartNotifications",
        key_condition=(
            "Query index `lineSku = :sku` (every page); BatchGetItem of those headers (open, unexpired); "
            "BatchGetItem of their owners' markers (skip those at `:v` or newer); per other owner "
            "TransactWriteItems: Update marker `lastNotifiedVersion < :v` + Put notification"
        ),
        repository_method="`carts_holding`, `live_carts`, `notified_owners`, `notify`",
        tests=(
            "`test_a_price_change_notifies_each_owner_of_an_open_live_cart_holding_the_sku_once`, "
            "`test_redelivered_and_reordered_price_records_never_notify_twice_nor_an_older_price_after_a_newer`, "
            "`test_the_notifier_reads_only_the_carts_holding_the_sku`, "
            "`test_a_retried_price_change_transacts_only_for_the_owners_not_yet_notified`, "
            "`test_an_unchanged_amount_a_new_sku_or_a_removed_price_notifies_nobody`, e2e "
            "`test_a_price_change_reaches_each_owner_holding_the_sku_once_through_the_stream`"
        ),
    ),
    AccessPattern(
        name="my notifications, newest first",
        route="`GET /cart/notifications?limit=&cursor=` → `{sku, oldPrice, oldCurrency, newPrice, currency, …}`",
        who="signed in (own)",
        source="CartNotifications",
        key_condition="Query `owner = :me AND begins_with(sk, \"NOTE#\")`, backwards, signed cursor",
        repository_method="`notifications_of`",
        tests=(
            "`test_in_order_price_changes_each_notify_and_list_newest_first_in_pages`, "
            "`test_a_currency_change_notifies_with_the_old_currency_beside_the_new`"
        ),
    ),
    AccessPattern(
        name="abandoned carts: delete lines, count",
        route="Carts stream → `abandoned_carts.py`",
        who="Lambda",
        source="Carts, CartStats",
        key_condition=(
            "header REMOVE: Query `cartId = :id AND begins_with(sk, \"LINE#\")` + BatchWriteItem deletes; if TTL's "
            "(`userIdentity` = DynamoDB service) and OPEN: TransactWriteItems Put marker `attribute_not_exists` + "
            "Update day `ADD abandonedCarts 1`"
        ),
        repository_method="`delete_lines`, `count_abandoned`",
        tests=(
            "`test_a_ttl_removal_of_an_open_cart_is_counted_once_on_its_expiry_day_and_its_lines_deleted`, "
            "`test_a_delete_without_the_ttl_identity_is_not_counted_but_its_lines_go`, "
            "`test_a_checked_out_cart_aging_out_is_not_abandoned`, e2e "
            "`test_an_idle_cart_expires_is_removed_by_ttl_and_its_lines_follow`"
        ),
    ),
    AccessPattern(
        name="abandoned carts of a day",
        route="`GET /cart/abandoned?day=YYYY-MM-DD`",
        who="admin",
        source="CartStats",
        key_condition="GetItem `pk = \"DAY#<day>\"` (0 when none)",
        repository_method="`abandoned_on`",
        tests="`test_abandoned_carts_of_a_day_are_read_by_admins_only`",
    ),
    AccessPattern(
        name="park a record it can never apply",
        route="both streams",
        who="Lambda",
        source="ParkedRecords",
        key_condition="PutItem (`attribute_not_exists(position)`)",
        repository_method="`ParkedRecords.park` (functions/shared/parked.py)",
        tests=(
            "`test_a_malformed_price_record_is_parked_and_the_batch_goes_on`, "
            "`test_a_header_removal_without_its_old_image_deletes_its_lines_is_parked_and_the_batch_goes_on`"
        ),
    ),
    AccessPattern(
        name="replay parked records",
        route="`{\"replay\": {\"limit\", \"after\"}}`",
        who="operator",
        source="ParkedRecords + the above",
        key_condition="Query pending; apply; UpdateItem `status = replayed` if pending",
        repository_method="`replay_record`, `ParkedRecords.mark`",
        tests="`test_a_parked_price_change_is_replayed_once`, `test_a_parked_ttl_removal_is_replayed_once`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/cart.py), for the
# explorer's runs (GET /explorer);
# `@today`, `@today+1T09`: dates relative to the day the page is used, as the seeds are.
EXAMPLES: dict[str, str] = {
    "cartId": "c0ffee0000000000000000000000a11c",
    "sku": "SKU-COFFEE",
    "day": "@today",
}

# The explorer shows the price notifier at work: a new price, then the notification of an owner whose open cart holds
# the SKU (alice's seeded cart holds SKU-COFFEE).
STREAMS: tuple[StreamDemo, ...] = (
    StreamDemo(
        name="price-change notifications",
        write="set a price",
        read="my notifications, newest first",
        what=(
            "An admin sets a price (Prices, streamed with old and new images); the price notifier finds the open carts "
            "holding the SKU through `CartsBySkuIndex` and writes each owner a notification. Sign in as alice with "
            "the admin group (`make token USER=alice GROUPS=admin`) to see hers; the same price again streams nothing, "
            "so change it between runs. Abandoned carts are the other consumer: a cart idle past its TTL is removed by "
            "DynamoDB and counted on its expiry day (`GET /cart/abandoned`), days after its last change, so it is not "
            "shown live here (tests/e2e/test_cart.py ages a cart to see it)."
        ),
        params={"sku": "SKU-COFFEE"},
        body={"price": 13.25, "currency": "USD"},
    ),
)

# The seed's user (seeds/cart.py), whom the explorer runs the patterns as (`make token USER=alice`):
# alice owns the seeded cart c0ffee…a11c.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_cart_api.py::'
CONSUMERS = 'tests/functional/test_cart_consumers.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a cart is seen and changed by its owner only',
        enforced_by='header condition `owner = :me`; the read compares',
        refusal='404 `CART_NOT_FOUND` (never a hint that it exists)',
        tests=(
            API + 'test_another_users_cart_is_404_for_every_route_and_unchanged',
        ),
    ),
    Rule(
        rule='an expired cart is never served nor changed',
        enforced_by='header condition `expiresAt > :now`; the read compares',
        refusal='404 `CART_NOT_FOUND`',
        tests=(
            API + 'test_an_expired_cart_not_yet_removed_by_ttl_is_404_everywhere_and_unchanged',
        ),
    ),
    Rule(
        rule='a checked-out cart does not change',
        enforced_by='header condition `status = OPEN`',
        refusal='409 `CART_CHECKED_OUT` (a repeated checkout answers the cart: 200)',
        tests=(
            API + 'test_check_out_leaves_the_sku_index_refuses_changes_and_is_safe_to_repeat',
        ),
    ),
    Rule(
        rule='at most 50 lines',
        enforced_by='header condition `size(skus) < 50 OR contains(skus, :sku)`',
        refusal='409 `CART_FULL`',
        tests=(
            API + 'test_a_cart_holds_at_most_max_lines_and_a_held_sku_can_still_change',
        ),
    ),
    Rule(
        rule='only priced SKUs go in a cart',
        enforced_by='ConditionCheck on Prices in the same transaction',
        refusal='404 `SKU_NOT_FOUND`',
        tests=(
            API + 'test_only_priced_skus_go_in_a_cart',
        ),
    ),
    Rule(
        rule='checking out needs a line',
        enforced_by='header condition `attribute_exists(skus)`',
        refusal='409 `CART_EMPTY`',
        tests=(
            API + 'test_check_out_leaves_the_sku_index_refuses_changes_and_is_safe_to_repeat',
        ),
    ),
    Rule(
        rule='clear/checkout act on every line there is',
        enforced_by='header condition `version = :seen`, read again (3 times, then 429 `THROTTLED`)',
        refusal='—',
        tests=(
            API + 'test_clear_reads_again_when_a_line_arrives_between_its_read_and_its_write',
        ),
    ),
    Rule(
        rule='only admins set prices or read abandoned counts',
        enforced_by='`admin_only` before validation',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_an_admin_sets_prices_anyone_signed_in_reads_them',
            API + 'test_abandoned_carts_of_a_day_are_read_by_admins_only',
        ),
    ),
    Rule(
        rule='bad input writes nothing',
        enforced_by='pydantic models, path patterns',
        refusal='400 `VALIDATION_FAILED`, `INVALID_CURSOR`',
        tests=(
            API + 'test_bad_input_is_400_writing_nothing',
            API + 'test_a_malformed_cart_id_is_400',
            API + 'test_a_bad_price_is_400_writing_nothing',
            CONSUMERS + 'test_in_order_price_changes_each_notify_and_list_newest_first_in_pages',
        ),
    ),
    Rule(
        rule='a create is not duplicated by a retry',
        enforced_by='`Idempotency-Key` (functions/shared/idempotency.py)',
        refusal='the first answer again (the create has no body: a key always names the same request)',
        tests=(
            API + 'test_a_retried_create_returns_the_same_cart_and_a_failed_one_is_forgotten',
        ),
    ),
    Rule(
        rule='each owner hears of a price version once, never an older one after a newer',
        enforced_by="marker `lastNotifiedVersion < :v` in the notification's transaction",
        refusal='(skipped)',
        tests=(
            CONSUMERS + 'test_redelivered_and_reordered_price_records_never_notify_twice_nor_an_older_price_after_a_newer',  # noqa: E501 (a test's name, whole for grep)
        ),
    ),
    Rule(
        rule='an abandoned cart is counted once',
        enforced_by="marker `attribute_not_exists` in the count's transaction",
        refusal='(skipped)',
        tests=(
            CONSUMERS + 'test_a_ttl_removal_of_an_open_cart_is_counted_once_on_its_expiry_day_and_its_lines_deleted',
        ),
    ),
)
