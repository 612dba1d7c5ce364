"""Patterns: its entities and access patterns, declared once. docs/patterns.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("entity", "PK", "SK", "GSI1PK / GSI1SK", "GSI2PK / GSI2SK (sparse)", "other attributes"),
    rows=(
        (
            "Repo",
            "`REPO#<owner>#<repo>`",
            "`REPO#<owner>#<repo>`",
            "—",
            "—",
            "`owner`, `repo`, `description`, `StarCount`, `IssueCount`",
        ),
        (
            "Issue",
            "`REPO#<owner>#<repo>`",
            "`ISSUE#<0000007>` (7 digits)",
            "`REPO#<owner>#<repo>` / `ISSUE#<updatedAt>#<0000007>`",
            "open only: `REPO#<owner>#<repo>#OPEN` / `ISSUE#<0000007>`",
            "`number`, `title`, `status`, `author`, `createdAt`, `updatedAt`",
        ),
        ("Star", "`REPO#<owner>#<repo>`", "`STAR#<username>`", "—", "—", "`username`, `starredAt`"),
        ("Org", "`ORG#<org>`", "`ORG#<org>`", "—", "—", "`org`, `name`"),
        (
            "User",
            "`ORG#<org>`",
            "`#USER#<username>`",
            "—",
            "admins only: `ORG#<org>#ADMINS` / `#USER#<username>`",
            "`username`, `name`, `role`",
        ),
        (
            "Store",
            "`STORE#<country>`",
            "`<state>#<city>#<zip>#<storeId>`",
            "—",
            "—",
            "`country`, `state`, `city`, `zip`, `address`",
        ),
        ("Featured (singleton)", "`FEATURED`", "`FEATURED`", "—", "—", "`repos` (`owner/repo`, ≤ 10), `updatedAt`"),
        (
            "Order",
            "`CUSTOMER#<customer>`",
            "`ORDER#<orderId>`",
            "`CUSTOMER#<customer>` / `ORDER#<STATUS>#<orderedAt>#<orderId>`",
            "—",
            "`status`, `orderedAt`, `amount`",
        ),
    ),
)

COLUMNS: Columns = columns(key_condition="key condition / write", book_pattern="Book pattern (seed section)")

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="put a repo",
        book_pattern="—",
        route="`PUT /patterns/repos/{owner}/{repo}` `{description}`",
        who="admin",
        source="table",
        key_condition="UpdateItem: description; `StarCount`, `IssueCount` `if_not_exists(…, 0)` (never reset)",
        repository_method="`put_repo`",
        tests="`test_an_admin_puts_a_repo_with_zero_counts_and_a_second_put_keeps_them`",
    ),
    AccessPattern(
        name="get a repo with its counts",
        book_pattern="—",
        route="`GET /patterns/repos/{owner}/{repo}`",
        who="signed in",
        source="table",
        key_condition="GetItem `REPO#o#r`, `REPO#o#r`",
        repository_method="`get_repo`",
        tests="`test_an_admin_puts_a_repo_with_zero_counts_and_a_second_put_keeps_them`",
    ),
    AccessPattern(
        name="star a repo",
        book_pattern="Reference counts (Other)",
        route="`PUT /patterns/repos/{owner}/{repo}/stars/{username}` → 201, repeat 200",
        who="self",
        source="table",
        key_condition=(
            "TransactWriteItems: Put `STAR#u` if `attribute_not_exists(PK)`; Update repo `ADD StarCount 1` if "
            "`attribute_exists(PK)`"
        ),
        repository_method="`star`",
        tests=(
            "`test_star_and_unstar_change_the_star_and_the_count_in_one_transaction_and_repeats_change_nothing`, "
            "`test_the_star_count_equals_the_stars_under_20_concurrent_stars_and_unstars`, e2e "
            "`test_20_parallel_stars_and_unstars_keep_the_count_equal_to_the_stars`"
        ),
    ),
    AccessPattern(
        name="unstar a repo",
        book_pattern="Reference counts (Other)",
        route="`DELETE /patterns/repos/{owner}/{repo}/stars/{username}` → 204",
        who="self",
        source="table",
        key_condition="TransactWriteItems: Delete `STAR#u` if `attribute_exists(PK)`; Update repo `ADD StarCount -1`",
        repository_method="`unstar`",
        tests=(
            "`test_star_and_unstar_change_the_star_and_the_count_in_one_transaction_and_repeats_change_nothing`, "
            "`test_stars_are_the_callers_own_and_need_a_repo`"
        ),
    ),
    AccessPattern(
        name="a repo and its stars",
        book_pattern="Assembling different collections of items (Filtering)",
        route="`GET /patterns/repos/{owner}/{repo}/stars`",
        who="signed in",
        source="table",
        key_condition=(
            "`PK = REPO#o#r AND SK >= REPO#o#r`, ascending: the repo, then `STAR#…`; the first page reads `limit` + 1 "
            "(the repo and `limit` stars), one Query a page"
        ),
        repository_method="`repo_with_stars`",
        tests=(
            "`test_a_repo_with_its_stars_is_one_query_from_the_repo_item_up`, "
            "`test_limit_counts_stars_only_the_repo_comes_with_the_first_page`, e2e "
            "`test_the_books_repo_with_its_issues_and_with_its_stars`"
        ),
    ),
    AccessPattern(
        name="create an issue",
        book_pattern="Handling sequential identifiers (Other); Zero-padding with numbers (Sorting)",
        route="`POST /patterns/repos/{owner}/{repo}/issues` `{title}` → 201 (`Idempotency-Key`)",
        who="signed in",
        source="table",
        key_condition=(
            "UpdateItem repo `ADD IssueCount 1` if `attribute_exists(PK)`, `ReturnValues=UPDATED_NEW`; PutItem "
            "`ISSUE#<7 digits>` if `attribute_not_exists(PK)`"
        ),
        repository_method="`next_issue_number`, `put_new_issue`",
        tests=(
            "`test_issues_are_numbered_per_repo_and_zero_padded_so_10_sorts_after_9`, "
            "`test_20_concurrent_creates_never_share_a_number`, "
            "`test_a_put_that_fails_after_the_counter_moved_leaves_a_gap_never_a_duplicate`, "
            "`test_issue_creation_needs_a_repo_and_a_title_and_a_retry_with_its_key_creates_once`, "
            "`test_a_keyed_create_that_failed_is_forgotten_so_its_retry_creates`, e2e "
            "`test_20_parallel_issue_creates_get_20_distinct_numbers`"
        ),
    ),
    AccessPattern(
        name="a repo and its issues, newest first",
        book_pattern=(
            "Assembling different collections of items (Filtering); Query with composite primary key (One-to-Many)"
        ),
        route="`GET /patterns/repos/{owner}/{repo}/issues`",
        who="signed in",
        source="table",
        key_condition=(
            "`PK = REPO#o#r AND SK <= REPO#o#r`, descending: the repo, then `ISSUE#…` from the highest number; the "
            "first page reads `limit` + 1 (the repo and `limit` issues), one Query a page"
        ),
        repository_method="`repo_with_issues`",
        tests=(
            "`test_issues_are_numbered_per_repo_and_zero_padded_so_10_sorts_after_9`, "
            "`test_limit_counts_issues_only_the_repo_comes_with_the_first_page`, e2e "
            "`test_the_books_repo_with_its_issues_and_with_its_stars`"
        ),
    ),
    AccessPattern(
        name="get an issue",
        book_pattern="Query with composite primary key (One-to-Many)",
        route="`GET /patterns/repos/{owner}/{repo}/issues/{number}`",
        who="signed in",
        source="table",
        key_condition="GetItem `REPO#o#r`, `ISSUE#<7 digits>`",
        repository_method="`get_issue`",
        tests="`test_issues_are_numbered_per_repo_and_zero_padded_so_10_sorts_after_9`",
    ),
    AccessPattern(
        name="change an issue",
        book_pattern="Sorting on changing attributes (Sorting)",
        route="`PATCH /patterns/repos/{owner}/{repo}/issues/{number}` `{title?, status?}`",
        who="author or admin",
        source="table",
        key_condition=(
            "UpdateItem: `updatedAt` and `GSI1SK` together; open: SET `GSI2PK/SK`, closed: REMOVE them; if "
            "`attribute_exists(PK)` (and `author = :caller` unless admin)"
        ),
        repository_method="`change_issue`",
        tests=(
            "`test_only_the_author_or_an_admin_changes_an_issue_and_bad_changes_write_nothing`, e2e "
            "`test_star_unstar_and_an_issues_life_over_http`"
        ),
    ),
    AccessPattern(
        name="issues by last update",
        book_pattern="Sorting on changing attributes (Sorting)",
        route="`GET /patterns/repos/{owner}/{repo}/recently-updated-issues`",
        who="signed in",
        source="GSI1",
        key_condition=(
            "`GSI1PK = REPO#o#r AND begins_with(GSI1SK, \"ISSUE#\")`, descending; an empty first page: GetItem of the "
            "repo (404 `REPO_NOT_FOUND`)"
        ),
        repository_method="`issues_by_update`",
        tests=(
            "`test_recently_updated_issues_follow_the_changing_index_key_while_the_table_key_stays`, "
            "`test_an_index_list_of_an_unknown_repo_is_404_and_of_a_repo_without_issues_empty`, e2e "
            "`test_the_books_open_and_recently_updated_issues`"
        ),
    ),
    AccessPattern(
        name="open issues",
        book_pattern="Using sparse indexes to provide a global filter on an item type (Filtering)",
        route="`GET /patterns/repos/{owner}/{repo}/open-issues`",
        who="signed in",
        source="GSI2 (sparse)",
        key_condition="`GSI2PK = REPO#o#r#OPEN`; an empty first page: GetItem of the repo (404 `REPO_NOT_FOUND`)",
        repository_method="`open_issues`",
        tests=(
            "`test_open_issues_come_from_a_sparse_index_that_closing_leaves_and_reopening_enters`, "
            "`test_an_index_list_of_an_unknown_repo_is_404_and_of_a_repo_without_issues_empty`, e2e "
            "`test_the_books_open_and_recently_updated_issues`"
        ),
    ),
    AccessPattern(
        name="put an org",
        book_pattern="—",
        route="`PUT /patterns/orgs/{org}` `{name}`",
        who="admin",
        source="table",
        key_condition="PutItem `ORG#o`, `ORG#o`",
        repository_method="`put_org`",
        tests="`test_an_org_comes_with_its_first_page_of_users_in_either_order`",
    ),
    AccessPattern(
        name="put an org's user",
        book_pattern="Using sparse indexes (Filtering)",
        route="`PUT /patterns/orgs/{org}/users/{username}` `{name, role}`",
        who="admin",
        source="table",
        key_condition=(
            "TransactWriteItems: ConditionCheck org exists; Put `USER#u` (with `GSI2PK/SK` only when `role = admin`)"
        ),
        repository_method="`put_org_user`",
        tests=(
            "`test_users_need_an_existing_org_and_only_admins_write_orgs`, "
            "`test_org_admins_come_from_the_sparse_index_and_a_demoted_admin_leaves_it`"
        ),
    ),
    AccessPattern(
        name="an org with its users",
        book_pattern="Sorting with multiple entity types (Sorting)",
        route="`GET /patterns/orgs/{org}?order=asc|desc`",
        who="signed in",
        source="table",
        key_condition=(
            "the org on the first page either way. desc (the default): the seed's Query `PK = ORG#o AND SK <= "
            "ORG#o`, descending: the org, then users Z→A, the first page reads `limit` + 1, one Query a page; asc "
            "(users A→Z, read up to the org item): the first page is GetItem of the org + Query `PK = ORG#o AND SK < "
            "ORG#o`, later pages the Query"
        ),
        repository_method="`org_with_users`",
        tests=(
            "`test_an_org_comes_with_its_first_page_of_users_in_either_order`, "
            "`test_an_org_without_users_is_the_org_and_an_empty_list_in_either_order`, e2e "
            "`test_the_org_with_its_users_both_ways_and_its_admins`"
        ),
    ),
    AccessPattern(
        name="an org's admins",
        book_pattern="Using sparse indexes to provide a global filter on an item type (Filtering)",
        route="`GET /patterns/orgs/{org}/admins`",
        who="signed in",
        source="GSI2 (sparse)",
        key_condition="`GSI2PK = ORG#o#ADMINS`; an empty first page: GetItem of the org (404 `ORG_NOT_FOUND`)",
        repository_method="`org_admins`",
        tests=(
            "`test_org_admins_come_from_the_sparse_index_and_a_demoted_admin_leaves_it`, "
            "`test_the_admins_of_an_unknown_org_are_404_and_of_an_org_without_admins_empty`, e2e "
            "`test_the_org_with_its_users_both_ways_and_its_admins`"
        ),
    ),
    AccessPattern(
        name="put a store",
        book_pattern="Composite sort keys with hierarchical data (One-to-Many)",
        route="`PUT /patterns/stores/{country}/{state}/{city}/{zipCode}/{storeId}` `{address}`",
        who="admin",
        source="table",
        key_condition="PutItem `STORE#c`, `<state>#<city>#<zip>#<storeId>`",
        repository_method="`put_store`",
        tests="`test_stores_by_country_state_city_and_zip_are_each_one_begins_with_query`",
    ),
    AccessPattern(
        name="stores of a country / state / city / zip",
        book_pattern="Composite sort keys with hierarchical data (One-to-Many)",
        route=(
            "`GET /patterns/stores/{country}`, `GET /patterns/stores/{country}/{state}`, `GET "
            "/patterns/stores/{country}/{state}/{city}`, `GET /patterns/stores/{country}/{state}/{city}/{zipCode}`"
        ),
        who="signed in",
        source="table",
        key_condition="`PK = STORE#c` [`AND begins_with(SK, \"<state>#[<city>#[<zip>#]]\")`]",
        repository_method="`stores_in`",
        tests=(
            "`test_stores_by_country_state_city_and_zip_are_each_one_begins_with_query`, e2e "
            "`test_stores_at_each_level_of_the_hierarchy`"
        ),
    ),
    AccessPattern(
        name="put an order",
        book_pattern="Composite sort key (Filtering)",
        route="`PUT /patterns/customers/{customer}/orders/{orderId}` `{status, orderedAt, amount}`",
        who="admin",
        source="table",
        key_condition="PutItem; `GSI1SK = ORDER#<STATUS>#<orderedAt>#<orderId>` follows the status",
        repository_method="`put_order`",
        tests="`test_a_customers_orders_by_status_and_day_range_are_one_query_on_gsi1`",
    ),
    AccessPattern(
        name="a customer's orders by status and dates",
        book_pattern="Composite sort key (Filtering): the seed's `OrderStatusDateGSI`",
        route="`GET /patterns/customers/{customer}/orders?status=&from=&to=`",
        who="the customer or admin",
        source="GSI1",
        key_condition=(
            "`GSI1PK = CUSTOMER#c AND GSI1SK BETWEEN ORDER#S#<from> AND ORDER#S#<to>~` (or `begins_with(GSI1SK, "
            "ORDER#S#)`)"
        ),
        repository_method="`orders_by_status`",
        tests=(
            "`test_a_customers_orders_by_status_and_day_range_are_one_query_on_gsi1`, "
            "`test_orders_are_the_customers_own_and_bad_ranges_are_400`, e2e "
            "`test_the_seeds_cancelled_orders_between_july_and_october`"
        ),
    ),
    AccessPattern(
        name="featured repos",
        book_pattern="Singleton items (Other)",
        route="`GET /patterns/featured`",
        who="signed in",
        source="table",
        key_condition="GetItem `FEATURED`, `FEATURED` (absent: an empty list)",
        repository_method="`get_featured`",
        tests=(
            "`test_the_featured_repos_are_one_singleton_item_read_by_its_fixed_key`, e2e `test_the_featured_singleton`"
        ),
    ),
    AccessPattern(
        name="feature repos",
        book_pattern="Singleton items (Other)",
        route="`PUT /patterns/featured` `{repos: [\"owner/repo\", …≤10]}`",
        who="admin",
        source="table",
        key_condition="PutItem on the fixed key (replaces)",
        repository_method="`put_featured`",
        tests="`test_the_featured_repos_are_one_singleton_item_read_by_its_fixed_key`",
    ),
    AccessPattern(
        name="next page of any list",
        book_pattern="Paginated responses (Other)",
        route="`GET /patterns/repos/{owner}/{repo}/issues?cursor=` (every list)",
        who="signed in",
        source="as the list",
        key_condition="`ExclusiveStartKey` = the last key seen, signed into `nextCursor` and bound to the list",
        repository_method="`repo_with_issues`",
        tests="`test_a_cursor_is_the_last_seen_key_signed_and_bound_to_its_list`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/patterns.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "owner": "alexdebrie",
    "repo": "dynamodb-book",
    "number": "10",
    "org": "McDonalds",
    "country": "US",
    "state": "WA",
    "city": "Seattle",
    "zipCode": "98101",
    "customer": "2b5a41c0",
    "username": "alexdebrie",
    "storeId": "store-1",
    "orderId": "1a2b",
    "status": "CANCELLED",
}

# The seed's user (seeds/patterns.py), whom the explorer runs the patterns as (`make token USER=alexdebrie`):
# the owner of alexdebrie/dynamodb-book (a customer's orders also need the admin group).
PERSONA = "alexdebrie"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_patterns_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a star changes `StarCount` exactly once',
        enforced_by="one transaction: the star's condition and the count's update",
        refusal='repeat: 200 / 204, nothing written',
        tests=(
            API + 'test_star_and_unstar_change_the_star_and_the_count_in_one_transaction_and_repeats_change_nothing',
            API + 'test_the_star_count_equals_the_stars_under_20_concurrent_stars_and_unstars',
        ),
    ),
    Rule(
        rule='star/unstar needs the repo',
        enforced_by="`attribute_exists(PK)` on the repo's Update, in the transaction",
        refusal='404 `REPO_NOT_FOUND`',
        tests=(
            API + 'test_stars_are_the_callers_own_and_need_a_repo',
        ),
    ),
    Rule(
        rule='users star as themselves',
        enforced_by="the path's `{username}` must be the caller",
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_stars_are_the_callers_own_and_need_a_repo',
        ),
    ),
    Rule(
        rule='issue numbers are unique per repo',
        enforced_by='`ADD IssueCount` (atomic) + `attribute_not_exists(PK)` on the Put',
        refusal='409 `ISSUE_NUMBER_TAKEN` (number skipped)',
        tests=(
            API + 'test_a_put_that_fails_after_the_counter_moved_leaves_a_gap_never_a_duplicate',
        ),
    ),
    Rule(
        rule='an issue is changed by its author or an admin',
        enforced_by="`author = :caller` in the UpdateItem's condition",
        refusal='403 `FORBIDDEN`; missing: 404 `ISSUE_NOT_FOUND`',
        tests=(
            API + 'test_only_the_author_or_an_admin_changes_an_issue_and_bad_changes_write_nothing',
        ),
    ),
    Rule(
        rule='an org user needs the org',
        enforced_by='ConditionCheck in the same transaction',
        refusal='404 `ORG_NOT_FOUND`',
        tests=(
            API + 'test_users_need_an_existing_org_and_only_admins_write_orgs',
        ),
    ),
    Rule(
        rule='repos, orgs, users, stores, orders are written by admins',
        enforced_by='`admin` group',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_users_need_an_existing_org_and_only_admins_write_orgs',
            API + 'test_an_admin_puts_a_repo_with_zero_counts_and_a_second_put_keeps_them',
        ),
    ),
    Rule(
        rule="a customer's orders are read by that customer or an admin",
        enforced_by='caller = `{customer}` or admin',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_orders_are_the_customers_own_and_bad_ranges_are_400',
        ),
    ),
    Rule(
        rule='input',
        enforced_by=(
            'pydantic models, path/query patterns (`status` enum, real `from`/`to` days, `from` ≤ `to`: a reversed '
            'range names `query.from` and `query.to`)'
        ),
        refusal='400 `VALIDATION_FAILED`, nothing written',
        tests=(
            API + 'test_issue_creation_needs_a_repo_and_a_title_and_a_retry_with_its_key_creates_once',
            API + 'test_orders_are_the_customers_own_and_bad_ranges_are_400',
        ),
    ),
    Rule(
        rule='a cursor belongs to its list',
        enforced_by='signed, bound to the route and its parameters',
        refusal='400 `INVALID_CURSOR`',
        tests=(
            API + 'test_a_cursor_is_the_last_seen_key_signed_and_bound_to_its_list',
        ),
    ),
)
