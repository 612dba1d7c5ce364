"""Places where moto's DynamoDB differs from DynamoDB, corrected in-process. Three in its Streams (each broke a
consumer that is correct on AWS):
1. A cancelled TransactWriteItems: moto appends the actions' stream records, then rolls back, so the records stay
   (and, while moto swapped in copies of the tables, open iterators kept reading the discarded shard). Here the
   records are dropped (and a live shard would move to a restored table copy; item 6 no longer makes one).
2. An UpdateItem that creates an item: moto writes two INSERTs (the bare key, then the item); DynamoDB one.
3. A write that changes nothing: moto emits a MODIFY; DynamoDB no record (PITFALLS 4).
And one in UpdateItem:
4. moto checks the 400 KB item limit only when a top-level attribute is set, so an update of a nested path
   (`SET Attributes.tracks = list_append(...)`) grows an item past 400 KB. Here the updated item is measured by
   DynamoDB's rules (functions/shared/capacity.py) and, if over, restored and refused with moto's own
   ValidationException "Item size to update has exceeded the maximum allowed size", as DynamoDB refuses it.
And one in cost:
5. moto answers every Query by reading the whole table (then sorting what matches), so a local Query's time grows with
   the table, not with its answer, and 15 parallel Queries on a 60,000-item table outlast a function's 10 s timeout.
   DynamoDB reads one partition, from the sort key's place. Here a Query reads the same: on the table, the items of
   its partition; on an index, a per-index map of partitions, each sorted by moto's own order (index sort key, then
   the table's keys), cut by bisection to the key condition's range. moto then answers from those items with its own
   code (condition, order, paging, projection), so the answer is unchanged. A table's maps are rebuilt after it is
   written (every DynamoDB action but the reads bumps its tables' version, or every table's when it names none).
And one in time:
6. moto backs up a transaction by deep-copying every table an action names, once per action, before it writes: a
   transaction's cost grew with the tables (the example data's 112 connected-car timeslot transactions took 6.3 s of
   `make run`'s start). Here the tables are not copied; the items the actions name are, and a cancelled transaction
   puts those items back (the same rollback, item by item).
7. moto's server lists its own package directory (a listdir and a stat per entry) on every request to find the
   backend a host names; the list never changes in a process, so it is read once.
And one in transactions:
8. moto ignores TransactWriteItems' `ClientRequestToken`, which botocore fills in once per call and sends again on
   each of its retries. DynamoDB answers a repeat of a successful call with the same token within 10 minutes with
   success, without applying it again ("TransactWriteItems", ClientRequestToken), and a repeat with other items with
   IdempotentParameterMismatchException. In moto a retried transaction whose first attempt was applied (its answer
   lost) ran again and failed on its own conditions: a 409 locally where AWS answers 200. Here the token is kept.
9. An Update inside TransactWriteItems that takes its item past 400 KB: moto rolls back and answers a plain
   ValidationException. DynamoDB cancels the transaction: TransactionCanceledException with that action's reason
   `ValidationError`, "Item size to update has exceeded the maximum allowed size" (the TransactWriteItems API
   reference, TransactionCanceledException). Here it is that cancellation. A Put over 400 KB in a transaction is
   left as moto answers it (a ValidationException): the reference's ValidationError reasons give only the update's
   message, and nothing here tells what DynamoDB answers for a Put.
And one in Query:
10. An ExclusiveStartKey whose sort key does not satisfy the Query's sort key condition: DynamoDB refuses it with a
   ValidationException, "The provided starting key does not match the range key predicate" (a position outside the
   range asked for; dynalite, which mirrors DynamoDB's validation, tests the same message). moto answers from it,
   mostly an empty page, so a caller whose range moved under its cursor (a lower bound clamped to now minus a
   retention) passed locally and failed on AWS. Here it is refused as DynamoDB refuses it.
`apply()` patches moto once per process: the runtime (whose moto runs in-process) and the test suite call it.
"""

from __future__ import annotations

import bisect
import collections
import copy
import functools
import hashlib
import itertools
import json
import threading
import time
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
    DynamoDBBackend.update_item = _cancels_transaction(  # type: ignore[method-assign]  # item 9
        _single_insert(DynamoDBBackend.update_item))
    import moto.dynamodb.models as backend_module
    from moto import backends

    modules = tuple(backends.list_of_moto_modules())
    backends.list_of_moto_modules = lambda: modules  # type: ignore[assignment]  # item 7

    backend_module.copy = _TablesNotCopied()  # type: ignore[attr-defined]
    rollback = _streams_survive_rollback(_item_rollback(_in_transaction(DynamoDBBackend.transact_write_items)))
    DynamoDBBackend.transact_write_items = rollback  # type: ignore[method-assign]
    UpdateExpressionExecutor.execute = _size_checked(UpdateExpressionExecutor.execute)  # type: ignore[method-assign]
    _partition_reads()
    from moto.dynamodb.responses import DynamoHandler

    DynamoHandler.transact_write_items = _client_request_token(  # type: ignore[method-assign]  # item 8
        DynamoHandler.transact_write_items)
    _applied = True


TOKEN_WINDOW_SECONDS = 600  # "valid for 10 minutes after the first request that uses it is completed"


def _client_request_token(transact_write_items: Any) -> Any:
    """A successful transaction's answer, kept by token on its account and region's backend (so a reset of moto
    forgets it) for TOKEN_WINDOW_SECONDS and given to a repeat with the same items instead of applying them again. A
    failed one is not kept: its retry runs."""
    from moto.dynamodb.exceptions import ERROR_TYPE_PREFIX, DynamodbException

    lock = threading.Lock()

    @functools.wraps(transact_write_items)
    def patched(self: Any) -> Any:
        token = self.body.get("ClientRequestToken")
        if not token:
            return transact_write_items(self)
        key = str(token)
        # every parameter but the token: "a change in other parameters" is a mismatch too (binary values are bytes)
        rest = {name: value for name, value in self.body.items() if name != "ClientRequestToken"}
        digest = hashlib.sha256(json.dumps(rest, sort_keys=True, default=repr).encode()).hexdigest()
        now = time.monotonic()
        with lock:
            done: collections.OrderedDict[str, tuple[str, float, Any]] = vars(self.dynamodb_backend).setdefault(
                "_client_tokens", collections.OrderedDict())  # in completion order: the stale ones come first
            while done and now - next(iter(done.values()))[1] > TOKEN_WINDOW_SECONDS:
                done.popitem(last=False)
            seen = done.get(key)
        if seen is not None:
            if seen[0] != digest:
                raise DynamodbException(ERROR_TYPE_PREFIX + "IdempotentParameterMismatchException",
                                        "The request uses the same client token as a previous, but non-identical "
                                        "request.")
            return seen[2]
        result = transact_write_items(self)
        with lock:
            done[key] = (digest, time.monotonic(), result)
        return result

    return patched


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


class ValidationError(Exception):
    """An action's validation failure inside a transaction: moto's transaction reports any exception that is not a
    ValidationException as a cancellation reason coded with the exception's class name (item 9)."""


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
    """Within a transaction, an update refused for the item's size cancels it (item 9) instead of failing it."""
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


class _TablesNotCopied:
    """The `copy` module as moto's DynamoDB backend sees it, but a Table is not deep-copied (item 6): its only Table
    copy is transact_write_items' backup, which `_item_rollback` replaces."""

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        from moto.dynamodb.models.table import Table

        return value if isinstance(value, Table) else copy.deepcopy(value, memo)


def _item_rollback(transact_write_items: Any) -> Any:
    """Backs up the item each action names (a copy, or None where there is none) and puts them back if the
    transaction fails, as moto's own rollback did with copies of whole tables."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    @functools.wraps(transact_write_items)
    def patched(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        backups = []
        for action in transact_items:
            operation = next(iter(action.values()), None) if isinstance(action, dict) else None
            table = self.tables.get(operation.get("TableName")) if isinstance(operation, dict) else None
            if table is None:
                continue
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
                continue
            backups.append((table, hash_value, range_value, copy.deepcopy(stored)))
        try:
            return transact_write_items(self, transact_items)
        except Exception:
            for table, hash_value, range_value, stored in reversed(backups):
                if range_value is None:
                    if stored is None:
                        table.items.pop(hash_value, None)
                    else:
                        table.items[hash_value] = stored
                elif stored is None:
                    table.items.get(hash_value, {}).pop(range_value, None)
                else:
                    table.items[hash_value][range_value] = stored
            raise

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
    "Item size to update has exceeded the maximum allowed size"; a cancelled transaction puts its items back, item 6)."""
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


# A Query reads its partition (5.) ------------------------------------------------------------------------------

_READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems", "DescribeTable", "ListTables",
                    "DescribeTimeToLive", "DescribeContinuousBackups", "ListTagsOfResource", "DescribeEndpoints",
                    "DescribeLimits", "DescribeKinesisStreamingDestination", "ListBackups", "ListGlobalTables"})
_version = itertools.count()
_written: dict[str | None, int] = {None: next(_version)}  # per table name (None: any table), bumped after a write
_maps: dict[tuple[int, str], tuple[Any, tuple[int, int], dict[Any, tuple[list[Any], list[Any]]]]] = {}
_candidates = threading.local()  # the items a Query running on this thread may read, per table
_building = threading.Lock()  # one thread builds a map; parallel Queries (a fan-out) wait for it


def _partition_reads() -> None:
    from moto.dynamodb.models.table import Table
    from moto.dynamodb.responses import DynamoHandler

    from local import moto_capacity

    call_action, query, all_items, scan = DynamoHandler.call_action, Table.query, Table.all_items, Table.scan

    @functools.wraps(call_action)
    def counted(self: Any) -> Any:
        try:
            return moto_capacity.around(self, lambda: call_action(self))  # 6.
        finally:
            if self._get_action() not in _READS:  # after the write: a map built while it ran is already stale
                written(*_tables_of(getattr(self, "body", None)))

    @functools.wraps(query)
    def partitioned(self: Any, hash_key: Any, range_comparison: str | None, range_objs: list[Any], limit: Any,
                    exclusive_start_key: Any, scan_index_forward: bool, projection_expressions: Any,
                    index_name: str | None = None, consistent_read: bool = False, filter_expression: Any = None,
                    hash_key_conditions: Any = None, range_key_conditions: Any = None, **filter_kwargs: Any) -> Any:
        # moto's query without the filter and the ProjectionExpression: the items it evaluated, as the index holds
        # them, are what the read costs (6.); then the filter and the projection, applied as moto applies them.
        _check_start_key(exclusive_start_key, range_key_conditions or [])  # 10.
        arguments = (self, hash_key, range_comparison, range_objs, limit, exclusive_start_key, scan_index_forward,
                     None, index_name, consistent_read, None)
        named = {"hash_key_conditions": hash_key_conditions, "range_key_conditions": range_key_conditions,
                 **filter_kwargs}
        items = None if filter_kwargs else _partition(self, hash_key, range_comparison, range_objs, index_name,
                                                      hash_key_conditions or [], range_key_conditions or [])
        reading = getattr(_candidates, "tables", None) or {}
        if items is not None:
            _candidates.tables = {**reading, id(self): items}
        try:
            results, scanned, last = query(*arguments, **named)
        finally:
            _candidates.tables = reading
        return _filtered(self, index_name, consistent_read, results, filter_expression, projection_expressions), \
            scanned, last

    @functools.wraps(scan)
    def scanned(self: Any, filters: Any, limit: Any, exclusive_start_key: Any, filter_expression: Any = None,
                index_name: str | None = None, consistent_read: bool = False, projection_expression: Any = None,
                segments: Any = (None, None)) -> Any:
        if filters:  # the legacy ScanFilter: moto filters while it reads
            return scan(self, filters, limit, exclusive_start_key, filter_expression, index_name, consistent_read,
                        projection_expression, segments)
        results, count, last = scan(self, filters, limit, exclusive_start_key, None, index_name, consistent_read,
                                    None, segments)
        return _filtered(self, index_name, consistent_read, results, filter_expression, projection_expression), \
            count, last

    @functools.wraps(all_items)
    def candidates(self: Any) -> Any:
        items = (getattr(_candidates, "tables", None) or {}).get(id(self))
        return list(items) if items is not None else all_items(self)

    def _filtered(table: Any, index_name: str | None, consistent: bool, results: list[Any], filter_expression: Any,
                  projection: Any) -> list[Any]:
        moto_capacity.evaluated(table, index_name, results, consistent)
        if filter_expression is not None:
            results = [item for item in results if filter_expression.expr(item)]
        if projection:
            results = [item.project(projection) for item in results]
        return results

    DynamoHandler.call_action = counted  # type: ignore[method-assign]
    Table.query = partitioned  # type: ignore[method-assign]
    Table.scan = scanned  # type: ignore[method-assign]
    Table.all_items = candidates  # type: ignore[method-assign]


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


def _tables_of(body: Any) -> list[str]:
    """The tables a write request names (TableName, BatchWriteItem's RequestItems, TransactItems); [] if unknown."""
    if not isinstance(body, dict):
        return []
    names = [body["TableName"]] if isinstance(body.get("TableName"), str) else []
    names += [name for name in body.get("RequestItems") or {} if isinstance(name, str)]
    for action in body.get("TransactItems") or []:
        names += [op["TableName"] for op in action.values() if isinstance(op, dict) and "TableName" in op]
    return names


def _partition(table: Any, hash_key: Any, comparison: str | None, values: list[Any], index_name: str | None,
               hash_conditions: list[Any], range_conditions: list[Any]) -> list[Any] | None:
    """The items a Query may read, or None to let moto read them all (a shape this does not know)."""
    if not index_name:
        if hash_key is None:
            return None
        stored = table.items.get(hash_key)  # .get: `items` is a defaultdict
        if stored is None:
            return []
        return list(stored.values()) if table.range_key_attr else [stored]
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


def _build(table: Any, index_name: str, hash_attr: str, range_attr: str | None, version: tuple[int, int]) -> dict[Any, Any]:
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


def _comparison(name: str) -> str:
    return _COMPARISONS.get(name, name.upper())


def _check_start_key(start: dict[str, Any] | None, range_conditions: list[Any]) -> None:
    """Item 10: refuse a start key whose sort key lies outside the sort key condition, as DynamoDB does."""
    from moto.dynamodb.exceptions import MockValidationException
    from moto.dynamodb.models.dynamo_type import DynamoType

    for name, comparison, values in range_conditions if start else []:
        if not isinstance(start.get(name), dict) or not ({"S", "N"} & set(start[name])):
            continue  # a start key without the attribute, or a binary one (compared as bytes): moto's own answer
        try:
            value, bounds = DynamoType(start[name]).cast_value, [v.cast_value for v in values]
            inside = {
                "EQ": lambda: value == bounds[0], "LT": lambda: value < bounds[0], "LE": lambda: value <= bounds[0],
                "GT": lambda: value > bounds[0], "GE": lambda: value >= bounds[0],
                "BETWEEN": lambda: bounds[0] <= value <= bounds[1],
                "BEGINS_WITH": lambda: isinstance(value, str) and value.startswith(bounds[0]),
            }[_comparison(comparison)]()
        except (KeyError, IndexError, TypeError, ArithmeticError):  # a shape or type this does not know: moto decides
            continue
        if not inside:
            raise MockValidationException("The provided starting key does not match the range key predicate")


def _bounds(keys: list[Any], comparison: str, values: list[Any]) -> tuple[int, int]:
    """The slice of `keys` (sorted) that may satisfy the sort key condition; moto checks each item again."""
    comparison = _comparison(comparison)
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
