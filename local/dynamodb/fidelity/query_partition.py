"""A Query reads its partition, not the whole table.

moto: every Query goes through every item of the table (`Table.all_items`, sorted), keeps those of the partition
asked for, then sorts them: a local Query's time grows with the table, not with its answer. 15 parallel Queries on
a 60,000-item table outlast a function's 10 s timeout.

DynamoDB: the DynamoDB Developer Guide, "Partitions and data distribution in DynamoDB": the partition key's value
gives, through DynamoDB's hash function, the partition that holds the item, and items with the same partition key
are stored together, ordered by sort key; the DynamoDB API Reference, "Query": a Query names one partition key value
and returns the items with it, in sort key order. Its time and its cost follow what it reads from that partition.

Correction: a Query reads what DynamoDB would: on the table, the items of its partition; on an index, a per-index map
of partitions, each sorted by moto's own order (index sort key, then the table's keys) and cut by bisection to the
key condition's range, with one neighbour each side (moto gives a LastEvaluatedKey when a page is full and its
partition has a next item). moto then answers from those items with its own code (condition, order, paging,
projection), so the answer is unchanged. A table's maps are rebuilt after it is written: every DynamoDB action but
the reads bumps its tables' version (every table's when it names none), and a loader that writes to moto's backend
directly calls `written`. A shape this does not know (a legacy QueryFilter, a multi-attribute index key) is left to
moto.
"""

from __future__ import annotations

import bisect
import functools
import inspect
import itertools
import threading
from collections.abc import Mapping
from typing import Any

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto.dynamodb.models.table import Table
    from moto.dynamodb.responses import DynamoHandler

    written()  # a map built before the correction was last taken off may have missed writes since
    _patches.replace(DynamoHandler, "call_action", _versioned(DynamoHandler.call_action))
    _patches.replace(Table, "query", _partitioned(Table.query))
    _patches.replace(Table, "all_items", _candidates_first(Table.all_items))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


_READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems", "DescribeTable", "ListTables",
                    "DescribeTimeToLive", "DescribeContinuousBackups", "ListTagsOfResource", "DescribeEndpoints",
                    "DescribeLimits", "DescribeKinesisStreamingDestination", "ListBackups", "ListGlobalTables"})
_version = itertools.count()
_written: dict[str | None, int] = {None: next(_version)}  # per table name (None: any table), bumped after a write
_maps: dict[tuple[int, str], tuple[Any, tuple[int, int], dict[Any, tuple[list[Any], list[Any]]]]] = {}
_candidates = threading.local()  # the items a Query running on this thread may read, per table
_building = threading.Lock()  # one thread builds a map; parallel Queries (a fan-out) wait for it


def stored_table(name: str) -> Any:
    """moto's Table object for a table of this process's moto (an in-process loader writes to it, then calls
    `written`)."""
    from moto.dynamodb.models import dynamodb_backends

    (table,) = [backend.tables[name] for regions in dynamodb_backends.values() for backend in regions.values()
                if name in backend.tables]
    return table


def written(*table_names: str) -> None:
    """Tables that changed outside a DynamoDB request (a loader writing to moto's backend in-process); none: all."""
    for name in table_names or (None,):
        _written[name] = next(_version)


def _versioned(call_action: Any) -> Any:
    @functools.wraps(call_action)
    def versioned(self: Any) -> Any:
        try:
            return call_action(self)
        finally:
            if self._get_action() not in _READS:  # after the write: a map built while it ran is already stale
                written(*_tables_of(getattr(self, "body", None)))

    return versioned


def _partitioned(query: Any) -> Any:
    signature = inspect.signature(query)

    @functools.wraps(query)
    def partitioned(*args: Any, **kwargs: Any) -> Any:
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        asked = call.arguments
        table = asked["self"]
        items = None if asked["filter_kwargs"] else _partition(table, asked)
        reading = getattr(_candidates, "tables", None) or {}
        if items is not None:
            _candidates.tables = {**reading, id(table): items}
        try:
            return query(*call.args, **call.kwargs)
        finally:
            _candidates.tables = reading

    return partitioned


def _candidates_first(all_items: Any) -> Any:
    """`Table.all_items`, which moto's Query reads: the items of the Query's partition while one runs."""

    @functools.wraps(all_items)
    def candidates(self: Any) -> Any:
        items = (getattr(_candidates, "tables", None) or {}).get(id(self))
        return list(items) if items is not None else all_items(self)

    return candidates


def _tables_of(body: Any) -> list[str]:
    """The tables a write request names (TableName, BatchWriteItem's RequestItems, TransactItems); [] if unknown."""
    if not isinstance(body, dict):
        return []
    names = [body["TableName"]] if isinstance(body.get("TableName"), str) else []
    names += [name for name in body.get("RequestItems") or {} if isinstance(name, str)]
    for action in body.get("TransactItems") or []:
        names += [op["TableName"] for op in action.values() if isinstance(op, dict) and "TableName" in op]
    return names


def _partition(table: Any, asked: Mapping[str, Any]) -> list[Any] | None:
    """The items a Query (`asked`: moto's arguments to Table.query) may read, or None to let moto read them all (a
    shape this does not know)."""
    comparison, values, index_name = asked["range_comparison"], asked["range_objs"], asked["index_name"]
    hash_conditions, range_conditions = asked["hash_key_conditions"] or [], asked["range_key_conditions"] or []
    if not index_name:
        return _table_partition(table, asked["hash_key"])
    index = next((i for i in table.all_indexes() if i.name == index_name), None)
    if index is None:
        return None  # moto's own error
    hashes = [k["AttributeName"] for k in index.schema if k["KeyType"] == "HASH"]
    ranges = [k["AttributeName"] for k in index.schema if k["KeyType"] == "RANGE"]
    if len(hashes) != 1 or len(ranges) > 1 or len(hash_conditions) != 1 or hash_conditions[0][0] != hashes[0]:
        return None
    if len(range_conditions) > 1:
        return None
    partitions = _index_map(table, index_name, hashes[0], ranges[0] if ranges else None)
    items, keys = partitions.get(hash_conditions[0][1], ([], []))
    if not ranges or comparison is None or not keys:
        return items
    lo, hi = _bounds(keys, comparison, values)
    # With one neighbour each side (outside the range, so never in the answer): moto gives a LastEvaluatedKey when
    # a page is full and its partition has a next item, matching or not; the neighbour keeps that answer the same.
    return items[max(lo - 1, 0):hi + 1]


def _table_partition(table: Any, hash_key: Any) -> list[Any] | None:
    if hash_key is None:
        return None
    stored = table.items.get(hash_key)  # .get: `items` is a defaultdict
    if stored is None:
        return []
    return list(stored.values()) if table.range_key_attr else [stored]


def _index_map(table: Any, index_name: str, hash_attr: str, range_attr: str | None) -> dict[Any, Any]:
    """{index partition key: (items sorted as moto sorts them, their index sort key values)} for the current version."""
    version = (_written[None], _written.get(table.name, 0))
    cached = _maps.get((id(table), index_name))
    if cached is not None and cached[0] is table and cached[1] == version:
        return cached[2]
    with _building:
        cached = _maps.get((id(table), index_name))
        if cached is not None and cached[0] is table and cached[1] == version:
            return cached[2]
        return _build(table, index_name, hash_attr, range_attr, version)


def _build(table: Any, index_name: str, hash_attr: str, range_attr: str | None,
           version: tuple[int, int]) -> dict[Any, Any]:
    groups: dict[Any, list[Any]] = {}
    for stored in list(table.items.values()):
        for item in (list(stored.values()) if table.range_key_attr else [stored]):
            key = item.attrs.get(hash_attr)
            if key is None or (range_attr is not None and item.attrs.get(range_attr) is None):
                continue  # not in the index (sparse)
            groups.setdefault(key, []).append(item)
    order = [a for a in (range_attr, table.hash_key_attr, table.range_key_attr) if a]

    def sort_key(item: Any) -> tuple[Any, ...]:
        return tuple(item.attrs[a].cast_value for a in order)

    partitions: dict[Any, tuple[list[Any], list[Any]]] = {}
    for key, items in groups.items():
        if range_attr is not None and len({item.attrs[range_attr].type for item in items}) > 1:
            partitions[key] = (items, [])  # mixed sort key types: no bisection, moto filters
            continue
        try:
            items.sort(key=sort_key)
        except TypeError:
            partitions[key] = (items, [])
            continue
        partitions[key] = (items, [item.attrs[range_attr].cast_value for item in items] if range_attr else [])
    _maps[(id(table), index_name)] = (table, version, partitions)
    return partitions


_COMPARISONS = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}  # moto passes either form


def _bounds(keys: list[Any], comparison: str, values: list[Any]) -> tuple[int, int]:
    """The slice of `keys` (sorted) that may satisfy the sort key condition; moto checks each item again."""
    comparison = _COMPARISONS.get(comparison, comparison.upper())
    try:
        casts = [value.cast_value for value in values]
        if comparison == "EQ":
            return bisect.bisect_left(keys, casts[0]), bisect.bisect_right(keys, casts[0])
        if comparison in ("LT", "LE"):
            return 0, (bisect.bisect_left if comparison == "LT" else bisect.bisect_right)(keys, casts[0])
        if comparison in ("GT", "GE"):
            return (bisect.bisect_right if comparison == "GT" else bisect.bisect_left)(keys, casts[0]), len(keys)
        if comparison == "BETWEEN":
            return bisect.bisect_left(keys, casts[0]), bisect.bisect_right(keys, casts[1])
        if comparison == "BEGINS_WITH" and isinstance(casts[0], str):
            lo = hi = bisect.bisect_left(keys, casts[0])
            while hi < len(keys) and isinstance(keys[hi], str) and keys[hi].startswith(casts[0]):
                hi += 1
            return lo, hi
    except TypeError:  # a condition value of another type than the keys: moto decides
        pass
    return 0, len(keys)
