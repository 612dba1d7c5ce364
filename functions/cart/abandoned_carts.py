"""Abandoned carts: what TTL removes reaches this consumer through the Carts stream.

A REMOVE of a cart header (`sk = "#cart"`):
- always: its lines are deleted (they carry no TTL of their own; a Query of the cart's `LINE#` items, then a
  BatchWriteItem of deletes — safe to repeat, a redelivery finds nothing left);
- counted as abandoned only when DynamoDB's TTL removed it — the record's `userIdentity` is
  `{"type": "Service", "principalId": "dynamodb.amazonaws.com"}` ("DynamoDB Streams and Time to Live" in the
  developer guide) — and the cart was still OPEN (a checked-out cart that ages out was bought, not abandoned).
  Any other delete (no userIdentity: a person's or a program's DeleteItem) is not counted.
  The count is per UTC day of the cart's expiry (`expiresAt` in the old image: the same on every delivery), once
  per cart: the cart's marker (`attribute_not_exists`) and the day's `ADD` are one transaction.

A header REMOVE without a usable cartId can never be applied: it is parked and the batch goes on. One by TTL without
an old image (a stream not configured as this code expects) still has its lines deleted, which needs only the key;
whether to count it cannot be known, so it is parked, uncounted.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from aws_lambda_powertools.utilities.batch import process_partial_response
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.cart.repository import CartRepository, TableNames
from functions.cart.schema import ABANDONED_MARKER_SECONDS, HEADER_SK, OPEN
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
        raise PermanentRecordError(f"the removed header has no usable expiresAt: {error!r}") from error


def record_handler(record: DynamoDBRecord) -> str:
    # The mapping's filter (HEADER_REMOVALS in infra/domains/cart.py) already drops everything but a header's REMOVE;
    # these checks stay for a record that reaches the handler some other way (a replay, a mapping without it).
    if record.event_name != DynamoDBRecordEventName.REMOVE or record.dynamodb is None:
        return "ignored"
    keys = record.dynamodb.keys
    if keys.get("sk") != HEADER_SK:
        return "ignored"  # a line: deleted here or by a user
    cart_id = keys.get("cartId")
    if not isinstance(cart_id, str) or not cart_id:
        raise PermanentRecordError("the record has no cartId key")
    deleted = repository().delete_lines(cart_id)  # the key is enough: the header is gone, whatever its image says
    if not removed_by_ttl(record.raw_event):
        return f"deleted {deleted} lines; not a TTL removal"
    old = record.dynamodb.old_image
    if not old:  # whether it was abandoned (open) and on which day cannot be known: parked, uncounted
        raise PermanentRecordError("the REMOVE record has no old image (the stream must be OLD_IMAGE)")
    if old.get("status") != OPEN:
        return f"deleted {deleted} lines; not abandoned ({old.get('status')})"
    counted = repository().count_abandoned(cart_id, expiry_day(old), int(time.time()) + ABANDONED_MARKER_SECONDS)
    if counted:
        metrics.add_metric(name="AbandonedCarts", unit="Count", value=1)
    logger.debug("cart removed by TTL", extra={"cartId": cart_id, "lines": deleted, "counted": counted})
    return f"deleted {deleted} lines; {'counted' if counted else 'counted before'}"


def process(event: dict, context: LambdaContext) -> dict:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


def replay_record(item: parked.ParkedRecord) -> str:
    """Apply a parked record again (raises while it still cannot be applied), then mark it replayed."""
    record_handler(DynamoDBRecord(item.record))
    replayed = parked.ParkedRecords(CONSUMER).mark(item.position, parked.REPLAYED)
    return "replayed" if replayed else "already-replayed"


def replay(request: Mapping[str, Any]) -> dict:
    return parked.replay(parked.ParkedRecords(CONSUMER), request, replay_record)


lambda_handler = consumer_handler(process, replay)
