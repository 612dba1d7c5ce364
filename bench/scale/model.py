"""A partition-load model of DynamoDB: where a workload's hottest partition key sits against DynamoDB's limits, how
many partitions its tables need, and what it costs a month. Small on purpose: each rule below is one the developer
guide states, with its page.

Rules
- Per partition key value, at most 3,000 read units and 1,000 write units a second. Adaptive capacity isolates a
  frequently accessed item on a partition of its own, but "the partition's throughput is still capped at a maximum
  of 3,000 RCUs and 1,000 WCUs" ("Burst and adaptive capacity",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html#isolate-frequent-access-items;
  "Designing partition keys to distribute your workload",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-uniform-load.html; "each
  individual partition is limited to 1000 write units per second and 3000 read units per second",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html). Reads and writes
  are held against their limits apart: "partition-level throttling operates independently for reads and writes"
  ("Key range throughput exceeded (hot partitions)",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/throttling-key-range-limit-exceeded-mitigation.html),
  so a key's `utilisation` is the larger of RCU / 3,000 and WCU / 1,000.
- A global secondary index has partitions of its own, keyed by the index's partition key; when an index cannot
  take its writes, DynamoDB throttles the writes to the base table ("GSI write throttling and back pressure",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/gsi-throttling.html: "If the GSI doesn't have
  sufficient capacity to process these updates, DynamoDB throttles writes to the base table"). A hot index key
  therefore throttles the table's writes, whatever the table's own keys look like (`back_pressure`). A hot index
  key under reads throttles only those reads
  (https://repost.aws/knowledge-center/dynamodb-gsi-throttling-table).
- Where a table has a local secondary index, an item collection (one partition key value's items and their LSI
  entries) holds at most 10 GB ("Item collection size limit",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ItemCollections.SizeLimit). No table
  here has an LSI, so the check answers "n/a" for all of them; it is here so that adding one is caught.
- Partitions needed, per table or index: max(RCU / 3,000 + WCU / 1,000, GB / 10), rounded up: the estimate the
  guide's former "Understand Partition Behavior" section gave
  (developerguide/GuidelinesForTables.html#GuidelinesForTables.Partitions, since retired; "Partitions and data
  distribution", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html, keeps
  the 10 GB a partition stores). A floor, for scale only: DynamoDB splits as it sees fit.
- Units of a request: functions/shared/capacity.py, the rules the local runtime bills by (local/moto_capacity.py).
- Transactions serialize on their items: "a TransactWriteItems ... request ... is rejected" when it conflicts with
  "an ongoing TransactWriteItems ... on the same item" ("Transaction conflict handling in DynamoDB",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling),
  and the best practices ask to "avoid ... a hot item" in transactions (same page, #transaction-best-practices). The
  guide gives no per-item rate, so the model assumes one transaction holds each item it touches for
  TRANSACTION_HOLD_S (an in-region TransactWriteItems' round trip, a stated assumption): one item takes at most
  1 / TRANSACTION_HOLD_S transactions a second (`conflict_limit_per_s`) before conflicts, not units, stop it. Only a
  `Touch` on one item counts (`transact=True, one_item=True`): transactions on different items of one key do not
  conflict.
- Table-level limits: an on-demand table's default maximum is 40,000 read request units and 40,000 write request
  units a second ("Service, account, and table quotas in Amazon DynamoDB", "Throughput default quotas",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#default-limits-throughput), a
  quota a support request raises; a row over it throttles and says so. A new table starts with a warm throughput of
  12,000 read and 4,000 write units a second ("Understanding DynamoDB warm throughput",
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html); a row over that holds
  once the table has grown, and says to set warm throughput before a launch (`warm_before_launch`). Each table and
  each index is checked on its own.
- Split for heat is never a pass: a key over its limit throttles whether it is one item or many
  (`even_with_split` only says which: one item can never be split).

Prices, US East (N. Virginia), Standard table class:
- on-demand: bench/cart.py's WRU_PRICE / RRU_PRICE / STORAGE_PRICE (its PRICES_NOTE says where and when they were read);
- provisioned: $0.00065 per WCU-hour, $0.00013 per RCU-hour (https://aws.amazon.com/dynamodb/pricing/provisioned/;
  the stored copy of that page available here, read 2026-11-27, omits the figures, which are the ones public cost
  write-ups of 2024-2025 quote for us-east-1; the November 2024 reduction changed on-demand only). Provisioned
  capacity is priced at the load's average with no headroom, as the seed's calculator estimate does.
A month is 730 hours. A burst (`Op.seconds_per_month`) is billed for the seconds it runs in a month, not as a rate held
all month; storage (`Table.stored_bytes`, items and index entries) is billed beside the throughput.

Not modelled, and why the verdicts hold anyway
- Split for heat on sort-key ranges: DynamoDB may split a hot partition key's items across partitions by sort key.
  It cannot split one item, so single-item keys (a counter, a singleton) keep their verdict exactly; for a key with
  many items (an index partition such as `activeFlag = 1`) a split is reactive and not promised, so a verdict of
  "throttles" means "throttles until DynamoDB adapts, if it can", which no design should count on. A row says which
  (`even_with_split`: one item, or a full item collection, over its limit). A GSI's write throttling holds back its
  table's writes either way.
- Burst capacity: up to 300 s of unused provisioned capacity, best effort, and it "can't alleviate partition-level
  throttling" (https://repost.aws/knowledge-center/dynamodb-spiky-workloads-short-intervals). A verdict is about a
  sustained rate; a burst the model reads in one second (the OPEN orders) is sized as the seed sizes it.
- On-demand's ramp (instant up to twice the previous peak): the rates here are steady states.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from bench.cart import RRU_PRICE, SECONDS_PER_MONTH, STORAGE_PRICE, WRU_PRICE

KEY_RCU = 3_000  # read units a second per partition key value
KEY_WCU = 1_000  # write units a second per partition key value
PARTITION_GB = 10  # what one partition stores
TABLE_RRU = 40_000  # on-demand's default maximum a table (or index) a second (ServiceQuotas.html)
TABLE_WRU = 40_000
NEW_TABLE_RRU = 12_000  # a new table's warm throughput (warm-throughput.html)
NEW_TABLE_WRU = 4_000
TRANSACTION_HOLD_S = 0.005  # assumed: how long a transaction holds each item it touches (not documented by AWS)
COLLECTION_LIMIT_GB = 10  # an item collection's limit where the table has an LSI
WCU_HOUR_PRICE = 0.00065
RCU_HOUR_PRICE = 0.00013
HOURS_PER_MONTH = SECONDS_PER_MONTH / 3600
GB = 1024 ** 3


# --- who is asked: key distributions ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Keys:
    """A population of `n` entities asked with these weights. `pick(i)` is entity i (0 = the most popular); the
    workload turns it into DynamoDB keys with the domain's own key builders. A uniform population too large to
    enumerate is sampled evenly (`sample` entities, every n / sample-th): a key that one sampled entity reaches is
    taken as that entity's own (its load: the entity's share), a key several reach as one all the entities between
    them share (its load: their hits scaled by n / sample). A Zipf population is enumerated whole."""

    n: int
    zipf_s: float = 0.0  # 0: uniform; 1: the classic popularity curve (entity i asked in proportion to 1/(i+1))
    sample: int = 20_000

    @property
    def scale(self) -> float:
        """Entities each enumerated one stands for."""
        return self.n / min(self.n, self.sample) if self.zipf_s == 0.0 else 1.0

    def weights(self) -> Iterator[tuple[int, float]]:
        """(entity, share of the requests) of the entities enumerated; each stands for `scale` entities."""
        if self.zipf_s == 0.0:
            m = min(self.n, self.sample)
            step = self.n / m
            yield from ((int(k * step), 1 / self.n) for k in range(m))
            return
        if self.n > 1_000_000:
            raise ValueError("a Zipf population is enumerated whole: keep it under a million")
        harmonic = sum(1 / (i + 1) ** self.zipf_s for i in range(self.n))
        yield from ((i, 1 / (i + 1) ** self.zipf_s / harmonic) for i in range(self.n))

    def top_share(self) -> float:
        return max(share for _, share in self.weights())


def uniform(n: int, sample: int = 20_000) -> Keys:
    return Keys(n, 0.0, sample)


def zipf(n: int, s: float = 1.0) -> Keys:
    return Keys(n, s)


# --- what is asked: operations and their units ----------------------------------------------------------------------

@dataclass(frozen=True)
class Touch:
    """One request's units on one partition key of one table or index (index None = the table). `one_item`: the key
    holds one item (a counter, a singleton), which no split for heat can divide; False for a key whose load spreads
    over many items (an index partition, an item collection of many sort keys)."""

    table: str
    key: str
    rcu: float = 0.0
    wcu: float = 0.0
    index: str | None = None
    one_item: bool = True
    transact: bool = False  # the request touches this key's one item inside a TransactWriteItems


@dataclass(frozen=True)
class Op:
    """An operation asked `rate` times a second over `keys`; `touches(entity)` is what one request consumes, with
    keys built by the domain's key code."""

    name: str
    rate: float
    keys: Keys
    touches: Callable[[int], list[Touch]]
    seconds_per_month: float | None = None  # a burst: how long it runs in a month (None: all month)


@dataclass(frozen=True)
class Table:
    """What storage and LSI checks need: the table's name, stored bytes (items and index entries) and its largest
    item collection (one partition key value's items and LSI entries)."""

    name: str
    stored_bytes: float = 0.0
    has_lsi: bool = False
    largest_collection_bytes: float = 0.0


# --- the verdict ------------------------------------------------------------------------------------------------------

@dataclass
class Load:
    model: str
    claim: str
    design: str
    rate_per_s: float
    hottest_key: str = ""
    hottest_key_rcu: float = 0.0
    hottest_key_wcu: float = 0.0
    throttles: bool = False
    even_with_split: bool = False  # a single item (or back pressure) over the limit: no split for heat helps
    why: str = ""
    max_rate_per_s: float = math.inf  # the rate at which the first limit is reached (the load is linear)
    hottest_item_tx_per_s: float = 0.0  # transactions a second on the busiest one item any transaction touches
    conflict_limit_per_s: float = math.inf  # the rate at which that item's transactions start to conflict
    busiest_table: str = ""  # the table or index with the most request units a second
    busiest_table_rru: float = 0.0
    busiest_table_wru: float = 0.0
    warm_before_launch: bool = False  # over a new table's 12,000 / 4,000: set warm throughput before launch
    arithmetic: str = ""  # the verdict's sums, for a reader to check by hand
    partitions: int = 0
    table_rcu: float = 0.0
    table_wcu: float = 0.0
    monthly_usd: float = 0.0  # on-demand
    provisioned_monthly_usd: float = 0.0
    seed_figure: str = ""
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "extra"}
        out["max_rate_per_s"] = None if math.isinf(self.max_rate_per_s) else round(self.max_rate_per_s, 1)
        out["conflict_limit_per_s"] = (None if math.isinf(self.conflict_limit_per_s)
                                       else round(self.conflict_limit_per_s, 1))
        for name in ("hottest_key_rcu", "hottest_key_wcu", "table_rcu", "table_wcu", "rate_per_s",
                     "hottest_item_tx_per_s", "busiest_table_rru", "busiest_table_wru"):
            out[name] = round(out[name], 2)
        out["monthly_usd"] = round(self.monthly_usd, 2)
        out["provisioned_monthly_usd"] = round(self.provisioned_monthly_usd, 2)
        return {**out, **self.extra}


def utilisation(rcu: float, wcu: float) -> float:
    """How close a key is to its limits (1.0 = at one of them): reads and writes throttle independently."""
    return max(rcu / KEY_RCU, wcu / KEY_WCU)


def partitions_needed(rcu: float, wcu: float, stored_bytes: float = 0.0) -> int:
    return max(1, math.ceil(max(rcu / KEY_RCU + wcu / KEY_WCU, stored_bytes / GB / PARTITION_GB) - 1e-9))


def monthly_on_demand(rcu: float, wcu: float, stored_bytes: float = 0.0) -> float:
    """Read and write request units a second, held for a month, plus storage (first 25 GB free)."""
    return (rcu * RRU_PRICE + wcu * WRU_PRICE) * SECONDS_PER_MONTH + max(0.0, stored_bytes / GB - 25) * STORAGE_PRICE


def monthly_provisioned(rcu: float, wcu: float, stored_bytes: float = 0.0) -> float:
    return (rcu * RCU_HOUR_PRICE + wcu * WCU_HOUR_PRICE) * HOURS_PER_MONTH + max(
        0.0, stored_bytes / GB - 25) * STORAGE_PRICE


@dataclass
class _Tally:
    """What every operation adds up to: units a second per (table, index, key) and per (table, index), request units
    billed in a month, and transactions a second per one-item key."""

    per_key: dict[tuple[str, str | None, str], list[float]] = field(
        default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    many_items: set[tuple[str, str | None, str]] = field(default_factory=set)
    totals: dict[tuple[str, str | None], list[float]] = field(default_factory=lambda: defaultdict(lambda: [0.0, 0.0]))
    billed: list[float] = field(default_factory=lambda: [0.0, 0.0])
    transactions: dict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))

    def add(self, op: Op) -> None:
        hits: dict[tuple[str, str | None, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
        for entity, share in op.keys.weights():
            for touch in op.touches(entity):
                units = hits[(touch.table, touch.index, touch.key)]
                units[0] += op.rate * share * touch.rcu
                units[1] += op.rate * share * touch.wcu
                units[2] += 1
                if touch.transact and touch.one_item and touch.index is None:
                    units[3] += op.rate * share
                if not touch.one_item:
                    self.many_items.add((touch.table, touch.index, touch.key))
        seconds = SECONDS_PER_MONTH if op.seconds_per_month is None else op.seconds_per_month
        for (table, index, key), (rcu, wcu, count, tx) in hits.items():
            factor = op.keys.scale if count > 1 else 1.0  # a key shared by sampled entities: by all between them
            self.per_key[(table, index, key)][0] += rcu * factor
            self.per_key[(table, index, key)][1] += wcu * factor
            self.totals[(table, index)][0] += rcu * op.keys.scale
            self.totals[(table, index)][1] += wcu * op.keys.scale
            self.billed[0] += rcu * op.keys.scale * seconds
            self.billed[1] += wcu * op.keys.scale * seconds
            if tx:
                self.transactions[(table, key)] += tx * factor


def _name(table: str, index: str | None) -> str:
    return f"{table}{'.' + index if index else ''}"


def simulate(model: str, claim: str, design: str, ops: Iterable[Op], tables: Iterable[Table] = (), *,
             rate: float | None = None, seed_figure: str = "", note: str = "") -> Load:
    """Spread every operation over its keys, add the units per (table, index, key), and judge the hottest key, the
    busiest transactional item and the busiest table against their limits."""
    ops = list(ops)
    tally = _Tally()
    for op in ops:
        tally.add(op)
    load = Load(model, claim, design, rate if rate is not None else sum(op.rate for op in ops),
                seed_figure=seed_figure, note=note)
    if not tally.per_key:
        return load
    stored = {t.name: t for t in tables}
    reasons = _judge_keys(load, tally) + _judge_transactions(load, tally) + _judge_tables(load, tally)
    for t in stored.values():
        if t.has_lsi and t.largest_collection_bytes > COLLECTION_LIMIT_GB * GB:
            reasons.append(f"{t.name}: an item collection of {t.largest_collection_bytes / GB:,.1f} GB, over the "
                           f"{COLLECTION_LIMIT_GB} GB an LSI allows")
    load.throttles = bool(reasons)
    load.why = "; ".join(reasons)
    # Which kind of key is over: one item (nothing can divide it) or many (a split for heat on sort-key ranges
    # might, reactively and without promise: never counted as holding).
    over = [k for k, v in tally.per_key.items() if utilisation(*v) > 1]
    load.even_with_split = any(k not in tally.many_items for k in over) or any("10 GB" in r for r in reasons)
    load.partitions = sum(partitions_needed(r, w, stored[t].stored_bytes if i is None and t in stored else 0.0)
                          for (t, i), (r, w) in tally.totals.items())
    load.table_rcu = sum(r for r, _ in tally.totals.values())
    load.table_wcu = sum(w for _, w in tally.totals.values())
    stored_bytes = sum(t.stored_bytes for t in stored.values())
    storage = max(0.0, stored_bytes / GB - 25) * STORAGE_PRICE
    load.monthly_usd = tally.billed[0] * RRU_PRICE + tally.billed[1] * WRU_PRICE + storage
    load.provisioned_monthly_usd = monthly_provisioned(tally.billed[0] / SECONDS_PER_MONTH,
                                                       tally.billed[1] / SECONDS_PER_MONTH, stored_bytes)
    load.arithmetic = arithmetic(load, stored_bytes, tally.billed)
    return load


def _judge_keys(load: Load, tally: _Tally) -> list[str]:
    """The hottest partition key against 3,000 RCU / 1,000 WCU, and an index's back pressure on its table."""
    (table, index, key), (rcu, wcu) = max(tally.per_key.items(), key=lambda kv: utilisation(*kv[1]))
    load.hottest_key = f"{_name(table, index)} {key}"
    load.hottest_key_rcu, load.hottest_key_wcu = rcu, wcu
    peak = utilisation(rcu, wcu)
    load.max_rate_per_s = load.rate_per_s / peak if peak else math.inf
    over = sorted(((k, v) for k, v in tally.per_key.items() if utilisation(*v) > 1),
                  key=lambda kv: -utilisation(*kv[1]))
    reasons = [f"{_name(t, i)} {k}: {r:,.0f} RCU + {w:,.0f} WCU a second, over one key's {KEY_RCU:,} / {KEY_WCU:,}"
               for (t, i, k), (r, w) in over[:3]]
    if back := back_pressure(tally.per_key):
        reasons.append(back)
    return reasons


def _judge_transactions(load: Load, tally: _Tally) -> list[str]:
    """The one item the most transactions touch: they serialize on it (TransactionConflict beyond 1 / hold)."""
    if not tally.transactions:
        return []
    (table, key), tx = max(tally.transactions.items(), key=lambda kv: kv[1])
    load.hottest_item_tx_per_s = tx
    load.conflict_limit_per_s = load.rate_per_s / (tx * TRANSACTION_HOLD_S)
    load.max_rate_per_s = min(load.max_rate_per_s, load.conflict_limit_per_s)
    if tx * TRANSACTION_HOLD_S <= 1:
        return []
    return [f"{table} {key}: {tx:,.0f} transactions a second on one item, over the {1 / TRANSACTION_HOLD_S:,.0f} that "
            "serialize without conflicts (TransactionConflict)"]


def _judge_tables(load: Load, tally: _Tally) -> list[str]:
    """The busiest table or index against on-demand's default 40,000 / 40,000, and a new table's warm throughput."""
    (table, index), (rru, wru) = max(tally.totals.items(),
                                     key=lambda kv: max(kv[1][0] / TABLE_RRU, kv[1][1] / TABLE_WRU))
    load.busiest_table, load.busiest_table_rru, load.busiest_table_wru = _name(table, index), rru, wru
    load.warm_before_launch = any(r > NEW_TABLE_RRU or w > NEW_TABLE_WRU for r, w in tally.totals.values())
    peak = max(rru / TABLE_RRU, wru / TABLE_WRU)
    if peak:
        load.max_rate_per_s = min(load.max_rate_per_s, load.rate_per_s / peak)
    if peak <= 1:
        return []
    return [f"{load.busiest_table}: {rru:,.0f} RRU + {wru:,.0f} WRU a second, over on-demand's default {TABLE_RRU:,} / "
            f"{TABLE_WRU:,} a table: ask for a table-level quota increase (Service Quotas) and set warm throughput "
            "before the launch"]


def arithmetic(load: Load, stored_bytes: float, billed: list[float]) -> str:
    """The verdict's sums in words, for a reader to check by hand."""
    parts = [f"hottest key {load.hottest_key}: {load.hottest_key_rcu:,.3g} RCU / {KEY_RCU:,} and "
             f"{load.hottest_key_wcu:,.3g} WCU / {KEY_WCU:,} a second = "
             f"{utilisation(load.hottest_key_rcu, load.hottest_key_wcu):.0%} of one key's limit"]
    if load.hottest_item_tx_per_s:
        parts.append(f"busiest transactional item: {load.hottest_item_tx_per_s:,.3g} transactions a second x "
                     f"{TRANSACTION_HOLD_S * 1000:g} ms held = {load.hottest_item_tx_per_s * TRANSACTION_HOLD_S:.0%} "
                     "of its time")
    parts.append(f"busiest table {load.busiest_table}: {load.busiest_table_rru:,.0f} RRU + "
                 f"{load.busiest_table_wru:,.0f} WRU a second of {TABLE_RRU:,} / {TABLE_WRU:,}")
    parts.append(f"a month: {billed[0]:,.4g} RRU x ${RRU_PRICE * 1e6:g}/M + "
                 f"{billed[1]:,.4g} WRU x ${WRU_PRICE * 1e6:g}/M"
                 + (f" + {stored_bytes / GB:,.0f} GB stored (25 free) x ${STORAGE_PRICE:g}" if stored_bytes else "")
                 + f" = ${load.monthly_usd:,.0f}")
    return "; ".join(parts)


def back_pressure(per_key: dict[tuple[str, str | None, str], list[float]]) -> str:
    """An index key whose writes exceed a key's limit holds back its table's writes (gsi-throttling)."""
    for (table, index, key), (_, wcu) in sorted(per_key.items(), key=lambda kv: -kv[1][1]):
        if index is not None and wcu > KEY_WCU:
            return (f"index {index} key {key} takes {wcu:,.0f} WCU a second: DynamoDB throttles the writes to "
                    f"{table} that feed it (GSI back pressure)")
    return ""
