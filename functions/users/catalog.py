"""Users: its entities and access patterns, declared once. docs/users.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("entity", "table `Users`: `UserId` (PK)", "`UsersEmailIndex`: `Email` (PK)", "other attributes"),
    rows=(
        (
            "User",
            "the user id (`bob`)",
            "the normalized email (`bob@gmail.com`)",
            "`JoinDate` (`YYYY-MM-DD`; projected into the index)",
        ),
        (
            "Email marker",
            "`EMAIL#<normalized email>`",
            "— (no `Email` attribute: never in the index)",
            "`OwnerId` (the user holding the email)",
        ),
    ),
)

COLUMNS: Columns = columns(key_condition="key condition / write")

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="sign up",
        route="`POST /users` `{userId, email, joinDate?}` → 201 (a retry: 200)",
        who="the user themself or admin",
        source="Users",
        key_condition=(
            "TransactWriteItems: Put user `attribute_not_exists(UserId)`; Put marker `EMAIL#<email>` "
            "`attribute_not_exists(UserId)`"
        ),
        repository_method="`sign_up`",
        tests=(
            "`test_sign_up_writes_the_user_and_its_email_marker_in_one_transaction`, "
            "`test_join_date_defaults_to_today_utc`, `test_a_taken_user_id_is_409_user_exists_and_writes_nothing`, "
            "`test_a_taken_email_is_409_email_taken_and_writes_nothing`, "
            "`test_a_retried_sign_up_is_200_with_the_same_user_and_writes_nothing`, "
            "`test_concurrent_sign_ups_with_one_email_give_exactly_one_201`, e2e "
            "`test_20_parallel_sign_ups_with_one_email_give_one_201_and_19_email_taken`"
        ),
    ),
    AccessPattern(
        name="get a user by id",
        route="`GET /users/{userId}`",
        who="the user or admin (others: 403 before any read)",
        source="Users",
        key_condition="GetItem `UserId = :id`",
        repository_method="`get_user`",
        tests=(
            "`test_get_by_id_is_one_getitem_for_the_user_or_an_admin`, "
            "`test_another_user_cannot_read_a_user_and_learns_nothing_of_its_existence`, e2e "
            "`test_the_seeds_users_are_answered_by_id_and_by_email`"
        ),
    ),
    AccessPattern(
        name="get a user by email",
        route="`GET /users/by-email/{email}`",
        who="admin",
        source="UsersEmailIndex",
        key_condition="Query `Email = :normalized email` (eventually consistent)",
        repository_method="`user_by_email`",
        tests=(
            "`test_get_by_email_is_one_query_on_the_email_index_for_admins`, "
            "`test_emails_are_trimmed_and_lower_cased_for_uniqueness_and_lookup`, e2e "
            "`test_the_seeds_users_are_answered_by_id_and_by_email`"
        ),
    ),
    AccessPattern(
        name="change a user's email",
        route="`PUT /users/{userId}/email` `{email}`",
        who="the user themself or admin",
        source="Users",
        key_condition=(
            "GetItem (consistent) the user; same email: nothing more. Else TransactWriteItems: Update user `SET Email "
            "= :new` if `Email = :old` (as read); Delete old marker if `OwnerId = :user`; Put new marker "
            "`attribute_not_exists(UserId)`"
        ),
        repository_method="`get_user`, `change_email`",
        tests=(
            "`test_change_of_email_moves_the_marker_in_one_transaction_and_frees_the_old_email`, "
            "`test_changing_to_the_same_email_is_a_no_op_200`, "
            "`test_changing_to_another_users_email_is_409_and_changes_nothing`, "
            "`test_a_change_conditioned_on_a_stale_read_writes_nothing_and_the_service_reads_again`, e2e "
            "`test_a_changed_email_moves_and_the_old_one_is_free`"
        ),
    ),
    AccessPattern(
        name="delete a user",
        route="`DELETE /users/{userId}` → 204",
        who="the user themself or admin",
        source="Users",
        key_condition=(
            "GetItem (consistent) the user; TransactWriteItems: Delete user if `Email = :email` (as read); Delete its "
            "marker if `OwnerId = :user`"
        ),
        repository_method="`get_user`, `delete_user`",
        tests="`test_delete_removes_the_user_and_frees_its_email`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/users.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "userId": "bob",
    "email": "bob@gmail.com",
}

# The seed's user (seeds/users.py), whom the explorer runs the patterns as (`make token USER=bob`):
# the seed's bob, who reads his own user.
PERSONA = "bob"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_users_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='an email belongs to at most one user',
        enforced_by="the marker's Put `attribute_not_exists(UserId)` in the sign-up / change transaction",
        refusal='409 `EMAIL_TAKEN`',
        tests=(
            API + 'test_a_taken_email_is_409_email_taken_and_writes_nothing',
            API + 'test_concurrent_sign_ups_with_one_email_give_exactly_one_201',
        ),
    ),
    Rule(
        rule='a user id is signed up once',
        enforced_by="the user's Put `attribute_not_exists(UserId)` in the same transaction",
        refusal='409 `USER_EXISTS` (200 when it is a retry of that sign-up)',
        tests=(
            API + 'test_a_taken_user_id_is_409_user_exists_and_writes_nothing',
            API + 'test_a_retried_sign_up_is_200_with_the_same_user_and_writes_nothing',
        ),
    ),
    Rule(
        rule='a change or delete applies to the user as read',
        enforced_by=(
            "`Email = :old` on the user's Update / Delete (optimistic); on failure the service reads again (3 times, "
            'then 429)'
        ),
        refusal='404 `USER_NOT_FOUND` if it is gone',
        tests=(
            API + 'test_change_of_email_of_an_unknown_user_is_404_and_bad_input_400',
        ),
    ),
    Rule(
        rule='only the owner frees an email',
        enforced_by="the old marker's Delete `OwnerId = :user`",
        refusal='409 `EMAIL_MARKER_MISMATCH` (only a write around the API can cause it)',
        tests=(
            API + 'test_an_email_marker_that_is_not_the_users_is_409_and_changes_nothing',
        ),
    ),
    Rule(
        rule='a user acts for themself',
        enforced_by="`userId` = the caller's username, unless admin",
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_only_the_user_or_an_admin_signs_up_changes_email_or_deletes',
        ),
    ),
    Rule(
        rule='a user id is never a marker key; emails and dates are valid',
        enforced_by='validation (no `#` in ids; `a@b.c` shape, ≤ 254 characters, no `/`; `YYYY-MM-DD`)',
        refusal='400 `VALIDATION_FAILED`, nothing written',
        tests=(
            API + 'test_bad_input_is_400_and_writes_nothing',
            API + 'test_a_user_id_can_never_be_an_email_markers_key',
        ),
    ),
    Rule(
        rule='a transaction cancelled by a concurrent transaction alone',
        enforced_by='retried by `ddb.transact_write` (4 attempts, jittered backoff); it wrote nothing',
        refusal='429 `THROTTLED` if it keeps conflicting',
        tests=(
            API + 'test_a_transaction_that_keeps_conflicting_is_429',
        ),
    ),
)
