"""A transaction backs up the items it names, not whole tables.

moto: before its actions write, TransactWriteItems deep-copies every table an action names, once per action, to put
the copies back if the transaction fails. A transaction's time grows with the size of its tables, not with its items:
the example data's 112 connected-car timeslot transactions took 6.3 s of `make run`'s start.

DynamoDB: a transaction's work is its items. The DynamoDB Developer Guide, "Amazon DynamoDB Transactions: How it
works" (Capacity management for transactions): DynamoDB "performs two underlying reads or writes of every item in the
transaction", whatever else its tables hold; and the DynamoDB API Reference, "TransactWriteItems": the actions "are
completed atomically so that either all of them succeed, or all of them fail".

Correction: moto's DynamoDB backend sees a `copy` module whose `deepcopy` returns a Table as it is (moto copies a
Table nowhere else), and TransactWriteItems first backs up the item each action names (a deep copy, or None where
there is none); if the transaction fails, those items are put back, in reverse order: the same all-or-nothing,
item by item. A malformed key is skipped: moto refuses the action before it writes anything.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    import moto.dynamodb.models as backend_module
    from moto.dynamodb.models import DynamoDBBackend

    _patches.replace(backend_module, "copy", _TablesNotCopied())
    _patches.replace(DynamoDBBackend, "transact_write_items", _item_rollback(DynamoDBBackend.transact_write_items))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


class _TablesNotCopied:
    """The `copy` module as moto's DynamoDB backend sees it, but a Table is not deep-copied: its only Table copy is
    transact_write_items' backup, which `_item_rollback` replaces."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        from moto.dynamodb.models.table import Table

        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


def _backup(backend: Any, action: Any) -> tuple[Any, Any, Any, Any] | None:
    """(table, hash key, range key or None, a copy of the stored item or None) for the item an action names; None for
    an action naming no known table or a malformed key."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    operation = next(iter(action.values()), None) if isinstance(action, dict) else None
    if not isinstance(operation, dict):
        return None
    table = backend.tables.get(operation.get("TableName"))
    if table is None:
        return None
    key = operation.get("Key") or operation.get("Item") or {}
    try:
        hash_value = DynamoType(key[table.hash_key_attr])
        range_value = DynamoType(key[table.range_key_attr]) if table.range_key_attr else None
        partition = table.items.get(hash_value)
        if range_value is None:
            stored = partition
        else:
            stored = partition.get(range_value) if isinstance(partition, dict) else None
    except Exception:  # noqa: BLE001 (a malformed key: moto refuses the action before it writes anything)
        return None
    return table, hash_value, range_value, copy.deepcopy(stored)


def _put_back(table: Any, hash_value: Any, range_value: Any, stored: Any) -> None:
    if range_value is None:
        if stored is None:
            table.items.pop(hash_value, None)
        else:
            table.items[hash_value] = stored
    elif stored is None:
        table.items.get(hash_value, {}).pop(range_value, None)
    else:
        table.items[hash_value][range_value] = stored


def _item_rollback(transact_write_items: Any) -> Any:
    """Backs up the item each action names and puts them back if the transaction fails, as moto's own rollback did
    with copies of whole tables."""

    @functools.wraps(transact_write_items)
    def patched(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        backups = [backup for action in transact_items if (backup := _backup(self, action)) is not None]
        try:
            return transact_write_items(self, transact_items)
        except Exception:
            for backup in reversed(backups):
                _put_back(*backup)
            raise

    return patched
