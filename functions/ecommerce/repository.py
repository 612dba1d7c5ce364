"""Ecommerce table access: one method per access pattern, the only module here that talks to DynamoDB
(docs/ecommerce.md).

Every rule holds in DynamoDB itself, in one request:
- a customer is unique on username and on email: a sign-up puts the Customer and its CustomerEmail marker in one
  transaction, each conditioned on `attribute_not_exists(PK)`; a change of email moves the marker in the transaction
  that changes the customer;
- a customer keeps at most MAX_ADDRESSES addresses: a new name is set only while `size(addresses) < :max`;
- an order is placed whole or not at all: one transaction checks the customer and puts the order and its items;
- an order's status moves only along ALLOWED_FROM, by a condition on the status it moves from.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.ecommerce import models
from functions.ecommerce.schema import (
    CUSTOMER_PREFIX,
    ECOMMERCE_TABLE,
    GSI1,
    GSI1PK,
    ORDER_PREFIX,
    ORDER_SK_PREFIX,
    PK,
    SK,
    customer_key,
    email_key,
    item_index_keys,
    item_key,
    order_index_keys,
    order_key,
)
from functions.shared import ddb
from functions.shared.errors import ConflictError
from functions.shared.models import from_item, to_item
from functions.shared.pages import Page, StartKey, read_page
from functions.shared.settings import Settings, TableName

# The seed's bound ("it won't be a burden on our customers to limit them to only 20 addresses").
MAX_ADDRESSES = 20
# The customer's item and its ten most recent orders (the seed's Limit=11).
RECENT_ORDERS = 10


def sort_key(item: Mapping[str, Any]) -> str:
    """An item's sort key (a string on every item of this table), which tells its entity apart."""
    return str(item[SK])


def is_retry_of(stored: models.Customer, asked: models.Customer | models.SignUpIn) -> bool:
    """A sign-up for a stored username is a retry when it asks for the same customer (name and email)."""
    return (stored.name, stored.email) == (asked.name, asked.email)


@dataclass(frozen=True)
class SignUp:
    """What a sign-up found: the customer it created, or (created False) the customer stored under that username."""

    customer: models.Customer
    created: bool


@dataclass(frozen=True)
class Overview:
    customer: models.Customer | None
    orders: list[models.Order]
    last_key: dict[str, Any] | None  # where the older orders start


@dataclass(frozen=True)
class StatusChange:
    """An order after a status update; `changed` False when it was not moved (its status is in `order`)."""

    order: models.Order | None
    changed: bool


class EcommerceRepository:
    table_name = TableName(ECOMMERCE_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    # customers

    def sign_up(self, customer: models.Customer) -> SignUp:
        """Create a customer: TransactWriteItems of Put Customer `attribute_not_exists(PK)` and Put CustomerEmail
        `attribute_not_exists(PK)`.

        The username taken: returns the stored customer (the cancelled Put's ALL_OLD) for the service to tell a retry
        from a conflict. The email taken: 409 EMAIL_TAKEN. Decided by the failed action's name."""
        actions = [
            ("customer", {
                "Put": {
                    "TableName": self.table_name,
                    "Item": to_item(customer, **customer_key(customer.username), entityType="Customer"),
                    "ConditionExpression": "attribute_not_exists(PK)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("email", self._reserve(customer.email, customer.username)),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return SignUp(customer, created=True)
        if failed.name == "customer":
            existing = from_item(models.Customer, failed.item) if failed.item else None
            # No ALL_OLD only from a transaction that does not name the item; another customer's username is taken.
            if existing is None or not is_retry_of(existing, customer):
                raise ConflictError(f"username {customer.username} is taken", code="USERNAME_TAKEN") from failed.error
            return SignUp(existing, created=False)
        raise ConflictError(f"{customer.email} belongs to another customer", code="EMAIL_TAKEN") from failed.error

    def get_customer(self, username: str, *, consistent: bool = False) -> models.Customer | None:
        """Get a customer: GetItem `PK = CUSTOMER#<username>, SK = CUSTOMER#<username>`."""
        item = ddb.table(self.table_name).get_item(Key=customer_key(username), ConsistentRead=consistent).get("Item")
        return None if item is None else from_item(models.Customer, item)

    def change_email(self, customer: models.Customer, new_email: str) -> models.Customer | None:
        """Change a customer's email: TransactWriteItems of Update Customer `email = :old` (as read: optimistic),
        Delete the old CustomerEmail `username = :user`, Put the new one `attribute_not_exists(PK)`.

        None when the customer changed since it was read (read again); 409 EMAIL_TAKEN when the new email is taken."""
        actions = [
            ("customer", {
                "Update": {
                    "TableName": self.table_name,
                    "Key": customer_key(customer.username),
                    "UpdateExpression": "SET email = :new",
                    "ConditionExpression": "email = :old",
                    "ExpressionAttributeValues": {":new": new_email, ":old": customer.email},
                }
            }),
            ("old_email", {
                "Delete": {
                    "TableName": self.table_name,
                    "Key": email_key(customer.email),
                    "ConditionExpression": "username = :user",
                    "ExpressionAttributeValues": {":user": customer.username},
                }
            }),
            ("new_email", self._reserve(new_email, customer.username)),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return customer.model_copy(update={"email": new_email})
        if "customer" in failed.names:
            return None
        if "new_email" in failed.names:
            raise ConflictError(f"{new_email} belongs to another customer", code="EMAIL_TAKEN") from failed.error
        raise ConflictError(
            f"the email of {customer.username} is not reserved to them; an operator must repair it",
            code="EMAIL_MARKER_MISMATCH",
        ) from failed.error

    def _reserve(self, email: str, username: str) -> dict[str, Any]:
        return {
            "Put": {
                "TableName": self.table_name,
                "Item": {**email_key(email), "entityType": "CustomerEmail", "email": email, "username": username},
                "ConditionExpression": "attribute_not_exists(PK)",
            }
        }

    # addresses: a map on the customer

    def put_address(self, username: str, name: str, address: models.Address) -> models.Customer | None:
        """Create or replace a named address: UpdateItem `SET addresses.#name = :address` on the Customer, if it
        exists and the name is there already or `size(addresses) < :max`.

        None when the customer does not exist; 409 TOO_MANY_ADDRESSES past the bound."""
        try:
            response = ddb.table(self.table_name).update_item(
                Key=customer_key(username),
                UpdateExpression="SET addresses.#name = :address",
                ConditionExpression=(
                    "attribute_exists(PK) AND (attribute_exists(addresses.#name) OR size(addresses) < :max)"),
                ExpressionAttributeNames={"#name": name},
                ExpressionAttributeValues={":address": to_item(address), ":max": MAX_ADDRESSES},
                ReturnValues="ALL_NEW",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            if "Item" not in error.response:
                return None
            raise ConflictError(
                f"a customer keeps at most {MAX_ADDRESSES} addresses; delete one before adding {name!r}",
                code="TOO_MANY_ADDRESSES",
            ) from error
        return from_item(models.Customer, response["Attributes"])

    def delete_address(self, username: str, name: str) -> models.Customer | None:
        """Delete a named address: UpdateItem `REMOVE addresses.#name` if the customer exists (None if not).
        Deleting a name that is not there changes nothing."""
        try:
            response = ddb.table(self.table_name).update_item(
                Key=customer_key(username),
                UpdateExpression="REMOVE addresses.#name",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeNames={"#name": name},
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            return None
        return from_item(models.Customer, response["Attributes"])

    # orders

    def customer_with_recent_orders(self, username: str) -> Overview:
        """The customer and their ten most recent orders: Query `PK = CUSTOMER#<username>`, ScanIndexForward=False,
        Limit=11 (the Customer item sorts after every `#ORDER#…`, so it comes first)."""
        response = ddb.table(self.table_name).query(
            KeyConditionExpression=Key(PK).eq(f"{CUSTOMER_PREFIX}{username}"),
            ScanIndexForward=False,
            Limit=RECENT_ORDERS + 1,
        )
        customer: models.Customer | None = None
        orders: list[models.Order] = []
        for item in response.get("Items", []):
            if sort_key(item).startswith(CUSTOMER_PREFIX):
                customer = from_item(models.Customer, item)
            else:
                orders.append(from_item(models.Order, item))
        return Overview(customer, orders, response.get("LastEvaluatedKey"))

    def orders_of(self, username: str, *, limit: int, start_key: StartKey) -> Page:
        """A customer's orders, newest first, page by page: Query `PK = CUSTOMER#<username> AND begins_with(SK,
        "#ORDER#")`, ScanIndexForward=False, from the last order seen (the cursor's key)."""
        return read_page(
            ddb.table(self.table_name).query, lambda item: from_item(models.Order,
                                                                     item), limit=limit, start_key=start_key,
            KeyConditionExpression=Key(PK).eq(f"{CUSTOMER_PREFIX}{username}") & Key(SK).begins_with(ORDER_SK_PREFIX),
            ScanIndexForward=False,
        )

    def place_order(self, order: models.Order, items: list[models.OrderItem]) -> bool:
        """Place an order: TransactWriteItems of ConditionCheck Customer `attribute_exists(PK)`, Put Order
        `attribute_not_exists(PK)` and Put each OrderItem (2 + len(items) actions: the service keeps it ≤ 100).

        False when the customer does not exist; 409 ORDER_EXISTS when the order id is taken (never by a fresh KSUID)."""
        actions: list[tuple[str, dict[str, Any]]] = [
            ("customer", {
                "ConditionCheck": {
                    "TableName": self.table_name,
                    "Key": customer_key(order.username),
                    "ConditionExpression": "attribute_exists(PK)",
                }
            }),
            ("order", {
                "Put": {
                    "TableName": self.table_name,
                    "Item": to_item(order, **order_key(order.username, order.order_id),
                                    **order_index_keys(order.order_id), entityType="Order"),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            }),
        ]
        for item in items:
            actions.append((f"item:{item.item_id}", {
                "Put": {
                    "TableName": self.table_name,
                    "Item": to_item(item, **item_key(item.order_id, item.item_id),
                                    **item_index_keys(item.order_id, item.item_id), entityType="OrderItem"),
                    "ConditionExpression": "attribute_not_exists(PK)",
                }
            }))
        failed = ddb.transact_write(actions)
        if failed is None:
            return True
        if failed.name == "customer":
            return False
        raise ConflictError(f"order {order.order_id} exists", code="ORDER_EXISTS") from failed.error

    def order_with_items(self, order_id: str) -> tuple[models.Order | None, list[models.OrderItem]]:
        """An order and all its items: Query GSI1 `GSI1PK = ORDER#<orderId>` (at most 99 items: read to the end)."""
        order: models.Order | None = None
        items: list[models.OrderItem] = []
        query: dict[str, Any] = {"IndexName": GSI1,
                                 "KeyConditionExpression": Key(GSI1PK).eq(f"{ORDER_PREFIX}{order_id}")}
        while True:
            response = ddb.table(self.table_name).query(**query)
            for item in response.get("Items", []):
                if sort_key(item).startswith(ORDER_SK_PREFIX):
                    order = from_item(models.Order, item)
                else:
                    items.append(from_item(models.OrderItem, item))
            if "LastEvaluatedKey" not in response:
                return order, items
            query["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def set_status(self, username: str, order_id: str, status: str, allowed_from: tuple[str, ...],
                   now: str) -> StatusChange:
        """Update an order's status: UpdateItem `SET #status = :to` if the order exists and `#status IN (:from…)`.

        Refused: the order as it is (ALL_OLD), changed False; None for an order that does not exist."""
        sources = {f":from{i}": source for i, source in enumerate(allowed_from)}
        updated = ddb.update_or_refused(
            ddb.table(self.table_name),
            Key=order_key(username, order_id),
            UpdateExpression="SET #status = :to, updatedAt = :now",
            ConditionExpression=f"attribute_exists(PK) AND #status IN ({', '.join(sources)})",
            ExpressionAttributeNames={"#status": "status"},
            ExpressionAttributeValues={":to": status, ":now": now, **sources},
        )
        if isinstance(updated, ddb.Refused):
            return StatusChange(None if updated.item is None else from_item(models.Order, updated.item), changed=False)
        return StatusChange(from_item(models.Order, updated), changed=True)

