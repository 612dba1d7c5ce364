"""A write that changes nothing writes no stream record.

moto: `StreamShard.add` appends a record for every PutItem and UpdateItem, so writing an item equal to the stored
one (a retried put, an update that sets the value the item already holds) gives a MODIFY whose old and new images
are the same. A consumer that reacts to changes (a counter, an audit, a notifier) sees changes that did not happen.

DynamoDB: a stream record describes a modification. The DynamoDB Streams API Reference, "Record", defines MODIFY as
"one or more of an existing item's attributes were modified", and the DynamoDB Developer Guide, "Change data capture
for DynamoDB Streams", says that a PutItem or UpdateItem that does not change any data in an item writes no stream
record.

Correction: `StreamShard.add` returns without appending when the item's old and new images are equal.
"""

from __future__ import annotations

import functools
from typing import Any

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto.dynamodb.models.table import StreamShard

    _patches.replace(StreamShard, "add", _skip_unchanged(StreamShard.add))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


def _skip_unchanged(add: Any) -> Any:
    @functools.wraps(add)
    def patched(self: Any, old: Any, new: Any) -> None:
        if old is not None and new is not None and old.to_json() == new.to_json():
            return  # DynamoDB writes no stream record for a write that changes nothing
        add(self, old, new)

    return patched
