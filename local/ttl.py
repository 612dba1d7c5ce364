"""DynamoDB Time to Live, played locally: a background sweeper deletes expired items (PITFALLS 3).

Why: nothing local expires items, yet consumers of TTL deletions (stream REMOVE records from the
service) and code that must tolerate expired-but-present items both need the real behaviour. The
sweeper follows DynamoDB's rules: only items whose TTL attribute is a Number of epoch seconds in the
past (and no more than five years in the past) are deleted; a missing or non-number attribute means
"never". Each delete is conditional on the item still being expired, so an item whose TTL was just
extended survives. DynamoDB deletes within about two days, the sweeper within `interval` seconds.

DynamoDB marks its own deletions in the stream (`userIdentity` of the service); moto cannot, so the
sweeper announces each delete to a `ServiceDeletes` registry, which the stream reader consults when
it meets the matching REMOVE record.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from botocore.exceptions import ClientError

from local.resources import TableInfo

log = logging.getLogger("local.ttl")

DEFAULT_SWEEP_SECONDS = 1.0
SERVICE_IDENTITY: Mapping[str, str] = {
    "type": "Service",
    "principalId": "dynamodb.amazonaws.com",
}
MAX_EXPIRED_AGE = 5 * 365 * 24 * 3600  # DynamoDB ignores TTL values more than five years old
_REMEMBERED = 100_000  # bound on the registry: a table nobody reads must not grow it forever


class ServiceDeletes:
    """Which stream REMOVE records are TTL deletions: a thread-safe registry.

    The sweeper calls `expect` before each delete (a stream reader may see the record before the
    delete call returns) and `cancel` when the conditional delete did not happen. A reader calls
    `identity` for every record it reads: the first REMOVE of an expected key claims the
    expectation, and its sequence number is remembered so that every mapping reading the record
    (and every redelivery of it) gets the same answer. One imprecision remains: a user's delete of
    the same item racing a sweeper delete that then fails its condition may be taken for the
    sweeper's.
    """

    def __init__(self, capacity: int = _REMEMBERED) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._expected: Counter[tuple[str, str]] = Counter()
        self._claimed: OrderedDict[tuple[str, str], None] = OrderedDict()

    def expect(self, table: str, keys: Mapping[str, Any]) -> None:
        with self._lock:
            self._expected[(table, _canonical(keys))] += 1
            if len(self._expected) > self._capacity:
                del self._expected[next(iter(self._expected))]

    def cancel(self, table: str, keys: Mapping[str, Any]) -> None:
        with self._lock:
            self._take((table, _canonical(keys)))

    def identity(self, table: str, record: Mapping[str, Any]) -> Mapping[str, str] | None:
        """`userIdentity` for a raw stream record of `table`: the service's for TTL deletions."""
        if record.get("eventName") != "REMOVE":
            return None
        dynamodb = record.get("dynamodb") or {}
        sequence = (table, str(dynamodb.get("SequenceNumber")))
        with self._lock:
            if sequence not in self._claimed:
                if not self._take((table, _canonical(dynamodb.get("Keys") or {}))):
                    return None
                self._claimed[sequence] = None
                if len(self._claimed) > self._capacity:
                    self._claimed.popitem(last=False)
        return SERVICE_IDENTITY

    def _take(self, key: tuple[str, str]) -> bool:
        """Consume one expectation of `key` (lock held); False when there was none."""
        if self._expected[key] <= 0:
            return False
        self._expected[key] -= 1
        if not self._expected[key]:
            del self._expected[key]
        return True


class TtlSweeper:
    """Deletes expired items of every table with TTL enabled, every `interval` seconds."""

    def __init__(
        self,
        tables: Iterable[TableInfo],
        dynamodb: Any,
        *,
        deletes: ServiceDeletes,
        interval: float = DEFAULT_SWEEP_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.tables = [table for table in tables if table.ttl_attribute]
        self.interval = interval
        self._dynamodb = dynamodb
        self._deletes = deletes
        self._clock = clock
        self._lock = threading.Lock()  # one sweep at a time (background thread or a test)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if not self.tables or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="ttl-sweeper", daemon=True)
        self._thread.start()
        names = ", ".join(f"{t.logical_id}.{t.ttl_attribute}" for t in self.tables)
        log.info("TTL sweeper every %.1fs for %s", self.interval, names)

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
        assert table.ttl_attribute
        now = self._clock()
        key_names = [key["AttributeName"] for key in table.key_schema]
        deleted = 0
        for item in self._scan(table.name, [*key_names, table.ttl_attribute]):
            expiry = _epoch_seconds(item.get(table.ttl_attribute))
            if expiry is None or not now - MAX_EXPIRED_AGE <= expiry < now:
                continue
            keys = {name: item[name] for name in key_names}
            if self._delete(table, keys, now):
                deleted += 1
        if deleted:
            log.info("TTL: deleted %d expired item(s) from %s", deleted, table.logical_id)
        return deleted

    def _scan(self, table_name: str, attributes: list[str]) -> Iterator[dict[str, Any]]:
        """Every item's keys and TTL attribute.

        A Scan on every pass would be wrong on a request path; here it stands in for DynamoDB's
        own background TTL process, which reads the whole table too.
        """
        names = {f"#a{index}": name for index, name in enumerate(attributes)}
        request: dict[str, Any] = {
            "TableName": table_name,
            "ProjectionExpression": ", ".join(names),
            "ExpressionAttributeNames": names,
        }
        while True:
            page = self._dynamodb.scan(**request)
            yield from page.get("Items", [])
            if "LastEvaluatedKey" not in page:
                return
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _delete(self, table: TableInfo, keys: Mapping[str, Any], now: float) -> bool:
        """Delete one item if it is still expired; False when its TTL changed meanwhile."""
        announced = table.stream_arn is not None  # only a stream reader will ever ask
        if announced:
            self._deletes.expect(table.name, keys)
        try:
            self._dynamodb.delete_item(
                TableName=table.name,
                Key=dict(keys),
                ConditionExpression=(
                    "attribute_type(#ttl, :number) AND #ttl BETWEEN :oldest AND :now"
                ),
                ExpressionAttributeNames={"#ttl": table.ttl_attribute},
                ExpressionAttributeValues={
                    ":number": {"S": "N"},
                    ":oldest": {"N": _number(now - MAX_EXPIRED_AGE)},
                    ":now": {"N": _number(now)},
                },
            )
        except BaseException as exc:
            if announced:
                self._deletes.cancel(table.name, keys)
            if _condition_failed(exc):
                return False
            raise
        return True


def sweep_seconds_from_env(environ: Mapping[str, str]) -> float:
    """`LOCAL_TTL_SWEEP_SECONDS` (default 1); 0 turns the sweeper off."""
    return float(environ.get("LOCAL_TTL_SWEEP_SECONDS") or DEFAULT_SWEEP_SECONDS)


def _condition_failed(exc: BaseException) -> bool:
    code = exc.response.get("Error", {}).get("Code") if isinstance(exc, ClientError) else None
    return code == "ConditionalCheckFailedException"


def _epoch_seconds(value: Any) -> Decimal | None:
    if not isinstance(value, Mapping) or "N" not in value:
        return None
    try:
        return Decimal(value["N"])
    except InvalidOperation:
        return None


def _number(value: float) -> str:
    return f"{value:.3f}"


def _canonical(keys: Mapping[str, Any]) -> str:
    return json.dumps(keys, sort_keys=True)


__all__ = [
    "DEFAULT_SWEEP_SECONDS",
    "SERVICE_IDENTITY",
    "ServiceDeletes",
    "TtlSweeper",
    "sweep_seconds_from_env",
]
