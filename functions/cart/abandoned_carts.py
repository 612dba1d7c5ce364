"""The Carts stream's consumer: abandoned carts counted, and the holder index kept (holder_index.py).

One consumer does both: "no more than two processes at most should be reading from the same streams shard at the
same time" (developer guide, "Change data capture for DynamoDB Streams"), and the price notifier's source is the
Prices stream, so the Carts stream keeps one reader. An open cart's INSERT or MODIFY goes to the holder index
(holder_index.py says what it writes); a REMOVE to the count below.

A REMOVE of a cart (one item: its lines go with it; its holders age out by their own TTL, holder_index.py) is
counted as abandoned only when DynamoDB's TTL removed it — the record's `userIdentity` is
`{"type": "Service", "principalId": "dynamodb.amazonaws.com"}` ("DynamoDB Streams and Time to Live" in the
developer guide) — and the cart was still OPEN (a checked-out cart that ages out was bought, not abandoned).
Any other delete (no userIdentity: a person's or a program's DeleteItem) is not counted.
The count is per UTC day of the cart's expiry (`expiresAt` in the old image: the same on every delivery), once
per cart: the cart's marker (`attribute_not_exists`) and the day's `ADD` are one transaction.

A REMOVE without a usable cartId can never be applied: it is parked and the batch goes on. One by TTL without an old
image (a stream not configured as this code expects) cannot say whether the cart was abandoned, nor on which day: it
is parked, uncounted.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.batch import process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
    StreamRecord,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.cart import holder_index
from functions.cart.repository import CartRepository, TableNames
from functions.cart.schema import ABANDONED_MARKER_SECONDS, OPEN
from functions.shared import parked
from functions.shared.container import per_container
from functions.shared.handler import consumer_handler
from functions.shared.observability import logger, metrics
from functions.shared.parked import PermanentRecordError
from functions.shared.settings import settings

CONSUMER = "cart.abandoned-carts"  # its partition in the parked-records table: never rename
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}

processor = parked.ParkingBatchProcessor(CONSUMER)


@per_container
def repository() -> CartRepository:
    return CartRepository(TableNames(settings()))


def removed_by_ttl(raw: Mapping[str, Any]) -> bool:
    """DynamoDB's TTL deletions, and only they, carry the service's identity in the stream record."""
    identity = raw.get("userIdentity") or {}
    return all(identity.get(name) == value for name, value in TTL_IDENTITY.items())


def expiry_day(old_image: Mapping[str, Any]) -> str:
    try:
        return datetime.fromtimestamp(int(old_image["expiresAt"]), UTC).date().isoformat()
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise PermanentRecordError(f"the removed cart has no usable expiresAt: {error!r}") from error


def record_handler(record: DynamoDBRecord) -> str:
    # The mapping's filters (CART_REMOVALS, OPEN_CART_WRITES in infra/domains/cart.py) already drop a checked-out
    # cart's writes; the checks stay for a record that reaches the handler some other way (a replay, no filter).
    if record.dynamodb is None:
        return "ignored"
    if record.event_name != DynamoDBRecordEventName.REMOVE:
        return holder_index.index(repository(), record)
    return count(record, record.dynamodb)


def count(record: DynamoDBRecord, change: StreamRecord) -> str:
    """Count a TTL removal of an open cart, once."""
    cart_id = change.keys.get("cartId")
    if not isinstance(cart_id, str) or not cart_id:
        raise PermanentRecordError("the record has no cartId key")
    if not removed_by_ttl(record.raw_event):
        return "not a TTL removal"
    old = change.old_image
    if not old:  # whether it was abandoned (open) and on which day cannot be known: parked, uncounted
        raise PermanentRecordError("the REMOVE record has no old image (the stream must carry old images)")
    if old.get("status") != OPEN:
        return f"not abandoned ({old.get('status')})"
    counted = repository().count_abandoned(cart_id, expiry_day(old), int(time.time()) + ABANDONED_MARKER_SECONDS)
    if counted:
        metrics.add_metric(name="AbandonedCarts", unit="Count", value=1)
    logger.debug("cart removed by TTL", extra={"cartId": cart_id, "counted": counted})
    return "counted" if counted else "counted before"


def process(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


def replay_record(item: parked.ParkedRecord) -> str:
    """Apply a parked record again (raises while it still cannot be applied), then mark it replayed."""
    record_handler(DynamoDBRecord(item.record))
    replayed = parked.ParkedRecords(CONSUMER).mark(item.position, parked.REPLAYED)
    return "replayed" if replayed else "already-replayed"


def replay(request: Mapping[str, Any]) -> dict:
    return parked.replay(parked.ParkedRecords(CONSUMER), request, replay_record)


lambda_handler = consumer_handler(process, replay)
