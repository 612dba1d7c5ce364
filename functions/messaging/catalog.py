"""Messaging: its entities and access patterns, declared once. docs/messaging.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, columns

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
