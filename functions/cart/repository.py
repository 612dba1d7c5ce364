"""Cart table access: one method per access pattern, the only module here that talks to DynamoDB (docs/cart.md).

Every rule holds in DynamoDB, in one request:
- a cart is changed only by its owner, while it is open and not expired: every change is one TransactWriteItems
  whose header Update carries that condition (and refreshes the TTL), beside the line's own action;
- a cart holds at most MAX_LINES lines: the header's SKU set (`ADD`/`DELETE`, atomic) is its count, and the header
  condition refuses a new SKU when the set is full;
- a line's SKU must have a price (a ConditionCheck on Prices in the same transaction);
- clearing and checking out act on the lines they read: the header Update is conditioned on the `version` they saw,
  so a line added meanwhile makes them read again rather than leave it behind;
- a price change is notified once per (owner, SKU, version), never older after newer: the notification's Put and
  the owner's `lastNotifiedVersion < :version` marker Update are one transaction;
- an abandoned cart is counted once: the per-cart marker's `attribute_not_exists` Put and the day's `ADD` are one
  transaction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.cart.models import Line, Notification, Price
from functions.cart.schema import (
    CART_TABLE,
    CARTS_BY_SKU_INDEX,
    CHECKED_OUT,
    HEADER_SK,
    LINE_PREFIX,
    MAX_LINES,
    NOTE_PREFIX,
    NOTIFICATION_TABLE,
    OPEN,
    PRICE_TABLE,
    STATS_TABLE,
    abandoned_pk,
    day_pk,
    line_sk,
    marker_sk,
)
from functions.shared import ddb
from functions.shared.errors import (
    AppError,
    ConflictError,
    NotFoundError,
    ThrottledError,
)
from functions.shared.pagination import Page, read_page
from functions.shared.settings import TableName, Tables

StartKey = dict[str, Any] | None
# The header's condition for any change: the cart exists, is the caller's, is open and has not expired.
_CHANGEABLE = "attribute_exists(cartId) AND #owner = :owner AND #status = :open AND expiresAt > :nowEpoch"
_NAMES = {"#owner": "owner", "#status": "status", "#version": "version"}


@dataclass(frozen=True)
class CartRecord:
    """A cart as stored: the header's attributes and its lines."""

    cart_id: str
    owner: str
    status: str
    version: int
    created_at: str
    updated_at: str
    expires_at: int
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class Holder:
    """A cart that holds a SKU, from CartsBySkuIndex."""

    cart_id: str
    owner: str


class TableNames(Tables):
    """The domain's table names, from the function's settings when first used (a consumer has only some)."""

    cart = TableName(CART_TABLE)
    price = TableName(PRICE_TABLE)
    notification = TableName(NOTIFICATION_TABLE)
    stats = TableName(STATS_TABLE)


def header_refusal(item: Mapping[str, Any] | None, owner: str, now_epoch: int, *, sku: str | None = None,
                   needs_lines: bool = False) -> AppError | None:
    """Why the header condition failed, from the header as it was (None: it no longer fails; read again).

    Another owner's cart and an expired one are as absent as a missing one: 404, never a hint that it exists."""
    if item is None or item.get("owner") != owner or int(item.get("expiresAt", 0)) <= now_epoch:
        return NotFoundError("no such cart", code="CART_NOT_FOUND")
    if item.get("status") != OPEN:
        return ConflictError("the cart is checked out", code="CART_CHECKED_OUT")
    skus = set(item.get("skus") or ())
    if sku is not None and sku not in skus and len(skus) >= MAX_LINES:
        return ConflictError(f"a cart holds at most {MAX_LINES} lines", code="CART_FULL")
    if needs_lines and not skus:
        return ConflictError("the cart is empty", code="CART_EMPTY")
    return None


class CartRepository:
    def __init__(self, tables: TableNames):
        self.tables = tables

    # carts

    def create_cart(self, cart_id: str, owner: str, now: datetime, expires_at: int) -> None:
        """Create an empty open cart: PutItem of the header, `attribute_not_exists(cartId)`."""
        ddb.put_new(ddb.table(self.tables.cart), {
            "cartId": cart_id, "sk": HEADER_SK, "owner": owner, "status": OPEN, "version": 1,
            "createdAt": now.isoformat(), "updatedAt": now.isoformat(), "expiresAt": expires_at,
        }, "attribute_not_exists(cartId)")

    def get_cart(self, cart_id: str) -> CartRecord | None:
        """A cart with its lines: one Query `cartId = :id` (strongly consistent; header and ≤ MAX_LINES lines, one
        page). None when there is no header (never created, or removed by TTL with its lines not yet swept)."""
        items = ddb.table(self.tables.cart).query(
            KeyConditionExpression=Key("cartId").eq(cart_id), ConsistentRead=True
        )["Items"]
        header = next((item for item in items if item["sk"] == HEADER_SK), None)
        if header is None:
            return None
        lines = tuple(_line(item) for item in items if str(item["sk"]).startswith(LINE_PREFIX))
        return CartRecord(
            cart_id=cart_id, owner=str(header["owner"]), status=str(header["status"]), version=int(header["version"]),
            created_at=str(header["createdAt"]), updated_at=str(header["updatedAt"]),
            expires_at=int(header["expiresAt"]), lines=lines,
        )

    def set_line(self, cart_id: str, owner: str, sku: str, quantity: int, now: datetime, expires_at: int) -> None:
        """Set a line's quantity: TransactWriteItems of the header Update (changeable, room for a new SKU; `ADD skus`,
        TTL refreshed), a ConditionCheck that the SKU has a price, and the line's Update (`SET quantity`)."""
        values = {**self._changeable_values(owner, now, expires_at), ":sku": sku, ":skus": {sku}, ":max": MAX_LINES}
        header = self._header_update(
            cart_id, f"{_CHANGEABLE} AND (attribute_not_exists(skus) OR size(skus) < :max OR contains(skus, :sku))",
            values, add="skus :skus",
        )
        actions = [
            ("cart", header),
            ("price", {"ConditionCheck": {
                "TableName": self.tables.price, "Key": {"sku": sku}, "ConditionExpression": "attribute_exists(sku)",
            }}),
            ("line", {"Update": {
                "TableName": self.tables.cart,
                "Key": {"cartId": cart_id, "sk": line_sk(sku)},
                "UpdateExpression": "SET sku = :sku, quantity = :quantity, #owner = :owner, lineSku = :sku, "
                                    "updatedAt = :now",
                "ExpressionAttributeNames": {"#owner": "owner"},
                "ExpressionAttributeValues": {":sku": sku, ":quantity": quantity, ":owner": owner,
                                              ":now": now.isoformat()},
            }}),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return
        if failed.name == "price":
            raise NotFoundError(f"no price for SKU {sku}: only priced SKUs go in a cart", code="SKU_NOT_FOUND")
        raise _refusal(failed, owner, now, sku=sku)

    def remove_line(self, cart_id: str, owner: str, sku: str, now: datetime, expires_at: int) -> None:
        """Remove a line: TransactWriteItems of the header Update (changeable; `DELETE skus`, TTL refreshed) and the
        line's Delete. Removing a line that is not there changes nothing but the TTL (safe to repeat)."""
        values = {**self._changeable_values(owner, now, expires_at), ":skus": {sku}}
        actions = [
            ("cart", self._header_update(cart_id, _CHANGEABLE, values, other="DELETE skus :skus")),
            ("line", {"Delete": {"TableName": self.tables.cart, "Key": {"cartId": cart_id, "sk": line_sk(sku)}}}),
        ]
        failed = ddb.transact_write(actions)
        if failed is not None:
            raise _refusal(failed, owner, now)

    def clear(self, cart: CartRecord, now: datetime, expires_at: int) -> bool:
        """Clear a cart: TransactWriteItems of the header Update (changeable, `version = :seen`; `REMOVE skus`) and a
        Delete of every line read. False when the cart changed since it was read (read it again)."""
        values = {**self._changeable_values(cart.owner, now, expires_at), ":seen": cart.version}
        actions = [("cart", self._header_update(
            cart.cart_id, f"{_CHANGEABLE} AND #version = :seen", values, other="REMOVE skus"))]
        actions += [
            (f"line {line.sku}", {"Delete": {"TableName": self.tables.cart,
                                             "Key": {"cartId": cart.cart_id, "sk": line_sk(line.sku)}}})
            for line in cart.lines
        ]
        return self._versioned(actions, cart, now, needs_lines=False)

    def check_out(self, cart: CartRecord, now: datetime, expires_at: int) -> bool:
        """Check out: TransactWriteItems of the header Update (changeable, not empty, `version = :seen`; status
        CHECKED_OUT) and an Update of every line read that drops its `lineSku`, so the cart leaves CartsBySkuIndex.
        False when the cart changed since it was read (read it again)."""
        values = {**self._changeable_values(cart.owner, now, expires_at), ":seen": cart.version,
                  ":checkedOut": CHECKED_OUT}
        actions = [("cart", self._header_update(
            cart.cart_id, f"{_CHANGEABLE} AND #version = :seen AND attribute_exists(skus)", values,
            set_="#status = :checkedOut"))]
        actions += [
            (f"line {line.sku}", {"Update": {
                "TableName": self.tables.cart,
                "Key": {"cartId": cart.cart_id, "sk": line_sk(line.sku)},
                "UpdateExpression": "REMOVE lineSku",
                "ConditionExpression": "attribute_exists(sk)",
            }})
            for line in cart.lines
        ]
        return self._versioned(actions, cart, now, needs_lines=True)

    def _versioned(self, actions: list[tuple[str, Mapping[str, Any]]], cart: CartRecord, now: datetime, *,
                   needs_lines: bool) -> bool:
        failed = ddb.transact_write(actions)
        if failed is None:
            return True
        if failed.name == "cart":
            refusal = header_refusal(failed.item, cart.owner, _epoch(now), needs_lines=needs_lines)
            if refusal is not None:
                raise refusal from failed.error
        return False  # the header's version moved, or a line read is gone: the cart changed under us

    def _changeable_values(self, owner: str, now: datetime, expires_at: int) -> dict[str, Any]:
        return {":owner": owner, ":open": OPEN, ":nowEpoch": _epoch(now), ":now": now.isoformat(),
                ":expires": expires_at, ":one": 1}

    def _header_update(self, cart_id: str, condition: str, values: Mapping[str, Any], *, set_: str = "",
                       add: str = "", other: str = "") -> dict[str, Any]:
        """The header's part of every change: the TTL refreshed, the version bumped, plus the change's own `SET`,
        `ADD` and `DELETE`/`REMOVE` clauses, under `condition` (the old header returned when it fails)."""
        expression = "SET updatedAt = :now, expiresAt = :expires" + (f", {set_}" if set_ else "")
        expression += " ADD #version :one" + (f", {add}" if add else "") + (f" {other}" if other else "")
        return {"Update": {
            "TableName": self.tables.cart,
            "Key": {"cartId": cart_id, "sk": HEADER_SK},
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": _NAMES,
            "ExpressionAttributeValues": dict(values),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }}

    # prices

    def put_price(self, sku: str, price: Decimal, currency: str, now: datetime) -> tuple[Price, bool]:
        """Set a SKU's price: UpdateItem (`ADD version 1`), only if it is new or differs: repeating the same price
        writes nothing (and streams nothing). Returns the price and whether it changed (GetItem when it did not)."""
        try:
            response = ddb.table(self.tables.price).update_item(
                Key={"sku": sku},
                UpdateExpression="SET price = :price, currency = :currency, updatedAt = :now ADD #version :one",
                ConditionExpression="attribute_not_exists(sku) OR price <> :price OR currency <> :currency",
                ExpressionAttributeNames={"#version": "version"},
                ExpressionAttributeValues={":price": price, ":currency": currency, ":now": now.isoformat(),
                                           ":one": 1},
                ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            return self.get_price(sku, consistent=True), False  # type: ignore[return-value]
        return _price(response["Attributes"]), True

    def get_price(self, sku: str, *, consistent: bool = False) -> Price | None:
        """A SKU's price: GetItem `sku = :sku`."""
        item = ddb.table(self.tables.price).get_item(Key={"sku": sku}, ConsistentRead=consistent).get("Item")
        return None if item is None else _price(item)

    # price-change notifications

    def carts_holding(self, sku: str) -> list[Holder]:
        """The open carts that hold a SKU: Query CartsBySkuIndex `lineSku = :sku`, every page (cost grows with
        those carts only)."""
        query: dict[str, Any] = {"IndexName": CARTS_BY_SKU_INDEX, "KeyConditionExpression": Key("lineSku").eq(sku)}
        holders: list[Holder] = []
        table = ddb.table(self.tables.cart)
        while True:
            response = table.query(**query)
            holders += [Holder(str(item["cartId"]), str(item["owner"])) for item in response.get("Items", [])]
            if "LastEvaluatedKey" not in response:
                return holders
            query["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def live_carts(self, cart_ids: Sequence[str], now_epoch: int) -> dict[str, str]:
        """Of these carts, the open ones that have not expired, with their owners: BatchGetItem of the headers (the
        index is eventually consistent and lines outlive an expired header until the abandoned-carts consumer)."""
        keys = [{"cartId": cart_id, "sk": HEADER_SK} for cart_id in ddb.unique(cart_ids)]
        headers = ddb.batch_get(self.tables.cart, keys) if keys else []
        return {
            str(header["cartId"]): str(header["owner"])
            for header in headers
            if header.get("status") == OPEN and int(header.get("expiresAt", 0)) > now_epoch
        }

    def notified_owners(self, sku: str, owners: Sequence[str], version: int) -> set[str]:
        """Of these owners, those whose (owner, SKU) marker holds `version` or a newer one: BatchGetItem of the
        markers (eventually consistent, 100 keys a call)."""
        keys = [{"owner": owner, "sk": marker_sk(sku)} for owner in ddb.unique(owners)]
        return {
            str(item["owner"]) for item in ddb.batch_get(self.tables.notification, keys)
            if int(item.get("lastNotifiedVersion", 0)) >= version
        }

    def notify(self, owner: str, note: Notification, note_key: str) -> bool:
        """Notify an owner of a price change once: TransactWriteItems of the (owner, SKU) marker Update
        `lastNotifiedVersion < :version` and the notification's Put. False: this version or a newer one was
        notified already (a redelivered or out-of-order record), nothing written."""
        item = {
            "owner": owner, "sk": note_key, "sku": note.sku, "oldPrice": note.old_price, "newPrice": note.new_price,
            "currency": note.currency, "oldCurrency": note.old_currency, "priceVersion": note.price_version, "changedAt": note.changed_at.isoformat(),
            "cartIds": list(note.cart_ids),
        }
        actions = [
            ("marker", {"Update": {
                "TableName": self.tables.notification,
                "Key": {"owner": owner, "sk": marker_sk(note.sku)},
                "UpdateExpression": "SET lastNotifiedVersion = :version",
                "ConditionExpression": "attribute_not_exists(lastNotifiedVersion) OR lastNotifiedVersion < :version",
                "ExpressionAttributeValues": {":version": note.price_version},
            }}),
            ("note", {"Put": {"TableName": self.tables.notification, "Item": item}}),
        ]
        return ddb.transact_write(actions) is None

    def notifications_of(self, owner: str, *, limit: int, start_key: StartKey) -> Page:
        """An owner's notifications, newest first: Query `owner = :o AND begins_with(sk, "NOTE#")`, backwards."""
        return read_page(
            ddb.table(self.tables.notification).query, _notification, limit=limit, start_key=start_key,
            KeyConditionExpression=Key("owner").eq(owner) & Key("sk").begins_with(NOTE_PREFIX),
            ScanIndexForward=False,
        )

    # abandoned carts

    def delete_lines(self, cart_id: str) -> int:
        """Delete the lines of a cart whose header is gone: Query `cartId = :id AND begins_with(sk, "LINE#")`
        (keys only), then BatchWriteItem deletes, UnprocessedItems retried with backoff (bounded: ThrottledError,
        a transient failure the stream retries). Safe to repeat: there is nothing left to delete."""
        keys = ddb.table(self.tables.cart).query(
            KeyConditionExpression=Key("cartId").eq(cart_id) & Key("sk").begins_with(LINE_PREFIX),
            ProjectionExpression="cartId, sk", ConsistentRead=True,
        )["Items"]  # at most MAX_LINES small items: one page
        ddb.batch_delete(self.tables.cart, keys)
        return len(keys)

    def count_abandoned(self, cart_id: str, day: str, marker_expires_at: int) -> bool:
        """Count an abandoned cart once: TransactWriteItems of the cart's marker Put (`attribute_not_exists(pk)`)
        and the day's `ADD abandonedCarts 1`. False: it was counted already (a redelivered record)."""
        actions = [
            ("marker", {"Put": {
                "TableName": self.tables.stats,
                "Item": {"pk": abandoned_pk(cart_id), "day": day, "expiresAt": marker_expires_at},
                "ConditionExpression": "attribute_not_exists(pk)",
            }}),
            ("day", {"Update": {
                "TableName": self.tables.stats,
                "Key": {"pk": day_pk(day)},
                "UpdateExpression": "ADD abandonedCarts :one",
                "ExpressionAttributeValues": {":one": 1},
            }}),
        ]
        return ddb.transact_write(actions) is None

    def abandoned_on(self, day: str) -> int:
        """Abandoned carts of a UTC day: GetItem `pk = "DAY#<day>"` (0 when none was counted)."""
        item = ddb.table(self.tables.stats).get_item(Key={"pk": day_pk(day)}).get("Item") or {}
        return int(item.get("abandonedCarts", 0))


# --- helpers ------------------------------------------------------------------------------------------


def _refusal(failed: ddb.ConditionFailed, owner: str, now: datetime, *, sku: str | None = None) -> AppError:
    refusal = header_refusal(failed.item, owner, _epoch(now), sku=sku)
    return refusal or ThrottledError("the cart changed while this request ran; retry")


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def _line(item: Mapping[str, Any]) -> Line:
    return Line(sku=str(item["sku"]), quantity=int(item["quantity"]), updated_at=item["updatedAt"])


def _price(item: Mapping[str, Any]) -> Price:
    return Price(sku=str(item["sku"]), price=Decimal(str(item["price"])), currency=str(item["currency"]),
                 version=int(item["version"]), updated_at=item["updatedAt"])


def _notification(item: Mapping[str, Any]) -> Notification:
    return Notification(
        sku=str(item["sku"]), old_price=Decimal(str(item["oldPrice"])), new_price=Decimal(str(item["newPrice"])),
        currency=str(item["currency"]), old_currency=item.get("oldCurrency"), price_version=int(item["priceVersion"]),
        changed_at=item["changedAt"],
        cart_ids=[str(cart_id) for cart_id in item.get("cartIds", [])],
    )

