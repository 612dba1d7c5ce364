"""The scale audit's own rules (bench/cost.py): which items are copies of whom, and when a read's cost follows the
table."""

from __future__ import annotations

from bench.cost import Bill, Call, _rename, _renamed, _verdict


def test_a_copy_renames_identifiers_in_keys_and_attributes_and_keeps_shared_values():
    ids = {"O-1001", "C1", "alice"}
    item = {"PK": {"S": "ORDER#O-1001"}, "GSI2PK": {"S": "ORDERS#7"}, "GSI2SK": {"S": "OPEN#2026-01-12#O-1001"},
            "owner": {"S": "alice"}, "skus": {"SS": ["C1", "SKU-MUG"]}, "lines": {"L": [{"M": {"c": {"S": "C1"}}}]},
            "total": {"N": "3"}}
    copy = {name: _renamed(value, ids, "~3") for name, value in item.items()}
    assert copy == {"PK": {"S": "ORDER#O-1001~3"}, "GSI2PK": {"S": "ORDERS#7"},
                    "GSI2SK": {"S": "OPEN#2026-01-12#O-1001~3"}, "owner": {"S": "alice~3"},
                    "skus": {"SS": ["C1~3", "SKU-MUG"]}, "lines": {"L": [{"M": {"c": {"S": "C1~3"}}}]},
                    "total": {"N": "3"}}
    assert _rename("alice@example.com", ids, "~1") == "alice@example.com"  # whole segments only


def read(requests, items, answered, rcu=0.5):
    return Bill(200, requests, items, answered, rcu)


def test_a_read_whose_items_read_follow_the_table_fails_and_a_bounded_fan_out_does_not():
    get = Call("/x", "/x")
    assert _verdict(get, {"small": read(1, 2, 1), "+20k": read(1, 2, 1)}) == "ok"
    assert _verdict(get, {"small": read(1, 2, 1), "+20k": read(1, 900, 1, 4)}).startswith("FAIL: items read")
    assert _verdict(get, {"small": read(1, 2, 1), "+20k": read(3, 2, 1)}).startswith("FAIL: requests")
    fan_out = {"small": read(15, 4, 4, 7.5), "+20k": read(15, 104, 25, 9.5)}  # 15 shards x (25 + 1) bound it
    assert _verdict(get, fan_out) == "ok (shared partition: answer 4 -> 25)"
    assert _verdict(get, {"small": read(1, 1, 1), "+20k": Bill(503, error="SERVICE_UNAVAILABLE")}).startswith("FAIL")


def test_the_seeds_only_figures_are_written_one_call_a_line_and_read_back_by_the_docs(tmp_path):
    import json

    from bench.cost import Row, figures, write_figures
    from tools import docs as docs_tool

    row = Row("cart", Call("/cart/carts/{cartId}/lines/{sku}", "/cart/carts/c/lines/s", method="PUT"),
              {"small": Bill(200, 2, 4, 0, 1.0, 7.0)})
    found = figures([row])
    assert found == {"cart": {"PUT /cart/carts/{cartId}/lines/{sku}": {
        "requests": 2.0, "items": 4.0, "answered": 0.0, "rcu": 1.0, "wcu": 7.0}}}
    path = tmp_path / "cost-figures.json"
    write_figures(found, path)
    assert json.loads(path.read_text()) == found and len(path.read_text().splitlines()) == 5
    assert docs_tool.measured(path) == found
