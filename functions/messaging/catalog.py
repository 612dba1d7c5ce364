"""Messaging: its entities and access patterns, declared once. docs/messaging.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("table / index", "partition key", "sort key", "other attributes", "projection"),
    rows=(
        (
            "Messages (table)",
            "`MsgId`",
            "—",
            (
                "`Recipient`, `Sender`, `Date`, `Subject`, `Body`, `Attachments` (list of `{Name, Size, ContentType}`, "
                "absent when none)"
            ),
            "—",
        ),
        ("**Inbox** (GSI)", "`Recipient`", "`Date`", "`MsgId` (table key)", "`INCLUDE` `Sender`, `Subject`"),
        ("**Outbox** (GSI)", "`Sender`", "`Date`", "`MsgId` (table key)", "`INCLUDE` `Recipient`, `Subject`"),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="send a message",
        route="`POST /messaging/messages` `{recipient, subject, body, attachments?}` → 201 headers",
        who="signed in (the caller is the sender)",
        source="Messages",
        key_condition="PutItem, new `MsgId`, `attribute_not_exists(MsgId)`; `Idempotency-Key` header for retries",
        repository_method="`put_message`",
        tests=(
            "`test_send_answers_201_with_the_headers_and_reaches_both_boxes`, "
            "`test_a_retry_with_the_same_idempotency_key_sends_once`, "
            "`test_a_send_never_overwrites_a_message_and_a_failed_send_is_not_remembered`, e2e "
            "`test_a_sent_message_reaches_the_recipients_inbox_and_the_senders_outbox_newest_first`"
        ),
    ),
    AccessPattern(
        name="inbox: the 50 newest headers",
        route="`GET /messaging/inbox?limit=&cursor=`",
        who="the caller's own",
        source="Inbox",
        key_condition="`Recipient = :me`, `ScanIndexForward=false`, `Limit` 50 (≤ 100)",
        repository_method="`inbox_of`",
        tests=(
            "`test_davids_inbox_from_the_seed_is_newest_first`, "
            "`test_the_inbox_is_one_query_on_the_inbox_index_returning_only_headers`, "
            "`test_a_page_of_50_headers_reads_one_unit_where_the_bodies_would_read_25`, "
            "`test_inbox_pages_cover_every_message_once_and_their_cursor_is_bound_to_the_caller_and_box`, "
            "`test_messages_sharing_a_date_are_all_kept_and_newest_come_first`"
        ),
    ),
    AccessPattern(
        name="outbox: the 50 newest headers",
        route="`GET /messaging/outbox?limit=&cursor=`",
        who="the caller's own",
        source="Outbox",
        key_condition="`Sender = :me`, `ScanIndexForward=false`, `Limit` 50 (≤ 100)",
        repository_method="`outbox_of`",
        tests=(
            "`test_outboxes_from_the_seed_are_newest_first`, "
            "`test_the_outbox_is_one_query_on_the_outbox_index_returning_only_headers`, e2e "
            "`test_the_seeds_other_boxes`"
        ),
    ),
    AccessPattern(
        name="a whole message",
        route="`GET /messaging/messages/{msgId}`",
        who="its sender or its recipient (anyone else: 404)",
        source="Messages",
        key_condition="GetItem `MsgId = :id`",
        repository_method="`get_message`",
        tests=(
            "`test_only_the_sender_and_the_recipient_read_a_message_anyone_else_gets_404`, e2e "
            "`test_a_seed_message_is_read_whole_by_its_sender_and_recipient_only`"
        ),
    ),
    AccessPattern(
        name="one inbox page as stored, for `make bench`",
        route="— (Python: `MessagingRepository.inbox_index_items`)",
        who="—",
        source="Inbox",
        key_condition="`Recipient = :me`, newest first, one page",
        repository_method="`inbox_index_items`, `inbox_query`",
        tests="`test_the_bench_reads_the_same_index_items`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/messaging.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "msgId": "3kf8",
}

# The seed's user (seeds/messaging.py), whom the explorer runs the patterns as (`make token USER=david`):
# the seed's David: his inbox holds 3kf8 and afed.
PERSONA = "david"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_messaging_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a message id is never reused or overwritten',
        enforced_by='PutItem `attribute_not_exists(MsgId)`',
        refusal='409 `MESSAGE_ID_TAKEN` (only on an id collision)',
        tests=(
            API + 'test_a_send_never_overwrites_a_message_and_a_failed_send_is_not_remembered',
        ),
    ),
    Rule(
        rule='a retried send sends once',
        enforced_by='`Idempotency-Key` header (Powertools idempotency table, conditional put per caller + key)',
        refusal=(
            'the first answer again; 409 `IDEMPOTENCY_KEY_REUSED` for the same key with another message; a failed send '
            'is forgotten, so its retry runs'
        ),
        tests=(
            API + 'test_a_retry_with_the_same_idempotency_key_sends_once',
        ),
    ),
    Rule(
        rule='only the sender and the recipient read a message',
        enforced_by='service, after the GetItem',
        refusal='404 `MESSAGE_NOT_FOUND` (same as an unknown id)',
        tests=(
            API + 'test_only_the_sender_and_the_recipient_read_a_message_anyone_else_gets_404',
        ),
    ),
    Rule(
        rule=(
            'recipient, subject (1–200), body (≤ 16 KiB UTF-8), ≤ 10 attachments with `size` 0–25 MiB and a '
            '`type/subtype`, no unknown fields'
        ),
        enforced_by='pydantic models before any write',
        refusal='400 `VALIDATION_FAILED`, nothing written',
        tests=(
            API + 'test_bad_input_is_400_and_writes_nothing',
            API + 'test_a_malformed_message_id_is_400',
        ),
    ),
    Rule(
        rule='request body ≤ 64 KiB',
        enforced_by='the shared resolver, unread',
        refusal='413 `PAYLOAD_TOO_LARGE`',
        tests=(
            API + 'test_a_body_at_the_cap_is_sent_and_the_request_over_64_kb_is_413_unread',
        ),
    ),
    Rule(
        rule='page size 1–100; cursor of this route and caller',
        enforced_by='query validation; signed cursor',
        refusal='400 `VALIDATION_FAILED` / `INVALID_CURSOR`',
        tests=(
            API + 'test_page_size_is_50_by_default_and_at_most_100',
            API + 'test_inbox_pages_cover_every_message_once_and_their_cursor_is_bound_to_the_caller_and_box',
        ),
    ),
    Rule(
        rule='signed in',
        enforced_by="API Gateway's Cognito authorizer, and the resolver behind it",
        refusal='401 `UNAUTHORIZED`',
        tests=(
            API + 'test_signed_out_callers_get_401',
        ),
    ),
)
