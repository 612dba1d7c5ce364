"""Consumed capacity as DynamoDB counts it, in place of moto's constant (moto answers 0.5 or 1 unit whatever was read
or written). Applied by local/moto_fidelity.py around every DynamoDB action that asks `ReturnConsumedCapacity`.

The rules, from the DynamoDB developer guide ("Read/write capacity mode", "Item sizes", "Provisioned throughput
considerations for global secondary indexes", "Transactions: capacity management"), sizes by
functions/shared/capacity.py:
- a read unit is 4 KB strongly consistent, half a unit eventually consistent; GetItem and each item of a
  BatchGetItem round their own item up (a missing item still costs the minimum); a Query or Scan rounds the sum of
  the items it evaluated (before any filter, as stored in the table or, on an index, as projected there) once per
  page;
- a write unit is 1 KB, of the larger of the item before and after (a missing item still costs one unit);
- every secondary index the write touches costs index writes of its projected item: one to add or remove it, one
  to update its projected attributes, two (delete and put) when its key changes; nothing when the item is in the
  index neither before nor after or nothing projected changed;
- a transaction doubles every unit, a ConditionCheck included (it costs the write units of its item).
The items before a write are read from moto's tables before the action runs, the items after once it has succeeded.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from typing import Any

from boto3.dynamodb.types import TypeDeserializer
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.utilities.aws_headers import gen_amz_crc32

from functions.shared.capacity import item_size, read_units, write_units

SINGLE = frozenset({"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan"})
MULTI = frozenset({"BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems"})

_reads = threading.local()  # (table, index, sizes, consistent) per Query/Scan page of the action on this thread
_deserializer = TypeDeserializer()


def evaluated(table: Any, index_name: str | None, items: list[Any], consistent: bool) -> None:
    """A Query or Scan page evaluated these items (as the index holds them): their sizes are its read units."""
    pages = getattr(_reads, "pages", None)
    if pages is not None:
        pages.append((table.name, index_name, [_size(_plain(item.to_json()["Attributes"])) for item in items],
                      consistent))


def around(handler: Any, call: Any) -> Any:
    """Run one DynamoDB action (`call()` gives moto's (status, headers, body)) and give it DynamoDB's consumed
    capacity when it asked for it."""
    action = handler._get_action()
    params = getattr(handler, "params", None) or {}
    mode = params.get("ReturnConsumedCapacity", "NONE")
    if action not in SINGLE | MULTI or mode not in ("TOTAL", "INDEXES"):
        return call()
    backend = handler.dynamodb_backend
    writes = _writes(action, params)
    before = {key: _stored(backend, *key) for key in writes}
    _reads.pages = []
    try:
        status, headers, body = call()
        pages = _reads.pages
    finally:
        _reads.pages = None
    if str(status) != "200":
        return status, headers, body
    bill: dict[str, dict[str | None, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    factor = 2 if action.startswith("Transact") else 1
    for table_name, index, sizes, consistent in pages:
        bill[table_name][index][0] += read_units(sizes, consistent=consistent)
    for table_name, key, consistent in _gets(action, params):
        bill[table_name][None][0] += factor * read_units([_size(_stored(backend, table_name, key) or {})],
                                                         consistent=consistent or factor == 2)
    for (table_name, frozen), kind in writes.items():
        table = backend.get_table(table_name)
        old = before[(table_name, frozen)]
        new = None if kind == "check" else _stored(backend, table_name, frozen)
        if kind == "check":
            bill[table_name][None][1] += factor * write_units(_size(old or {}))
            continue
        bill[table_name][None][1] += factor * write_units(max(_size(old or {}), _size(new or {})))
        for index in [*(table.global_indexes or []), *(table.indexes or [])]:
            bill[table_name][index.name][1] += factor * _index_writes(table, index, old, new)
    consumed = [_entry(backend, name, by_index, mode, write=bool(writes)) for name, by_index in bill.items()]
    document = json.loads(body) if body else {}
    if action in SINGLE:
        name = params.get("TableName")
        document["ConsumedCapacity"] = next((c for c in consumed if c["TableName"] == name), None) or _entry(
            backend, name, {None: [read_units([], consistent=bool(params.get("ConsistentRead"))), 0.0]}, mode,
            write=False)
    else:
        document["ConsumedCapacity"] = consumed
    body = json.dumps(document)
    gen_amz_crc32(body, headers)  # botocore checks DynamoDB's x-amz-crc32 against the body
    return status, headers, body


def _writes(action: str, params: dict[str, Any]) -> dict[tuple[str, Any], str]:
    """{(table, key): "write" | "check"} of a write action, keys frozen from the request."""
    found: dict[tuple[str, Any], str] = {}

    def add(table_name: str, key_or_item: dict[str, Any], kind: str) -> None:
        found[(table_name, _freeze(key_or_item))] = kind

    if action in ("PutItem", "UpdateItem", "DeleteItem"):
        add(params["TableName"], params.get("Item") or params.get("Key") or {}, "write")
    elif action == "BatchWriteItem":
        for table_name, requests in (params.get("RequestItems") or {}).items():
            for request in requests:
                put, delete = request.get("PutRequest"), request.get("DeleteRequest")
                add(table_name, (put or {}).get("Item") or (delete or {}).get("Key") or {}, "write")
    elif action == "TransactWriteItems":
        for item in params.get("TransactItems") or []:
            for kind, op in item.items():
                add(op["TableName"], op.get("Item") or op.get("Key") or {}, "check" if kind == "ConditionCheck"
                    else "write")
    return found


def _gets(action: str, params: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """(table, key, consistent) of every item a GetItem, BatchGetItem or TransactGetItems reads."""
    if action == "GetItem":
        return [(params["TableName"], _freeze(params["Key"]), bool(params.get("ConsistentRead")))]
    if action == "BatchGetItem":
        return [(name, _freeze(key), bool(request.get("ConsistentRead")))
                for name, request in (params.get("RequestItems") or {}).items() for key in request.get("Keys", [])]
    if action == "TransactGetItems":
        return [(item["Get"]["TableName"], _freeze(item["Get"]["Key"]), True) for item in params.get("TransactItems")
                or []]
    return []


def _freeze(typed: dict[str, Any]) -> str:
    return json.dumps(typed, sort_keys=True)


def _stored(backend: Any, table_name: str, frozen: str) -> dict[str, Any] | None:
    """The item stored under the key in `frozen` (an item or a key, typed), as plain values, or None."""
    table = backend.get_table(table_name)
    typed = json.loads(frozen)
    if table.hash_key_attr not in typed:
        return None
    partition = table.items.get(DynamoType(typed[table.hash_key_attr]))
    if partition is None:
        return None
    if table.range_key_attr:
        if table.range_key_attr not in typed:
            return None
        item = partition.get(DynamoType(typed[table.range_key_attr]))
    else:
        item = partition
    return None if item is None else _plain(item.to_json()["Attributes"])


def _plain(typed: dict[str, Any]) -> dict[str, Any]:
    return {name: _deserializer.deserialize(value) for name, value in typed.items()}


def _size(item: dict[str, Any]) -> int:
    return item_size(item) if item else 0


def _projected(table: Any, index: Any, item: dict[str, Any]) -> dict[str, Any]:
    keys = {table.hash_key_attr, table.range_key_attr, *index.schema_key_attrs} - {None}
    projection = (index.projection or {}).get("ProjectionType", "ALL")
    if projection == "ALL":
        return dict(item)
    kept = keys | (set((index.projection or {}).get("NonKeyAttributes", [])) if projection == "INCLUDE" else set())
    return {name: value for name, value in item.items() if name in kept}


def _index_writes(table: Any, index: Any, old: dict[str, Any] | None, new: dict[str, Any] | None) -> int:
    keys = index.schema_key_attrs
    was = old is not None and all(k in old for k in keys)
    now = new is not None and all(k in new for k in keys)
    if not was and not now:
        return 0
    before = _projected(table, index, old) if was else None  # type: ignore[arg-type]
    after = _projected(table, index, new) if now else None  # type: ignore[arg-type]
    if before is None:
        return write_units(item_size(after))  # type: ignore[arg-type]
    if after is None:
        return write_units(item_size(before))
    if any(old[k] != new[k] for k in keys):  # type: ignore[index]
        return write_units(item_size(before)) + write_units(item_size(after))  # delete, then put
    if before == after:
        return 0
    return write_units(max(item_size(before), item_size(after)))


def _entry(backend: Any, table_name: str, by_index: dict[str | None, list[float]], mode: str, *, write: bool) \
        -> dict[str, Any]:
    """One table's ConsumedCapacity as DynamoDB shapes it (INDEXES adds Table and each index's share)."""
    table = backend.get_table(table_name)
    local = {index.name for index in table.indexes or []}
    kind = "WriteCapacityUnits" if write else "ReadCapacityUnits"

    def units(pair: list[float]) -> dict[str, float]:
        value = pair[1] if write else pair[0]
        return {"CapacityUnits": value, kind: value}

    total = sum((pair[1] if write else pair[0]) for pair in by_index.values())
    entry: dict[str, Any] = {"TableName": table_name, "CapacityUnits": total, kind: total}
    if mode == "INDEXES":
        entry["Table"] = units(by_index.get(None, [0.0, 0.0]))
        for name, pair in by_index.items():
            if name is not None:
                entry.setdefault("LocalSecondaryIndexes" if name in local else "GlobalSecondaryIndexes", {})[name] = \
                    units(pair)
    return entry
