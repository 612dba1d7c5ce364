"""`make workbench`: one NoSQL Workbench data model per domain, docs/workbench/<domain>.json, for Data modeler →
Import data model.

The format is NoSQL Workbench's model JSON, `ModelMetadata.Version` "3.0" (what Workbench 3.x exports: `ModelName`,
`ModelMetadata`, and `DataModel`, one entry per table with `KeyAttributes`, `NonKeyAttributes`, `TableFacets`,
`GlobalSecondaryIndexes`, `TableData`, `DataAccess`, `BillingMode`; items in DynamoDB JSON). AWS documents importing
and exporting it (developerguide/workbench.Modeler.ImportExisting.html, workbench.Modeler.ExportModel.html) but not
its fields: the shape follows the models Workbench itself writes. Workbench's access patterns are kept in its own
project, not in a documented model field, so they are not written here: docs/<domain>.md lists them.

Everything comes from what the stack uses:
- tables and indexes, keys and projections: the domain's `TableSpec`s (functions/<domain>/schema.py);
- one facet per entity of the catalog's entity chart (functions/<domain>/catalog.py `ENTITIES`, the table
  docs/<domain>.md shows), its key aliases the chart's key shapes (`TOTAL#<candidate>#<segment>`), its sample items
  those whose keys have that shape;
- sample data: the domain's seed (seeds/<domain>.py `load(env)`, as the local runtime loads it), run on an in-memory
  moto DynamoDB with the clock frozen so that the files are reproducible, the items read back as DynamoDB stores them.
  Items that stream consumers derive (voting's aggregates, cart's notifications) are not there: nothing consumes the
  streams during generation.

`python -m tools.workbench` writes the files; `--check` changes nothing and exits 1 when a file differs from what
it would write. tests/unit/test_workbench.py makes the same check.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from functions.shared.catalog import EntityTable
from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "workbench"
FORMAT_VERSION = "3.0"
# The seeds write "now"-relative data (timeslots, TTLs, readings): generation runs at this instant.
FROZEN_AT = "2026-12-01T08:00:00+00:00"
REGION = "us-east-1"

_TICKS = re.compile(r"`([^`]+)`")
_PLACEHOLDER_SEGMENT = re.compile(r"^(?:[a-z]{1,2}|id)$")  # order entry writes `EMPLOYEE#e`, `<KIND>#id`


def domains(root: Path = ROOT) -> list[str]:
    """Every domain with both table specs and an entity chart."""
    return sorted(p.parent.name for p in (root / "functions").glob("*/schema.py")
                  if p.parent.name != "shared" and (p.parent / "catalog.py").is_file())


def table_name(spec: TableSpec) -> str:
    """The table's logical name: its CDK id without the `Table` suffix (the stack names physical tables per stage)."""
    return spec.construct_id.removesuffix("Table")


# ---------------------------------------------------------------------------------------------------- sample data

@contextmanager
def _offline_dynamodb() -> Iterator[Any]:
    """An in-memory moto DynamoDB with fake credentials, at FROZEN_AT; the process environment is restored after."""
    from freezegun import freeze_time
    from moto import mock_aws

    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                                            "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_ENDPOINT_URL",
                                            "AWS_ENDPOINT_URL_DYNAMODB")}
    for key in saved:
        os.environ.pop(key, None)
    os.environ.update(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION=REGION)
    from functions.shared import ddb

    try:
        with freeze_time(FROZEN_AT), mock_aws():
            ddb.resource.cache_clear()  # the seeds write through the functions' cached resource
            import boto3

            # A client of its own: the resource's client answers Python values, and the model wants DynamoDB JSON.
            yield boto3.client("dynamodb", region_name=REGION)
    finally:
        ddb.resource.cache_clear()
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def sample_items(domain: str, tables: tuple[TableSpec, ...]) -> dict[str, list[dict[str, Any]]]:
    """table name -> the items the domain's seed writes, in DynamoDB JSON, sorted by key."""
    seed = importlib.import_module(f"seeds.{domain}")
    with _offline_dynamodb() as client:
        env = {}
        for spec in tables:
            client.create_table(**spec.create_table_kwargs(table_name(spec)))
            env[spec.env_var] = table_name(spec)
        seed.load(env)
        found: dict[str, list[dict[str, Any]]] = {}
        for spec in tables:
            items: list[dict[str, Any]] = []
            for page in client.get_paginator("scan").paginate(TableName=table_name(spec)):
                items.extend(page["Items"])
            found[table_name(spec)] = sorted(items, key=lambda item: _key_of(item, spec))
    return found


def _key_of(item: dict[str, Any], spec: TableSpec) -> tuple[str, ...]:
    return tuple(json.dumps(item.get(attr.name), sort_keys=True) for attr in spec.key_attributes)


def _plain(value: dict[str, Any]) -> str:
    """A key attribute's value as text (keys are S, N or B)."""
    return str(next(iter(value.values())))


# -------------------------------------------------------------------------------------------------------- facets

@dataclass(frozen=True)
class Entity:
    """One row of an entity chart: its name, the table it lives in, its key shapes and the attributes it names."""

    name: str
    table: str | None  # the chart's table cell, when the chart has one
    partition: str | None  # the key shape, `TOTAL#<candidate>#<segment>`; None: any value
    sort: str | None
    attributes: tuple[str, ...]
    is_index_view: bool  # a row showing a GSI's view of items the table holds, not an item of its own


def _column(columns: tuple[str, ...], *words: str) -> int | None:
    for i, header in enumerate(columns):
        lowered = header.lower()
        if any(word in lowered for word in words):
            return i
    return None


def _key_column(columns: tuple[str, ...], short: str, words: str) -> int | None:
    """The table's key column: headed `PK`, `... (PK)` or "partition key", not an index's ("GSI1 sort key")."""
    for test in (lambda h: h.strip() == short, lambda h: h.strip().endswith(f"({short})"),
                 lambda h: words in h.lower() and "gsi" not in h.lower() and "index" not in h.lower()):
        found = next((i for i, header in enumerate(columns) if test(header)), None)
        if found is not None:
            return found
    return None


def _clean(cell: str) -> str:
    return re.sub(r"\s*\(.*?\)\s*", " ", cell.replace("**", "")).strip().rstrip(":")


def key_shape(cell: str, key: KeyAttribute | None) -> str | None:
    """The key shape a chart cell gives (`` `sk = "LINE#<sku>"` `` → `LINE#<sku>`), or None when the cell allows any
    value (a dash, prose such as "person UUID", or the attribute's own name: "`userId` (the caller's `sub`)")."""
    text = cell.strip()
    if not text.startswith("`"):
        return None
    tokens = _TICKS.findall(text)
    token = tokens[0]
    if "=" in token:  # `sk = "LINE#<sku>"`
        token = token.split("=", 1)[1].strip().strip('"')
    elif len(tokens) > 1 and "=" in text.split("`", 3)[2]:  # `type` = `book`
        token = tokens[1]
    if key is not None and token == key.name:
        return None
    return token


def _shape_regex(shape: str) -> re.Pattern[str]:
    parts = []
    for segment in shape.split("#"):
        if _PLACEHOLDER_SEGMENT.match(segment):
            parts.append(".+")
        else:
            parts.append(".+".join(re.escape(p) for p in re.split(r"<[^>]*>", segment)))
    return re.compile("^" + "#".join(parts) + "$")


def _literal_length(shape: str | None) -> int:
    return 0 if shape is None else len(re.sub(r"<[^>]*>", "", shape))


def entities(chart: EntityTable, tables: tuple[TableSpec, ...]) -> list[Entity]:
    """The chart's rows as entities. Key columns are found by their headers (partition key / PK, sort key / SK)."""
    columns = chart.columns
    pk_col = _key_column(columns, "PK", "partition key")
    sk_col = _key_column(columns, "SK", "sort key")
    if pk_col is None:
        raise ValueError(f"an entity chart without a partition-key column: {columns!r}")
    table_col = _column(columns, "table")
    if table_col == pk_col:  # users: "table `Users`: `UserId` (PK)"
        table_col = None
    name_col = _column(columns, "entity", "item")
    attr_col = _column(columns, "attributes")
    spec = tables[0]
    found = []
    for row in chart.rows:
        table_cell = row[table_col] if table_col is not None else None
        name = _clean(row[name_col] if name_col is not None else row[0])
        if table_col is not None and name_col is None and ":" in row[table_col]:
            name = _clean(row[table_col].split(":", 1)[1])
        owner = _table_of(table_cell, tables) if table_cell else spec
        pk = key_shape(row[pk_col], owner.partition_key if owner else None)
        sk = key_shape(row[sk_col], owner.sort_key if owner else None) if sk_col is not None else None
        view = table_cell is not None and ("index" in table_cell.lower() or "gsi" in table_cell.lower())
        no_key = row[pk_col].strip().startswith(("—", "–", "-", "("))
        attributes = tuple(t for t in _TICKS.findall(row[attr_col]) if re.fullmatch(r"[A-Za-z_]\w*", t)) \
            if attr_col is not None else ()
        found.append(Entity(name=name, table=table_cell, partition=pk, sort=sk, attributes=attributes,
                            is_index_view=view or no_key))
    return found


def _norm(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower()).removesuffix("table").rstrip("s")


def _table_of(cell: str | None, tables: tuple[TableSpec, ...]) -> TableSpec | None:
    """The spec a chart's table cell names ("Carts: line" → CartTable, "CartNotifications" → NotificationTable)."""
    if len(tables) == 1 or not cell:
        return tables[0]
    word = _norm(_clean(cell.split(":", 1)[0]))
    for spec in tables:
        if _norm(spec.construct_id) == word:
            return spec
    for spec in tables:
        if word.endswith(_norm(spec.construct_id)) or _norm(spec.construct_id).endswith(word):
            return spec
    return None


def _matches(entity: Entity, item: dict[str, Any], spec: TableSpec) -> bool:
    for shape, key in ((entity.partition, spec.partition_key), (entity.sort, spec.sort_key)):
        if shape is None:
            continue
        if key is None or key.name not in item or not _shape_regex(shape).match(_plain(item[key.name])):
            return False
    return True


def facets_of(spec: TableSpec, rows: list[Entity], items: list[dict[str, Any]], tables: tuple[TableSpec, ...]
              ) -> list[dict[str, Any]]:
    """One facet per entity stored in this table; each item goes to the most specific entity its keys fit."""
    mine = [e for e in rows if not e.is_index_view and _table_of(e.table, tables) is spec]
    by_specificity = sorted(mine, key=lambda e: -(_literal_length(e.partition) + _literal_length(e.sort)))
    members: dict[str, list[dict[str, Any]]] = {e.name: [] for e in mine}
    for item in items:
        entity = next((e for e in by_specificity if _matches(e, item, spec)), None)
        if entity is not None:
            members[entity.name].append(item)
    keys = {a.name for a in spec.key_attributes}
    facets = []
    for entity in mine:
        data = members[entity.name]
        names = sorted({name for item in data for name in item} - keys) if data else \
            [a for a in dict.fromkeys(entity.attributes) if a not in keys]
        alias = {"PartitionKeyAlias": entity.partition or spec.partition_key.name}
        if spec.sort_key is not None:
            alias["SortKeyAlias"] = entity.sort or spec.sort_key.name
        facets.append({"FacetName": entity.name, "KeyAttributeAlias": alias, "TableData": data,
                       "NonKeyAttributes": names, "DataAccess": {"MySql": {}}})
    return facets


# --------------------------------------------------------------------------------------------------------- model

def _key_attributes(partition: KeyAttribute, sort: KeyAttribute | None) -> dict[str, Any]:
    keys: dict[str, Any] = {"PartitionKey": {"AttributeName": partition.name, "AttributeType": partition.type}}
    if sort is not None:
        keys["SortKey"] = {"AttributeName": sort.name, "AttributeType": sort.type}
    return keys


def _projection(index: IndexSpec) -> dict[str, Any]:
    if isinstance(index.projection, str):
        return {"ProjectionType": index.projection}
    return {"ProjectionType": "INCLUDE", "NonKeyAttributes": list(index.projection)}


def table_model(spec: TableSpec, items: list[dict[str, Any]], rows: list[Entity], tables: tuple[TableSpec, ...]
                ) -> dict[str, Any]:
    keys = {a.name for a in spec.key_attributes}
    types: dict[str, str] = {}
    for index in spec.indexes:
        for attr in index.key_attributes:
            if attr.name not in keys:
                types[attr.name] = attr.type
    for item in items:
        for name, value in item.items():
            if name not in keys:
                types.setdefault(name, next(iter(value)))
    facets = facets_of(spec, rows, items, tables)
    for facet in facets:  # Workbench wants every attribute a facet lists defined on its table
        for name in facet["NonKeyAttributes"]:
            types.setdefault(name, "S")
    model: dict[str, Any] = {
        "TableName": table_name(spec),
        "KeyAttributes": _key_attributes(spec.partition_key, spec.sort_key),
        "NonKeyAttributes": [{"AttributeName": n, "AttributeType": t} for n, t in sorted(types.items())],
        "TableFacets": facets,
        "GlobalSecondaryIndexes": [
            {"IndexName": index.name, "KeyAttributes": _key_attributes(index.partition_key, index.sort_key),
             "Projection": _projection(index)}
            for index in spec.indexes
        ],
        "TableData": items,
        "DataAccess": {"MySql": {}},
        "BillingMode": "PAY_PER_REQUEST",
    }
    return model


def catalog_of(domain: str) -> ModuleType:
    return importlib.import_module(f"functions.{domain}.catalog")


def model(domain: str) -> dict[str, Any]:
    """The Workbench model of one domain."""
    tables: tuple[TableSpec, ...] = importlib.import_module(f"functions.{domain}.schema").TABLES
    catalog = catalog_of(domain)
    rows = entities(catalog.ENTITIES, tables)
    items = sample_items(domain, tables)
    title = (catalog.__doc__ or domain).split(":", 1)[0].strip()
    page = f"docs/{domain.replace('_', '-')}.md"
    return {
        "ModelName": f"Blueprints {domain.replace('_', ' ')}",
        "ModelMetadata": {
            "Author": "Blueprints (make workbench)",
            "DateCreated": "Dec 01, 2026, 08:00 AM",
            "DateLastModified": "Dec 01, 2026, 08:00 AM",
            "Description": f"{title}: tables and indexes from functions/{domain}/schema.py, a facet per entity of "
                           f"{page}, sample data from seeds/{domain}.py. Access patterns: {page}.",
            "AWSService": "Amazon DynamoDB",
            "Version": FORMAT_VERSION,
        },
        "DataModel": unique_facet_names([table_model(spec, items[table_name(spec)], rows, tables)
                                         for spec in tables]),
    }


def unique_facet_names(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Workbench's import wants every facet name once in a model: a name two tables share (cart's `marker`) gets
    its table's name after it, `marker (CartSkuHolders)`, in the later table."""
    seen: set[str] = set()
    for table in tables:
        for facet in table["TableFacets"]:
            if facet["FacetName"] in seen:
                facet["FacetName"] = f"{facet['FacetName']} ({table['TableName']})"
            seen.add(facet["FacetName"])
    return tables


def render(domain: str) -> str:
    return json.dumps(model(domain), indent=2, ensure_ascii=False) + "\n"


def path_of(domain: str) -> Path:
    return OUT / f"{domain}.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make workbench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a file is stale")
    args = parser.parse_args(argv)
    stale = []
    for domain in domains():
        path = path_of(domain)
        text = render(domain)
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        if args.check:
            stale.append(str(path.relative_to(ROOT)))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    for name in stale:
        print(f"{name} differs from the specs, the entity chart or the seed: run `make workbench`", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
