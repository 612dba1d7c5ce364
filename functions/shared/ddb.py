"""DynamoDB access shared by every repository: lazy clients, AWS error codes → domain errors, batch reads."""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from botocore.config import Config
from botocore.exceptions import ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotocoreConnectionError

from functions.shared import cost
from functions.shared.container import per_container
from functions.shared.errors import AppError, ServiceUnavailableError, ThrottledError
from functions.shared.observability import count_for_stage
from functions.shared.schema import THROTTLED_METRIC, UNAVAILABLE_METRIC

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import DynamoDBServiceResource, Table
    from mypy_boto3_dynamodb.type_defs import TransactWriteItemTypeDef

# Standard retry mode retries throttling, 5xx and connection/read timeouts itself, 2 attempts in all (botocore's
# `max_attempts` would count the retries only), before the error reaches us and becomes a 429 or 503 with
# Retry-After: the client retries, not the function past its time. The SDK that runs is the one requirements.txt pins
# (it ships in the functions' asset, not the runtime's older one), whose jittered backoff before a retry is at most
# 1 s after throttling, 25 ms after a 5xx or a timeout. Worst case per call: 2 × (1 s connect + 2 s read) + 1 s = 7 s,
# inside the API functions' 10 s (tests/unit/test_ddb_retries.py computes it from botocore's own retry module); a
# third attempt would make it 12 s. Not counted: an `x-amz-retry-after` response header, which this botocore honours
# (up to 5 s more per retry); we found no DynamoDB documentation that it sends one. botocore's defaults (60 s
# timeouts) let Lambda time out and API Gateway answer a bare 5xx. DynamoDB answers in milliseconds; a 1 MB page or a
# 100-action transaction well under a second.
CLIENT_CONFIG = Config(connect_timeout=1, read_timeout=2, retries={"mode": "standard", "total_max_attempts": 2})

THROTTLING_CODES = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)
# A transaction cancelled for capacity names it per action with these codes (TransactionCanceledException in the
# DynamoDB API reference), not with the exception names above; it is a 400 the SDK does not retry.
THROTTLING_REASONS = frozenset({"ProvisionedThroughputExceeded", "ThrottlingError"}) | THROTTLING_CODES
UNAVAILABLE_CODES = frozenset({"InternalServerError", "ServiceUnavailable"})
# No answer at all: ConnectTimeoutError and EndpointConnectionError are ConnectionErrors, ReadTimeoutError and
# ConnectionClosedError HTTPClientErrors (botocore.exceptions); none of them is a ClientError.
TRANSPORT_ERRORS: tuple[type[Exception], ...] = (BotocoreConnectionError, HTTPClientError)
BATCH_GET_MAX_KEYS = 100
TRANSACTION_MAX_ACTIONS = 100  # TransactWriteItems' limit
_BATCH_GET_MAX_ROUNDS = 8
CONFLICT_ATTEMPTS = 4
CONFLICT_BACKOFF_SECONDS = 0.02
BATCH_BACKOFF_SECONDS = 0.025
BATCH_WRITE_MAX_ITEMS = 25  # BatchWriteItem's limit
# UnprocessedItems are retried this many times in all, with jittered exponential backoff, before ThrottledError
# (what was deleted stays deleted: the caller's retry resumes the work).
BATCH_WRITE_ROUNDS = 6


@per_container
def resource() -> DynamoDBServiceResource:
    """Created on first use, never at import (moto and cold starts both need that); every call it makes reports its
    consumed capacity to the request's ledger (functions/shared/cost.py). boto3 is imported here, on first use: a
    function that never calls DynamoDB (the platform's) does not load it in its cold start."""
    import boto3

    dynamodb = boto3.resource("dynamodb", config=CLIENT_CONFIG)
    cost.instrument(dynamodb.meta.client)
    return dynamodb


def table(name: str) -> Table:
    """The resource's `Table`, made once per name: boto3 builds a new class for every `Table(...)` (0.8 ms each,
    measured), and a Table's actions only call the resource's client. One made for an earlier resource (the cache
    of `resource` cleared: tests, the local runtime's seeds) is made again: resources compare equal to each other,
    so the check is on the client's identity."""
    dynamodb = resource()
    made = _tables.get(name)
    if made is None or made.meta.client is not dynamodb.meta.client:
        made = _tables[name] = dynamodb.Table(name)
    return made


_tables: dict[str, Table] = {}


def error_code(error: ClientError) -> str:
    return error.response.get("Error", {}).get("Code", "")


def retried(error: ClientError) -> bool:
    """The SDK sent the request more than once (a timeout or a 5xx first): an earlier attempt may have been applied
    with its answer lost, so a failed condition may be the request's own doing."""
    return error.response.get("ResponseMetadata", {}).get("RetryAttempts", 0) > 0


def put_new(table: Table, item: Mapping[str, Any], condition: str, **kwargs: Any) -> None:
    """PutItem of a new item on `condition` (an `attribute_not_exists` of its key). A failed condition raises as
    usual, with the item in the way (`ReturnValuesOnConditionCheckFailure=ALL_OLD`, no extra read), unless the SDK
    retried and that item is exactly `item`: then an earlier attempt was applied and its answer lost (a read timeout
    after DynamoDB wrote), and the create succeeded. Without this, such a create answers 409 for an item it made."""
    try:
        table.put_item(Item=item, ConditionExpression=condition, ReturnValuesOnConditionCheckFailure="ALL_OLD",
                       **kwargs)
    except ClientError as error:
        if _in_the_way_after_retry(error) != dict(item):
            raise


def update_conditional(table: Table, *, mark: Mapping[str, Any], **params: Any) -> dict[str, Any]:
    """UpdateItem on a condition, answering the item as it is after (`ReturnValues=ALL_NEW`). `mark` names attributes
    the update sets to values unique to this request (its time to the microsecond): when the SDK retried and the
    condition failed on an item that holds every one of them, an earlier attempt was applied with its answer lost,
    and that item (`ReturnValuesOnConditionCheckFailure=ALL_OLD`) is the answer. Otherwise a failed condition raises
    as usual."""
    try:
        return table.update_item(ReturnValues="ALL_NEW", ReturnValuesOnConditionCheckFailure="ALL_OLD",
                                 **params)["Attributes"]
    except ClientError as error:
        old = _in_the_way_after_retry(error)
        if old is not None and all(name in old and old[name] == value for name, value in mark.items()):
            return old
        raise


@dataclass(frozen=True)
class Refused:
    """An UpdateItem whose condition failed, with the item it was checked against."""

    item: dict[str, Any] | None  # as plain Python values (ALL_OLD); None when there was no item
    error: ClientError


def update_or_refused(table: Table, **params: Any) -> dict[str, Any] | Refused:
    """UpdateItem on a condition: the item as it is after (`ReturnValues=ALL_NEW`), or, when the condition failed,
    the item that refused it (`ReturnValuesOnConditionCheckFailure=ALL_OLD`: no second read). Any other error
    raises."""
    try:
        return table.update_item(ReturnValues="ALL_NEW", ReturnValuesOnConditionCheckFailure="ALL_OLD",
                                 **params)["Attributes"]
    except ClientError as error:
        if error_code(error) != "ConditionalCheckFailedException":
            raise
        return Refused(refused_item(error), error)


def _in_the_way_after_retry(error: ClientError) -> dict[str, Any] | None:
    """The item a retried request's condition failed on (asked with ALL_OLD), which may be its own first attempt's;
    None for any other error, or a condition that failed on the first attempt."""
    if error_code(error) != "ConditionalCheckFailedException" or not retried(error):
        return None
    return refused_item(error) or {}


def translate_client_error(error: ClientError) -> AppError | None:
    """The domain error for an AWS error the client cannot cause, or None when it is a defect of ours."""
    code = error_code(error)
    if code in THROTTLING_CODES:
        return throttled("The database is busy; retry with backoff.")
    if code in UNAVAILABLE_CODES:
        count_for_stage(UNAVAILABLE_METRIC)  # the stage's DynamoDB system errors alarm (infra/constructs/monitoring.py)
        return ServiceUnavailableError("The database is unavailable; retry later.")
    if code == "TransactionInProgressException":
        # The SDK repeated a transaction (same ClientRequestToken) while its first attempt still ran, and its own
        # retries (it counts this as throttling) ran out: the outcome is unknown, as after a timeout.
        return ServiceUnavailableError("The write is still in progress; retry later.")
    if code == "TransactionCanceledException" and any(
        reason in THROTTLING_REASONS or reason == "TransactionConflict" for reason in cancellation_reasons(error)
    ):
        return throttled("A concurrent change interfered; retry.")
    return None


def throttled(message: str) -> ThrottledError:
    """A throttling the SDK's retries did not outlast, counted for the stage's one throttle alarm: the caller gets 429
    (or, in a stream consumer, the batch is retried), and DynamoDB's own per-table figures stay on the dashboard."""
    count_for_stage(THROTTLED_METRIC)
    return ThrottledError(message)


def translate_transport_error(error: Exception) -> AppError:
    """No answer from DynamoDB after the SDK's retries (connect or read timeout, connection refused or reset): 503.
    A read timeout on a write leaves its outcome unknown; docs/adr/0057-dynamodb-faults-429-503-retry-after.md says
    what a retry then does."""
    return ServiceUnavailableError("The database did not answer in time; retry later.")


def cancellation_reasons(error: ClientError) -> list[str]:
    """Per-action reason codes of a cancelled transaction ("None" for actions that did not fail)."""
    return [reason.get("Code", "None") for reason in error.response.get("CancellationReasons", [])]


def batch_get(table_name: str, keys: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """BatchGetItem over any number of keys: chunks of 100, UnprocessedKeys retried (bounded) after a jittered
    exponential backoff, as AWS asks of BatchGetItem callers (an immediate retry meets the same throttling)."""
    items: list[dict[str, Any]] = []
    for start in range(0, len(keys), BATCH_GET_MAX_KEYS):
        request: dict[str, Any] = {table_name: {"Keys": list(keys[start : start + BATCH_GET_MAX_KEYS])}}
        for attempt in range(_BATCH_GET_MAX_ROUNDS):
            if attempt:
                time.sleep(jitter(min(1.0, BATCH_BACKOFF_SECONDS * 2**attempt)))
            response = resource().batch_get_item(RequestItems=request)
            items.extend(response.get("Responses", {}).get(table_name, []))
            request = response.get("UnprocessedKeys") or {}
            if not request:
                break
        else:
            raise throttled("The database is busy; retry with backoff.")
    return items


def exists(table: Table, key: Mapping[str, Any]) -> bool:
    """Whether the item at `key` exists: GetItem that asks for its first key attribute only (the least it can return),
    named as is (no key name of this project is a DynamoDB reserved word; one would be refused at once)."""
    return "Item" in table.get_item(Key=dict(key), ProjectionExpression=next(iter(key)))


def batch_delete(table_name: str, keys: Sequence[Mapping[str, Any]]) -> None:
    """BatchWriteItem deletes of any number of keys: chunks of 25, UnprocessedItems retried (bounded) after a jittered
    exponential backoff, as AWS asks of BatchWriteItem callers; ThrottledError when a chunk is still unprocessed.
    Safe to repeat: deleting an absent key is a no-op."""
    for start in range(0, len(keys), BATCH_WRITE_MAX_ITEMS):
        pending: dict[str, Any] = {
            table_name: [{"DeleteRequest": {"Key": dict(key)}} for key in keys[start : start + BATCH_WRITE_MAX_ITEMS]]
        }
        for attempt in range(BATCH_WRITE_ROUNDS):
            if attempt:
                time.sleep(jitter(BATCH_BACKOFF_SECONDS * 2**attempt))
            pending = resource().batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if not pending:
                break
        else:
            raise throttled("The database is busy; retry with backoff (what was deleted stays deleted).")


def jitter(longest: float) -> float:
    """A backoff pause of 0 to `longest` seconds, uniform ("full jitter"): it spreads retries, it guards nothing."""
    return random.uniform(0, longest)  # noqa: S311  timing, not a secret


def unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


def plain(item: Mapping[str, Any]) -> dict[str, Any]:
    """An item in the typed wire form (error responses, stream images) as plain Python values."""
    from boto3.dynamodb.types import TypeDeserializer  # boto3 on first use: resource() says why

    deserializer = TypeDeserializer()
    return {name: deserializer.deserialize(value) for name, value in item.items()}


def refused_item(error: ClientError) -> dict[str, Any] | None:
    """The item a failed condition was checked against (asked with `ReturnValuesOnConditionCheckFailure=ALL_OLD`),
    as plain Python values; None when there is none."""
    response: Mapping[str, Any] = error.response  # botocore's error type does not declare the `Item` ALL_OLD adds
    item = response.get("Item")
    return plain(item) if item else None


def cancellation_items(error: ClientError) -> list[dict[str, Any] | None]:
    """Per-action old items of a cancelled transaction (ReturnValuesOnConditionCheckFailure=ALL_OLD)."""
    return [
        plain(reason["Item"]) if reason.get("Item") else None
        for reason in error.response.get("CancellationReasons", [])
    ]


@dataclass(frozen=True)
class ConditionFailed:
    """Why a transaction was cancelled: the first named action whose condition failed."""

    name: str  # that action's name
    item: dict[str, Any] | None  # its item before, when it asked ReturnValuesOnConditionCheckFailure=ALL_OLD
    error: ClientError
    names: tuple[str, ...] = ()  # every action whose condition failed, by name (DynamoDB may report only some)


def transact_write(actions: Sequence[tuple[str, Mapping[str, Any]]]) -> ConditionFailed | None:
    """TransactWriteItems of named actions (plain Python values, as the Table methods take them); None when it
    committed.

    A cancellation caused by a condition is returned with the failed action's name, for the caller to name the
    rule that held: by name, never by position, so reordering or adding actions cannot change the error. A
    cancellation by a conflicting transaction alone is retried (CONFLICT_ATTEMPTS in all, with jittered backoff);
    any other cancellation (throttling, a conflict that outlasts the retries) propagates and the resolver answers 429.
    """
    names = [name for name, _ in actions]
    attempt = 1
    while True:
        try:
            # The resource's client serializes plain values, as the Table methods do; the stubs type the wire form.
            items = cast("list[TransactWriteItemTypeDef]", [action for _, action in actions])
            resource().meta.client.transact_write_items(TransactItems=items)
            return None
        except ClientError as error:
            reasons = cancellation_reasons(error)
            if error_code(error) == "TransactionCanceledException" and "ConditionalCheckFailed" in reasons:
                failed = [i for i, reason in enumerate(reasons) if reason == "ConditionalCheckFailed"]
                return ConditionFailed(name=names[failed[0]], item=cancellation_items(error)[failed[0]], error=error,
                                       names=tuple(names[i] for i in failed))
            if "TransactionConflict" not in reasons or attempt == CONFLICT_ATTEMPTS:
                raise
        # Another transaction held one of these items: this attempt wrote nothing, and the next one is decided by
        # the conditions against what committed first (concurrent sign-ups get one 201 and 409s, not 429s).
        time.sleep(jitter(CONFLICT_BACKOFF_SECONDS * 2**attempt))
        attempt += 1
