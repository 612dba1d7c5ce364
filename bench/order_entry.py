"""Order entry figures: pattern 5, "all OPEN orders in a date range", over GSI2 with N = 1 and N = 15 shards, 50,000
orders each (docs/adr/0052-order-entry-adjacency-list-sharded-gsi2.md).

How it is measured (the API's shard count is the function's ORDER_ENTRY_ORDER_SHARDS, set by the CDK from the
computed N = 15; the local runtime has no way to override it, so N = 1 is measured in-process):
- the local runtime is started (synth, moto, seeds); 50,000 order headers (20 % OPEN, the seed's share; the rest
  SHIPPED or DELIVERED; dates over 2025) are written into its OrderEntryTable, straight into moto's backend (in
  this process), keys and GSI2 attributes built by the repository's own item builder with N = 15. Only headers:
  pattern 5 reads GSI2, which holds nothing else;
- latency through the local API (HTTP, authorizer, worker, moto) for N = 15: p50/p99 of one page (limit 25) over
  a month, and of a full walk (every page) of one week. moto answers a Query from its partition only
  (local/dynamodb/fidelity/query_partition.py), so these grow with the answer, as on DynamoDB, not with the 100,000
  items;
- N = 1 against N = 15 in-process, `OrderEntryRepository(..., shards=1|15)` on the same moto endpoint: the N = 15
  figures read the runtime's table; for N = 1 a second table (`bench-order-entry-n1`, the same schema) gets another
  50,000 headers written with N = 1. Per read: Query requests, items read (the sum of ScannedCount), and the
  hottest GSI2 partition key's share of the items read (counted from the items the Queries returned, which carry
  GSI2PK: the index projects every attribute).
"""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ORDERS = 50_000
OPEN_SHARE = 0.2
PAGE = 25
MONTH = (date(2025, 6, 1), date(2025, 6, 30))
WEEK = (date(2025, 6, 2), date(2025, 6, 8))
N1_TABLE = "bench-order-entry-n1"
PAGE_CALLS = 30
WALKS = 5


def _headers(repository: Any, count: int, prefix: str) -> list[dict[str, Any]]:
    """Order headers as `place_order` writes them (its item builder, its GSI2 shard and sort key)."""
    from functions.order_entry.models import Order, OrderStatus
    from functions.order_entry.schema import customer_key, shard_of, shard_pk

    rng = random.Random(14)  # noqa: S311  a seeded workload, the same orders every run; no secret
    items = []
    for n in range(count):
        roll = rng.random()
        status: OrderStatus = "OPEN" if roll < OPEN_SHARE else ("SHIPPED" if roll < 0.6 else "DELIVERED")
        day = (date(2025, 1, 1) + timedelta(days=rng.randrange(365))).isoformat()
        order = Order(order_id=f"{prefix}-{n:06d}", customer_id=f"C{n % 500}", rep_id=f"R{n % 20}", status=status,
                      order_date=day, total_cents=rng.randrange(1_000, 100_000))
        header = repository._order_item(order, customer_key(order.customer_id), "order")
        header.update(GSI2PK=shard_pk(shard_of(order.order_id, repository.shards)), GSI2SK=header["Data"])
        items.append(header)
    return items


def _load(table_name: str, items: list[dict[str, Any]]) -> None:
    """Straight into the runtime's moto backend (it runs in this process): a bulk load, not a measured path. Over
    HTTP (BatchWriteItem through the IAM and serializing middlewares) 100,000 headers took 149 s; this takes a few."""
    from boto3.dynamodb.types import TypeSerializer

    from local.dynamodb import fidelity as moto_fidelity

    table = moto_fidelity.stored_table(table_name)
    serialize = TypeSerializer().serialize
    for item in items:
        table.put_item({name: serialize(value) for name, value in item.items()})
    moto_fidelity.written(table_name)  # its Query maps are stale


def _walk(read: Any) -> int:
    """Every page of one read; the number of orders."""
    after, total = None, 0
    while True:
        page = read(after)
        total += len(page.items)
        if page.last_key is None:
            return total
        after = page.last_key["after"]


def _counted(repository: Any, read: Any) -> tuple[int, int, float, int, float]:
    """(Query requests, items read, hottest GSI2PK's share of items read, orders returned, ms) of one read."""
    calls: list[tuple[int, Counter]] = []

    def record(parsed: dict[str, Any], **_: Any) -> None:
        keys = Counter(_plain(item["GSI2PK"]) for item in parsed.get("Items", []))
        calls.append((parsed.get("ScannedCount", 0), keys))

    events = repository.table.meta.client.meta.events
    events.register("after-call.dynamodb.Query", record)
    started = time.perf_counter()
    try:
        orders = read()
    finally:
        events.unregister("after-call.dynamodb.Query", record)
    elapsed_ms = (time.perf_counter() - started) * 1000
    scanned = sum(c for c, _ in calls)
    per_key: Counter = sum((k for _, k in calls), Counter())
    hottest = max(per_key.values()) / scanned if scanned else 0.0
    return len(calls), scanned, hottest, orders, elapsed_ms


def _in_process(by_n: dict[int, Any], expected: dict[int, tuple[list[str], int]]) -> list[tuple[int, Any, Any]]:
    """The repository on the runtime's moto, for N = 1 and 15: the month's first page and the week's walk, counted."""
    rows = []
    for repository in by_n.values():  # the first Query after the load builds moto's index map: not measured
        repository.orders_in_status("OPEN", *(d.isoformat() for d in MONTH), limit=PAGE, after=None)
    for n in (1, 15):
        repository = by_n[n]
        ids: list[str] = []

        def first(r: Any = repository, found: list[str] = ids) -> int:
            found[:] = [o.order_id for o in r.orders_in_status("OPEN", *(d.isoformat() for d in MONTH),
                                                                 limit=PAGE, after=None).items]
            return len(found)

        page = _counted(repository, first)
        _check(f"N = {n}: the first page of the month", ids, expected[n][0])
        walk = _counted(repository, lambda r=repository: _walk(
            lambda after: r.orders_in_status("OPEN", *(d.isoformat() for d in WEEK), limit=PAGE, after=after)))
        _check(f"N = {n}: the walk of the week (orders)", walk[3], expected[n][1])
        rows.append((n, page, walk))
    return rows


def run() -> None:
    import boto3
    import requests

    from bench.runtime import BENCH_KEYS, bench_runtime
    from functions.order_entry.repository import OrderEntryRepository
    from functions.order_entry.schema import ORDER_ENTRY_TABLE
    from functions.shared import ddb
    from functions.shared.settings import Settings
    from local.cognito import mint_token

    print(f"\n8. Order entry, pattern 5 (OPEN orders in a date range, GSI2): N = 1 and N = 15 shards, "
          f"{ORDERS:,} orders each ({OPEN_SHARE:.0%} OPEN, dates over 2025)")
    started = time.perf_counter()
    keys = BENCH_KEYS
    with bench_runtime(2) as runtime:
        ddb.resource.cache_clear()
        env = runtime.seed_environment()
        boto3.client("dynamodb", endpoint_url=runtime.aws_endpoint, region_name="us-east-1").create_table(
            **ORDER_ENTRY_TABLE.create_table_kwargs(N1_TABLE))
        by_n = {15: OrderEntryRepository(Settings(env), shards=15),
                1: OrderEntryRepository(Settings({**env, ORDER_ENTRY_TABLE.env_var: N1_TABLE}), shards=1)}
        t0 = time.perf_counter()
        expected: dict[int, tuple[list[str], int]] = {}
        for n, repository in by_n.items():
            headers = _headers(repository, ORDERS, f"B{n}")
            _load(repository.table_name, headers)
            expected[n] = _answers(headers)
        print(f"   start-up {t0 - started:.0f} s; {2 * ORDERS:,} headers loaded into moto in "
              f"{time.perf_counter() - t0:.0f} s")

        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {mint_token('bench', (), 3600, keys_dir=keys)}"

        failures: Counter = Counter()

        def http(first: date, last: date, cursor: str | None = None) -> dict[str, Any]:
            url = (f"{runtime.url}/order-entry/orders?status=OPEN&from={first}&to={last}&limit={PAGE}"
                   + (f"&cursor={cursor}" if cursor else ""))
            reply = session.get(url, timeout=60)
            if reply.status_code != 200:
                failures[reply.status_code] += 1
                reply.raise_for_status()
            return reply.json()

        def http_walk() -> int:
            cursor, total = None, 0
            while True:
                page = http(*WEEK, cursor)
                total += len(page["items"])
                if not (cursor := page["nextCursor"]):
                    return total

        first_page, week_total = expected[15]
        answer = [order["orderId"] for order in http(*MONTH)["items"]]
        _check("the API's first page of the month", answer, first_page)

        page_ms, walk_ms, walked = _time_api(http, http_walk, week_total)

        rows = _in_process(by_n, expected)
        ddb.resource.cache_clear()  # that resource belonged to the runtime's moto

    if page_ms and walk_ms:
        print(f"   through the local API, N = 15: one page of {PAGE} (a month, {PAGE_CALLS} calls) p50 "
              f"{statistics.median(page_ms):.0f} ms, p99 {_p99(page_ms):.0f} ms;\n   full walk of a week ({walked} "
              f"orders, {WALKS} walks) p50 {statistics.median(walk_ms):.0f} ms, p99 {_p99(walk_ms):.0f} ms")
    print("   read-back: every page and walk above equals the answer computed from the orders written")
    print(f"   HTTP errors: {dict(failures) or 'none'}")
    _print_in_process(rows)
    print(f"   section took {time.perf_counter() - started:.0f} s")


def _time_api(http: Callable[..., dict[str, Any]], http_walk: Callable[[], int],
              week_total: int) -> tuple[list[float], list[float], int]:
    """Milliseconds of the month's first page and of the week's walk through the local API, and the orders walked."""
    import requests

    page_ms: list[float] = []
    walk_ms: list[float] = []
    walked = 0
    try:
        for _ in range(2):
            http(*MONTH)  # warm both workers
        for _ in range(PAGE_CALLS):
            t = time.perf_counter()
            http(*MONTH)
            page_ms.append((time.perf_counter() - t) * 1000)
        for _ in range(WALKS):
            t = time.perf_counter()
            walked = http_walk()
            walk_ms.append((time.perf_counter() - t) * 1000)
            _check("the API's walk of the week (orders)", walked, week_total)
    except requests.HTTPError as error:
        print(f"   through the local API: failed ({error})")
    return page_ms, walk_ms, walked


def _print_in_process(rows: list[tuple[int, Any, Any]]) -> None:
    print("   in-process (the repository on the same moto):")
    print(f"   {'N':>4} {'read':<26} {'orders':>7} {'Query requests':>15} {'items read':>11} {'hottest GSI2PK':>15}"
          f" {'ms on moto':>11}")
    for n, page, walk in rows:
        for label, (calls, scanned, hottest, orders, ms) in ((f"one page of {PAGE} (a month)", page),
                                                             ("full walk (a week)", walk)):
            print(f"   {n:>4} {label:<26} {orders:>7} {calls:>15} {scanned:>11} {hottest:>14.1%} {ms:>11.0f}")
    print("   -> N = 15 spreads every read over 15 partitions (the hottest takes ~1/15 of the items read, 100 % with "
          "N = 1)\n      at the price of up to N x (limit + 1) items read per page; "
          "(moto and the gateway are Python: the latencies are the local runtime's, not AWS's)")


def _answers(headers: list[dict[str, Any]]) -> tuple[list[str], int]:
    """What pattern 5 must answer, from the orders written: the first page of the month (order ids by date, then
    id) and how many OPEN orders the week holds."""
    def open_in(first: date, last: date) -> list[dict[str, Any]]:
        return [h for h in headers if h["status"] == "OPEN" and first.isoformat() <= h["orderDate"] <= last.isoformat()]

    month = sorted(open_in(*MONTH), key=lambda h: (h["orderDate"], h["orderId"]))
    return [h["orderId"] for h in month[:PAGE]], len(open_in(*WEEK))


def _check(what: str, got: Any, expected: Any) -> None:
    if got != expected:
        raise SystemExit(f"bench: {what} is wrong: {got!r}, expected {expected!r}")


def _plain(value: Any) -> str:
    """An attribute as the handler sees it: still DynamoDB JSON ({"S": ...}) or already deserialized."""
    return value["S"] if isinstance(value, dict) else str(value)


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
