"""The Messages table (seed 002, "Use case: Messaging App" through "Distribute large items"), as data: the CDK builds
it from here, the functional tests and the local runtime too.

The seed's Solution v.2 as drawn: the Messages table, keyed by `MsgId`, holds the bulk (`Body`, attachment
metadata); the `Inbox` GSI (`Recipient`, `Date`) and the `Outbox` GSI (`Sender`, `Date`) copy only the headers, so
a page of 50 headers is ~50 × 128 B = 1 RCU instead of the 1,600 RCU of Solution v.1's 50 bodies of 256 KB.

Each index includes the header attributes that are not its own keys (DynamoDB projects an index's keys and the
table's key by itself and refuses them in `NonKeyAttributes`): Inbox adds `Sender` and `Subject`, Outbox adds
`Recipient` and `Subject`. Never `ALL`: that would copy every body into both indexes (twice the storage and write
cost, and the 1,600 RCU back).
"""

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

INBOX_INDEX = "Inbox"
OUTBOX_INDEX = "Outbox"

# What a header is: the attributes an inbox or outbox page shows (every index item has exactly these).
HEADER_ATTRIBUTES = ("MsgId", "Recipient", "Sender", "Date", "Subject")

MESSAGES_TABLE = TableSpec(
    "MessagesTable",
    env_var="MESSAGING_MESSAGES_TABLE_NAME",
    partition_key=KeyAttribute("MsgId"),
    indexes=(
        IndexSpec(INBOX_INDEX, KeyAttribute("Recipient"), KeyAttribute("Date"), projection=("Sender", "Subject")),
        IndexSpec(OUTBOX_INDEX, KeyAttribute("Sender"), KeyAttribute("Date"), projection=("Recipient", "Subject")),
    ),
)

TABLES = (MESSAGES_TABLE,)
