"""Cart: a header and its line items become one item (docs/adr/0107-cart-one-item-holders-from-the-stream.md). What an
upgrade of a deployed stage does:

- Carts' key schema changed (`cartId`, `sk` -> `cartId`): the deploy replaces the table (its old physical table is
  retained, with its items and its CartsBySkuIndex) and creates the Carts stream's mapping on the new table's stream.
  The new API answers 404 for every cart until this migration has copied it.
- This migration reads the old table's headers (`sk = "#cart"`) and, for each, Queries its line items
  (`LINE#<sku>`, strongly consistent): the new item holds the header's owner, status, times and expiry, and a
  `lines` map of every line's quantity and time. The header's `skus` set and `version` are not carried (the map's
  keys are the set; one item needs no version). Line items are not copied on their own (their header copies them);
  a line whose header is gone (removed by TTL, its lines not yet swept) is dropped, as the old consumer would have.
- An open cart's SKUs get their holder items (CartHolders) at once, so a price change notifies its owner even before
  the Carts stream's consumer has seen the copy; the copy's INSERT on the new stream makes that consumer write the
  same holders again (a put of the same item: harmless), and a checked-out cart's INSERT is dropped by its filter.
  An INSERT is never counted as abandoned.
- A cart expired but not yet removed by TTL is copied as it is: the new table's TTL removes it and the consumer counts
  it abandoned then (the old table's stream has no consumer any more, so it is counted once, on its expiry day).
- A cart changed through the new API before its copy (impossible for an existing cart: the API answers 404 until it
  is copied; a new cart has a new id) would win: the copy is conditioned on the item not existing.
- Prices, notifications and abandoned counts keep their tables and keys: nothing to do.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Key

from functions.cart.schema import CART_TABLE, HOLDER_TABLE, OPEN, holder_item
from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec
from tools.migrations import Migration

OLD_HEADER_SK = "#cart"
OLD_LINE_PREFIX = "LINE#"

# Carts before ADR 0107: a header and one item per line, the sparse CartsBySkuIndex on open carts' lines.
OLD_CART_TABLE = TableSpec(
    CART_TABLE.construct_id,
    partition_key=KeyAttribute("cartId"),
    sort_key=KeyAttribute("sk"),
    indexes=(IndexSpec("CartsBySkuIndex", KeyAttribute("lineSku"), KeyAttribute("cartId"), projection=("owner",)),),
    ttl_attribute="expiresAt",
    stream_view="OLD_IMAGE",
)


def cart_of(header: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The new layout's item for an old header and its line items."""
    return {
        "cartId": header["cartId"], "owner": header["owner"], "status": header["status"],
        "lines": {str(line["sku"]): {"quantity": line["quantity"], "updatedAt": line["updatedAt"]} for line in lines},
        "createdAt": header["createdAt"], "updatedAt": header["updatedAt"], "expiresAt": header["expiresAt"],
    }


def header_into_one_item(old: dict[str, Any], *, source: Any) -> list[tuple[str, dict[str, Any]]]:
    """An old header -> the cart as one item, and an open cart's holders; a line -> nothing (its header carries it)."""
    if old.get("sk") != OLD_HEADER_SK:
        return []
    lines: list[dict[str, Any]] = []
    query: dict[str, Any] = {"KeyConditionExpression": Key("cartId").eq(old["cartId"])
                             & Key("sk").begins_with(OLD_LINE_PREFIX), "ConsistentRead": True}
    while True:  # at most 50 small lines: one page, but a page is never assumed
        page = source.query(**query)
        lines += page.get("Items", [])
        if "LastEvaluatedKey" not in page:
            break
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    cart = cart_of(old, lines)
    out = [(CART_TABLE.construct_id, cart)]
    if cart["status"] == OPEN:
        out += [(HOLDER_TABLE.construct_id, holder_item(sku, cart["cartId"], int(cart["expiresAt"])))
                for sku in sorted(cart["lines"])]
    return out


MIGRATIONS = [
    Migration(
        name="cart headers and lines into one item",
        table=CART_TABLE.construct_id,
        old=OLD_CART_TABLE,
        transform=header_into_one_item,  # type: ignore[arg-type]  # called with source= (reads_source)
        reads_source=True,
    ),
]
