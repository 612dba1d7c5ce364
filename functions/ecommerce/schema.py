"""The Ecommerce table (seed 003, "Examples" → "e-Commerce Application"): one table, the seed's keys and GSI1.

| entity        | PK                            | SK                            | GSI1PK          | GSI1SK          |
|---------------|-------------------------------|-------------------------------|-----------------|-----------------|
| Customer      | CUSTOMER#<Username>           | CUSTOMER#<Username>           |                 |                 |
| CustomerEmail | CUSTOMEREMAIL#<Email>         | CUSTOMEREMAIL#<Email>         |                 |                 |
| Address       | (a map attribute on the Customer)                             |                 |                 |
| Order         | CUSTOMER#<Username>           | #ORDER#<OrderId>              | ORDER#<OrderId> | ORDER#<OrderId> |
| OrderItem     | ORDER#<OrderId>#ITEM#<ItemId> | ORDER#<OrderId>#ITEM#<ItemId> | ORDER#<OrderId> | ITEM#<ItemId>   |

`#ORDER#` sorts before `CUSTOMER#` ("#" is 0x23, "C" 0x43), and KSUID order ids sort by time: a descending Query of
the customer's partition reads the Customer first, then the orders newest first.
"""

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

PK = "PK"
SK = "SK"
GSI1 = "GSI1"
GSI1PK = "GSI1PK"
GSI1SK = "GSI1SK"

CUSTOMER_PREFIX = "CUSTOMER#"
EMAIL_PREFIX = "CUSTOMEREMAIL#"
ORDER_SK_PREFIX = "#ORDER#"
ORDER_PREFIX = "ORDER#"
ITEM_PREFIX = "ITEM#"

ECOMMERCE_TABLE = TableSpec(
    "EcommerceTable",
    partition_key=KeyAttribute(PK),
    sort_key=KeyAttribute(SK),
    indexes=(IndexSpec(GSI1, KeyAttribute(GSI1PK), KeyAttribute(GSI1SK)),),
)

TABLES = (ECOMMERCE_TABLE,)


def customer_key(username: str) -> dict[str, str]:
    return {PK: f"{CUSTOMER_PREFIX}{username}", SK: f"{CUSTOMER_PREFIX}{username}"}


def email_key(email: str) -> dict[str, str]:
    return {PK: f"{EMAIL_PREFIX}{email}", SK: f"{EMAIL_PREFIX}{email}"}


def order_key(username: str, order_id: str) -> dict[str, str]:
    return {PK: f"{CUSTOMER_PREFIX}{username}", SK: f"{ORDER_SK_PREFIX}{order_id}"}


def order_index_keys(order_id: str) -> dict[str, str]:
    return {GSI1PK: f"{ORDER_PREFIX}{order_id}", GSI1SK: f"{ORDER_PREFIX}{order_id}"}


def item_key(order_id: str, item_id: str) -> dict[str, str]:
    key = f"{ORDER_PREFIX}{order_id}#{ITEM_PREFIX}{item_id}"
    return {PK: key, SK: key}


def item_index_keys(order_id: str, item_id: str) -> dict[str, str]:
    return {GSI1PK: f"{ORDER_PREFIX}{order_id}", GSI1SK: f"{ITEM_PREFIX}{item_id}"}
