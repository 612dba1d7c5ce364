"""An UpdateItem that creates an item writes one INSERT record, of the whole item.

moto: UpdateItem on a key that holds no item first puts an item made of the key alone, then applies the update
expression to it. Each write appends a stream record, so the stream gets two INSERTs: one with the bare key as its new
image, then one with the whole item. A consumer that acts once per new item acts twice, the first time on an item
that lacks every attribute the update set.

DynamoDB: one request, one modification of the item, one record. The DynamoDB Developer Guide, "Change data capture
for DynamoDB Streams": "Each stream record appears exactly once in the stream"; the DynamoDB Streams API Reference,
"Record", gives INSERT as "a new item was added to the table", with the item as it appeared after the modification
(StreamRecord, NewImage).

Correction: after moto's UpdateItem, when it appended exactly two INSERTs to the table's stream, the first (the bare
key) is removed and the second (the whole item) takes its sequence number, so the numbers stay consecutive.
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

    _patches.replace(DynamoDBBackend, "update_item", _single_insert(DynamoDBBackend.update_item))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


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
