"""A cancelled transaction leaves no stream record.

moto: TransactWriteItems applies its actions one by one, each appending its stream record, and when one fails (a
condition, a validation) it rolls the tables back: the records of the writes it undid stay. With moto's own rollback
(tables deep-copied before the actions, the copies put back) they stay in the shard of the discarded table, which
every iterator opened before the transaction keeps reading, while the restored copy's shard is one those iterators
never see: a consumer receives INSERTs and MODIFYs of writes that never happened, then nothing more.

DynamoDB: the DynamoDB API Reference, "TransactWriteItems": the actions "are completed atomically so that either all
of them succeed, or all of them fail"; the DynamoDB Developer Guide, "Amazon DynamoDB Transactions: How it works":
a transaction's changes start propagating to streams once it has completed. A cancelled transaction changed nothing,
so its stream has nothing to tell.

Correction: around TransactWriteItems, each named table's shard and its length are noted first; if the transaction
fails, the records appended since are dropped and, where moto put a table copy back, the copy gets the live shard
(the one open iterators read) instead of its own. With transaction_rollback.py applied no table is copied, and only
the records are dropped.
"""

from __future__ import annotations

import functools
from typing import Any

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto.dynamodb.models import DynamoDBBackend

    _patches.replace(DynamoDBBackend, "transact_write_items",
                     _streams_survive_rollback(DynamoDBBackend.transact_write_items))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


def _streams_survive_rollback(transact_write_items: Any) -> Any:
    @functools.wraps(transact_write_items)
    def patched(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        live: dict[str, tuple[Any, int]] = {}
        for action in transact_items:
            (operation,) = action.values()
            table = self.tables.get(operation.get("TableName"))
            if table is not None and table.stream_shard is not None:
                live[table.name] = (table.stream_shard, len(table.stream_shard.items))
        try:
            return transact_write_items(self, transact_items)
        except Exception:
            for name, (shard, length) in live.items():
                del shard.items[length:]  # records of writes that were rolled back
                restored = self.tables.get(name)
                if restored is not None and restored.stream_shard is not shard:
                    restored.stream_shard = shard
                    shard.table = restored
            raise

    return patched
