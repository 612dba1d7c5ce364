"""The partition-load model (bench/scale/model.py adds a workload up, functions/platform/scale/model.py judges it) on
the developer guide's rules and the seeds' own arithmetic, the verdicts `make scale` prints for the seeds' claims
(bench/scale/workloads.py), and the explorer's what-if: a model's rows at another rate, as the platform function
answers them, are what `make scale` computes at that rate."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from bench.scale import model, workloads
from bench.scale.model import Op, Table, Touch, simulate, uniform, zipf

ROOT = Path(__file__).resolve().parents[2]


@cache
def every_row() -> tuple[model.Load, ...]:
    """`make scale`'s rows, run once for the tests of this module (the cart's take most of a minute)."""
    return tuple(workloads.all_rows())


def rows_of(name: str) -> list[model.Load]:
    return [row for row in every_row() if row.model == name]


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


def test_transactions_on_one_item_serialize_and_state_the_rate_where_they_conflict():
    # Given 300 transactions a second, each updating one counter item (and a different line item each)
    def touches(i):
        return [Touch("T", "counter", wcu=2, transact=True), Touch("T", f"line-{i}", wcu=2, transact=True)]
    load = simulate("m", "c", "d", [Op("tx", 300, uniform(1_000_000), touches)])
    # Then its units are well under one key's 1,000 WCU, but the counter's transactions are over what one item
    # serializes (1 / TRANSACTION_HOLD_S a second): conflicts stop it, and the limit is stated
    assert load.hottest_key_wcu == pytest.approx(600)
    assert load.hottest_item_tx_per_s == pytest.approx(300)
    assert load.conflict_limit_per_s == pytest.approx(1 / model.TRANSACTION_HOLD_S)
    assert load.throttles and "TransactionConflict" in load.why
    assert load.max_rate_per_s == pytest.approx(1 / model.TRANSACTION_HOLD_S)


def test_transactions_on_different_items_of_one_key_do_not_conflict():
    load = simulate("m", "c", "d", [Op("tx", 300, uniform(1_000_000),
                                       lambda i: [Touch("T", "poll", wcu=2, transact=True, one_item=False)])])
    assert not load.throttles and load.hottest_item_tx_per_s == 0


def test_a_table_over_on_demands_default_40000_units_throttles_and_says_what_to_do():
    # 50,000 writes a second spread over ten million keys: no key is hot, the table is over its default quota
    load = simulate("m", "c", "d", [Op("w", 50_000, uniform(10_000_000), lambda i: [Touch("T", f"k{i}", wcu=1)])])
    assert load.hottest_key_wcu < 1 and load.throttles
    assert "quota increase" in load.why and load.busiest_table == "T"
    assert load.max_rate_per_s == pytest.approx(model.TABLE_WRU)
    assert load.warm_before_launch


def test_a_new_tables_warm_throughput_is_flagged_not_a_throttle():
    load = simulate("m", "c", "d", [Op("w", 5_000, uniform(10_000_000), lambda i: [Touch("T", f"k{i}", wcu=1)])])
    assert not load.throttles and load.warm_before_launch
    assert not simulate("m", "c", "d", [Op("w", 3_000, uniform(10_000_000),
                                          lambda i: [Touch("T", f"k{i}", wcu=1)])]).warm_before_launch


def test_a_burst_is_billed_for_its_length_not_for_a_month():
    def ops(seconds):
        return [Op("burst", 10_000, uniform(100_000), lambda i: [Touch("T", f"k{i}", rcu=1)], seconds)]
    month, burst = simulate("m", "c", "d", ops(None)), simulate("m", "c", "d", ops(730))
    assert month.monthly_usd == pytest.approx(10_000 * model.SECONDS_PER_MONTH * model.RRU_PRICE)
    assert burst.monthly_usd == pytest.approx(10_000 * 730 * model.RRU_PRICE)
    assert burst.hottest_key_rcu == month.hottest_key_rcu  # the verdict is about the rate, whatever the bill


def test_storage_is_billed_beside_throughput_and_the_arithmetic_shows_each_sum():
    load = simulate("m", "c", "d", [Op("w", 1, uniform(1), lambda _: [Touch("T", "k", wcu=1)])],
                    [Table("T", 125 * model.GB)])
    assert load.monthly_usd == pytest.approx(model.SECONDS_PER_MONTH * model.WRU_PRICE + 100 * model.STORAGE_PRICE)
    assert "125 GB stored" in load.arithmetic and "of one key's limit" in load.arithmetic


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
    # The seed's rows count its RawVotes put per vote too: two write units a vote
    assert sharded.table_wcu == pytest.approx(2 * 10_000)


def test_our_voting_holds_a_poll_at_10000_ballots_a_second_over_its_buckets_for_less_than_the_seeds_shards():
    unsharded, sharded, ours = workloads.voting_rows(rate=10_000)
    # A poll's ballots spread over its 20 buckets: the hottest is one bucket, about a twentieth of the ballots
    assert not ours.throttles and ours.hottest_key.startswith("RawVotes favourite-feature#")
    assert ours.hottest_key_wcu == pytest.approx(10_000 / 20, rel=0.1)
    assert 18_000 < ours.max_rate_per_s < 20_000  # by the per-key rule alone, the hash's unevenness included
    # The flushes follow the deployed mapping: 10 stream shards, each a batch of 500 every half second
    assert (ours.extra["stream_shards"], ours.extra["flushes_per_s"], ours.extra["buckets_per_flush"]) == (10, 20, 2)
    assert ours.table_wcu == pytest.approx(10_000 + 20 * (2 * 2 * (10 + 1) + 2))
    # Each segment (and checkpoint) is written by one shard's flushes only: 2 transactions a second on an item
    assert ours.hottest_item_tx_per_s == pytest.approx(2)
    assert ours.monthly_usd < sharded.monthly_usd
    assert workloads.voting_rows(rate=20_000)[2].throttles


def test_binned_writes_cost_a_tenth_of_unbinned_and_ours_a_write_unit_a_bin_within_the_seeds_cost():
    rows = workloads.measurement_rows()
    unbinned, binned, ours_bin, ours_10 = rows
    assert unbinned.table_wcu == pytest.approx(100_000) and binned.table_wcu == pytest.approx(10_000)
    # A 400 ms bin of a sensor reporting every 10 ms stays within 1 KB: every write is one unit, whatever it adds
    assert workloads.bin_write_units(1) == workloads.bin_write_units(10) == workloads.bin_write_units(40) == 1
    assert ours_10.table_wcu == pytest.approx(binned.table_wcu) and ours_bin.table_wcu == pytest.approx(2_500)
    # storage priced: the seed's 2.5 TB a month kept 90 days, ours from the bins' bytes and DynamoDB's per-item 100
    storage = workloads.measurement_storage()
    assert storage["seed_bytes_per_point"] == pytest.approx(9.5, abs=0.1)
    assert storage["ours_bytes_per_point"] > storage["seed_bytes_per_point"]
    assert ours_bin.monthly_usd <= binned.monthly_usd < ours_10.monthly_usd  # the design: a bin a write
    assert not any(row.throttles for row in rows[1:]) and unbinned.throttles  # 100,000 WRU: over a table's 40,000
    assert ours_bin.hottest_key_wcu == pytest.approx(2.5)  # one sensor: 100 readings a second, 2.5 writes


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


def test_a_status_index_with_few_values_is_a_hot_key_and_so_was_our_one_key_flag_but_not_the_shards():
    status, one_key, ours = workloads.connected_car_rows()
    assert status.throttles and "back pressure" in status.why
    # before ADR 0109 every write of an active customer, a registration's regVersion bump too, rewrote key "1"
    assert one_key.throttles and one_key.hottest_key.endswith("ActiveCustomerIndex 1")
    assert one_key.max_rate_per_s == pytest.approx(1_000 / workloads.ACTIVE_SHARE, rel=0.01)
    # ours: only a profile change or an isActive sync of an active customer writes an entry, over N shards
    from functions.connected_car.schema import ACTIVE_SHARDS

    assert not ours.throttles and ".ActiveCustomerShardIndex 1#" in ours.hottest_key
    answers = workloads.CUSTOMER_WRITES * (1 - workloads.REGISTRATION_SHARE)
    assert ours.hottest_key_wcu == pytest.approx(answers * workloads.ACTIVE_SHARE / ACTIVE_SHARDS, rel=0.05)
    assert ours.max_rate_per_s >= workloads.CUSTOMER_WRITES


def test_the_cart_break_even_follows_from_the_rows():
    rows = rows_of("cart")
    seed, uniform_skus, zipf_skus, job = rows
    assert seed.monthly_usd == pytest.approx(seed.extra["make_cost_seed_month"], rel=1e-6)  # make cost's figure
    assert uniform_skus.monthly_usd == pytest.approx(uniform_skus.extra["make_cost_ours_month"], rel=1e-6)
    even = workloads.cart_break_even(rows)
    extra = even["extra_per_month_provisioned"]
    assert extra == pytest.approx(uniform_skus.provisioned_monthly_usd - seed.provisioned_monthly_usd)
    assert even["jobs_per_month_provisioned"] * even["job_run_provisioned"] == pytest.approx(extra)
    assert 0 < even["rate_for_daily_job_provisioned"] < workloads.CART_RATE


def test_our_cart_holds_the_seeds_rate_with_a_popular_sku_at_most_one_and_a_half_times_the_seeds_cost():
    # docs/adr/0107-cart-one-item-holders-from-the-stream.md
    seed, uniform_skus, zipf_skus, _ = rows_of("cart")
    for ours in (uniform_skus, zipf_skus):
        assert not ours.throttles and ours.max_rate_per_s >= workloads.CART_RATE
        assert ours.monthly_usd <= 1.5 * seed.monthly_usd
    # the same requests, spread differently: the same bill
    assert zipf_skus.monthly_usd == pytest.approx(uniform_skus.monthly_usd)
    # the popular SKU's price item and holder shards stay far under a key's limits: no price check in a transaction,
    # no SKU on one key
    assert "Price" not in zipf_skus.hottest_key and "CartHolders" not in zipf_skus.hottest_key


def test_every_row_has_the_fields_scale_json_promises():
    row = workloads.rest_rows()[0].as_json()
    for name in ("model", "claim", "design", "rate_per_s", "hottest_key_rcu", "hottest_key_wcu", "throttles",
                 "monthly_usd", "conflict_limit_per_s", "busiest_table", "warm_before_launch", "arithmetic"):
        assert name in row
    assert isinstance(row["throttles"], bool) and not math.isnan(row["monthly_usd"])


def test_the_keys_with_one_value_bite_at_the_rates_their_docs_state():
    seed_type, ours_type = workloads.contacts_rows()
    # The seed's TypeIndex: every Person is one key, 1,000 person writes a second (under 1 KB: one unit each)
    assert seed_type.throttles and seed_type.max_rate_per_s == pytest.approx(1_000)
    # Ours: N = 4 shards by a hash of the Id hold the stated 2,000 a second with room (about 4,000)
    assert not ours_type.throttles and ours_type.max_rate_per_s > 2 * workloads.PERSON_CREATIONS * 0.9
    seed_one, ours_replicas = workloads.patterns_rows()
    # The featured singleton is one item: ~6,000 eventually consistent reads a second, and no split helps
    assert seed_one.even_with_split and seed_one.max_rate_per_s == pytest.approx(6_000, rel=0.001)
    # Ours: R = 4 replicas, a read on one at random: 10,000 reads a second are 1,250 RCU a replica
    assert not ours_replicas.throttles and ours_replicas.hottest_key_rcu == pytest.approx(1_250, rel=0.001)
    assert ours_replicas.max_rate_per_s == pytest.approx(24_000, rel=0.001)
    games = {row.model: row for row in workloads.rest_rows()}["games"]
    assert not games.throttles and games.hottest_key_wcu / (1_000 * zipf(10_000).top_share()) == 2  # 2 WCU a join
    # A join is a transaction on the game item: the favourite's joins serialize on it, and the row states where
    assert games.hottest_item_tx_per_s == pytest.approx(1_000 * zipf(10_000).top_share())
    assert games.conflict_limit_per_s == pytest.approx(1_000 / (games.hottest_item_tx_per_s * model.TRANSACTION_HOLD_S))


def test_the_committed_scale_figures_are_what_the_workloads_compute_now():
    # functions/platform/scale-figures.json (what the docs render and the explorer shows) drifts when a key design, an item or a projection changes:
    # `make scale` rewrites it, `make docs` renders it.
    # functions/platform/scale-basis.json (what the explorer's what-if scales) with it.
    from bench.scale.__main__ import FIGURES, basis_file, figures
    from functions.platform.scale.what_if import BASIS

    rows = list(every_row())
    fresh = json.loads(json.dumps(figures(rows, workloads.cart_break_even([r for r in rows if r.model == "cart"]))))
    assert json.loads(FIGURES.read_text(encoding="utf-8")) == fresh, "run `make scale` and `make docs`"
    assert json.loads(BASIS.read_text(encoding="utf-8")) == json.loads(json.dumps(basis_file(rows))), "run `make scale`"


def test_a_scale_marker_renders_its_page_rows_and_names_a_page_without_rows():
    from tools import docs

    figures = {"voting": {"rows": [{
        "claim": "one counter", "design": "seed | unsharded", "rate_per_s": "10,000", "hottest_key": "Votes A_1",
        "hottest_key_rcu": "0", "hottest_key_wcu": "3,414", "max_rate_per_s": "2,929", "partitions": 10,
        "throttles": True, "even_with_split": True, "monthly_usd": "16,425", "provisioned_monthly_usd": "4,745",
        "seed_figure": "none", "note": "", "arithmetic": "hottest key Votes A_1: 3,414 WCU / 1,000"}]}}
    marker = "<!-- scale: {} generated from functions/platform/scale-figures.json by `make docs` -->\nstale\n<!-- /scale -->"
    rendered, unknown = docs.render_scale(marker.format("voting") + "\n" + marker.format("nowhere"), figures)
    assert ("| seed \\| unsharded | 10,000 | `Votes A_1` | 0 | 3,414 | 2,929 | 10 | **yes** (one item over) |"
            in rendered)
    assert "- seed | unsharded: hottest key Votes A_1: 3,414 WCU / 1,000." in rendered  # the sums, under the table
    assert "stale" in rendered.split("nowhere")[1] and unknown == ["nowhere"]


def test_a_document_at_the_item_limit_reaches_one_item_s_read_limit_at_60_reads_a_second():
    from functions.shared.capacity import ITEM_LIMIT, read_units

    per_read = read_units([ITEM_LIMIT])  # eventually consistent, as get_document reads
    assert per_read == 50 and model.KEY_RCU / per_read == 60  # docs/catalog.md


# --- the explorer's what-if (functions/platform/scale/what_if.py, GET /explorer/scale/{model}?rate=) ----------------

def what_if_route(name: str, rate: object) -> tuple[int, dict]:
    """The platform function's answer, as API Gateway would hand it the request."""
    from functions.platform import api as platform
    from tests.support.events import rest_event

    event = rest_event("GET", f"/explorer/scale/{name}?rate={rate}", resource="/explorer/scale/{model}", claims=None)
    answer = platform.app.resolve(event, None)
    return answer["statusCode"], json.loads(answer["body"])


@pytest.mark.parametrize(("name", "rate"), [("voting", 2_000), ("voting", 25_000), ("cart", 3_000), ("cart", 25_000),
                                            ("measurements", 450_000)])
def test_the_what_if_answers_a_models_rows_at_a_rate_as_make_scale_computes_them(name, rate):
    from bench.scale.__main__ import what_if
    from functions.platform.scale.what_if import figures_row

    # When: the route is asked for the model at another rate (it scales the committed scale-basis.json)
    status, answer = what_if_route(name, rate)
    # Then: its rows are what bench.scale computes at that rate from the workloads run now
    assert status == 200 and answer["rate_per_s"] == rate and answer["seed_rate_per_s"] != rate
    assert answer["rows"] == [figures_row(row) for row in what_if(name, rate, list(every_row()))]
    # ... and not the seed's figures: every row's rate and bill moved
    seed = [figures_row(row) for row in rows_of(name)]
    assert len(answer["rows"]) == len(seed)
    assert all(asked["rate_per_s"] != before["rate_per_s"] and asked["monthly_usd"] != before["monthly_usd"]
               for asked, before in zip(answer["rows"], seed, strict=True))


def test_at_another_rate_a_design_starts_or_stops_throttling():
    unsharded, _, ours = rows_of("voting")
    assert unsharded.throttles and not ours.throttles  # at the seed's 10,000 votes a second
    # 2,000 votes a second: the favourite's one counter takes a fifth of its 3,414 WCU, under a key's 1,000
    _, low = what_if_route("voting", 2_000)
    assert not low["rows"][0]["throttles"] and low["rows"][0]["hottest_key"] == "Votes A_1"
    assert low["rows"][0]["hottest_key_wcu"] == f"{unsharded.hottest_key_wcu / 5:,.0f}"
    # 20,000: our buckets' hottest is past a key's 1,000 WCU (its limit, 19,194 a second, is in the seed's row)
    _, high = what_if_route("voting", 20_000)
    assert high["rows"][2]["throttles"] and "RawVotes favourite-feature#" in high["rows"][2]["hottest_key"]


def test_every_row_starts_throttling_at_the_rate_its_limit_column_states():
    from functions.platform.scale.model import judge
    from functions.platform.scale.what_if import committed, model_rate, rows_at

    for name, entry in committed().items():
        bases = entry["rows"]
        for position, basis in enumerate(bases):
            limit = judge(basis).max_rate_per_s
            if math.isinf(limit):
                continue
            at_limit = model_rate(bases) * limit / basis.rate_per_s  # the model's rate that brings the row there
            assert not rows_at(bases, at_limit * 0.99)[position].throttles, (name, basis.design)
            assert rows_at(bases, at_limit * 1.01)[position].throttles, (name, basis.design)


def test_at_the_seeds_rate_the_what_if_answers_the_rows_the_page_shows_first():
    from bench.scale.__main__ import FIGURES

    for name, entry in json.loads(FIGURES.read_text(encoding="utf-8")).items():
        status, answer = what_if_route(name, entry["what_if"]["rate_per_s"])
        assert status == 200 and answer["rows"] == entry["rows"], name
        assert answer["counts"] == entry["what_if"]["counts"] == workloads.MODELS[name][1]


def test_make_scale_with_a_model_and_a_rate_prints_what_the_what_if_answers():
    run = subprocess.run([sys.executable, "-m", "bench.scale", "--model", "voting", "--rate", "2000", "--json"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == what_if_route("voting", 2_000)[1]["rows"]
    refused = subprocess.run([sys.executable, "-m", "bench.scale", "--rate", "2000"], cwd=ROOT, capture_output=True,
                             text=True)
    assert refused.returncode == 2 and "--model and --rate go together" in refused.stderr
