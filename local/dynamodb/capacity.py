"""Consumed capacity as DynamoDB counts it, in place of moto's constant (moto answers 0.5 or 1 unit whatever was read
or written). Applied by local/dynamodb/fidelity/consumed_capacity.py around every DynamoDB action that asks
`ReturnConsumedCapacity`.

The rules, each with the page of the DynamoDB developer guide it comes from (sizes by functions/shared/capacity.py):

- Reads ("DynamoDB read and write operations",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html): a read unit is 4 KB
  strongly consistent, half a unit eventually consistent, two units transactional. GetItem and each item of a
  BatchGetItem or TransactGetItems round their own item up; a missing item still costs the minimum ("If you perform a
  read operation on an item that doesn't exist, DynamoDB will still consume read throughput"). A projection does not
  make a read cheaper.
- Query and Scan round the sum of the items they evaluated, once per page, as the table or the index stores them.
  A filter is applied after the read and saves nothing ("a Query consumes the same amount of read capacity,
  regardless of whether a filter expression is present",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html), so a page that
  filters every item out costs what it evaluated, and a page that evaluated nothing costs the minimum, 0.5 unit (1
  strongly consistent): "For Query/Scan operations, you'll still be charged additional read throughput based on read
  consistency and the number of partitions searched ... even if no data exists" (read-write-operations). Unknown
  locally: the number of physical partitions a Scan searches; we charge the minimum once per page.
- Writes (read-write-operations): a write unit is 1 KB, of the larger of the item before and after; a DeleteItem is
  billed by the item it deleted, and a delete of a missing item, alone or in a BatchWriteItem, costs one unit
  ("Delete operations on non-existent items consume 1 write capacity unit",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/API_BatchWriteItem_v20111205.html). A
  BatchWriteItem is billed as its puts and deletes, each rounded on its own.
- Secondary indexes ("Provisioned throughput considerations for global secondary indexes",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations): an index
  the write touches costs writes of its projected item: one to add or remove it, one (the larger image) to update
  what it projects, two (a delete and a put) when its key changes; nothing when the item is in it neither before nor
  after, or nothing projected changed. Such an index is left out of the answer.
- Transactions ("Capacity management for transactions",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling):
  DynamoDB "performs two underlying reads or writes of every item in the transaction", so every unit of the base
  table doubles, a ConditionCheck's included (write units, of the item it checks). The indexes do not double: the same
  page says a transaction's changes "start propagating to global secondary indexes (GSIs), streams, and backups" once
  it has completed, as any write's do; measured on DynamoDB, an index write inside a transaction costs what it costs
  outside one (captured in eu-west-2 by nubo-db/dynoxide, tests/transactional_index_consumed_capacity.rs).
- A refused conditional write is billed (read-write-operations: "If the expression evaluates to false, DynamoDB still
  consumes write capacity units from the table ... This item can be an existing item in the table or a new one you're
  attempting to create or update": 300 KB stored and 310 KB attempted cost 310 KB) but DynamoDB's answer, a
  ConditionalCheckFailedException, carries no ConsumedCapacity (the guide: "you don't receive any information in the
  response about the write capacity that was consumed. However, you can view the ConsumedWriteCapacityUnits metric",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity;
  botocore's model of the exception has only `message` and `Item`). Neither does a TransactionCanceledException
  (its model: `Message`, `CancellationReasons`; measured:
  https://github.com/paritysuite/dynamodb-conformance/pull/67). So the answer
  here carries none either, the functions' `Server-Timing` shows what AWS would show (nothing for that call), and
  the units are counted in `consumed()`, this endpoint's stand-in for CloudWatch's ConsumedWriteCapacityUnits.
  Unknown: what a cancelled transaction consumes (the guide does not say; `consumed()` leaves it out), and the
  after-image of a refused UpdateItem (never built here: billed by the stored item, at least one unit).
- The answer's shape: GetItem, PutItem, UpdateItem, DeleteItem, Query and Scan report `CapacityUnits` alone (under
  INDEXES, `Table` and each index with `CapacityUnits` alone); the transactional operations add `ReadCapacityUnits`
  / `WriteCapacityUnits` at every level (measured:
  https://github.com/paritysuite/dynamodb-conformance/issues/69). The batch operations get the single-item shape (not
  measured).
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
    params: dict[str, Any] = getattr(handler, "params", None) or {}
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
        refused = _error(body).endswith("ConditionalCheckFailedException")
        if refused and action in ("PutItem", "UpdateItem", "DeleteItem"):
            # Billed, but the exception carries no ConsumedCapacity: counted where AWS shows it, the table's metric.
            ((table_name, frozen),) = writes
            _count(table_name, 0.0, float(refused_write_units(action, params, before[(table_name, frozen)])))
        return status, headers, body
    transactional = action.startswith("Transact")
    bill = _bill(backend, action, params, pages=pages, writes=writes, before=before)
    for table_name, by_index in bill.items():
        _count(table_name, sum(read for read, _ in by_index.values()), sum(write for _, write in by_index.values()))
    consumed = [_entry(backend, name, by_index, mode, write=bool(writes), split=transactional)
                for name, by_index in bill.items()]
    document = json.loads(body) if body else {}
    if action in SINGLE:
        name: str = params["TableName"]  # a single-table action that succeeded names its table
        document["ConsumedCapacity"] = next((c for c in consumed if c["TableName"] == name), None) or _entry(
            backend, name, {None: [read_units([], consistent=bool(params.get("ConsistentRead"))), 0.0]}, mode,
            write=False, split=False)
    else:
        document["ConsumedCapacity"] = consumed
    body = json.dumps(document)
    gen_amz_crc32(body, headers)  # botocore checks DynamoDB's x-amz-crc32 against the body
    return status, headers, body


def _bill(backend: Any, action: str, params: dict[str, Any], *, pages: list[Any],
          writes: dict[tuple[str, Any], str], before: dict[tuple[str, Any], dict[str, Any] | None],
          ) -> dict[str, dict[str | None, list[float]]]:
    """(read units, write units) per table and index (None: the table itself) of an action that succeeded: the
    pages it read, the items it got, and each item it wrote or checked, compared with that item `before` it."""
    bill: dict[str, dict[str | None, list[float]]] = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    transactional = action.startswith("Transact")
    factor = 2 if transactional else 1  # the base table's units only: indexes are written after the commit
    for table_name, index, sizes, consistent in pages:
        bill[table_name][index][0] += read_units(sizes, consistent=consistent)
    for table_name, key, consistent in _gets(action, params):
        bill[table_name][None][0] += factor * read_units([_size(_stored(backend, table_name, key) or {})],
                                                         consistent=consistent or transactional)
    for (table_name, frozen), kind in writes.items():
        table = backend.get_table(table_name)
        old = before[(table_name, frozen)]
        if kind == "check":
            bill[table_name][None][1] += factor * write_units(_size(old or {}))
            continue
        new = _stored(backend, table_name, frozen)
        bill[table_name][None][1] += factor * write_units(max(_size(old or {}), _size(new or {})))
        for index in [*(table.global_indexes or []), *(table.indexes or [])]:
            if units := _index_writes(table, index, old, new):
                bill[table_name][index.name][1] += units
    return bill


def refused_write_units(action: str, params: dict[str, Any], stored: dict[str, Any] | None) -> int:
    """Write units of a PutItem/UpdateItem/DeleteItem whose condition failed: the larger of the stored item and the
    item it attempted to write, at least one unit (read-write-operations: 300 KB stored, 310 KB attempted -> 310 KB).
    An UpdateItem's attempted item is never built here (moto refused it before applying it): the stored one counts."""
    attempted = _plain(params.get("Item") or {}) if action == "PutItem" else {}
    return write_units(max(_size(stored or {}), _size(attempted)))


# The write and read units each table consumed, as CloudWatch's ConsumedWriteCapacityUnits and
# ConsumedReadCapacityUnits would sum them, refused conditional writes included (their answers carry none): for the
# requests that asked for ReturnConsumedCapacity (every call of the functions, functions/shared/cost.py).
_consumed: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
_consumed_lock = threading.Lock()


def _count(table_name: str, read: float, write: float) -> None:
    with _consumed_lock:
        _consumed[table_name][0] += read
        _consumed[table_name][1] += write


def consumed() -> dict[str, dict[str, float]]:
    """{table: {"ConsumedReadCapacityUnits": n, "ConsumedWriteCapacityUnits": n}} since the endpoint started."""
    with _consumed_lock:
        return {name: {"ConsumedReadCapacityUnits": read, "ConsumedWriteCapacityUnits": write}
                for name, (read, write) in _consumed.items()}


def _error(body: Any) -> str:
    """The `__type` of an error answer (`com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`), or ""."""
    try:
        document = json.loads(body) if body else {}
    except ValueError:
        return ""
    return str(document.get("__type", "")) if isinstance(document, dict) else ""


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
    before = _projected(table, index, old) if old is not None and all(k in old for k in keys) else None
    after = _projected(table, index, new) if new is not None and all(k in new for k in keys) else None
    if before is None:
        return 0 if after is None else write_units(item_size(after))
    if after is None:
        return write_units(item_size(before))
    if any(before[k] != after[k] for k in keys):  # the projection keeps the index's keys
        return write_units(item_size(before)) + write_units(item_size(after))  # delete, then put
    if before == after:
        return 0
    return write_units(max(item_size(before), item_size(after)))


def _entry(backend: Any, table_name: str, by_index: dict[str | None, list[float]], mode: str, *, write: bool,
           split: bool) -> dict[str, Any]:
    """One table's ConsumedCapacity as DynamoDB shapes it: INDEXES adds the Table and each index's share; `split`
    (the transactional operations) adds ReadCapacityUnits or WriteCapacityUnits beside every CapacityUnits."""
    table = backend.get_table(table_name)
    local = {index.name for index in table.indexes or []}
    kind = "WriteCapacityUnits" if write else "ReadCapacityUnits"

    def units(value: float) -> dict[str, float]:
        return {"CapacityUnits": value, kind: value} if split else {"CapacityUnits": value}

    total = sum((pair[1] if write else pair[0]) for pair in by_index.values())
    entry: dict[str, Any] = {"TableName": table_name, **units(total)}
    if mode == "INDEXES":
        table_pair = by_index.get(None, [0.0, 0.0])
        entry["Table"] = units(table_pair[1] if write else table_pair[0])
        for name, pair in by_index.items():
            if name is not None:
                entry.setdefault("LocalSecondaryIndexes" if name in local else "GlobalSecondaryIndexes", {})[name] = \
                    units(pair[1] if write else pair[0])
    return entry
