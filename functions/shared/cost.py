"""What a request cost in DynamoDB, from DynamoDB's own figures: every call asks for `ReturnConsumedCapacity=INDEXES`
and the ledger of the request in flight sums what comes back (requests, items read, read and write units per table
and per index, time spent waiting). The resolver answers it as a `Server-Timing` header and as Powertools metrics.

On AWS the units are DynamoDB's. Locally moto answers a constant, so the local endpoint computes them by DynamoDB's
published rules (local/moto_fidelity.py, `functions/shared/capacity.py`) and the same header carries true figures.

The ledger lives in a ContextVar: a request's threads (a fan-out in a copied context) add to the same ledger, and a
call made outside a request (a stream consumer, a seed) adds to none.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

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
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, operation: str, response: dict[str, Any], seconds: float) -> None:
        with self._lock:
            self.requests += 1
            self.seconds += seconds
            self.items_read += _items_read(operation, response)
            consumed = response.get("ConsumedCapacity") or []
            for entry in consumed if isinstance(consumed, list) else [consumed]:
                self._add(entry, write=operation in WRITES)

    def explain(self, call: dict[str, Any]) -> None:
        with self._lock:
            if self.calls is not None:
                self.calls.append(call)

    def explanation(self, limit: int = 12_000) -> str:
        """The calls as compact ASCII JSON for a header, `[{"op", "items": [{"table", "tableVar", "index"?, "action",
        "item"}], "error"?}]`, at most about `limit` characters: the items (and calls) beyond it are left out, and a
        last entry says how many (`{"truncated": n}`)."""
        calls: list[dict[str, Any]] = []
        left_out, size = 0, 2 + len('{"truncated":0000000}')
        for call in self.calls or ():
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
        entries = [f'ddb;dur={self.seconds * 1000:.1f};desc="requests={self.requests} items={self.items_read} '
                   f'rcu={_figure(self.read_units)} wcu={_figure(self.write_units)}"']
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


def _start_clock(params: dict[str, Any], **_: Any) -> None:
    _started.set(time.perf_counter())
    ledger = _ledger.get()
    if ledger is not None and ledger.calls is not None:
        _request.set(_json(params.get("body")))


def _record(http_response: Any, parsed: dict[str, Any], model: Any, **_: Any) -> None:
    ledger = _ledger.get()
    if ledger is None or model.name not in METERED:
        return
    ledger.record(model.name, parsed, time.perf_counter() - _started.get())
    if ledger.calls is not None:
        ledger.explain(_call(model.name, _request.get() or {}, _json(getattr(http_response, "content", None)),
                             (parsed.get("Error") or {}).get("Code")))


def _json(body: Any) -> dict[str, Any]:
    """A request or response body as DynamoDB sent it (wire JSON: `{"S": "x"}`, binary as base64 text)."""
    try:
        value = json.loads(body) if body else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _call(operation: str, request: dict[str, Any], response: dict[str, Any], error: str | None) -> dict[str, Any]:
    """One call for the explorer: every item it read (as returned, projected by the index) or wrote (the item put,
    the key updated, deleted or checked), each with its table."""
    items: list[dict[str, Any]] = []
    variables = _table_variables()

    def add(table: str | None, action: str, item: Any, index: str | None = None) -> None:
        if table and isinstance(item, dict):
            entry = {"table": table, "tableVar": variables.get(table), "action": action, "item": item}
            items.append({**entry, "index": index} if index else entry)

    table = request.get("TableName")
    if operation == "GetItem":
        add(table, "read", response.get("Item"))
    elif operation in ("Query", "Scan"):
        for item in response.get("Items") or ():
            add(table, "read", item, request.get("IndexName"))
    elif operation == "BatchGetItem":
        for name, found in (response.get("Responses") or {}).items():
            for item in found:
                add(name, "read", item)
    elif operation == "TransactGetItems":
        for action, found in zip(request.get("TransactItems") or (), response.get("Responses") or ()):
            add((action.get("Get") or {}).get("TableName"), "read", found.get("Item"))
    elif operation == "PutItem":
        add(table, "put", request.get("Item"))
    elif operation in ("UpdateItem", "DeleteItem"):
        written = response.get("Attributes") if operation == "UpdateItem" else None
        add(table, "update" if operation == "UpdateItem" else "delete", {**request.get("Key", {}), **(written or {})})
    elif operation == "BatchWriteItem":
        for name, requests in (request.get("RequestItems") or {}).items():
            for entry in requests:
                if "PutRequest" in entry:
                    add(name, "put", entry["PutRequest"].get("Item"))
                elif "DeleteRequest" in entry:
                    add(name, "delete", entry["DeleteRequest"].get("Key"))
    elif operation == "TransactWriteItems":
        for action in request.get("TransactItems") or ():
            for kind, verb in (("Put", "put"), ("Update", "update"), ("Delete", "delete"), ("ConditionCheck", "check")):
                if kind in action:
                    add(action[kind].get("TableName"), verb, action[kind].get("Item" if kind == "Put" else "Key"))
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
