"""An update of a nested path is refused when it takes the item past 400 KB.

moto: UpdateItem checks the 400 KB item limit only when the update sets a top-level attribute, so an update of a
nested path (`SET Attributes.tracks = list_append(Attributes.tracks, :more)`) grows an item past 400 KB and is
stored: a document that grows locally forever fails on AWS the day it crosses the limit.

DynamoDB: the DynamoDB Developer Guide, "Quotas in Amazon DynamoDB" (Item size): "The maximum item size in DynamoDB is
400 KB, which includes both attribute name binary length (UTF-8 length) and attribute value lengths", whatever path
the write went through; an UpdateItem that would exceed it is refused with a ValidationException, "Item size to update
has exceeded the maximum allowed size" (the message the DynamoDB API Reference, "TransactWriteItems", lists among its
ValidationError reasons).

Correction: moto's update expression runs in place on the stored item (before moto writes its stream record); the
updated item is then measured by DynamoDB's rules (functions/shared/capacity.py) and, if over 400 KB, gets its
attributes back and the update is refused with moto's own ItemSizeTooLarge, which moto's UpdateItem turns into that
ValidationException. Inside a transaction, transaction_update_size.py turns it into a cancellation, and the transaction
puts its items back.
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
    from moto.dynamodb.parsing.executors import UpdateExpressionExecutor

    _patches.replace(UpdateExpressionExecutor, "execute", _size_checked(UpdateExpressionExecutor.execute))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


def _size_checked(execute: Any) -> Any:
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
