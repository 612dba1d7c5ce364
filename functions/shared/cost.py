"""What a request cost in DynamoDB, from DynamoDB's own figures: every call asks for `ReturnConsumedCapacity=INDEXES`
and the ledger of the request in flight sums what comes back (requests, items read, read and write units per table
and per index, time spent waiting). The resolver answers it as a `Server-Timing` header and as Powertools metrics.

On AWS the units are DynamoDB's. Locally moto answers a constant, so the local endpoint computes them by DynamoDB's
published rules (local/dynamodb/fidelity/consumed_capacity.py, `functions/shared/capacity.py`) and the same header
carries true figures.

What the header cannot show: DynamoDB bills a refused conditional write (at least one unit) and a cancelled
transaction, but a ConditionalCheckFailedException or TransactionCanceledException carries no ConsumedCapacity
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity:
"you don't receive any information in the response about the write capacity that was consumed"). Such a call counts
as a request with no units; the table's ConsumedWriteCapacityUnits metric has them (locally:
local/dynamodb/capacity.py).
The ledger adds what it can estimate apart, never into the units DynamoDB reported: a refused PutItem, UpdateItem or
DeleteItem that asked for the item in the way (`ReturnValuesOnConditionCheckFailure=ALL_OLD`) is billed by the larger
of that item and the item it attempted, at least one unit ("DynamoDB read and write operations",
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html: "If the expression
evaluates to false, DynamoDB still consumes write capacity units"); the header shows it as `refused=` and `wcu_est=`.
An UpdateItem's attempted after-image is not known to the caller: its key and the values it sets stand for it, so the
estimate is a lower bound. A cancelled transaction is marked refused on its line of the explained bill, with no
estimate (the guide does not say what it consumes), and is not counted in `refused=`.

Calls of one request may run in parallel (a fan-out in threads): `dur` sums them; `wall=` (when it differs) is the
time during which at least one call was in flight.

The ledger lives in a ContextVar: a request's threads (a fan-out in a copied context) add to the same ledger, and a
call made outside a request (a stream consumer, a seed) adds to none.
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from functions.shared.capacity import READ_UNIT, item_size, write_units
from functions.shared.schema import EXPLAIN_ENV

# Operations that accept ReturnConsumedCapacity (the DynamoDB API reference), by botocore's operation names.
METERED = frozenset({
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem",
    "TransactGetItems", "TransactWriteItems", "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction",
})

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


@dataclass
class Ledger:
    """One request's DynamoDB bill. `units[(table, index)] = [read units, write units]`; index None is the table."""

    requests: int = 0
    items_read: int = 0
    seconds: float = 0.0
    units: dict[tuple[str, str | None], list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    # The calls and the items they read or wrote, when the request is explained (`metered(explain=True)`); else None.
    calls: list[dict[str, Any]] | None = None
    # Refused conditional writes (their answers carry no ConsumedCapacity) and the write units estimated for them.
    refused: int = 0
    estimated_write_units: float = 0.0
    # (start, end) of every call, perf_counter seconds: the wall time in DynamoDB when calls ran in parallel.
    spans: list[tuple[float, float]] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, operation: str, response: dict[str, Any], seconds: float, *, end: float | None = None) -> None:
        with self._lock:
            self.requests += 1
            self.seconds += seconds
            if end is not None:
                self.spans.append((end - seconds, end))
            self.items_read += _items_read(operation, response)
            consumed = response.get("ConsumedCapacity") or []
            for entry in consumed if isinstance(consumed, list) else [consumed]:
                self._add(entry, write=operation in WRITES)

    def refuse(self, estimated_units: float) -> None:
        """A refused conditional write: counted, and its estimated units kept apart from DynamoDB's own."""
        with self._lock:
            self.refused += 1
            self.estimated_write_units += estimated_units

    @property
    def wall_seconds(self) -> float:
        """The time during which at least one call was in flight (the union of the calls' spans)."""
        total, reach = 0.0, float("-inf")
        for start, end in sorted(self.spans):
            if end > reach:
                total += end - max(start, reach)
                reach = end
        return total

    def explain(self, call: dict[str, Any]) -> None:
        with self._lock:
            if self.calls is not None:
                self.calls.append(call)

    def explanation(self, limit: int = 12_000, *, contents: bool = True) -> str:
        """The calls as compact ASCII JSON for a header, `[{"op", "items": [{"table", "tableVar", "name", "index"?,
        "action", "item", "set"?, "size"}], "tables", "index"?, "count", "bytes", "rcu", "wcu", "consistent"?, "rule",
        "refused"?, "ms", "at", "error"?}]`, at most about `limit` characters: the items (and calls) beyond it are left
        out, and a last entry says how many (`{"truncated": n}`). Without `contents`, the bill only: each item's
        attributes (`item`, `set`) are left out."""
        calls: list[dict[str, Any]] = []
        left_out, size = 0, 2 + len('{"truncated":0000000}')
        for call in self.calls or ():
            if not contents:
                call = {**call, "items": [{k: v for k, v in item.items() if k not in ("item", "set")}
                                          for item in call["items"]]}
            kept = {**call, "items": []}
            envelope = len(json.dumps(kept, separators=(",", ":"))) + 1
            if left_out or size + envelope > limit:
                left_out += max(1, len(call["items"]))
                continue
            size += envelope
            for item in call["items"]:
                text = len(json.dumps(item, separators=(",", ":"))) + 1
                if left_out or size + text > limit:
                    left_out += 1
                    continue
                kept["items"].append(item)
                size += text
            calls.append(kept)
        if left_out:
            calls.append({"truncated": left_out})
        return json.dumps(calls, separators=(",", ":"))

    def _add(self, entry: dict[str, Any], *, write: bool) -> None:
        table = entry.get("TableName", "?")
        parts = [((table, None), entry.get("Table"))]
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            parts += [((table, name), units) for name, units in (entry.get(kind) or {}).items()]
        if not any(units for _, units in parts):  # TOTAL, or a response without the breakdown: all on the table
            parts = [((table, None), entry)]
        for key, units in parts:
            if units:
                self.units[key][0] += units.get("ReadCapacityUnits", 0.0)
                self.units[key][1] += units.get("WriteCapacityUnits", 0.0)
                if "ReadCapacityUnits" not in units and "WriteCapacityUnits" not in units:
                    # CapacityUnits alone: a read operation's units are reads, a write's writes
                    self.units[key][1 if write else 0] += units.get("CapacityUnits", 0.0)

    @property
    def read_units(self) -> float:
        return sum(read for read, _ in self.units.values())

    @property
    def write_units(self) -> float:
        return sum(write for _, write in self.units.values())

    def server_timing(self) -> str:
        """`Server-Timing` (W3C): `ddb` with the totals and the time spent in DynamoDB, then one entry per table and
        index that was read or written, e.g. `ddb;dur=3.1;desc="requests=2 items=26 rcu=1.5 wcu=0",
        ddb.Orders.GSI2;desc="rcu=1 wcu=0"`."""
        extra = ""
        wall = self.wall_seconds
        # calls overlapped (a fan-out in threads): their sum is not time the request waited
        if len(self.spans) > 1 and self.seconds - wall >= 0.00005:
            extra += f" wall={wall * 1000:.1f}"
        if self.refused:
            extra += f" refused={self.refused} wcu_est={_figure(self.estimated_write_units)}"
        entries = [f'ddb;dur={self.seconds * 1000:.1f};desc="requests={self.requests} items={self.items_read} '
                   f'rcu={_figure(self.read_units)} wcu={_figure(self.write_units)}{extra}"']
        for (table, index), (read, write) in sorted(self.units.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
            name = ".".join(_token(part) for part in (table, index) if part)
            entries.append(f'ddb.{name};desc="rcu={_figure(read)} wcu={_figure(write)}"')
        return ", ".join(entries)


_ledger: ContextVar[Ledger | None] = ContextVar("dynamodb_ledger", default=None)


# Explaining a request (dev stage only, `EXPLAIN_ENV`): the answer also carries the items every DynamoDB call read or
# wrote, for the model explorer (GET /explorer) to draw them grouped by item collection. Never on prod: a function
# reads items it does not show (an idempotency record, a parent it checks), and the header would show them.
EXPLAIN_REQUEST_HEADER = "X-Blueprints-Explain"
EXPLAIN_RESPONSE_HEADER = "X-Blueprints-Items"


def explaining_allowed() -> bool:
    return os.environ.get(EXPLAIN_ENV) == "items"


@contextmanager
def metered(*, explain: bool = False) -> Iterator[Ledger]:
    """The ledger of one request: every DynamoDB call made in this context (and in contexts copied from it) adds to
    it; with `explain`, so do the items each call read or wrote (`Ledger.calls`)."""
    ledger = Ledger(calls=[] if explain else None)
    token = _ledger.set(ledger)
    try:
        yield ledger
    finally:
        _ledger.reset(token)


def instrument(client: Any) -> Any:
    """Make a boto3 DynamoDB client ask every metered call for its consumed capacity and record it in the ledger of
    the request in flight. Idempotent per client."""
    events = client.meta.events
    if getattr(client.meta, "_blueprints_metered", False):
        return client
    events.register("provide-client-params.dynamodb.*", _ask_for_capacity, unique_id="blueprints-cost-ask")
    events.register("before-call.dynamodb.*", _start_clock, unique_id="blueprints-cost-start")
    events.register("after-call.dynamodb.*", _record, unique_id="blueprints-cost-record")
    client.meta._blueprints_metered = True
    return client


def _ask_for_capacity(params: dict[str, Any], model: Any, **_: Any) -> None:
    if model.name in METERED:
        params.setdefault("ReturnConsumedCapacity", "INDEXES")


_started: ContextVar[float] = ContextVar("dynamodb_call_started", default=0.0)


_request: ContextVar[dict[str, Any] | None] = ContextVar("dynamodb_call_request", default=None)


def _start_clock(params: dict[str, Any], model: Any, **_: Any) -> None:
    _started.set(time.perf_counter())
    ledger = _ledger.get()
    if ledger is not None and (ledger.calls is not None or model.name in _SINGLE_WRITES):
        _request.set(_json(params.get("body")))


_SINGLE_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem"})
CONDITION_FAILED = "ConditionalCheckFailedException"
TRANSACTION_CANCELLED = "TransactionCanceledException"


def _record(http_response: Any, parsed: dict[str, Any], model: Any, **_: Any) -> None:
    ledger = _ledger.get()
    if ledger is None or model.name not in METERED:
        return
    end = time.perf_counter()
    seconds = end - _started.get()
    ledger.record(model.name, parsed, seconds, end=end)
    error = (parsed.get("Error") or {}).get("Code")
    request = _request.get() or {}
    refused: dict[str, Any] | None = None
    if error == CONDITION_FAILED and model.name in _SINGLE_WRITES:
        response = _json(getattr(http_response, "content", None))
        refused = refused_write(model.name, request, response.get("Item"))
        ledger.refuse(refused["wcu"])
    elif error == TRANSACTION_CANCELLED and model.name == "TransactWriteItems":
        # marked on its line of the bill, not counted in `refused=`: there is nothing to estimate it by
        refused = {"wcu": None, "rule": "transaction cancelled: DynamoDB reports no capacity and the guide does not "
                                        "say what a cancelled transaction consumes"}
    if ledger.calls is not None:
        call = _call(model.name, request, _json(getattr(http_response, "content", None)), error)
        call.update(_bill_of(model.name, request, parsed, call["items"], refused))
        call["ms"] = round(seconds * 1000, 1)
        call["at"] = round((end - seconds - ledger.started) * 1000, 1)
        ledger.explain(call)


def refused_write(operation: str, request: dict[str, Any], stored: dict[str, Any] | None) -> dict[str, Any]:
    """The estimated bill of a refused PutItem/UpdateItem/DeleteItem: the larger of the stored item (returned with
    ALL_OLD) and the item attempted, at least one unit (read-write-operations). An UpdateItem's attempted item is
    its key and the values it sets; a DeleteItem attempts none."""
    attempted: dict[str, Any] = {}
    if operation == "PutItem":
        attempted = request.get("Item") or {}
    elif operation == "UpdateItem":
        attempted = {**(request.get("Key") or {}), **{k: v for k, v in _set_attributes(request).items()
                                                       if isinstance(v, dict) and "expr" not in v}}
    old, new = wire_item_size(stored or {}), wire_item_size(attempted)
    units = write_units(max(old, new))
    known = "stored " + _kb(old) if stored else "stored item not returned (ask ALL_OLD)"
    return {"wcu": float(units), "estimated": True,
            "rule": f"refused: larger of {known} and attempted {_kb(new)} → {units} × 1 KB = {units} WCU "
                    "(estimated: DynamoDB's answer carries no capacity)"}


_READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})


def _bill_of(operation: str, request: dict[str, Any], parsed: dict[str, Any], items: list[dict[str, Any]],
             refused: dict[str, Any] | None) -> dict[str, Any]:
    """One call's line of the bill: the table(s) and index by their logical names, the consistency of a read, the
    items and their sizes, the units DynamoDB reported, and the rule that gives them
    ("3 items, 1.2 KB → 1 × 4 KB × ½ = 0.5 RCU")."""
    consumed = parsed.get("ConsumedCapacity") or []
    rcu = wcu = 0.0
    for entry in consumed if isinstance(consumed, list) else [consumed]:
        rcu += entry.get("ReadCapacityUnits", 0.0)
        wcu += entry.get("WriteCapacityUnits", 0.0)
        if "ReadCapacityUnits" not in entry and "WriteCapacityUnits" not in entry:
            if operation in WRITES:
                wcu += entry.get("CapacityUnits", 0.0)
            else:
                rcu += entry.get("CapacityUnits", 0.0)
    names = _table_names(operation, request)
    sizes = [item["size"] for item in items if "size" in item]
    line: dict[str, Any] = {"tables": names, "count": len(items), "bytes": sum(sizes), "rcu": rcu, "wcu": wcu}
    if request.get("IndexName"):
        line["index"] = request["IndexName"]
    if operation in _READS:
        consistent = operation == "TransactGetItems" or bool(request.get("ConsistentRead")) or any(
            (entry or {}).get("ConsistentRead") for entry in (request.get("RequestItems") or {}).values())
        line["consistent"] = consistent
        line["rule"] = read_rule(operation, sizes, consistent=consistent)
    else:
        line["rule"] = write_rule(operation, sizes, reported=wcu)
    if refused is not None:
        line["refused"] = refused
        line["rule"] = refused["rule"]
    return line


def read_rule(operation: str, sizes: list[int], *, consistent: bool) -> str:
    """DynamoDB's read rule for the items a call returned: a Query, Scan or GetItem rounds their total up to 4 KB
    (at least one unit), a BatchGetItem each item, a TransactGetItems each item and doubles it; eventually
    consistent reads cost half (read-write-operations)."""
    count = f"{len(sizes)} item{'' if len(sizes) == 1 else 's'}, {_kb(sum(sizes))}"
    half = "" if consistent else " × ½"
    if operation in ("BatchGetItem", "TransactGetItems"):
        blocks = sum(math.ceil(size / READ_UNIT) for size in sizes) or 0
        double = " × 2 (transaction)" if operation == "TransactGetItems" else ""
        units = blocks * (2 if double else 1) * (1 if consistent else 0.5)
        return f"{count}, each rounded up → {blocks} × 4 KB{double}{half} = {_figure(units)} RCU"
    blocks = max(1, math.ceil(sum(sizes) / READ_UNIT))
    units = blocks * (1 if consistent else 0.5)
    return f"{count} → {blocks} × 4 KB{half} = {_figure(units)} RCU"


def write_rule(operation: str, sizes: list[int], *, reported: float) -> str:
    """DynamoDB's write rule: each item's size rounded up to 1 KB, at least one unit, doubled in a transaction; an
    update or delete is billed by the larger of the item before and after, which only DynamoDB sees, and every
    index the write touches adds its own units: the difference to what DynamoDB reported is said, not hidden."""
    blocks = sum(write_units(size) for size in sizes)
    double = operation == "TransactWriteItems"
    units = blocks * (2 if double else 1)
    text = (f"{len(sizes)} item{'' if len(sizes) == 1 else 's'}, {_kb(sum(sizes))} → {blocks} × 1 KB"
            f"{' × 2 (transaction)' if double else ''} = {_figure(units)} WCU")
    if reported and abs(reported - units) > 1e-9:
        text += f"; DynamoDB reported {_figure(reported)} (the stored item's size and index writes count too)"
    return text


def _kb(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def _table_names(operation: str, request: dict[str, Any]) -> list[str]:
    physical: list[str] = []
    if request.get("TableName"):
        physical.append(request["TableName"])
    physical += list(request.get("RequestItems") or {})
    for action in request.get("TransactItems") or ():
        for body in action.values():
            if isinstance(body, dict) and body.get("TableName"):
                physical.append(body["TableName"])
    return list(dict.fromkeys(logical_name(name) for name in physical))


# Physical table name -> the logical name of its spec (`TableSpec.construct_id` without "Table"), registered when a
# function resolves a spec to its table (functions/shared/settings.py): the bill names tables as the model does.
_logical: dict[str, str] = {}


def name_table(physical: str, logical: str) -> None:
    _logical[physical] = logical


def logical_name(physical: str) -> str:
    return _logical.get(physical, physical)


def wire_item_size(item: dict[str, Any]) -> int:
    """An item's size by DynamoDB's rules (`capacity.item_size`), from its wire JSON (`{"S": "x"}`)."""
    from boto3.dynamodb.types import TypeDeserializer  # boto3 on first use: ddb.resource() says why

    deserializer = TypeDeserializer()
    return item_size({name: deserializer.deserialize(value) for name, value in (item or {}).items()})


_CLAUSE = re.compile(r"\b(SET|REMOVE|ADD|DELETE)\b", re.I)


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [part.strip() for part in [*parts, current] if part.strip()]


def _set_attributes(request: dict[str, Any]) -> dict[str, Any]:
    """What an UpdateItem (or a transaction's Update) sets, by attribute: the wire value of `SET a = :v`, else
    `{"expr": "…"}` with its names and values written out (`count + 1`, `REMOVE`, `ADD 1`)."""
    expression = request.get("UpdateExpression") or ""
    names = request.get("ExpressionAttributeNames") or {}
    values = request.get("ExpressionAttributeValues") or {}

    def spelled(text: str) -> str:
        text = re.sub(r"#\w+", lambda m: names.get(m.group(0), m.group(0)), text)
        return re.sub(r":\w+", lambda m: json.dumps(_plain_wire(values.get(m.group(0)))), text)

    found: dict[str, Any] = {}
    pieces = _CLAUSE.split(expression)
    for clause, body in zip(pieces[1::2], pieces[2::2], strict=True):
        for part in _split_top(body):
            clause = clause.upper()
            if clause == "SET":
                path, _, value = part.partition("=")
                path, value = spelled(path.strip()), value.strip()
                found[path] = values[value] if value in values else {"expr": spelled(value)}
            elif clause == "REMOVE":
                found[spelled(part)] = {"expr": "REMOVE"}
            else:
                path, _, value = part.partition(" ")
                found[spelled(path)] = {"expr": f"{clause} {spelled(value.strip())}"}
    return found


def _plain_wire(value: Any) -> Any:
    """A wire value (`{"N": "1"}`) as plain JSON, for an expression written out."""
    if not isinstance(value, dict) or not value:
        return value
    kind, inner = next(iter(value.items()))
    if kind == "N":
        return float(inner) if any(c in inner for c in ".eE") else int(inner)
    if kind == "L":
        return [_plain_wire(v) for v in inner]
    if kind == "M":
        return {k: _plain_wire(v) for k, v in inner.items()}
    if kind == "NULL":
        return None
    return inner


def _json(body: Any) -> dict[str, Any]:
    """A request or response body as DynamoDB sent it (wire JSON: `{"S": "x"}`, binary as base64 text)."""
    try:
        value = json.loads(body) if body else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


# What one call touched: (table, action, item, index, what an update sets), per operation.
_Touched = tuple[str | None, str, Any, str | None, dict[str, Any] | None]


def _read_touches(operation: str, request: dict[str, Any], response: dict[str, Any]) -> Iterator[_Touched]:
    table = request.get("TableName")
    if operation == "GetItem":
        yield table, "read", response.get("Item"), None, None
    elif operation in ("Query", "Scan"):
        for item in response.get("Items") or ():
            yield table, "read", item, request.get("IndexName"), None
    elif operation == "BatchGetItem":
        for name, found in (response.get("Responses") or {}).items():
            for item in found:
                yield name, "read", item, None, None
    elif operation == "TransactGetItems":
        for action, found in zip(request.get("TransactItems") or (), response.get("Responses") or (), strict=False):
            yield (action.get("Get") or {}).get("TableName"), "read", found.get("Item"), None, None


def _batch_write_touches(request: dict[str, Any]) -> Iterator[_Touched]:
    for name, requests in (request.get("RequestItems") or {}).items():
        for entry in requests:
            if "PutRequest" in entry:
                yield name, "put", entry["PutRequest"].get("Item"), None, None
            elif "DeleteRequest" in entry:
                yield name, "delete", entry["DeleteRequest"].get("Key"), None, None


_TRANSACT_VERBS = (("Put", "put"), ("Update", "update"), ("Delete", "delete"), ("ConditionCheck", "check"))


def _transact_write_touches(request: dict[str, Any]) -> Iterator[_Touched]:
    for action in request.get("TransactItems") or ():
        for kind, verb in _TRANSACT_VERBS:
            if kind in action:
                body = action[kind]
                yield (body.get("TableName"), verb, body.get("Item" if kind == "Put" else "Key"), None,
                       _set_attributes(body) if kind == "Update" else None)


def _write_touches(operation: str, request: dict[str, Any], response: dict[str, Any]) -> Iterator[_Touched]:
    table = request.get("TableName")
    if operation == "PutItem":
        yield table, "put", request.get("Item"), None, None
    elif operation == "UpdateItem":
        written = response.get("Attributes") or {}
        yield table, "update", {**request.get("Key", {}), **written}, None, _set_attributes(request)
    elif operation == "DeleteItem":
        yield table, "delete", request.get("Key", {}), None, None
    elif operation == "BatchWriteItem":
        yield from _batch_write_touches(request)
    elif operation == "TransactWriteItems":
        yield from _transact_write_touches(request)


def _call(operation: str, request: dict[str, Any], response: dict[str, Any], error: str | None) -> dict[str, Any]:
    """One call for the explorer: every item it read (as returned, projected by the index) or wrote (the item put,
    the key updated with what the update sets, the key deleted or checked), each with its table, the table's logical
    name and the item's size."""
    items: list[dict[str, Any]] = []
    variables = _table_variables()
    touched = [*_read_touches(operation, request, response), *_write_touches(operation, request, response)]
    for table, action, item, index, sets in touched:
        if table and isinstance(item, dict):
            entry = {"table": table, "tableVar": variables.get(table), "name": logical_name(table), "action": action,
                     "item": item, "size": wire_item_size(item)}
            if sets:
                entry["set"] = sets
            items.append({**entry, "index": index} if index else entry)
    call: dict[str, Any] = {"op": operation, "items": items}
    if error:
        call["error"] = error
    return call


def _table_variables() -> dict[str, str]:
    """Each table's name -> the environment variable that names it in the function (a `TableSpec.env_var`), which
    tells the explorer the table's keys."""
    return {value: name for name, value in os.environ.items() if name.endswith("_TABLE_NAME")}


def _items_read(operation: str, response: dict[str, Any]) -> int:
    """Items DynamoDB read to answer: a Query's or Scan's ScannedCount (before any filter), GetItem's item, every
    item a BatchGetItem or TransactGetItems returned."""
    if operation in ("Query", "Scan"):
        return int(response.get("ScannedCount", 0))
    if operation == "GetItem":
        return 1 if response.get("Item") else 0
    if operation == "BatchGetItem":
        return sum(len(items) for items in (response.get("Responses") or {}).values())
    if operation == "TransactGetItems":
        return sum(1 for entry in response.get("Responses") or [] if entry.get("Item"))
    return 0


def _figure(units: float) -> str:
    return f"{units:g}"


def _token(name: str) -> str:
    """A table or index name as part of a Server-Timing metric name (an HTTP token: DynamoDB names are letters,
    digits, `_`, `-` and `.`, all token characters)."""
    return "".join(c if c.isalnum() or c in "_-." else "_" for c in name)
