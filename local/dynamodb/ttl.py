"""DynamoDB Time to Live, played locally (moto never expires items): a sweeper deletes, every `interval` seconds, the
items whose TTL attribute is a Number of epoch seconds in the past, but not more than five years; anything else never
expires. Each delete is conditional on the item still being expired (an extended TTL survives). Its deletions reach the
table's stream as DynamoDB's do: REMOVE records with `userIdentity` = {"type": "Service", "principalId":
"dynamodb.amazonaws.com"} ("DynamoDB Streams and Time to Live"); `swept` remembers which keys it deleted, and
local/streams/mapping.py adds the identity to those REMOVE records.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from botocore.exceptions import ClientError

from local.cloudformation.resources import TableInfo

log = logging.getLogger("local.dynamodb.ttl")

DEFAULT_SWEEP_SECONDS = 1.0
MAX_EXPIRED_AGE = 5 * 365 * 24 * 3600  # DynamoDB ignores TTL values more than five years old
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
_SWEPT_REMEMBERED = 100_000


class SweptKeys:
    """The keys the sweeper deleted, per table name (the most recent ones): a stream REMOVE of one of them was TTL's."""

    def __init__(self) -> None:
        self._keys: dict[tuple[str, str], None] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _id(table_name: str, key: Mapping[str, Any]) -> tuple[str, str]:
        return table_name, json.dumps(key, sort_keys=True)

    def add(self, table_name: str, key: Mapping[str, Any]) -> None:
        with self._lock:
            self._keys[self._id(table_name, key)] = None
            while len(self._keys) > _SWEPT_REMEMBERED:
                del self._keys[next(iter(self._keys))]

    def discard(self, table_name: str, key: Mapping[str, Any]) -> None:
        with self._lock:
            self._keys.pop(self._id(table_name, key), None)

    def __contains__(self, entry: tuple[str, Mapping[str, Any]]) -> bool:
        with self._lock:
            return self._id(*entry) in self._keys


swept = SweptKeys()


class TtlSweeper:
    """Deletes expired items of every table with TTL enabled, every `interval` seconds."""

    def __init__(self, tables: Iterable[TableInfo], dynamodb: Any, *, interval: float = DEFAULT_SWEEP_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        self.tables = [table for table in tables if table.ttl_attribute]
        self.interval, self._dynamodb, self._clock = interval, dynamodb, clock
        self._lock = threading.Lock()  # one sweep at a time (background thread or a test)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.tables and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="ttl-sweeper", daemon=True)
            self._thread.start()
            log.info("TTL sweeper every %.1fs for %s", self.interval,
                     ", ".join(f"{t.logical_id}.{t.ttl_attribute}" for t in self.tables))

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def sweep(self) -> int:
        """One pass over every table; returns how many items were deleted."""
        with self._lock:
            return sum(self._sweep_table(table) for table in self.tables)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sweep()
            except Exception:  # the sweeper must outlive a failing pass
                if self._stop.is_set():
                    return
                log.exception("TTL sweep failed; trying again in %.1fs", self.interval)
            self._stop.wait(self.interval)

    def _sweep_table(self, table: TableInfo) -> int:
        """A Scan on every pass (wrong on a request path; here it stands in for DynamoDB's own background process,
        which reads the whole table too), then a delete per expired item, conditional on its still being expired."""
        now, keys = self._clock(), {f"#k{i}": key["AttributeName"] for i, key in enumerate(table.key_schema)}
        values = {":number": {"S": "N"}, ":oldest": {"N": f"{now - MAX_EXPIRED_AGE:.3f}"}, ":now": {"N": f"{now:.3f}"}}
        condition = "attribute_type(#ttl, :number) AND #ttl BETWEEN :oldest AND :now"
        names = {"#ttl": str(table.ttl_attribute)}
        expired = {"ConditionExpression": condition, "ExpressionAttributeNames": names,
                   "ExpressionAttributeValues": values}
        deleted = 0
        for page in self._dynamodb.get_paginator("scan").paginate(
                TableName=table.name, ProjectionExpression=", ".join(keys), ExpressionAttributeValues=values,
                FilterExpression=condition, ExpressionAttributeNames={**keys, **names}):
            for item in page.get("Items", []):
                swept.add(table.name, item)  # before the delete: a stream poller may read its REMOVE at once
                try:
                    self._dynamodb.delete_item(TableName=table.name, Key=item, **expired)
                    deleted += 1
                except ClientError as exc:  # its TTL changed meanwhile
                    swept.discard(table.name, item)
                    if exc.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
                        raise
        if deleted:
            log.info("TTL: deleted %d expired item(s) from %s", deleted, table.logical_id)
        return deleted


def sweep_seconds_from_env(environ: Mapping[str, str]) -> float:
    """`LOCAL_TTL_SWEEP_SECONDS` (default 1); 0 turns the sweeper off."""
    return float(environ.get("LOCAL_TTL_SWEEP_SECONDS") or DEFAULT_SWEEP_SECONDS)
