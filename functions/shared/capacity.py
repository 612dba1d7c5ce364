"""DynamoDB's size and capacity rules, for figures moto cannot give (its ConsumedCapacity is a constant).

Sizes follow "DynamoDB item sizes and formats" in the developer guide: an attribute is its name's UTF-8 bytes plus its
value's (string: UTF-8 bytes; number: 1 byte per two significant digits + 1; binary: raw bytes; null and boolean: 1;
list and map: 3 bytes + 1 byte per element + the elements; sets: the sum of their elements). A read unit is 4 KB
(half a unit when eventually consistent), a write unit 1 KB; a Query rounds the total of the items it reads, not
each item, up to the next 4 KB, and a read that finds nothing still costs the minimum ("DynamoDB read and write
operations", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

ITEM_LIMIT = 400 * 1024
READ_UNIT = 4 * 1024
WRITE_UNIT = 1024


def _number_size(value: int | float | Decimal) -> int:
    digits = Decimal(str(value)).normalize().as_tuple().digits
    significant = "".join(map(str, digits)).strip("0") or "0"
    return math.ceil(len(significant) / 2) + 1


def value_size(value: Any) -> int:
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, int | float | Decimal):
        return _number_size(value)
    if isinstance(value, bytes | bytearray):
        return len(value)
    if hasattr(value, "value") and isinstance(value.value, bytes):  # boto3's Binary
        return len(value.value)
    if isinstance(value, Mapping):
        return 3 + sum(len(str(k).encode("utf-8")) + value_size(v) + 1 for k, v in value.items())
    if isinstance(value, set | frozenset):
        return sum(value_size(v) for v in value)
    if isinstance(value, list | tuple):
        return 3 + sum(value_size(v) + 1 for v in value)
    raise TypeError(f"not a DynamoDB value: {type(value).__name__}")


def item_size(item: Mapping[str, Any]) -> int:
    """The item's size in bytes by DynamoDB's rules (what the 400 KB limit and capacity units count)."""
    return sum(len(name.encode("utf-8")) + value_size(value) for name, value in item.items())


def read_units(sizes: Iterable[int], *, consistent: bool = False) -> float:
    """Read capacity of a Query or GetItem returning items of these sizes."""
    units = max(1, math.ceil(sum(sizes) / READ_UNIT))
    return float(units) if consistent else units / 2


def write_units(size: int) -> int:
    """Write capacity of one PutItem/UpdateItem/DeleteItem of an item this large (the larger of before and after)."""
    return max(1, math.ceil(size / WRITE_UNIT))
