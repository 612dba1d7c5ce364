"""Cart table access: one method per access pattern, the only module here that talks to DynamoDB (docs/cart.md).

A cart is one item (docs/adr/0107-cart-one-item-holders-from-the-stream.md), so every rule holds in one request:
- a cart is changed only by its owner, while it is open and not expired: every change is one UpdateItem whose
  condition says so (and which refreshes the TTL);
- a cart holds at most MAX_LINES lines: the same condition refuses a new SKU when `size(lines)` is full;
- clearing and checking out act on every line there is: they are one UpdateItem of the item that holds them;
- a line's SKU must have a price: a read of the price before the write (a price once present stays present: no
  route deletes one, so the check cannot turn false between the read and the write; remembered per container);
- a price change is notified once per (owner, SKU, version), never older after newer: the notification's Put and
  the owner's `lastNotifiedVersion < :version` marker Update are one transaction;
- an abandoned cart is counted once: the per-cart marker's `attribute_not_exists` Put and the day's `ADD` are one
  transaction.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.cart import models
from functions.cart.schema import (
    CART_TABLE,
    CHECKED_OUT,
    HOLDER_SHARDS,
    HOLDER_TABLE,
    MAX_LINES,
    NOTE_PREFIX,
    NOTIFICATION_TABLE,
    OPEN,
    PRICE_TABLE,
    STATS_TABLE,
    abandoned_pk,
    day_pk,
    holder_keys,
    marker_sk,
)
from functions.shared import ddb
from functions.shared.errors import (
    AppError,
    ConflictError,
    NotFoundError,
    ThrottledError,
)
from functions.shared.pages import Page, read_page
from functions.shared.settings import TableName, Tables

StartKey = dict[str, Any] | None
# The condition of any change: the cart exists, is the caller's, is open and has not expired.
_CHANGEABLE = "attribute_exists(cartId) AND #owner = :owner AND #status = :open AND expiresAt > :nowEpoch"
_NAMES = {"#owner": "owner", "#status": "status", "#lines": "lines"}
# A container remembers this many priced SKUs (a price is never deleted, so a SKU once priced stays priced).
PRICED_CACHE_SIZE = 100_000


@dataclass(frozen=True)
class CartRecord:
    """A cart as stored."""

    cart_id: str
    owner: str
    status: str
    created_at: str
    updated_at: str
    expires_at: int
    lines: tuple[models.Line, ...]


class TableNames(Tables):
    """The domain's table names, from the function's settings when first used (a consumer has only some)."""

    cart = TableName(CART_TABLE)
    holder = TableName(HOLDER_TABLE)
    price = TableName(PRICE_TABLE)
    notification = TableName(NOTIFICATION_TABLE)
    stats = TableName(STATS_TABLE)


def visible(record: CartRecord | None, owner: str, now: datetime) -> bool:
    """A caller sees a cart only if it is theirs and has not expired, whether or not TTL has removed it yet."""
    return record is not None and record.owner == owner and record.expires_at > _epoch(now)


def cart_refusal(item: Mapping[str, Any] | None, owner: str, now_epoch: int, *, sku: str | None = None,
                 needs_lines: bool = False) -> AppError | None:
    """Why the cart's condition failed, from the cart as it was (None: it no longer fails; the caller retries).

    Another owner's cart and an expired one are as absent as a missing one: 404, never a hint that it exists."""
    if item is None or item.get("owner") != owner or int(item.get("expiresAt", 0)) <= now_epoch:
        return NotFoundError("no such cart", code="CART_NOT_FOUND")
    if item.get("status") != OPEN:
        return ConflictError("the cart is checked out", code="CART_CHECKED_OUT")
    lines = item.get("lines") or {}
    if sku is not None and sku not in lines and len(lines) >= MAX_LINES:
        return ConflictError(f"a cart holds at most {MAX_LINES} lines", code="CART_FULL")
    if needs_lines and not lines:
        return ConflictError("the cart is empty", code="CART_EMPTY")
    return None


def record_of(item: Mapping[str, Any]) -> CartRecord:
    """The cart an item (a read, a write's ALL_NEW / ALL_OLD, a stream image) holds."""
    lines = item.get("lines") or {}
    return CartRecord(
        cart_id=str(item["cartId"]), owner=str(item["owner"]), status=str(item["status"]),
        created_at=str(item["createdAt"]), updated_at=str(item["updatedAt"]), expires_at=int(item["expiresAt"]),
        lines=tuple(models.Line(sku=str(sku), quantity=int(line["quantity"]), updated_at=line["updatedAt"])
                    for sku, line in sorted(lines.items())),
    )


class CartRepository:
    def __init__(self, tables: TableNames):
        self.tables = tables
        self._priced: set[str] = set()

    # carts

    def create_cart(self, cart_id: str, owner: str, now: datetime, expires_at: int) -> None:
        """Create an empty open cart: PutItem `attribute_not_exists(cartId)`."""
        ddb.put_new(ddb.table(self.tables.cart), {
            "cartId": cart_id, "owner": owner, "status": OPEN, "lines": {},
            "createdAt": now.isoformat(), "updatedAt": now.isoformat(), "expiresAt": expires_at,
        }, "attribute_not_exists(cartId)")

    def get_cart(self, cart_id: str) -> CartRecord | None:
        """A cart: GetItem `cartId = :id`, eventually consistent as the seed's (every write answers the cart it wrote:
        a caller never needs a read to see its own change). None when there is none."""
        item = ddb.table(self.tables.cart).get_item(Key={"cartId": cart_id}).get("Item")
        return None if item is None else record_of(item)

    def visible_cart(self, cart_id: str, owner: str, now: datetime) -> CartRecord:
        """A cart its owner sees (`get_cart`, `visible`); another owner's, an expired or a missing one is 404
        CART_NOT_FOUND alike."""
        record = self.get_cart(cart_id)
        if record is None or not visible(record, owner, now):
            raise NotFoundError(f"no cart {cart_id}", code="CART_NOT_FOUND")
        return record

    def set_line(self, cart_id: str, owner: str, sku: str, quantity: int, *, now: datetime,
                 expires_at: int) -> CartRecord:
        """Set a line's quantity: the SKU's price checked (`priced`), then UpdateItem `SET lines.<sku>` (changeable,
        room for a new SKU: `size(lines) < 50 OR attribute_exists(lines.<sku>)`; TTL refreshed). Answers the cart
        as written (ALL_NEW)."""
        if not self.priced(sku):
            raise NotFoundError(f"no price for SKU {sku}: only priced SKUs go in a cart", code="SKU_NOT_FOUND")
        return self._change(
            cart_id, owner, now, expires_at, sku=sku, set_="#lines.#sku = :line",
            condition=f"{_CHANGEABLE} AND (size(#lines) < :max OR attribute_exists(#lines.#sku))",
            values={":line": {"quantity": quantity, "updatedAt": now.isoformat()}, ":max": MAX_LINES},
        )

    def remove_line(self, cart_id: str, owner: str, sku: str, now: datetime, expires_at: int) -> None:
        """Remove a line: UpdateItem `REMOVE lines.<sku>` (changeable; TTL refreshed). Removing a line that is not
        there changes nothing but the TTL (safe to repeat)."""
        self._change(cart_id, owner, now, expires_at, remove="#lines.#sku", condition=_CHANGEABLE, sku=sku,
                     adds_sku=False)

    def clear(self, cart_id: str, owner: str, now: datetime, expires_at: int) -> None:
        """Clear a cart: UpdateItem `SET lines = {}` (changeable; TTL refreshed): every line there is, at once."""
        self._change(cart_id, owner, now, expires_at, set_="#lines = :empty", condition=_CHANGEABLE,
                     values={":empty": {}})

    def check_out(self, cart_id: str, owner: str, now: datetime, expires_at: int) -> CartRecord:
        """Check out: UpdateItem `SET status = CHECKED_OUT` (changeable, `size(lines) > 0`; TTL refreshed). A cart
        checked out already is answered as it is (safe to repeat)."""
        try:
            return self._change(cart_id, owner, now, expires_at, set_="#status = :checkedOut",
                                condition=f"{_CHANGEABLE} AND size(#lines) > :zero",
                                values={":checkedOut": CHECKED_OUT, ":zero": 0}, needs_lines=True)
        except _CheckedOut as done:
            return done.record

    def _change(self, cart_id: str, owner: str, now: datetime, expires_at: int, *, condition: str, set_: str = "",
                remove: str = "", values: Mapping[str, Any] | None = None, sku: str | None = None,
                adds_sku: bool = True, needs_lines: bool = False) -> CartRecord:
        """Every change: one UpdateItem under `condition`, the TTL refreshed, the cart as written answered (ALL_NEW);
        a failed condition is named from the cart as it was (ALL_OLD), never by a second read."""
        stamp = now.isoformat()
        expression = "SET " + ", ".join(c for c in (set_, "updatedAt = :now", "expiresAt = :expires") if c)
        expression += f" REMOVE {remove}" if remove else ""
        names = {**_NAMES, **({"#sku": sku} if sku is not None else {})}
        used = f"{expression} {condition}"
        try:
            item = ddb.update_conditional(
                ddb.table(self.tables.cart), mark={"updatedAt": stamp},
                Key={"cartId": cart_id}, UpdateExpression=expression, ConditionExpression=condition,
                ExpressionAttributeNames={k: v for k, v in names.items() if k in used},
                ExpressionAttributeValues={":owner": owner, ":open": OPEN, ":nowEpoch": _epoch(now), ":now": stamp,
                                           ":expires": expires_at, **(values or {})},
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            old = ddb.refused_item(error)
            refusal = cart_refusal(old, owner, _epoch(now), sku=sku if adds_sku else None, needs_lines=needs_lines)
            if needs_lines and old is not None and isinstance(refusal, ConflictError) and (
                    refusal.code == "CART_CHECKED_OUT"):
                raise _CheckedOut(record_of(old)) from error
            raise (refusal or ThrottledError("the cart changed while this request ran; retry")) from error
        return record_of(item)

    # prices

    def priced(self, sku: str) -> bool:
        """Whether a SKU has a price. A price is never deleted, so a yes is remembered for the container's life and
        the check needs no part in the cart's write; a no is asked again every time. GetItem eventually consistent,
        then strongly consistent before a no (a price set a moment ago is not refused)."""
        if sku in self._priced:
            return True
        table = ddb.table(self.tables.price)
        found = any("Item" in table.get_item(Key={"sku": sku}, ProjectionExpression="sku", ConsistentRead=consistent)
                    for consistent in (False, True))
        if found:
            if len(self._priced) >= PRICED_CACHE_SIZE:
                self._priced.clear()
            self._priced.add(sku)
        return found

    def put_price(self, sku: str, price: Decimal, currency: str, now: datetime) -> tuple[models.Price, bool]:
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

    def get_price(self, sku: str, *, consistent: bool = False) -> models.Price | None:
        """A SKU's price: GetItem `sku = :sku`."""
        item = ddb.table(self.tables.price).get_item(Key={"sku": sku}, ConsistentRead=consistent).get("Item")
        return None if item is None else _price(item)

    def prices_of(self, skus: Sequence[str]) -> list[models.Price]:
        """The current prices of these SKUs, by SKU: BatchGetItem (100 keys a call; a cart holds at most 50). A price
        is never deleted, so a SKU in a cart has one."""
        keys = [{"sku": sku} for sku in ddb.unique(skus)]
        items = ddb.batch_get(self.tables.price, keys) if keys else []
        return sorted((_price(item) for item in items), key=lambda price: price.sku)

    # the holder index (kept from the Carts stream by holder_index.py)

    def put_holders(self, items: Sequence[Mapping[str, Any]]) -> None:
        """Write holder items: BatchWriteItem puts, 25 a call, UnprocessedItems retried with backoff (bounded:
        ThrottledError, a transient failure the stream retries). Safe to repeat: a put of the same item again."""
        unique = {(str(item["holder"]), str(item["cartId"])): item for item in items}
        _batch_put(self.tables.holder, list(unique.values()))

    def carts_holding(self, sku: str, shards: int = HOLDER_SHARDS) -> list[str]:
        """The carts that may hold a SKU: Query `holder = "<sku>#<n>"` for each shard n, every page (cost grows with
        those carts only). A superset: holders age out by TTL, the notifier reads the carts themselves."""
        table = ddb.table(self.tables.holder)
        cart_ids: list[str] = []
        for key in holder_keys(sku, shards):
            query: dict[str, Any] = {"KeyConditionExpression": Key("holder").eq(key), "ProjectionExpression": "cartId"}
            while True:
                response = table.query(**query)
                cart_ids += [str(item["cartId"]) for item in response.get("Items", [])]
                if "LastEvaluatedKey" not in response:
                    break
                query["ExclusiveStartKey"] = response["LastEvaluatedKey"]
        return cart_ids

    def live_holders(self, cart_ids: Sequence[str], sku: str, now_epoch: int) -> dict[str, str]:
        """Of these carts, the open ones that have not expired and hold the SKU now, with their owners: BatchGetItem
        of the carts (the holder index is a superset, kept behind the carts by the stream)."""
        keys = [{"cartId": cart_id} for cart_id in ddb.unique(cart_ids)]
        carts = ddb.batch_get(self.tables.cart, keys) if keys else []
        return {
            str(cart["cartId"]): str(cart["owner"])
            for cart in carts
            if cart.get("status") == OPEN and int(cart.get("expiresAt", 0)) > now_epoch
            and sku in (cart.get("lines") or {})
        }

    # price-change notifications

    def notified_owners(self, sku: str, owners: Sequence[str], version: int) -> set[str]:
        """Of these owners, those whose (owner, SKU) marker holds `version` or a newer one: BatchGetItem of the
        markers (eventually consistent, 100 keys a call)."""
        keys = [{"owner": owner, "sk": marker_sk(sku)} for owner in ddb.unique(owners)]
        return {
            str(item["owner"]) for item in ddb.batch_get(self.tables.notification, keys)
            if int(item.get("lastNotifiedVersion", 0)) >= version
        }

    def notify(self, owner: str, note: models.Notification, note_key: str) -> bool:
        """Notify an owner of a price change once: TransactWriteItems of the (owner, SKU) marker Update
        `lastNotifiedVersion < :version` and the notification's Put. False: this version or a newer one was
        notified already (a redelivered or out-of-order record), nothing written."""
        item = {
            "owner": owner, "sk": note_key, "sku": note.sku, "oldPrice": note.old_price, "newPrice": note.new_price,
            "currency": note.currency, "oldCurrency": note.old_currency, "priceVersion": note.price_version,
            "changedAt": note.changed_at.isoformat(), "cartIds": list(note.cart_ids),
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
        item: Mapping[str, Any] = ddb.table(self.tables.stats).get_item(Key={"pk": day_pk(day)}).get("Item") or {}
        return int(item.get("abandonedCarts", 0))


# --- helpers ------------------------------------------------------------------------------------------


class _CheckedOut(Exception):
    """A checkout met a cart checked out already: answered as it is."""

    def __init__(self, record: CartRecord) -> None:
        super().__init__(record.cart_id)
        self.record = record


def _batch_put(table_name: str, items: Iterable[Mapping[str, Any]]) -> None:
    """BatchWriteItem puts, as functions/shared/ddb.py's batch_delete does deletes (chunks of 25, bounded retries of
    UnprocessedItems after a jittered exponential backoff, as AWS asks of BatchWriteItem callers)."""
    items = list(items)
    for start in range(0, len(items), ddb.BATCH_WRITE_MAX_ITEMS):
        chunk = items[start: start + ddb.BATCH_WRITE_MAX_ITEMS]
        pending: dict[str, Any] = {table_name: [{"PutRequest": {"Item": dict(item)}} for item in chunk]}
        for attempt in range(ddb.BATCH_WRITE_ROUNDS):
            if attempt:
                time.sleep(random.uniform(0, ddb.BATCH_BACKOFF_SECONDS * 2**attempt))  # noqa: S311 (jitter)
            pending = ddb.resource().batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if not pending:
                break
        else:
            raise ddb.throttled("The database is busy; retry with backoff (what was written stays written).")


def _epoch(moment: datetime) -> int:
    return int(moment.timestamp())


def _price(item: Mapping[str, Any]) -> models.Price:
    return models.Price(sku=str(item["sku"]), price=Decimal(str(item["price"])), currency=str(item["currency"]),
                 version=int(item["version"]), updated_at=item["updatedAt"])


def _notification(item: Mapping[str, Any]) -> models.Notification:
    return models.Notification(
        sku=str(item["sku"]), old_price=Decimal(str(item["oldPrice"])), new_price=Decimal(str(item["newPrice"])),
        currency=str(item["currency"]), old_currency=item.get("oldCurrency"), price_version=int(item["priceVersion"]),
        changed_at=item["changedAt"],
        cart_ids=[str(cart_id) for cart_id in item.get("cartIds", [])],
    )
