"""The NoSQL Workbench models of docs/workbench/ (tools/workbench.py, `make workbench`) cannot drift: each committed
file is exactly what the generator writes from the table specs, the entity chart and the seed; every table and index
of every spec is in its model with its keys and projection; every entity of the chart has a facet; every sample item
carries its table's key attributes."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from functools import cache
from typing import Any

import pytest

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
    rows = workbench.entities(workbench.catalog_of(domain).ENTITIES, specs(domain))
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
