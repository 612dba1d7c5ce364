"""Price-change notifications without the seed's daily Scan: the Prices stream → the carts that hold the SKU.

For each MODIFY of a price whose amount or currency changed:
1. Query the holder index on each of the SKU's HOLDER_SHARDS keys (`<sku>#<n>`, every page): the carts that held it
   since their holders were written (holder_index.py keeps them from the Carts stream), so the read grows with
   those carts, not with all carts;
2. BatchGetItem those carts: only open carts that have not expired and hold the SKU now count (the index is a
   superset: a removed line, a checked-out or expired cart keep their holders until the holders' TTL);
3. per owner, one transaction (NOTIFY_WORKERS owners at a time): the notification's Put and the (owner, SKU) marker
   `lastNotifiedVersion < :version`.
   A redelivered record (same version) or an older one arriving after a newer one fails the condition for that
   owner and writes nothing: each owner is notified once per version, never of an older price after a newer one.
A failure between owners leaves the done ones marked: the retried record notifies only the rest.

INSERT is ignored (a cart holds only priced SKUs, so no cart holds a SKU that had no price), as is REMOVE (no route
deletes a price). A MODIFY without a usable sku, price or version can never be applied: it is parked
(functions/shared/parked.py) and the batch goes on.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from aws_lambda_powertools.utilities.batch import process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
    DynamoDBRecordEventName,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.cart.models import Notification
from functions.cart.repository import CartRepository, TableNames
from functions.cart.schema import note_sk
from functions.shared import parked
from functions.shared.container import per_container
from functions.shared.handler import consumer_handler
from functions.shared.observability import logger, metrics
from functions.shared.parked import PermanentRecordError
from functions.shared.settings import settings

CONSUMER = "cart.price-notifier"  # its partition in the parked-records table: never rename

processor = parked.ParkingBatchProcessor(CONSUMER)
NOTIFY_WORKERS = 8  # owners notified at a time (one transaction each)


@per_container
def repository() -> CartRepository:
    return CartRepository(TableNames(settings()))


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class PriceChange:
    sku: str
    old_price: Decimal
    new_price: Decimal
    currency: str
    old_currency: str  # the price's currency before the change: a change of currency alone is a change too
    version: int
    changed_at: str  # the new image's updatedAt (ISO-8601): the same for every delivery of the record


def price_change(record: DynamoDBRecord) -> PriceChange | None:
    """The change a record announces, or None when it announces none that a cart owner must hear of."""
    # The mapping's filter (PRICE_CHANGES in infra/domains/cart.py) drops INSERT and REMOVE before any invocation;
    # checked here too, for a record that reaches the handler some other way (a replay, a mapping without it).
    if record.event_name != DynamoDBRecordEventName.MODIFY or record.dynamodb is None:
        return None
    old, new = record.dynamodb.old_image, record.dynamodb.new_image
    try:
        change = PriceChange(
            sku=_text(new, "sku"), old_price=_money(old, "price"), new_price=_money(new, "price"),
            currency=_text(new, "currency"), old_currency=_text(old, "currency"), version=int(new["version"]),
            changed_at=_text(new, "updatedAt"),
        )
    except (KeyError, TypeError, ValueError, InvalidOperation) as error:
        raise PermanentRecordError(f"not a price change: {error!r}") from error
    if change.old_price == change.new_price and change.old_currency == change.currency:
        return None
    try:  # what every owner's notification will be, refused here rather than once per owner: parked, not retried
        note_of(change, [])
    except ValueError as error:  # pydantic's ValidationError is a ValueError
        raise PermanentRecordError(f"no notification can be made of it: {error!r}") from error
    return change


def note_of(change: PriceChange, cart_ids: list[str]) -> Notification:
    return Notification(
        sku=change.sku, old_price=change.old_price, new_price=change.new_price, currency=change.currency,
        old_currency=change.old_currency, price_version=change.version, changed_at=change.changed_at, cart_ids=cart_ids,  # type: ignore[arg-type]
    )


def notify_holders(change: PriceChange, now: datetime) -> int:
    """Notify each owner of an open, unexpired cart holding the SKU, once; returns how many were notified now.

    Owners whose marker already holds this version (or a newer one) are skipped after one BatchGetItem of the
    markers, before any transaction: a retry after a timeout then spends its time on the owners still to notify,
    instead of failing one transaction per owner already done and reaching the same one again before its timeout.
    The read is eventually consistent: a marker it misses only costs that owner's transaction its condition."""
    holders = repository().carts_holding(change.sku)
    live = repository().live_holders(holders, change.sku, int(now.timestamp()))
    carts_of: dict[str, list[str]] = {}
    for cart_id, owner in sorted(live.items()):
        carts_of.setdefault(owner, []).append(cart_id)
    done = repository().notified_owners(change.sku, list(carts_of), change.version) if carts_of else set()
    pending = [(owner, cart_ids) for owner, cart_ids in sorted(carts_of.items()) if owner not in done]
    key, notifier = note_sk(change.changed_at, change.sku), repository()

    def notify(owner_carts: tuple[str, list[str]]) -> bool:
        return notifier.notify(owner_carts[0], note_of(change, owner_carts[1]), key)

    # Owners are independent (each one's marker and notification are its own transaction): up to NOTIFY_WORKERS at
    # a time, so a SKU in thousands of carts is notified within seconds (the boto3 client is thread-safe).
    workers = min(NOTIFY_WORKERS, len(pending))
    if workers > 1:
        # Each owner's transaction runs in the invocation's context (a copy each), as order entry's parallel queries
        # do: what the invocation set there (the logger's keys, the tests' IAM role) holds in the worker threads too.
        contexts = [contextvars.copy_context() for _ in pending]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            notified = sum(pool.map(lambda ctx, owner_carts: ctx.run(notify, owner_carts), contexts, pending))
    else:
        notified = sum(map(notify, pending))
    if notified:
        metrics.add_metric(name="PriceChangeNotifications", unit="Count", value=notified)
    logger.debug("price change", extra={"sku": change.sku, "version": change.version, "holders": len(holders),
                                        "live": len(live), "done before": len(done), "notified": notified})
    return notified


def record_handler(record: DynamoDBRecord) -> str:
    change = price_change(record)
    if change is None:
        return "ignored"
    return f"notified {notify_holders(change, utc_now())}"


def process(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


def replay_record(item: parked.ParkedRecord) -> str:
    """Apply a parked record again (raises while it still cannot be applied), then mark it replayed. Notifying is
    safe to repeat, so a crash between the two only finds every owner already notified."""
    record_handler(DynamoDBRecord(item.record))
    replayed = parked.ParkedRecords(CONSUMER).mark(item.position, parked.REPLAYED)
    return "replayed" if replayed else "already-replayed"


def replay(request: Mapping[str, Any]) -> dict:
    return parked.replay(parked.ParkedRecords(CONSUMER), request, replay_record)


def _text(image: Mapping[str, Any], name: str) -> str:
    value = image[name]
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} is not a non-empty string")
    return value


def _money(image: Mapping[str, Any], name: str) -> Decimal:
    value = image[name]
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        raise TypeError(f"{name} is not a number")
    return Decimal(value)


lambda_handler = consumer_handler(process, replay)
