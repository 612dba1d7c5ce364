"""How a workload's operations add up over DynamoDB's keys: who is asked (`Keys`: a uniform population, sampled, or a
Zipf one), what each request consumes on which key (`Touch`, `Op`), and the sums per key, per table and index, per
month (`_Tally`). The verdict on those sums (DynamoDB's limits and prices, each with the guide's page) is
functions/platform/scale/model.py's: `simulate` adds a workload up into a `Summary` and hands it to that module's
`judge`, as the explorer's what-if does at another rate (docs/adr/0120-scale-what-if-in-the-explorer.md). The
names a workload or a test needs of the verdict are re-exported here.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from functions.platform.scale.model import (
    COLLECTION_LIMIT_GB,
    GB,
    HOURS_PER_MONTH,
    KEY_RCU,
    KEY_WCU,
    NEW_TABLE_RRU,
    NEW_TABLE_WRU,
    PARTITION_GB,
    RRU_PRICE,
    SECONDS_PER_MONTH,
    STORAGE_PRICE,
    TABLE_RRU,
    TABLE_WRU,
    TRANSACTION_HOLD_S,
    WRU_PRICE,
    Basis,
    Key,
    Load,
    Summary,
    Table,
    judge,
    monthly_on_demand,
    monthly_provisioned,
    partitions_needed,
    utilisation,
)

__all__ = [
    "COLLECTION_LIMIT_GB", "GB", "HOURS_PER_MONTH", "KEY_RCU", "KEY_WCU", "NEW_TABLE_RRU", "NEW_TABLE_WRU",
    "PARTITION_GB", "RRU_PRICE", "SECONDS_PER_MONTH", "STORAGE_PRICE", "TABLE_RRU", "TABLE_WRU", "TRANSACTION_HOLD_S",
    "WRU_PRICE", "Basis", "Keys", "Load", "Op", "Summary", "Table", "Touch", "judge", "monthly_on_demand",
    "monthly_provisioned", "partitions_needed", "simulate", "uniform", "utilisation", "zipf",
]


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


# --- the sums -------------------------------------------------------------------------------------------------------

@dataclass
class _Tally:
    """What every operation adds up to: units a second per (table, index, key) and per (table, index), request units
    billed in a month, and transactions a second per one-item key."""

    per_key: dict[Key, list[float]] = field(default_factory=dict)
    many_items: set[Key] = field(default_factory=set)
    totals: dict[tuple[str, str | None], list[float]] = field(default_factory=dict)
    billed: list[float] = field(default_factory=lambda: [0.0, 0.0])
    transactions: dict[tuple[str, str], float] = field(default_factory=dict)

    def add(self, op: Op) -> None:
        # [rcu, wcu, entities that reached the key, transactions on its one item, whether it holds many items]
        hits: dict[Key, list[float]] = {}
        scale = op.keys.scale
        for entity, share in op.keys.weights():
            weight = op.rate * share
            for touch in op.touches(entity):
                key = (touch.table, touch.index, touch.key)
                units = hits.get(key)
                if units is None:
                    units = hits[key] = [0.0, 0.0, 0, 0.0, 0]
                units[0] += weight * touch.rcu
                units[1] += weight * touch.wcu
                units[2] += 1
                if touch.transact and touch.one_item and touch.index is None:
                    units[3] += weight
                if not touch.one_item:
                    units[4] = 1
        seconds = SECONDS_PER_MONTH if op.seconds_per_month is None else op.seconds_per_month
        for key, (rcu, wcu, count, tx, many) in hits.items():
            factor = scale if count > 1 else 1.0  # a key shared by sampled entities: by all between them
            sums = self.per_key.get(key)
            if sums is None:
                sums = self.per_key[key] = [0.0, 0.0]
            sums[0] += rcu * factor
            sums[1] += wcu * factor
            if many:
                self.many_items.add(key)
            total = self.totals.get(key[:2])
            if total is None:
                total = self.totals[key[:2]] = [0.0, 0.0]
            total[0] += rcu * scale
            total[1] += wcu * scale
            self.billed[0] += rcu * scale * seconds
            self.billed[1] += wcu * scale * seconds
            if tx:
                item = (key[0], key[2])
                self.transactions[item] = self.transactions.get(item, 0.0) + tx * factor

    def summary(self) -> Summary:
        """What the verdict reads of these sums (functions/platform/scale/model.py `Summary`)."""
        if not self.per_key:
            return Summary()
        top = heapq.nlargest(3, self.per_key.items(), key=lambda kv: utilisation(*kv[1]))  # as sorted(): stable
        single = max((utilisation(*v) for k, v in self.per_key.items() if k not in self.many_items), default=0.0)
        index_write = max(((k, v[1]) for k, v in self.per_key.items() if k[1] is not None), key=lambda kv: kv[1],
                          default=None)
        transaction = max(self.transactions.items(), key=lambda kv: kv[1], default=None)
        return Summary(top_keys=tuple((k, v[0], v[1]) for k, v in top), single_item_peak=single,
                       hot_index_write=index_write, hot_transaction=transaction,
                       totals=tuple((name, r, w) for name, (r, w) in self.totals.items()),
                       billed=(self.billed[0], self.billed[1]))


def simulate(model: str, claim: str, design: str, ops: Iterable[Op], tables: Iterable[Table] = (), *,
             rate: float | None = None, seed_figure: str = "", note: str = "") -> Load:
    """Spread every operation over its keys, add the units per (table, index, key), and judge the sums
    (functions/platform/scale/model.py `judge`)."""
    ops = list(ops)
    tally = _Tally()
    for op in ops:
        tally.add(op)
    return judge(Basis(model, claim, design, rate if rate is not None else sum(op.rate for op in ops),
                       tally.summary(), tuple(tables), seed_figure, note))
