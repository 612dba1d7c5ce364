"""Idempotent creates: a client that retries a POST with the same `Idempotency-Key` header gets the first
answer back instead of a second resource.

Powertools' idempotency utility does the work: it records (caller, operation, key) in the idempotency table
with a conditional put before the operation runs. A concurrent duplicate gets 409 REQUEST_IN_PROGRESS. A
failed operation (any exception: a domain error, or a 429/503 after DynamoDB throttled, failed or timed out) is
forgotten, Powertools deleting its in-progress record, so the retry runs again; errors are never replayed. If that
delete fails too (503), the record stays in progress until the invocation's deadline (the Lambda context is
registered): a retry before it gets 409 REQUEST_IN_PROGRESS, one after it runs. The same key with another body
gets 409 IDEMPOTENCY_KEY_REUSED. Records expire after 24 h: the table's TTL deletes them in AWS, and Powertools treats
an expired record as absent on read, so locally, where nothing expires items, the answer is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Depends, Request, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Header
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyItemAlreadyExistsError
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord
from botocore.exceptions import ClientError
from pydantic import BaseModel

from functions.shared import cost
from functions.shared.auth import Caller, current_caller
from functions.shared.container import per_container
from functions.shared.ddb import CLIENT_CONFIG, retried
from functions.shared.http import LAMBDA_CONTEXT
from functions.shared.models import dump
from functions.shared.schema import IDEMPOTENCY_TABLE
from functions.shared.settings import settings

RETENTION_SECONDS = 24 * 3600

IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=128,
        pattern=r"^[\x21-\x7e]+$",
        description="retrying with the same key returns the first answer instead of creating again",
    ),
]


@per_container
def _config() -> IdempotencyConfig:
    return IdempotencyConfig(
        event_key_jmespath="[caller, operation, key]",
        payload_validation_jmespath="body",
        expires_after_seconds=RETENTION_SECONDS,
    )


class RetrySafePersistenceLayer(DynamoDBPersistenceLayer):
    """Powertools' DynamoDB store, except for one case: the SDK retried the in-progress record's conditional put (a
    read timeout after DynamoDB wrote it, its answer lost) and the retry met that same record. Powertools cannot tell
    it from another request's and answers 409 REQUEST_IN_PROGRESS for a request no one else is running; here the
    record stored is compared with the one put (its in-progress deadline is in milliseconds, from this invocation's
    remaining time) and, when it is the same, the put succeeded."""

    def _put_record(self, data_record: DataRecord) -> None:
        try:
            super()._put_record(data_record)
        except IdempotencyItemAlreadyExistsError as exists:
            stored, error = exists.old_data_record, exists.__cause__
            if not (isinstance(error, ClientError) and retried(error) and stored is not None
                    and _same_record(stored, data_record)):
                raise


def _same_record(stored: DataRecord, put: DataRecord) -> bool:
    """The stored record is the one put: every field, including the in-progress deadline, which only a request with
    the Lambda context registered has (without it two requests in the same second would look alike). Two requests
    whose deadlines fall in the same millisecond still would: both would run, as without an Idempotency-Key."""
    if put.in_progress_expiry_timestamp is None:
        return False
    fields = ("idempotency_key", "status", "expiry_timestamp", "in_progress_expiry_timestamp", "payload_hash")
    return all(getattr(stored, name) == getattr(put, name) for name in fields)


@per_container
def _execute() -> Callable[..., dict[str, Any]]:
    """Built on first use: the persistence layer creates its boto3 client when constructed."""
    # The same timeouts and retries as every other DynamoDB call (ddb.CLIENT_CONFIG), not botocore's 60 s defaults.
    persistence = RetrySafePersistenceLayer(table_name=settings().table(IDEMPOTENCY_TABLE), boto_config=CLIENT_CONFIG)
    cost.instrument(persistence.client)  # its reads and writes are on the request's bill too

    @idempotent_function(data_keyword_argument="request", persistence_store=persistence, config=_config())
    def execute(request: dict[str, Any], run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        return run()

    return execute


def once(
    *, key: str | None, caller: str, operation: str, body: dict[str, Any], run: Callable[[], dict[str, Any]],
    lambda_context: Any = None,
) -> dict[str, Any]:
    """`run()` once per (caller, operation, key); without a key, every call runs."""
    if key is None:
        return run()
    if lambda_context is not None:
        _config().register_lambda_context(lambda_context)
    request = {"caller": caller, "operation": operation, "key": key, "body": body}
    return _execute()(request=request, run=run)


class CreateOnce:
    """What a creation route retried with an `Idempotency-Key` answers through: `create(operation=..., key=...,
    request=..., make=...)` is 201 with what `make()` created, once per (caller, operation, key)."""

    def __init__(self, caller: Caller, lambda_context: Any = None) -> None:
        self.caller = caller
        self._lambda_context = lambda_context

    def __call__(self, *, operation: str, key: str | None, request: dict[str, Any],
                 make: Callable[[], BaseModel]) -> Response:
        """201 with what `make()` created, once per (caller, operation, key): a retry gets the first answer."""
        body = once(
            key=key,
            caller=self.caller.user_id,
            operation=operation,
            body=request,
            run=lambda: dump(make()),
            lambda_context=self._lambda_context,
        )
        return Response(status_code=201, content_type=content_types.APPLICATION_JSON, body=body)


def create_once(request: Request, caller: Annotated[Caller, Depends(current_caller)]) -> CreateOnce:
    """The `Depends()` dependency a creation route takes (`create: kit.CreateOnce`): the caller the records are
    kept under and the invocation's Lambda context (its deadline bounds an in-progress record)."""
    return CreateOnce(caller, request.context.get(LAMBDA_CONTEXT))


def reset() -> None:
    """Forget the cached persistence layer (tests switch moto contexts)."""
    _execute.cache_clear()
    _config.cache_clear()
