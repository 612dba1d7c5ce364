"""The holder index (docs/adr/0107-cart-one-item-holders-from-the-stream.md): the Carts stream -> CartHolders.

Applied by the Carts stream's one consumer (abandoned_carts.py: a shard takes two readers at most, so the Carts
stream keeps one consumer doing both of its jobs).

A GSI cannot index the keys of a cart's `lines` map, so "which carts hold this SKU" is kept here, from each cart's
INSERT and MODIFY (new and old images):
- a SKU the new image holds and the old one did not (a line added; every line of a cart written whole, as a
  migration writes it) gets a holder item, `<sku>#<n>` + cartId (n = hash(cartId) mod HOLDER_SHARDS, so a popular
  SKU is spread over N keys), expiring past the cart's own expiry (`holder_expiry`);
- when a change moves the cart's expiry into a later week (`holder_bucket`), every SKU it holds gets its holder
  again, with the later expiry: the old ones still run for a day at least, so the index never loses an open cart.
Nothing else is written: a removed line, a cleared or checked-out cart and an expired one keep their holders until
the holders' TTL; the notifier reads each cart before it notifies anyone (a holder is a hint, the cart the truth).
Only open carts' SKUs are indexed. Every write is a put of a whole item derived from the record: safe to repeat.
A record without usable images can never be applied: PermanentRecordError (the consumer parks it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)

from functions.cart.repository import CartRepository
from functions.cart.schema import OPEN, holder_bucket, holder_item
from functions.shared.observability import logger, metrics
from functions.shared.parked import PermanentRecordError


def holders_to_write(record: DynamoDBRecord) -> list[dict[str, Any]]:
    """The holder items a cart record calls for (none for a REMOVE, a closed cart or a change of quantities)."""
    if record.event_name not in (DynamoDBRecordEventName.INSERT, DynamoDBRecordEventName.MODIFY) or (
            record.dynamodb is None):
        return []
    new, old = record.dynamodb.new_image, record.dynamodb.old_image or {}
    try:
        cart_id, status, expires_at = new["cartId"], new["status"], int(new["expiresAt"])
        skus, old_skus = set(_lines(new)), set(_lines(old)) if old else set()
        moved = bool(old) and holder_bucket(expires_at) != holder_bucket(int(old["expiresAt"]))
    except (KeyError, TypeError, ValueError) as error:
        raise PermanentRecordError(f"not a cart image: {error!r}") from error
    if not isinstance(cart_id, str) or not cart_id:
        raise PermanentRecordError("the image has no cartId")
    if status != OPEN:
        return []
    wanted = skus if moved else skus - old_skus
    return [holder_item(sku, cart_id, expires_at) for sku in sorted(wanted)]


def _lines(image: Mapping[str, Any]) -> Mapping[str, Any]:
    lines = image.get("lines") or {}
    if not isinstance(lines, Mapping):
        raise TypeError("lines is not a map")
    return lines


def index(repository: CartRepository, record: DynamoDBRecord) -> str:
    """Write the holders a cart record calls for."""
    items = holders_to_write(record)
    if not items:
        return "ignored"
    repository.put_holders(items)
    metrics.add_metric(name="CartHoldersWritten", unit="Count", value=len(items))
    logger.debug("holders written", extra={"holders": [item["holder"] for item in items]})
    return f"wrote {len(items)} holders"
