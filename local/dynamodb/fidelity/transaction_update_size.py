"""An Update inside TransactWriteItems that takes its item past 400 KB cancels the transaction.

moto: the Update is refused for the item's size ("Item size to update has exceeded the maximum allowed size"), and
moto's TransactWriteItems rolls back and answers that error as it is, a plain ValidationException, so a caller that
reads the cancellation reasons of a failed transaction finds none.

DynamoDB: the DynamoDB API Reference, "TransactWriteItems", Errors, TransactionCanceledException: the transaction is
cancelled, and the action that failed gets the reason code `ValidationError` with the message "Item size to update has
exceeded the maximum allowed size" (the other actions: `None`). A Put over 400 KB in a transaction is left as moto
answers it (a ValidationException): the reference's ValidationError reasons give only the update's message, and
nothing tells what DynamoDB answers for a Put.

Correction: UpdateItem, when it runs inside a transaction (a per-thread depth kept around TransactWriteItems), turns
moto's ItemSizeToUpdateTooLarge into `ValidationError`, an exception moto's TransactWriteItems does not know: it
cancels the transaction with a reason coded by the exception's class name, `ValidationError`, and that message.
UpdateItem outside a transaction still answers the ValidationException.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto.dynamodb.models import DynamoDBBackend

    _patches.replace(DynamoDBBackend, "update_item", _cancels_transaction(DynamoDBBackend.update_item))
    _patches.replace(DynamoDBBackend, "transact_write_items", _in_transaction(DynamoDBBackend.transact_write_items))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


class ValidationError(Exception):
    """An action's validation failure inside a transaction: moto's transaction reports any exception that is not a
    ValidationException as a cancellation reason coded with the exception's class name."""


_transaction = threading.local()


def _in_transaction(transact_write_items: Any) -> Any:
    @functools.wraps(transact_write_items)
    def patched(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        _transaction.depth = getattr(_transaction, "depth", 0) + 1
        try:
            return transact_write_items(self, transact_items)
        finally:
            _transaction.depth -= 1

    return patched


def _cancels_transaction(update_item: Any) -> Any:
    """Within a transaction, an update refused for the item's size cancels it instead of failing it."""
    from moto.dynamodb.exceptions import ItemSizeToUpdateTooLarge

    @functools.wraps(update_item)
    def patched(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return update_item(self, *args, **kwargs)
        except ItemSizeToUpdateTooLarge as error:
            if getattr(_transaction, "depth", 0):
                raise ValidationError(error.exception_msg) from error
            raise

    return patched
