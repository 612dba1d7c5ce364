"""The verdict of the partition-load model of DynamoDB: where a workload's hottest partition key sits against
DynamoDB's limits, how many partitions its tables need, and what it costs a month. Small on purpose: each rule below is
one the developer guide states, with its page. bench/scale/model.py adds a workload's operations up over their keys
(a `Summary`); this module judges the sum, for `make scale` and for the explorer's what-if alike (the platform
function ships it: docs/adr/0120-scale-what-if-in-the-explorer.md).

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
- Units of a request: functions/shared/capacity.py, the rules the local runtime bills by (local/dynamodb/capacity.py).
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
- on-demand: $0.625 per million write request units, $0.125 per million read request units (WRU_PRICE, RRU_PRICE):
  not found on AWS's own pricing page in the stored pages available here; taken from airbyte.com, "Amazon DynamoDB
  Pricing: On-Demand & Provisioned Plans" (dated July 21, 2025), which gives them as the prices after AWS's November
  2024 on-demand reduction; $0.25 per GB-month of storage, the first 25 GB free (STORAGE_PRICE):
  aws.amazon.com/dynamodb/pricing ("Pricing at a glance"; the stored copy is undated). Check both against
  https://aws.amazon.com/dynamodb/pricing/on-demand/ before quoting them (PRICES_NOTE says the same in one line);
- provisioned: $0.00065 per WCU-hour, $0.00013 per RCU-hour (https://aws.amazon.com/dynamodb/pricing/provisioned/;
  the stored copy of that page available here, read 2026-11-27, omits the figures, which are the ones public cost
  write-ups of 2024-2025 quote for us-east-1; the November 2024 reduction changed on-demand only). Provisioned
  capacity is priced at the load's average with no headroom, as the seed's calculator estimate does.
A month is 730 hours. A burst (bench/scale/model.py `Op.seconds_per_month`) is billed for the seconds it runs in a
month, not as a rate held all month; storage (`Table.stored_bytes`, items and index entries) is billed beside the
throughput.

At f times its rate (the explorer's what-if, `judge(basis, factor)`): every figure a `Summary` holds is a sum over
operations, each linear in its operation's rate, so the same operations f times as often are `Summary.scaled(f)`: the
same keys, in the same order, each f times as busy. What the workload keeps for a while (readings for 90 days, carts
until their TTL) is f times as much too. `judge` reads nothing else: a row f times over is exact for that model.

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

Standard library only, and nothing at import but constants: the platform function imports it on its first what-if.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

KEY_RCU = 3_000  # read units a second per partition key value
KEY_WCU = 1_000  # write units a second per partition key value
PARTITION_GB = 10  # what one partition stores
TABLE_RRU = 40_000  # on-demand's default maximum a table (or index) a second (ServiceQuotas.html)
TABLE_WRU = 40_000
NEW_TABLE_RRU = 12_000  # a new table's warm throughput (warm-throughput.html)
NEW_TABLE_WRU = 4_000
TRANSACTION_HOLD_S = 0.005  # assumed: how long a transaction holds each item it touches (not documented by AWS)
COLLECTION_LIMIT_GB = 10  # an item collection's limit where the table has an LSI
WRU_PRICE = 0.625 / 1_000_000
RRU_PRICE = 0.125 / 1_000_000
STORAGE_PRICE = 0.25  # per GB-month
PRICES_NOTE = ("on-demand us-east-1: $0.625/M WRU, $0.125/M RRU (airbyte.com, 2025-07-21, after AWS's 2024-11 "
               "reduction); storage $0.25/GB-month (aws.amazon.com/dynamodb/pricing)")
WCU_HOUR_PRICE = 0.00065
RCU_HOUR_PRICE = 0.00013
SECONDS_PER_MONTH = 730 * 3600
HOURS_PER_MONTH = SECONDS_PER_MONTH / 3600
GB = 1024 ** 3

# A key of a table or index: (table, index or None for the table itself, partition key value).
Key = tuple[str, str | None, str]


@dataclass(frozen=True)
class Table:
    """What storage and LSI checks need: the table's name, stored bytes (items and index entries) and its largest
    item collection (one partition key value's items and LSI entries)."""

    name: str
    stored_bytes: float = 0.0
    has_lsi: bool = False
    largest_collection_bytes: float = 0.0


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


# --- what a workload adds up to ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Summary:
    """What the verdict reads of a workload's sums, and nothing more (bench/scale/model.py `_Tally.summary` makes it
    from every key the workload touches):
    - `top_keys`: the (at most) three keys of the highest utilisation, highest first (of equals, the first touched):
      the hottest key and the keys a verdict names;
    - `single_item_peak`: the highest utilisation of a key of one item (which no split for heat divides);
    - `hot_index_write`: the index key with the most write units a second (back pressure on its table);
    - `hot_transaction`: the one item the most transactions touch, and their number a second;
    - `totals`: read and write units a second per table and index, in the order first touched;
    - `billed`: read and write request units billed in a month.
    Each figure is linear in the operations' rates: `scaled(f)` is the same workload at f times its rates."""

    top_keys: tuple[tuple[Key, float, float], ...] = ()
    single_item_peak: float = 0.0
    hot_index_write: tuple[Key, float] | None = None
    hot_transaction: tuple[tuple[str, str], float] | None = None
    totals: tuple[tuple[tuple[str, str | None], float, float], ...] = ()
    billed: tuple[float, float] = (0.0, 0.0)

    def scaled(self, factor: float) -> Summary:
        if factor == 1:
            return self
        return Summary(
            top_keys=tuple((key, rcu * factor, wcu * factor) for key, rcu, wcu in self.top_keys),
            single_item_peak=self.single_item_peak * factor,
            hot_index_write=None if self.hot_index_write is None else (
                self.hot_index_write[0], self.hot_index_write[1] * factor),
            hot_transaction=None if self.hot_transaction is None else (
                self.hot_transaction[0], self.hot_transaction[1] * factor),
            totals=tuple((name, rru * factor, wru * factor) for name, rru, wru in self.totals),
            billed=(self.billed[0] * factor, self.billed[1] * factor))

    def as_json(self) -> dict[str, Any]:
        return {"top_keys": [[*key, rcu, wcu] for key, rcu, wcu in self.top_keys],
                "single_item_peak": self.single_item_peak,
                "hot_index_write": None if self.hot_index_write is None else [*self.hot_index_write[0],
                                                                              self.hot_index_write[1]],
                "hot_transaction": None if self.hot_transaction is None else [*self.hot_transaction[0],
                                                                              self.hot_transaction[1]],
                "totals": [[*name, rru, wru] for name, rru, wru in self.totals],
                "billed": list(self.billed)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Summary:
        index_write, transaction = data["hot_index_write"], data["hot_transaction"]
        return cls(
            top_keys=tuple(((t, i, k), rcu, wcu) for t, i, k, rcu, wcu in data["top_keys"]),
            single_item_peak=data["single_item_peak"],
            hot_index_write=None if index_write is None else ((index_write[0], index_write[1], index_write[2]),
                                                              index_write[3]),
            hot_transaction=None if transaction is None else ((transaction[0], transaction[1]), transaction[2]),
            totals=tuple(((t, i), rru, wru) for t, i, rru, wru in data["totals"]),
            billed=(data["billed"][0], data["billed"][1]))


@dataclass(frozen=True)
class Basis:
    """One row before its verdict: what it is (model, claim, design, the seed's figure, a note), its rate, what its
    operations add up to at that rate, and its tables' storage."""

    model: str
    claim: str
    design: str
    rate_per_s: float
    summary: Summary
    tables: tuple[Table, ...] = ()
    seed_figure: str = ""
    note: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"model": self.model, "claim": self.claim, "design": self.design, "rate_per_s": self.rate_per_s,
                "seed_figure": self.seed_figure, "note": self.note,
                "tables": [{"name": t.name, "stored_bytes": t.stored_bytes, "has_lsi": t.has_lsi,
                            "largest_collection_bytes": t.largest_collection_bytes} for t in self.tables],
                "summary": self.summary.as_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Basis:
        return cls(data["model"], data["claim"], data["design"], data["rate_per_s"],
                   Summary.from_json(data["summary"]), tuple(Table(**t) for t in data["tables"]),
                   data["seed_figure"], data["note"])


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
    basis: Basis | None = None  # what the verdict was judged from (`judge`): the what-if scales it

    def as_json(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("extra", "basis")}
        out["max_rate_per_s"] = None if math.isinf(self.max_rate_per_s) else round(self.max_rate_per_s, 1)
        out["conflict_limit_per_s"] = (None if math.isinf(self.conflict_limit_per_s)
                                       else round(self.conflict_limit_per_s, 1))
        for name in ("hottest_key_rcu", "hottest_key_wcu", "table_rcu", "table_wcu", "rate_per_s",
                     "hottest_item_tx_per_s", "busiest_table_rru", "busiest_table_wru"):
            out[name] = round(out[name], 2)
        out["monthly_usd"] = round(self.monthly_usd, 2)
        out["provisioned_monthly_usd"] = round(self.provisioned_monthly_usd, 2)
        return {**out, **self.extra}


def _name(table: str, index: str | None) -> str:
    return f"{table}{'.' + index if index else ''}"


def judge(basis: Basis, factor: float = 1.0) -> Load:
    """The row's verdict, its workload `factor` times over (1: as it was added up): the hottest key, the busiest
    transactional item and the busiest table against their limits, the partitions, the monthly bill."""
    summary = basis.summary.scaled(factor)
    tables = basis.tables if factor == 1 else tuple(
        Table(t.name, t.stored_bytes * factor, t.has_lsi, t.largest_collection_bytes * factor) for t in basis.tables)
    load = Load(basis.model, basis.claim, basis.design, basis.rate_per_s * factor, seed_figure=basis.seed_figure,
                note=basis.note, basis=basis)
    if not summary.top_keys:
        return load
    stored = {t.name: t for t in tables}
    reasons = _judge_keys(load, summary) + _judge_transactions(load, summary) + _judge_tables(load, summary)
    for t in stored.values():
        if t.has_lsi and t.largest_collection_bytes > COLLECTION_LIMIT_GB * GB:
            reasons.append(f"{t.name}: an item collection of {t.largest_collection_bytes / GB:,.1f} GB, over the "
                           f"{COLLECTION_LIMIT_GB} GB an LSI allows")
    load.throttles = bool(reasons)
    load.why = "; ".join(reasons)
    # Which kind of key is over: one item (nothing can divide it) or many (a split for heat on sort-key ranges
    # might, reactively and without promise: never counted as holding).
    load.even_with_split = summary.single_item_peak > 1 or any("10 GB" in r for r in reasons)
    load.partitions = sum(partitions_needed(r, w, stored[t].stored_bytes if i is None and t in stored else 0.0)
                          for (t, i), r, w in summary.totals)
    load.table_rcu = sum(r for _, r, _ in summary.totals)
    load.table_wcu = sum(w for _, _, w in summary.totals)
    stored_bytes = sum(t.stored_bytes for t in stored.values())
    storage = max(0.0, stored_bytes / GB - 25) * STORAGE_PRICE
    billed_rru, billed_wru = summary.billed
    load.monthly_usd = billed_rru * RRU_PRICE + billed_wru * WRU_PRICE + storage
    load.provisioned_monthly_usd = monthly_provisioned(billed_rru / SECONDS_PER_MONTH, billed_wru / SECONDS_PER_MONTH,
                                                       stored_bytes)
    load.arithmetic = arithmetic(load, stored_bytes, summary.billed)
    return load


def _judge_keys(load: Load, summary: Summary) -> list[str]:
    """The hottest partition key against 3,000 RCU / 1,000 WCU, and an index's back pressure on its table."""
    (table, index, key), rcu, wcu = summary.top_keys[0]
    load.hottest_key = f"{_name(table, index)} {key}"
    load.hottest_key_rcu, load.hottest_key_wcu = rcu, wcu
    peak = utilisation(rcu, wcu)
    load.max_rate_per_s = load.rate_per_s / peak if peak else math.inf
    reasons = [f"{_name(t, i)} {k}: {r:,.0f} RCU + {w:,.0f} WCU a second, over one key's {KEY_RCU:,} / {KEY_WCU:,}"
               for (t, i, k), r, w in summary.top_keys if utilisation(r, w) > 1]
    if back := back_pressure(summary.hot_index_write):
        reasons.append(back)
    return reasons


def _judge_transactions(load: Load, summary: Summary) -> list[str]:
    """The one item the most transactions touch: they serialize on it (TransactionConflict beyond 1 / hold)."""
    if summary.hot_transaction is None:
        return []
    (table, key), tx = summary.hot_transaction
    load.hottest_item_tx_per_s = tx
    load.conflict_limit_per_s = load.rate_per_s / (tx * TRANSACTION_HOLD_S)
    load.max_rate_per_s = min(load.max_rate_per_s, load.conflict_limit_per_s)
    if tx * TRANSACTION_HOLD_S <= 1:
        return []
    return [f"{table} {key}: {tx:,.0f} transactions a second on one item, over the {1 / TRANSACTION_HOLD_S:,.0f} that "
            "serialize without conflicts (TransactionConflict)"]


def _judge_tables(load: Load, summary: Summary) -> list[str]:
    """The busiest table or index against on-demand's default 40,000 / 40,000, and a new table's warm throughput."""
    (table, index), rru, wru = max(summary.totals, key=lambda total: max(total[1] / TABLE_RRU, total[2] / TABLE_WRU))
    load.busiest_table, load.busiest_table_rru, load.busiest_table_wru = _name(table, index), rru, wru
    load.warm_before_launch = any(r > NEW_TABLE_RRU or w > NEW_TABLE_WRU for _, r, w in summary.totals)
    peak = max(rru / TABLE_RRU, wru / TABLE_WRU)
    if peak:
        load.max_rate_per_s = min(load.max_rate_per_s, load.rate_per_s / peak)
    if peak <= 1:
        return []
    return [f"{load.busiest_table}: {rru:,.0f} RRU + {wru:,.0f} WRU a second, over on-demand's default {TABLE_RRU:,} / "
            f"{TABLE_WRU:,} a table: ask for a table-level quota increase (Service Quotas) and set warm throughput "
            "before the launch"]


def arithmetic(load: Load, stored_bytes: float, billed: tuple[float, float]) -> str:
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


def back_pressure(hot_index_write: tuple[Key, float] | None) -> str:
    """An index key whose writes exceed a key's limit holds back its table's writes (gsi-throttling)."""
    if hot_index_write is None:
        return ""
    (table, index, key), wcu = hot_index_write
    if wcu <= KEY_WCU:
        return ""
    return (f"index {index} key {key} takes {wcu:,.0f} WCU a second: DynamoDB throttles the writes to "
            f"{table} that feed it (GSI back pressure)")
