"""Sessions: its entities and access patterns, declared once. docs/sessions.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("entity", "table / index", "partition key", "sort key", "other attributes"),
    rows=(
        (
            "Session",
            "SessionTable",
            "`SessionToken`",
            "—",
            (
                "`Username`, `CreatedAt`, `ExpiresAt` (ISO-8601), `TTL` (Number, epoch seconds = `ExpiresAt`; "
                "DynamoDB's TTL attribute)"
            ),
        ),
        (
            "Session (tokens of a user)",
            "**UserIndex**",
            "`Username`",
            "—",
            "KEYS_ONLY: `SessionToken` (and `Username`) only",
        ),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="create a session",
        route="`POST /sessions` → 201 `{sessionToken, username, createdAt, expiresAt}`",
        who="signed in (for themselves)",
        source="SessionTable",
        key_condition="PutItem `attribute_not_exists(SessionToken)` (a taken token: a fresh one, 3 tries)",
        repository_method="`create_session`",
        tests=(
            "`test_a_session_is_created_for_the_signed_in_user_with_an_unguessable_token_for_7_days`, "
            "`test_a_taken_token_is_never_overwritten_a_fresh_one_is_drawn`, "
            "`test_a_retried_sign_in_is_a_second_session_and_no_token_is_replayed`, e2e "
            "`test_a_session_is_created_read_by_its_owner_only_and_ended`"
        ),
    ),
    AccessPattern(
        name="get a session",
        route="`GET /sessions/{token}`",
        who="its user, or admin",
        source="SessionTable",
        key_condition="GetItem `SessionToken = :token` (strongly consistent); `TTL > now` compared on read",
        repository_method="`get_session`",
        tests=(
            "`test_a_session_is_read_by_its_token_with_one_consistent_get`, "
            "`test_an_expired_session_is_404_before_ttl_deletes_it`, "
            "`test_another_users_session_is_404_but_an_admin_sees_it`, e2e "
            "`test_an_expired_session_is_404_at_once_and_ttl_removes_it_later`, "
            "`test_a_session_ttl_will_never_delete_is_404_while_it_stays_in_the_table`"
        ),
    ),
    AccessPattern(
        name="delete a session",
        route="`DELETE /sessions/{token}` → 204",
        who="its user, or admin",
        source="SessionTable",
        key_condition=(
            "DeleteItem `SessionToken = :token`, for a user if `attribute_not_exists(SessionToken) OR Username = :me "
            "OR TTL <= :now` (expired: absent, as to a read)"
        ),
        repository_method="`delete_session`",
        tests=(
            "`test_a_user_ends_their_own_session_and_repeating_it_is_fine`, "
            "`test_another_users_session_cannot_be_ended_but_an_admin_ends_it`, "
            "`test_another_users_expired_session_is_gone_to_a_delete_as_to_a_read`"
        ),
    ),
    AccessPattern(
        name="delete a session (time-based)",
        route="— (TTL)",
        who="DynamoDB",
        source="SessionTable",
        key_condition="TTL on `TTL`",
        repository_method="—",
        tests="`tests/infra/test_sessions.py`, e2e `test_an_expired_session_is_404_at_once_and_ttl_removes_it_later`",
    ),
    AccessPattern(
        name="sessions of a user",
        route="`GET /sessions/users/{username}?limit=&cursor=`",
        who="that user, or admin",
        source="UserIndex, then SessionTable",
        key_condition=(
            "Query `Username = :u` (a page of tokens), then BatchGetItem of that page's tokens; expired ones left out"
        ),
        repository_method="`sessions_of`",
        tests=(
            "`test_a_users_sessions_are_listed_page_by_page_from_user_index`, "
            "`test_a_page_leaves_out_sessions_deleted_since_the_index_listed_them`, "
            "`test_only_the_user_or_an_admin_lists_their_sessions`, `test_a_cursor_of_another_users_list_is_400`, e2e "
            "`test_the_example_sessions_are_served_to_their_owners_and_the_expired_one_is_not`"
        ),
    ),
    AccessPattern(
        name="delete all sessions of a user",
        route="`DELETE /sessions/users/{username}` → 204",
        who="that user, or admin",
        source="UserIndex, then SessionTable",
        key_condition=(
            "Query `Username = :u` page by page (100 keys); BatchWriteItem of ≤ 25 DeleteRequests; `UnprocessedItems` "
            "retried with jittered backoff (6 rounds, then 429)"
        ),
        repository_method="`delete_sessions_of`",
        tests=(
            "`test_sixty_sessions_end_with_none_even_when_dynamodb_leaves_items_unprocessed`, "
            "`test_deletes_left_unprocessed_round_after_round_are_429_and_a_retry_finishes`, "
            "`test_only_the_user_or_an_admin_ends_all_their_sessions`, e2e "
            "`test_an_admin_ends_all_sixty_sessions_of_a_user_and_repeating_it_is_fine`"
        ),
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/sessions.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "token": "alice-phone-Wm5nB2xR7kTq9LdZ3vYc8HgJ1sPf4eNu0oAi",
    "username": "alice",
}

# The seed's user (seeds/sessions.py), whom the explorer runs the patterns as (`make token USER=alice`):
# alice has two live sessions and one expired.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_sessions_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a token is unique',
        enforced_by='PutItem `attribute_not_exists(SessionToken)`; a fresh token is drawn (3 tries)',
        refusal='409 `TOKEN_TAKEN` (never seen with 256 bits)',
        tests=(
            API + 'test_only_taken_tokens_is_409_writing_nothing',
        ),
    ),
    Rule(
        rule='an expired session is never served',
        enforced_by='`TTL > now` compared on every read (get, list)',
        refusal='404 `SESSION_NOT_FOUND`',
        tests=(
            API + 'test_an_expired_session_is_404_before_ttl_deletes_it',
        ),
    ),
    Rule(
        rule='a user sees and ends only their own session',
        enforced_by=(
            "the read compares `Username`; the delete's condition `attribute_not_exists(SessionToken) OR Username = "
            ':me OR TTL <= :now` (an expired session is absent to a delete as to a read)'
        ),
        refusal='404 `SESSION_NOT_FOUND` (the session stays)',
        tests=(
            API + 'test_another_users_session_is_404_but_an_admin_sees_it',
            API + 'test_another_users_session_cannot_be_ended_but_an_admin_ends_it',
            API + 'test_another_users_expired_session_is_gone_to_a_delete_as_to_a_read',
        ),
    ),
    Rule(
        rule="a user lists and ends only their own sessions; an admin anyone's",
        enforced_by="service check on the path's username",
        refusal='403 `NOT_YOUR_SESSIONS`',
        tests=(
            API + 'test_only_the_user_or_an_admin_lists_their_sessions',
            API + 'test_only_the_user_or_an_admin_ends_all_their_sessions',
        ),
    ),
    Rule(
        rule="ending a session twice, or all of a user's twice, is fine",
        enforced_by='DeleteItem / BatchWriteItem of absent keys are no-ops',
        refusal='204 again',
        tests=(
            API + 'test_a_user_ends_their_own_session_and_repeating_it_is_fine',
            API + 'test_only_the_user_or_an_admin_ends_all_their_sessions',
        ),
    ),
    Rule(
        rule="all of a user's sessions end, even under load",
        enforced_by='`UnprocessedItems` retried with backoff, 6 rounds',
        refusal='429 `THROTTLED` (what was deleted stays deleted; retry)',
        tests=(
            API + 'test_deletes_left_unprocessed_round_after_round_are_429_and_a_retry_finishes',
        ),
    ),
    Rule(
        rule='a retried create never replays a token',
        enforced_by=(
            'no `Idempotency-Key` on `POST /sessions`: a replay could return a token signed out since, and would keep '
            'it in the idempotency table for a day'
        ),
        refusal='a second session (it expires like any other)',
        tests=(
            API + 'test_a_retried_sign_in_is_a_second_session_and_no_token_is_replayed',
        ),
    ),
    Rule(
        rule='bad input writes nothing',
        enforced_by='path patterns (token: 16–128 URL-safe characters), `limit` 1–100, signed cursors',
        refusal='400 `VALIDATION_FAILED`, `INVALID_CURSOR`',
        tests=(
            API + 'test_a_malformed_token_is_400',
            API + 'test_a_cursor_of_another_users_list_is_400',
        ),
    ),
    Rule(
        rule='signed in',
        enforced_by="API Gateway's Cognito authorizer",
        refusal='401',
        tests=(
            API + 'test_a_retried_sign_in_is_a_second_session_and_no_token_is_replayed',
        ),
    ),
)
