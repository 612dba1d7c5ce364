"""The NoSQL Workbench models of docs/workbench/ (tools/workbench.py, `make workbench`) cannot drift: each committed
file is exactly what the generator writes from the table specs, the entity chart, the seed and what the stream
consumers derive from it; every table and index of every spec is in its model with its keys and projection; every
entity of the chart has a facet; every sample item carries its table's key attributes; the derived items are there
(voting's totals are the seed's ballots counted, cart's holders, notifications and abandoned count, connected car's
active-customer index holds the customers with an active registration), from every consumer the stack declares."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections import Counter
from decimal import Decimal
from functools import cache
from typing import Any

import pytest

from functions.shared.domain import load
from functions.shared.table_spec import TableSpec
from tools import workbench

DOMAINS = workbench.domains()


@cache
def _all_generated() -> dict[str, str]:
    """Every domain's model, rendered in a fresh interpreter: the seeds' clocks (a service's `clock=time.time`
    default, bound at import) must be imported under the generator's frozen time, which an import by an earlier
    test in this process would defeat."""
    script = "import json, sys; from tools import workbench; " \
             "json.dump({d: workbench.render(d) for d in workbench.domains()}, sys.stdout)"
    done = subprocess.run([sys.executable, "-c", script], cwd=workbench.ROOT, capture_output=True, text=True,
                          check=True, timeout=300)
    return json.loads(done.stdout)


def generated(domain: str) -> str:
    return _all_generated()[domain]


def specs(domain: str) -> tuple[TableSpec, ...]:
    return importlib.import_module(f"functions.{domain}.schema").TABLES


def key(attr: Any) -> dict[str, str]:
    return {"AttributeName": attr.name, "AttributeType": attr.type}


def test_every_domain_with_tables_has_a_model() -> None:
    assert len(DOMAINS) >= 13  # the seeds' thirteen, and any added by `make new-domain`
    assert sorted(p.stem for p in workbench.OUT.glob("*.json")) == DOMAINS


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_model_is_what_the_specs_the_chart_and_the_seed_make(domain: str) -> None:
    committed = workbench.path_of(domain).read_text(encoding="utf-8")
    assert committed == generated(domain), f"docs/workbench/{domain}.json is stale: run `make workbench`"


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_table_and_index_is_in_the_model_with_its_keys_and_projection(domain: str) -> None:
    model = json.loads(generated(domain))
    assert model["ModelMetadata"]["Version"] == workbench.FORMAT_VERSION == "3.0"
    assert model["ModelMetadata"]["AWSService"] == "Amazon DynamoDB"
    tables = {table["TableName"]: table for table in model["DataModel"]}
    assert set(tables) == {workbench.table_name(spec) for spec in specs(domain)}
    for spec in specs(domain):
        table = tables[workbench.table_name(spec)]
        assert table["KeyAttributes"]["PartitionKey"] == key(spec.partition_key)
        assert table["KeyAttributes"].get("SortKey") == (key(spec.sort_key) if spec.sort_key else None)
        indexes = {index["IndexName"]: index for index in table["GlobalSecondaryIndexes"]}
        assert set(indexes) == {index.name for index in spec.indexes}
        for index in spec.indexes:
            got = indexes[index.name]
            assert got["KeyAttributes"]["PartitionKey"] == key(index.partition_key)
            assert got["KeyAttributes"].get("SortKey") == (key(index.sort_key) if index.sort_key else None)
            expected = ({"ProjectionType": index.projection} if isinstance(index.projection, str)
                        else {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(index.projection)})
            assert got["Projection"] == expected
            # An index's key attributes are declared with the table's attributes, as Workbench needs to build it.
            declared = {a["AttributeName"]: a["AttributeType"] for a in table["NonKeyAttributes"]}
            declared |= {k["AttributeName"]: k["AttributeType"] for k in table["KeyAttributes"].values()}
            for attr in index.key_attributes:
                assert declared[attr.name] == attr.type


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_sample_item_has_its_table_keys_and_every_entity_a_facet(domain: str) -> None:
    model = json.loads(generated(domain))
    by_name = {workbench.table_name(spec): spec for spec in specs(domain)}
    items = 0
    facets = set()
    for table in model["DataModel"]:
        spec = by_name[table["TableName"]]
        for item in table["TableData"]:
            for attr in spec.key_attributes:
                assert set(item[attr.name]) == {attr.type}, (table["TableName"], attr.name, item)
        items += len(table["TableData"])
        for facet in table["TableFacets"]:
            facets.add(facet["FacetName"].removesuffix(f" ({table['TableName']})"))  # a name two tables share
            # A facet shows items of its table, none twice across facets.
            assert all(item in table["TableData"] for item in facet["TableData"])
        placed = [json.dumps(i, sort_keys=True) for f in table["TableFacets"] for i in f["TableData"]]
        assert len(placed) == len(set(placed))
    assert items > 0, f"seeds/{domain}.py wrote nothing"
    chart = workbench.catalog_of(domain).entities
    assert chart is not None
    rows = workbench.entities(chart, specs(domain))
    assert {row.name for row in rows if not row.is_index_view} == facets


def test_the_explorer_links_each_domain_to_its_model() -> None:
    from functions.platform import explorer

    for domain in DOMAINS:
        linked = explorer.domain(domain)["workbench"]
        assert (workbench.ROOT / linked).is_file(), linked


@pytest.mark.parametrize("domain", workbench.domains())
def test_the_model_keeps_workbenchs_import_rules(domain: str) -> None:
    """NoSQL Workbench's import wants facet names unique across a model, and every attribute a facet lists defined on
    its table, as a key or a non-key attribute (the import refuses a model that breaks either)."""
    model = json.loads(workbench.path_of(domain).read_text(encoding="utf-8"))  # the committed one: what users import
    names = [facet["FacetName"] for table in model["DataModel"] for facet in table["TableFacets"]]
    assert len(names) == len(set(names)), names
    for table in model["DataModel"]:
        defined = {a["AttributeName"] for a in table["NonKeyAttributes"]}
        for facet in table["TableFacets"]:
            assert set(facet["NonKeyAttributes"]) <= defined, (table["TableName"], facet["FacetName"])


# --------------------------------------------------------------------------- what the stream consumers derive


def facets(domain: str, spec: TableSpec) -> dict[str, list[dict[str, Any]]]:
    """The generated model's facets of one table, by entity name (a shared name's `(<table>)` suffix removed)."""
    name = workbench.table_name(spec)
    (table,) = [t for t in json.loads(generated(domain))["DataModel"] if t["TableName"] == name]
    return {f["FacetName"].removesuffix(f" ({name})"): f["TableData"] for f in table["TableFacets"]}


def items(domain: str, spec: TableSpec) -> list[dict[str, Any]]:
    name = workbench.table_name(spec)
    (table,) = [t for t in json.loads(generated(domain))["DataModel"] if t["TableName"] == name]
    return table["TableData"]


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_generator_feeds_every_stream_consumer_the_domain_has(domain: str) -> None:
    """Each module of functions/<domain>/ that is a consumer's entry point is run, as infra/domains/<domain>.py wires
    it: a consumer added without its declaration being found would leave its derived items out unnoticed."""
    entry_points = {path.stem for path in (workbench.ROOT / "functions" / domain).glob("*.py")
                    if "= consumer_handler(" in path.read_text(encoding="utf-8")}
    fed = workbench.consumers_of(domain)
    assert {consumer.module for consumer in fed} == entry_points
    for consumer in fed:
        assert consumer.source in specs(domain)


def test_voting_totals_are_the_seeds_ballots_counted_once() -> None:
    from functions.voting.schema import VOTES_TABLE
    from seeds import voting as seed

    votes = facets("voting", VOTES_TABLE)
    totals: Counter[str] = Counter()
    for segment in votes["aggregate segment"]:
        totals[segment["candidate"]["S"]] += int(segment["votes"]["N"])
    expected = {candidate: n for candidate, n in seed.expected_totals().items() if n}
    assert expected == {"Streams": 4, "Transactions": 1, "TTL": 1, "Global tables": 1}
    assert {candidate: n for candidate, n in totals.items() if n} == expected
    # Every change the seed made (a vote, a changed vote, a withdrawal) applied once, and the checkpoint past them all.
    changes = sum(len(history) for _, history in seed.BALLOTS)
    assert sum(int(counter["changes"]["N"]) for counter in votes["applied counter"]) == changes
    (checkpoint,) = votes["shard checkpoint"]
    assert int(checkpoint["appliedRecords"]["N"]) == changes


def test_cart_samples_hold_its_holder_index_notifications_and_abandoned_count() -> None:
    from functions.cart.schema import (
        CART_TABLE,
        HOLDER_TABLE,
        NOTIFICATION_TABLE,
        STATS_TABLE,
        holder_key,
        holder_shard,
    )
    from seeds import cart as seed

    holders = {(item["holder"]["S"], item["cartId"]["S"]) for item in items("cart", HOLDER_TABLE)}
    for cart_id, (_, lines) in seed.CARTS.items():
        for sku in lines:
            assert (holder_key(sku, holder_shard(cart_id)), cart_id) in holders
    # The explorer's price change notifies each owner whose open cart holds the SKU, once, with its new price.
    (demo,) = [d for d in load("cart").streams if d.write == "set a price"]
    sku, price = demo.params["sku"], Decimal(str(demo.body["price"]))
    holding = {owner for owner, lines in seed.CARTS.values() if sku in lines}
    assert holding == {"alice", "bob"}
    notes = facets("cart", NOTIFICATION_TABLE)
    assert {(n["owner"]["S"], n["sku"]["S"], Decimal(n["newPrice"]["N"])) for n in notes["notification"]} == {
        (owner, sku, price) for owner in holding}
    assert {(m["owner"]["S"], m["sk"]["S"]) for m in notes["marker"]} == {(owner, f"SKU#{sku}") for owner in holding}
    # carol's idle cart: gone by TTL, counted once on its expiry day.
    cart_id = workbench.ABANDONED_CART[0]
    assert cart_id not in {item["cartId"]["S"] for item in items("cart", CART_TABLE)}
    stats = facets("cart", STATS_TABLE)
    (marker,) = stats["marker"]
    (day,) = stats["day"]
    assert marker["pk"] == {"S": f"ABANDONED#{cart_id}"}
    assert day["pk"] == {"S": f"DAY#{marker['day']['S']}"} and day["abandonedCarts"] == {"N": "1"}


def test_connected_car_active_index_holds_the_customers_with_an_active_registration() -> None:
    from functions.connected_car.schema import ACTIVE_CUSTOMER_INDEX, CUSTOMER_TABLE
    from seeds.connected_car import REGISTRATIONS

    (index,) = [i for i in CUSTOMER_TABLE.indexes if i.name == ACTIVE_CUSTOMER_INDEX]
    customers = items("connected_car", CUSTOMER_TABLE)
    indexed = {c["username"]["S"] for c in customers if all(a.name in c for a in index.key_attributes)}
    assert indexed == {username for username, _, status in REGISTRATIONS if status == "active"} == {"alice", "bob"}
    assert {c["username"]["S"]: c["isActive"] for c in customers} == {
        c["username"]["S"]: {"BOOL": c["username"]["S"] in indexed} for c in customers}
