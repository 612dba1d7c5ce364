"""Places where moto's DynamoDB differs from DynamoDB, corrected in-process. Three in its Streams (each broke a
consumer that is correct on AWS):
1. A cancelled TransactWriteItems: moto appends the actions' stream records, then rolls back by swapping in copies of
   the tables, so the records stay and open iterators keep reading the discarded shard. Here the records are dropped
   and the live shard moves to the restored table.
2. An UpdateItem that creates an item: moto writes two INSERTs (the bare key, then the item); DynamoDB one.
3. A write that changes nothing: moto emits a MODIFY; DynamoDB no record (PITFALLS 4).
And one in UpdateItem:
4. moto checks the 400 KB item limit only when a top-level attribute is set, so an update of a nested path
   (`SET Attributes.tracks = list_append(...)`) grows an item past 400 KB. Here the updated item is measured by
   DynamoDB's rules (functions/shared/capacity.py) and, if over, restored and refused with moto's own
   ValidationException "Item size to update has exceeded the maximum allowed size", as DynamoDB refuses it.
`apply()` patches moto once per process: the runtime (whose moto runs in-process) and the test suite call it.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

_applied = False


def apply() -> None:
    """Patch moto (idempotent)."""
    global _applied
    if _applied:
        return
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.table import StreamShard
    from moto.dynamodb.parsing.executors import UpdateExpressionExecutor

    StreamShard.add = _skip_unchanged(StreamShard.add)  # type: ignore[method-assign]
    DynamoDBBackend.update_item = _single_insert(DynamoDBBackend.update_item)  # type: ignore[method-assign]
    rollback = _streams_survive_rollback(DynamoDBBackend.transact_write_items)
    DynamoDBBackend.transact_write_items = rollback  # type: ignore[method-assign]
    UpdateExpressionExecutor.execute = _size_checked(UpdateExpressionExecutor.execute)  # type: ignore[method-assign]
    _applied = True


def _skip_unchanged(add: Any) -> Any:
    @functools.wraps(add)
    def patched(self: Any, old: Any, new: Any) -> None:
        if old is not None and new is not None and old.to_json() == new.to_json():
            return  # DynamoDB writes no stream record for a write that changes nothing
        add(self, old, new)

    return patched


def _single_insert(update_item: Any) -> Any:
    @functools.wraps(update_item)
    def patched(self: Any, *args: Any, **kwargs: Any) -> Any:
        table = self.get_table(kwargs["table_name"] if "table_name" in kwargs else args[0])
        shard = table.stream_shard
        before = len(shard.items) if shard is not None else 0
        result = update_item(self, *args, **kwargs)
        if shard is not None and table.stream_shard is shard:
            added = shard.items[before:]
            if len(added) == 2 and all(r.record["eventName"] == "INSERT" for r in added):
                bare, full = added
                full.record["dynamodb"]["SequenceNumber"] = bare.record["dynamodb"]["SequenceNumber"]
                del shard.items[before]
        return result

    return patched


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


def _size_checked(execute: Any) -> Any:
    """The update runs in place on the stored item (before moto writes its stream record); an item it took past
    400 KB gets its attributes back and the update is refused (moto's UpdateItem turns ItemSizeTooLarge into
    "Item size to update has exceeded the maximum allowed size"; a transaction restores its tables itself)."""
    from boto3.dynamodb.types import TypeDeserializer
    from moto.dynamodb.exceptions import ItemSizeTooLarge

    from functions.shared.capacity import ITEM_LIMIT, item_size

    deserializer = TypeDeserializer()

    @functools.wraps(execute)
    def patched(self: Any, node: Any = None) -> None:
        if node is not None:  # a recursive call on part of the expression: measure once, at the top
            return execute(self, node)
        before = copy.deepcopy(dict(self.item.attrs))
        execute(self)
        typed = self.item.to_json()["Attributes"]
        if item_size({name: deserializer.deserialize(value) for name, value in typed.items()}) > ITEM_LIMIT:
            self.item.attrs.clear()
            dict.update(self.item.attrs, before)
            raise ItemSizeTooLarge
        return None

    return patched
