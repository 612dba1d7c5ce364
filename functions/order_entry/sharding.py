"""GSI2's shard count N, from the seed's formula and the workload it names, and the shard of an order.

ItemsPerRCU = 4 KB / AvgItemSize; PartitionMaxReadRate = 3,000 RCU × ItemsPerRCU; N = MaxRequiredIO /
PartitionMaxReadRate, where MaxRequiredIO is the open orders read at once (orders in 5 years × share open).
The seed's example (3M orders, 20 % open, 250 B per order entity) gives 13, padded to 15.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

SHARDS_ENV = "ORDER_ENTRY_ORDER_SHARDS"


@dataclass(frozen=True)
class Workload:
    """The figures N is computed from (the seed's example by default)."""

    orders_in_5_years: int = 3_000_000
    open_share: float = 0.20
    average_order_bytes: int = 250  # an order header (~100 B) and three lines (~50 B each)
    bytes_per_rcu: int = 4_096  # 4 KB: whole items per read unit, 4,096 // 250 = 16 as the seed counts
    rcu_per_partition: int = 3_000
    pad_to: int = 5  # padding: at least one spare shard, rounded up to a multiple of this


SEED_WORKLOAD = Workload()


def items_per_rcu(workload: Workload) -> int:
    return workload.bytes_per_rcu // workload.average_order_bytes


def partition_max_read_rate(workload: Workload) -> int:
    return workload.rcu_per_partition * items_per_rcu(workload)


def required_shards(workload: Workload) -> int:
    """The seed's N, before padding: the open orders over one partition's read rate, rounded up."""
    open_orders = round(workload.orders_in_5_years * workload.open_share)
    return max(1, math.ceil(open_orders / partition_max_read_rate(workload)))


def shard_count(workload: Workload = SEED_WORKLOAD) -> int:
    """N padded for anomalies: one spare shard at least, rounded up to a multiple of `pad_to` (13 → 15)."""
    return math.ceil((required_shards(workload) + 1) / workload.pad_to) * workload.pad_to


def shard_of(order_id: str, shards: int) -> int:
    """The order's shard: a hash of its id, so a retry or a status change lands in the same shard (the seed's
    advice for reads that must find one order again), spread evenly whatever the ids look like."""
    digest = hashlib.sha256(order_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shards
