"""Order entry's pure logic: the seed's shard-count formula, the shard of an order, keys and status transitions."""

from __future__ import annotations

from collections import Counter

import pytest

from functions.order_entry.schema import (
    SEED_WORKLOAD,
    Workload,
    items_per_rcu,
    padded_total,
    partition_max_read_rate,
    quarter_of,
    required_shards,
    shard_count,
    shard_of,
    status_range,
    status_sk,
)
from functions.order_entry.service import TRANSITIONS, allowed


def test_the_seeds_example_gives_13_shards_padded_to_15():
    assert items_per_rcu(SEED_WORKLOAD) == 16  # 4 KB / 250 B
    assert partition_max_read_rate(SEED_WORKLOAD) == 48_000  # 3,000 RCU x 16
    assert required_shards(SEED_WORKLOAD) == 13  # 0.2 x 3M / 48K = 12.5, rounded up
    assert shard_count() == 15


@pytest.mark.parametrize(("workload", "required", "padded"), [
    (Workload(orders_in_5_years=100_000), 1, 5),  # a small table still gets a spare shard
    (Workload(orders_in_5_years=30_000_000), 125, 130),
    (Workload(average_order_bytes=500), 25, 30),  # bigger orders: fewer per read unit, more shards
    (Workload(open_share=0.05), 4, 5),
])
def test_the_shard_count_follows_the_figures(workload, required, padded):
    assert (required_shards(workload), shard_count(workload)) == (required, padded)


def test_an_orders_shard_is_stable_and_the_shards_are_even():
    assert shard_of("O-1001", 15) == shard_of("O-1001", 15)
    spread = Counter(shard_of(f"order-{n}", 15) for n in range(15_000))
    assert set(spread) == set(range(15)) and max(spread.values()) < 1.15 * 1_000


def test_keys_sort_in_date_then_id_order_and_totals_numerically():
    first, last = status_range("OPEN", "2026-01-01", "2026-01-31")
    assert first <= status_sk("OPEN", "2026-01-01", "a") <= status_sk("OPEN", "2026-01-31", "zz-9") <= last
    assert not first <= status_sk("OPEN", "2026-02-01", "a") <= last
    assert not first <= status_sk("SHIPPED", "2026-01-15", "a") <= last
    assert padded_total(9_999) < padded_total(10_000)
    assert [quarter_of(d) for d in ("2026-01-01", "2026-03-31", "2026-04-01", "2026-12-31")] == [
        "2026-Q1", "2026-Q1", "2026-Q2", "2026-Q4"]


def test_status_transitions():
    assert allowed("OPEN", "SHIPPED") and allowed("OPEN", "CANCELLED") and allowed("SHIPPED", "DELIVERED")
    assert not allowed("SHIPPED", "OPEN") and not allowed("CANCELLED", "OPEN") and not allowed("DELIVERED", "SHIPPED")
    assert set(TRANSITIONS) == {"OPEN", "SHIPPED", "DELIVERED", "CANCELLED"}
