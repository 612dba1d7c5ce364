"""The partition-load model (bench/scale/model.py) on the developer guide's rules and the seeds' own arithmetic, and
the verdicts `make scale` prints for the seeds' claims (bench/scale/workloads.py)."""

from __future__ import annotations

import math

import pytest

from bench.scale import model, workloads
from bench.scale.model import Op, Table, Touch, simulate, uniform, zipf


def one_key(rcu: float, wcu: float, index: str | None = None) -> model.Load:
    return simulate("m", "c", "d", [Op("op", 1, uniform(1), lambda _: [Touch("T", "k", rcu=rcu, wcu=wcu, index=index)])])


# --- the rules ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("rcu", "wcu", "throttles"), [
    (3_000, 0, False), (3_001, 0, True),  # burst-adaptive-capacity: at most 3,000 RCU a key, isolated or not
    (0, 1_000, False), (0, 1_001, True),  # ... and 1,000 WCU
    (3_000, 1_000, False),  # reads and writes throttle independently (throttling-key-range-limit-exceeded)
])
def test_one_partition_key_takes_at_most_3000_rcu_and_1000_wcu_a_second(rcu, wcu, throttles):
    load = one_key(rcu, wcu)
    assert load.throttles is throttles
    assert (load.hottest_key_rcu, load.hottest_key_wcu) == (rcu, wcu)


def test_the_rate_at_which_a_key_reaches_its_limit_is_linear_in_the_load():
    load = simulate("m", "c", "d", [Op("op", 500, uniform(1), lambda _: [Touch("T", "k", wcu=4)])])
    assert load.hottest_key_wcu == 2_000 and load.throttles
    assert load.max_rate_per_s == 250  # 250 requests of 4 WCU fill one key's 1,000


def test_a_hot_index_key_throttles_the_base_table_writes_however_even_the_table_keys_are():
    # Given writes spread over a million table keys, each also writing one index key (a status)
    ops = [Op("write", 1_200, uniform(1_000_000), lambda i: [Touch("T", f"id-{i}", wcu=1),
                                                              Touch("T", "ACTIVE", wcu=1, index="ByStatus")])]
    load = simulate("m", "c", "d", ops)
    # Then the index key is the hottest and holds back the table's writes (gsi-throttling: back pressure)
    assert load.hottest_key == "T.ByStatus ACTIVE" and load.hottest_key_wcu == pytest.approx(1_200)
    assert load.throttles and "GSI back pressure" in load.why and "writes to T" in load.why


def test_index_reads_over_the_limit_throttle_without_back_pressure():
    load = one_key(4_000, 0, index="GSI")
    assert load.throttles and "back pressure" not in load.why


def test_an_item_collection_over_10_gb_throttles_only_where_the_table_has_an_lsi():
    gb = model.GB
    ops = [Op("read", 1, uniform(1), lambda _: [Touch("T", "k", rcu=1)])]
    with_lsi = simulate("m", "c", "d", ops, [Table("T", 11 * gb, has_lsi=True, largest_collection_bytes=11 * gb)])
    without = simulate("m", "c", "d", ops, [Table("T", 11 * gb, has_lsi=False, largest_collection_bytes=11 * gb)])
    assert with_lsi.throttles and "10 GB" in with_lsi.why
    assert not without.throttles


@pytest.mark.parametrize(("rcu", "wcu", "stored_gb", "partitions"), [
    (7_500, 4_000, 0, 7),  # 2.5 + 4 = 6.5 partitions of throughput
    (1_000, 100, 50, 5),  # 50 GB at 10 GB a partition
    (0, 0, 0, 1),
])
def test_partitions_needed_are_the_larger_of_throughput_and_storage(rcu, wcu, stored_gb, partitions):
    assert model.partitions_needed(rcu, wcu, stored_gb * model.GB) == partitions


def test_uniform_keys_sampled_keep_each_entity_s_share_and_the_table_total():
    # 100 million entities sampled: a key of its own per entity gets rate / n, the table's total the whole rate
    load = simulate("m", "c", "d", [Op("read", 10_000, uniform(100_000_000), lambda i: [Touch("T", f"k{i}", rcu=1)])])
    assert load.hottest_key_rcu == pytest.approx(10_000 / 100_000_000)
    assert load.table_rcu == pytest.approx(10_000)
    # ... and a key every entity shares gets all of it
    shared = simulate("m", "c", "d", [Op("read", 10_000, uniform(100_000_000), lambda i: [Touch("T", "all", rcu=1)])])
    assert shared.hottest_key_rcu == pytest.approx(10_000)


def test_zipf_s1_gives_the_favourite_one_over_the_harmonic_number():
    assert zipf(10).top_share() == pytest.approx(1 / sum(1 / k for k in range(1, 11)))  # 34%
    assert sum(share for _, share in zipf(10).weights()) == pytest.approx(1)


def test_prices_reproduce_the_seeds_provisioned_figures():
    # The seed's price job: ~1,200 RCU and WCU for 24 hours, ~$22
    day = model.monthly_provisioned(1_200, 1_200) / model.HOURS_PER_MONTH * 24
    assert day == pytest.approx(22.46, abs=0.01)
    # Time series: 100,000 WCU ~$50K a month, binned 10,000 WCU ~$5,000
    assert model.monthly_provisioned(0, 100_000) == pytest.approx(47_450)
    assert model.monthly_provisioned(0, 10_000) == pytest.approx(4_745)


def test_on_demand_bills_request_units_for_a_month_and_storage_past_25_gb():
    assert model.monthly_on_demand(1, 0) == pytest.approx(0.125 / 1e6 * 730 * 3600)
    assert model.monthly_on_demand(0, 0, 125 * model.GB) == pytest.approx(100 * 0.25)


# --- the seeds' claims ---------------------------------------------------------------------------------------------

def by_design(rows: list[model.Load]) -> dict[str, model.Load]:
    return {row.design: row for row in rows}


def test_voting_without_shards_throttles_where_the_favourite_passes_1000_wcu_and_with_shards_holds():
    rows = workloads.voting_rows(rate=10_000)
    unsharded, sharded, ours = rows
    favourite = zipf(workloads.CANDIDATES).top_share()
    assert unsharded.throttles and unsharded.hottest_key == "Votes A_1"
    assert unsharded.max_rate_per_s == pytest.approx(1_000 / favourite)  # ~2,929 votes/s
    assert not sharded.throttles and sharded.max_rate_per_s == pytest.approx(10 * 1_000 / favourite)
    # Ours: a poll's ballots are one partition key (RawVotes: pollId), one write unit each
    assert ours.throttles and ours.hottest_key == "RawVotes favourite-feature"
    assert ours.max_rate_per_s == pytest.approx(1_000)
    assert not workloads.voting_rows(rate=1_000)[2].throttles


def test_binned_writes_cost_a_tenth_of_unbinned_and_ours_pay_for_the_bin_so_far():
    rows = workloads.measurement_rows()
    unbinned, binned, ours_10, ours_60 = rows
    assert unbinned.table_wcu == pytest.approx(100_000) and binned.table_wcu == pytest.approx(10_000)
    # An UpdateItem is billed by the larger of the item before and after: the bin's later writes cost more
    assert ours_10.table_wcu == pytest.approx(10_000 * workloads.bin_write_units(10))
    assert ours_10.table_wcu > binned.table_wcu > ours_60.table_wcu
    assert not any(row.throttles for row in rows)


def test_gsi2_with_one_shard_throttles_under_the_open_orders_burst_and_with_15_holds():
    from functions.order_entry.schema import shard_count

    one, ours = workloads.order_entry_rows()
    assert shard_count() == 15 and ours.design.endswith("N = 15")
    assert one.throttles and one.hottest_key == "OrderEntry.GSI2 ORDERS#0"
    assert not ours.throttles and ours.hottest_key_rcu < model.KEY_RCU
    assert one.hottest_key_rcu == pytest.approx(ours.table_rcu)  # the same reads, on one key or spread over 15


def test_the_inbox_with_bodies_throttles_and_header_only_holds():
    bodies, headers = workloads.messaging_rows()
    # The seed's 50 × 256 KB / 4 KB / 2 = 1,600, and our headers beside each body tip it over by one unit
    assert bodies.extra["rcu_per_page"] == 1_601
    assert headers.extra["rcu_per_page"] == 1  # the seed's 50 × 128 B
    assert bodies.throttles and not headers.throttles


def test_a_status_index_with_few_values_is_a_hot_key_and_so_is_our_sparse_flag():
    status, sparse = workloads.connected_car_rows()
    assert status.throttles and "back pressure" in status.why
    assert sparse.throttles and sparse.hottest_key.endswith("ActiveCustomerIndex 1")
    assert sparse.max_rate_per_s == pytest.approx(1_000 / workloads.ACTIVE_SHARE)


def test_the_cart_break_even_follows_from_the_rows():
    rows = workloads.cart_rows()
    seed, uniform_skus, zipf_skus, job = rows
    assert seed.monthly_usd == pytest.approx(seed.extra["make_cost_seed_month"], rel=1e-6)  # make cost's figure
    assert uniform_skus.monthly_usd == pytest.approx(uniform_skus.extra["make_cost_ours_month"], rel=1e-6)
    assert not uniform_skus.throttles and zipf_skus.throttles  # a popular SKU's price item takes every check
    even = workloads.cart_break_even(rows)
    extra = even["extra_per_month_provisioned"]
    assert extra == pytest.approx(uniform_skus.provisioned_monthly_usd - seed.provisioned_monthly_usd)
    assert even["jobs_per_month_provisioned"] * even["job_run_provisioned"] == pytest.approx(extra)
    assert 0 < even["rate_for_daily_job_provisioned"] < workloads.CART_RATE


def test_every_row_has_the_fields_scale_json_promises():
    row = workloads.voting_rows()[0].as_json()
    for name in ("model", "claim", "design", "rate_per_s", "hottest_key_rcu", "hottest_key_wcu", "throttles",
                 "monthly_usd"):
        assert name in row
    assert isinstance(row["throttles"], bool) and not math.isnan(row["monthly_usd"])


def test_the_keys_with_one_value_bite_at_the_rates_their_docs_state():
    rows = {row.model: row for row in workloads.other_rows()}
    # Every Person is one TypeIndex key: 1,000 person writes a second (under 1 KB: one unit each)
    assert rows["contacts"].throttles and rows["contacts"].max_rate_per_s == pytest.approx(1_000)
    # The featured singleton is one item: ~6,000 eventually consistent reads a second, and no split helps
    assert rows["patterns"].even_with_split and rows["patterns"].max_rate_per_s == pytest.approx(6_000, rel=0.001)
    games = {row.model: row for row in workloads.rest_rows()}["games"]
    assert not games.throttles and games.hottest_key_wcu / (1_000 * zipf(10_000).top_share()) == 2  # 2 WCU a join


def test_the_committed_scale_figures_are_what_the_workloads_compute_now():
    # functions/platform/scale-figures.json (what the docs render and the explorer shows) drifts when a key design, an item or a projection changes:
    # `make scale` rewrites it, `make docs` renders it.
    import json

    from bench.scale.__main__ import FIGURES, figures

    rows = workloads.all_rows()
    fresh = json.loads(json.dumps(figures(rows, workloads.cart_break_even([r for r in rows if r.model == "cart"]))))
    assert json.loads(FIGURES.read_text(encoding="utf-8")) == fresh, "run `make scale` and `make docs`"


def test_a_scale_marker_renders_its_page_rows_and_names_a_page_without_rows():
    from tools import docs

    figures = {"voting": {"rows": [{
        "claim": "one counter", "design": "seed | unsharded", "rate_per_s": "10,000", "hottest_key": "Votes A_1",
        "hottest_key_rcu": "0", "hottest_key_wcu": "3,414", "max_rate_per_s": "2,929", "partitions": 10,
        "throttles": True, "even_with_split": True, "monthly_usd": "16,425", "provisioned_monthly_usd": "4,745",
        "seed_figure": "none", "note": ""}]}}
    marker = "<!-- scale: {} generated from functions/platform/scale-figures.json by `make docs` -->\nstale\n<!-- /scale -->"
    rendered, unknown = docs.render_scale(marker.format("voting") + "\n" + marker.format("nowhere"), figures)
    assert "| seed \\| unsharded | 10,000 | `Votes A_1` | 0 | 3,414 | 2,929 | 10 | **yes** |" in rendered
    assert "stale" in rendered.split("nowhere")[1] and unknown == ["nowhere"]


def test_a_document_at_the_item_limit_reaches_one_item_s_read_limit_at_60_reads_a_second():
    from functions.shared.capacity import ITEM_LIMIT, read_units

    per_read = read_units([ITEM_LIMIT])  # eventually consistent, as get_document reads
    assert per_read == 50 and model.KEY_RCU / per_read == 60  # docs/catalog.md
