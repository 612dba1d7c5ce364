"""Keeps `Customer.isActive` true exactly when the customer has at least one active registration.

The Registration stream (KEYS_ONLY) says whose registrations changed; the consumer never trusts a record's
content or order. For each record it recomputes the truth:
1. read the customer, strongly consistent, and note its `regVersion` (every registration write bumps it in the
   same transaction as the registration);
2. Query the customer's registrations, strongly consistent (a key read bounded by that customer's registrations);
3. write `isActive` (and the sparse index's `activeShard`, "1#<n>") only if `regVersion` is still what step 1 saw.
   Nothing else: a registration write that leaves the customer as active as before writes no index entry (ADR 0109).
If a registration changed in between, the condition fails and we start again; that change's own stream record
is also on its way. So the flag converges to the truth whatever the redeliveries, the order across shards, or
two registrations of one customer changing at once: a stale computation can never overwrite a newer one.
Every write is safe to repeat (it sets the truth; it never adds).

Poison records (functions/shared/parked.py): a record without a `username` key, or whose customer does not exist
(registrations are only written by the API for existing customers, so such a record was written around it and can
never apply until an operator creates the customer), is parked with its content and the batch goes on. Throttling,
5xx and a race that outlasted MAX_ATTEMPTS are transient: reported in `batchItemFailures` for Lambda to retry.
`{"replay": {...}}` (make replay) syncs each pending parked record's customer again and marks it replayed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.utilities.batch import process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
    DynamoDBRecord,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.connected_car.repository import ConnectedCarRepository, TableNames
from functions.shared import parked
from functions.shared.container import per_container
from functions.shared.handler import consumer_handler
from functions.shared.observability import logger, metrics
from functions.shared.parked import PermanentRecordError
from functions.shared.settings import settings

CONSUMER = "connected-car.active-customers"  # its partition in the parked-records table: never rename
MAX_ATTEMPTS = 5

processor = parked.ParkingBatchProcessor(CONSUMER)
# Customers already synced by this invocation: a sync reads the state after every write of the batch, so a
# second record of the same customer in the batch has nothing to add.
_synced: set[str] = set()


@per_container
def repository() -> ConnectedCarRepository:
    return ConnectedCarRepository(TableNames(settings()))


def sync_customer(username: str) -> str:
    """Make the customer's isActive match their registrations; returns what happened (for logs and tests)."""
    for _ in range(MAX_ATTEMPTS):
        customer = repository().customer_activity(username)
        if customer is None:
            # Registrations are only written by the API for existing customers, who are never deleted: this record
            # was written around the API, and cannot apply until an operator creates the customer.
            raise PermanentRecordError(f"customer {username!r} does not exist")
        active = repository().has_active_registration(username)
        if customer.settled(active):
            return "unchanged"
        if repository().set_customer_active(username, active, customer.reg_version):
            metrics.add_metric(name="CustomerActiveChanged", unit="Count", value=1)
            return "activated" if active else "deactivated"
        logger.info("registrations changed while syncing; reading again", extra={"username": username})
    # Still racing after MAX_ATTEMPTS: fail the record, so Lambda retries it (or the later change's record wins).
    raise RuntimeError(f"registrations of {username} kept changing while syncing isActive")


def username_of(record: DynamoDBRecord) -> str:
    keys = (record.dynamodb.keys if record.dynamodb else None) or {}
    username = keys.get("username")
    if not isinstance(username, str) or not username:
        raise PermanentRecordError("the record has no username key: it is not a Registration change")
    return username


def record_handler(record: DynamoDBRecord) -> str:
    username = username_of(record)
    if username in _synced:
        return "synced-in-this-batch"
    outcome = sync_customer(username)
    _synced.add(username)
    logger.debug("synced", extra={"username": username, "outcome": outcome, "event": record.event_name})
    return outcome


def process(event: dict, context: LambdaContext) -> PartialItemFailureResponse:
    _synced.clear()
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)


def replay_record(item: parked.ParkedRecord) -> str:
    """Apply a parked record again: sync its customer (raises while the customer still does not exist), then mark it
    replayed if it is still pending. A sync is safe to repeat, so a crash between the two only syncs again."""
    sync_customer(username_of(DynamoDBRecord(item.record)))
    replayed = parked.ParkedRecords(CONSUMER).mark(item.position, parked.REPLAYED)
    return "replayed" if replayed else "already-replayed"


def replay(request: Mapping[str, Any]) -> dict:
    return parked.replay(parked.ParkedRecords(CONSUMER), request, replay_record)


lambda_handler = consumer_handler(process, replay)
