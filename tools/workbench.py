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
- one facet per entity of the catalog's entity chart (functions/<domain>/domain.toml `[entities]`, the table
  docs/<domain>.md shows), its key aliases the chart's key shapes (`TOTAL#<candidate>#<segment>`), its sample items
  those whose keys have that shape;
- sample data: the domain's seed (seeds/<domain>.py `load(env)`, as the local runtime loads it), run on an in-memory
  moto DynamoDB with the clock frozen so that the files are reproducible, the items read back as DynamoDB stores them;
  with what the domain's stream consumers derive from those writes: each consumer the stack declares
  (infra/domains/<domain>.py) is fed its table's stream as its event source mapping would (the records, filters and
  window fields of local/streams/), its own `lambda_handler` invoked, until every stream is read (voting's
  aggregates and checkpoint, connected car's `isActive` and active-customer index, cart's holder index). Cart's seed
  leads to no notification and no abandoned cart, so `AFTER_SEED` writes what does: an idle cart removed by TTL
  (local/dynamodb/ttl.py's sweeper), then the price change of the explorer's demonstration
  (docs/adr/0121-workbench-samples-with-what-the-consumers-derive.md).

`python -m tools.workbench` writes the files; `--check` changes nothing and exits 1 when a file differs from what
it would write. tests/unit/test_workbench.py makes the same check.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import io
import json
import logging
import os
import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from functions.shared.catalog import EntityTable
from functions.shared.domain import Domain, load
from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

if TYPE_CHECKING:
    from local.cloudformation.resources import TableInfo

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
                  if p.parent.name != "shared" and (p.parent / "domain.toml").is_file())


def table_name(spec: TableSpec) -> str:
    """The table's logical name: its CDK id without the `Table` suffix (the stack names physical tables per stage)."""
    return spec.construct_id.removesuffix("Table")


# ---------------------------------------------------------------------------------------------------- sample data

@contextmanager
def _offline_dynamodb() -> Iterator[Any]:
    """An in-memory moto DynamoDB with fake credentials, at FROZEN_AT, corrected where moto differs from DynamoDB as
    in the local runtime (local/dynamodb/fidelity: a stream record per real change, INSERT for an UpdateItem that
    creates an item); the process environment and the functions' per-container objects are restored after."""
    from freezegun import freeze_time
    from moto import mock_aws

    from functions.shared import container, ddb
    from local.dynamodb import fidelity as moto_fidelity

    moto_fidelity.apply()
    saved = dict(os.environ)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION", "AWS_REGION",
                "AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_DYNAMODB_STREAMS"):
        os.environ.pop(key, None)
    os.environ.update(AWS_ACCESS_KEY_ID="testing",
                      AWS_SECRET_ACCESS_KEY="testing",  # noqa: S106  moto's fake key, never an account's
                      AWS_DEFAULT_REGION=REGION,
                      AWS_ACCOUNT_ID_ENDPOINT_MODE="disabled", POWERTOOLS_METRICS_DISABLED="true",
                      POWERTOOLS_TRACE_DISABLED="true")
    try:
        # Not scanned by freezegun: packages that import a submodule when an attribute is first read, as its scan of
        # the modules reads them all; Powertools' parser then builds pydantic models, which refuse freezegun's
        # datetime, and aws_cdk (read by consumers_of) would import its 300 submodules (2 s).
        with freeze_time(FROZEN_AT, ignore=["aws_lambda_powertools.utilities.parser", "aws_cdk"]), mock_aws():
            container.reset()  # settings, clients and repositories a previous domain's consumers built
            ddb.resource.cache_clear()  # the seeds write through the functions' cached resource
            import boto3

            # A client of its own: the resource's client answers Python values, and the model wants DynamoDB JSON.
            yield boto3.client("dynamodb", region_name=REGION)
    finally:
        container.reset()
        ddb.resource.cache_clear()
        os.environ.clear()
        os.environ.update(saved)


def sample_items(domain: str, tables: tuple[TableSpec, ...]) -> dict[str, list[dict[str, Any]]]:
    """table name -> the items the domain's seed writes and what its stream consumers derive from them (then from
    `AFTER_SEED`'s writes, for a domain that has one), in DynamoDB JSON, sorted by key."""
    from functions.shared.schema import PARKED_TABLE

    seed = importlib.import_module(f"seeds.{domain}")
    consumers = consumers_of(domain)  # before the clock stops: reading a CDK Duration is a call into jsii's Node
    if consumers:  # imported before it stops too: pydantic builds no model of freezegun's datetime
        for module in ("local.awslambda.events", "local.streams", "local.dynamodb.ttl",
                       *(f"functions.{domain}.{c.module}" for c in consumers)):
            importlib.import_module(module)
    with _offline_dynamodb() as client:
        env: dict[str, str] = {}
        for spec in (*tables, PARKED_TABLE) if consumers else tables:
            client.create_table(**spec.create_table_kwargs(table_name(spec)))
            env[spec.env_var] = table_name(spec)
        for consumer in consumers:
            env.update(consumer.environment)
        os.environ.update(env)  # the consumers read their settings from the environment, as in Lambda
        streams = Streams(domain, consumers, env, client)
        with _functions_output_kept():
            seed.load(env)
            streams.settle()
            after = AFTER_SEED.get(domain)
            if after is not None:
                after(Sandbox(env, client, streams))
        if consumers:
            streams.nothing_parked(table_name(PARKED_TABLE))
        found: dict[str, list[dict[str, Any]]] = {}
        for spec in tables:
            items: list[dict[str, Any]] = []
            for page in client.get_paginator("scan").paginate(TableName=table_name(spec)):
                items.extend(page["Items"])
            found[table_name(spec)] = sorted(items, key=lambda item: _key_of(item, spec))
    return found


# ------------------------------------------------------------------------------- what the stream consumers derive

@dataclass(frozen=True)
class ConsumerSpec:
    """A stream consumer as the stack declares it (infra/constructs/api_domain.py `Consumer`), its CDK values read."""

    construct_id: str
    module: str  # functions.<domain>.<module>.lambda_handler
    source: TableSpec
    batch_size: int
    tumbling_window: int  # seconds; 0: none
    filters: tuple[str, ...]  # Lambda filter patterns, as JSON text
    environment: Mapping[str, str]


def consumers_of(domain: str) -> list[ConsumerSpec]:
    """The domain's stream consumers, from infra/domains/<domain>.py, where the stack takes them from: each
    module-level `Consumer`, and each function of no argument that returns one (voting's `aggregator()`), in the
    order the module defines them. None for a domain without an infra module or without consumers."""
    if importlib.util.find_spec(f"infra.domains.{domain}") is None:
        return []
    from infra.constructs.api_domain import Consumer

    module = importlib.import_module(f"infra.domains.{domain}")
    found: dict[str, Consumer] = {}
    for value in list(vars(module).values()):
        if inspect.isfunction(value) and value.__module__ == module.__name__ and \
                value.__annotations__.get("return") in (Consumer, "Consumer") and \
                not inspect.signature(value).parameters:
            value = value()
        if isinstance(value, Consumer):
            found.setdefault(value.construct_id, value)
    return [ConsumerSpec(construct_id=c.construct_id, module=c.module, source=c.source, batch_size=c.batch_size,
                         tumbling_window=int(c.tumbling_window.to_seconds()) if c.tumbling_window else 0,
                         filters=tuple(json.dumps(dict(pattern), sort_keys=True) for pattern in c.filters),
                         environment=dict(c.environment))
            for c in found.values()]


@contextmanager
def _functions_output_kept() -> Iterator[io.StringIO]:
    """The functions' log lines and metrics (JSON on stdout, as in Lambda) kept apart from the generator's output
    (`--check` messages; tests/unit/test_workbench.py reads the models from stdout)."""
    from functions.shared.observability import logger

    kept = io.StringIO()
    handler = logger.registered_handler
    if not isinstance(handler, logging.StreamHandler):
        raise TypeError(f"the functions' logger writes through {handler!r}, not a stream")
    stream = handler.setStream(kept)
    try:
        with redirect_stdout(kept):
            yield kept
    except BaseException:
        sys.stderr.write(kept.getvalue())  # what the functions logged before the failure
        raise
    finally:
        handler.setStream(stream)


class Feed:
    """One consumer's event source mapping, played on the in-memory moto: its source table's stream read from where
    it stopped, in the record shape Lambda delivers (local/streams/mapping.py), records its filters drop skipped,
    `batch_size` records an invocation, a tumbling window's fields (`shardId`...) when it has one
    (local/streams/windows.py), the handler the stack deploys (`functions.<domain>.<module>.lambda_handler`) invoked.
    A batch item failure stops the generation: a seed whose records a consumer cannot apply is a defect."""

    def __init__(self, domain: str, consumer: ConsumerSpec, table: str, dynamodb: Any) -> None:
        import boto3

        from local.awslambda.events import LambdaContext
        from local.cloudformation.template import ACCOUNT_ID
        from local.streams import FilterCriteria, MappingSpec

        self._context = LambdaContext
        self.handler = importlib.import_module(f"functions.{domain}.{consumer.module}").lambda_handler
        self._streams = boto3.client("dynamodbstreams", region_name=REGION)
        self.spec = MappingSpec(
            id=f"{domain}/{consumer.construct_id}", function=f"{domain}/{consumer.construct_id}",
            function_arn=f"arn:aws:lambda:{REGION}:{ACCOUNT_ID}:function:{consumer.construct_id}",
            table=table_info(consumer.source, table, dynamodb), batch_size=consumer.batch_size,
            starting_position="TRIM_HORIZON", report_item_failures=True, tumbling_window=consumer.tumbling_window,
            filters=FilterCriteria(consumer.filters))
        self._after: dict[str, str] = {}  # shard -> the last sequence number read
        self._windows: dict[str, Any] = {}

    def deliver(self) -> int:
        """Every record written since the last call, delivered; how many were."""
        from local.streams.windows import TumblingWindow

        delivered = 0
        shards = self._streams.describe_stream(StreamArn=self.spec.stream_arn)["StreamDescription"]["Shards"]
        for shard in shards:
            shard_id = shard["ShardId"]
            window = self._windows.setdefault(shard_id, TumblingWindow(self.spec, shard_id))
            records = [r for r in self._read(shard_id) if self.spec.filters.matches(r.event)]
            for batch in _batches(records, self.spec.batch_size, window.of):
                event = {"Records": [record.event for record in batch], **window.fields(tuple(batch))}
                result = self.handler(event, self._context())
                failures = result.get("batchItemFailures") if isinstance(result, Mapping) else None
                if failures or (self.spec.tumbling_window and not window.accept(result)):
                    raise RuntimeError(f"{self.spec.id} failed on the seed's records: {result!r}")
                delivered += len(batch)
        return delivered

    def _read(self, shard_id: str) -> list[Any]:
        from local.streams import lambda_record

        after = self._after.get(shard_id)
        position = {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after} if after else \
            {"ShardIteratorType": "TRIM_HORIZON"}
        iterator = self._streams.get_shard_iterator(StreamArn=self.spec.stream_arn, ShardId=shard_id,
                                                    **position)["ShardIterator"]
        records = []
        while iterator:
            page = self._streams.get_records(ShardIterator=iterator, Limit=1000)
            if not page["Records"]:
                break
            records += [lambda_record(raw, stream_arn=self.spec.stream_arn, region=REGION) for raw in page["Records"]]
            iterator = page.get("NextShardIterator")
        if records:
            self._after[shard_id] = records[-1].sequence_number
        return records


def _batches(records: list[Any], size: int, window_of: Callable[[Any], float | None]) -> Iterator[list[Any]]:
    """Consecutive records, at most `size` a batch; a batch never spans two tumbling windows."""
    batch: list[Any] = []
    for record in records:
        if batch and (len(batch) == size or window_of(record) != window_of(batch[0])):
            yield batch
            batch = []
        batch.append(record)
    if batch:
        yield batch


MAX_ROUNDS = 10  # consumers whose writes another consumer reads: a few rounds; more is a loop


class Streams:
    """A domain's consumers, each fed its source table's stream."""

    def __init__(self, domain: str, consumers: list[ConsumerSpec], env: Mapping[str, str], dynamodb: Any) -> None:
        self.feeds = [Feed(domain, c, env[c.source.env_var], dynamodb) for c in consumers]
        self._dynamodb = dynamodb

    def settle(self) -> None:
        """Deliver until no stream has a record left: what every consumer derives from the writes so far."""
        for _ in range(MAX_ROUNDS):
            if not sum(feed.deliver() for feed in self.feeds):  # every feed, each round
                return
        raise RuntimeError(f"the consumers still had records to deliver after {MAX_ROUNDS} rounds")

    def nothing_parked(self, parked_table: str) -> None:
        """A consumer parks a record it can never apply and goes on: one parked here would leave a gap in the
        sample data, so it stops the generation."""
        parked = self._dynamodb.scan(TableName=parked_table)["Items"]
        if parked:
            raise RuntimeError(f"a consumer parked records of the seed: {parked!r}")


def table_info(spec: TableSpec, name: str, dynamodb: Any) -> TableInfo:
    """What the local runtime's stream pollers and TTL sweeper know of a table (TableInfo,
    local/cloudformation/resources.py)."""
    from local.cloudformation.resources import TableInfo

    table = dynamodb.describe_table(TableName=name)["Table"]
    return TableInfo(logical_id=spec.construct_id, name=name, arn=table["TableArn"],
                     stream_arn=table.get("LatestStreamArn"), ttl_attribute=spec.ttl_attribute,
                     key_schema=tuple(table["KeySchema"]))


@dataclass(frozen=True)
class Sandbox:
    """A domain's tables on the in-memory moto once its seed is loaded and its consumers have caught up."""

    env: Mapping[str, str]
    dynamodb: Any
    streams: Streams

    def expire(self, spec: TableSpec) -> int:
        """DynamoDB's TTL on one table, now: the local runtime's sweeper (local/dynamodb/ttl.py) deletes its expired
        items, streamed as TTL's removals; then the consumers catch up. How many items it deleted."""
        from local.dynamodb.ttl import TtlSweeper

        deleted = TtlSweeper([table_info(spec, self.env[spec.env_var], self.dynamodb)], self.dynamodb,
                             clock=time.time).sweep()  # time.time looked up now: the frozen clock
        self.streams.settle()
        return int(deleted)


# Cart's consumers derive only the holder index from its seed: a notification needs a price change, a count of
# abandoned carts a cart that TTL removed. carol's cart, last changed an idle TTL and an hour before FROZEN_AT, is one.
ABANDONED_CART = ("c0ffee0000000000000000000000ca40", "carol", {"SKU-MUG": 1})


def cart_after_seed(box: Sandbox) -> None:
    """After cart's seed: carol's idle cart (its holder written from the stream), removed by TTL and counted abandoned
    on its expiry day; then the price change of the explorer's demonstration, its SKU and body as its catalog
    declares them (functions/cart/domain.toml, `[[streams]]`), which notifies alice and bob, whose open carts hold
    that SKU."""
    from functions.cart.repository import CartRepository, TableNames
    from functions.cart.schema import CART_TABLE, DEFAULT_IDLE_TTL_SECONDS, IDLE_TTL_ENV
    from functions.shared.settings import Settings

    settings = Settings(box.env)
    repository = CartRepository(TableNames(settings))
    now = datetime.fromisoformat(FROZEN_AT)
    idle = timedelta(seconds=settings.integer(IDLE_TTL_ENV, DEFAULT_IDLE_TTL_SECONDS))
    cart_id, owner, lines = ABANDONED_CART
    changed = now - idle - timedelta(hours=1)
    expires_at = int((changed + idle).timestamp())
    repository.create_cart(cart_id, owner, changed, expires_at)
    for sku, quantity in lines.items():
        repository.set_line(cart_id, owner, sku, quantity, now=changed, expires_at=expires_at)
    box.streams.settle()
    if not box.expire(CART_TABLE):
        raise RuntimeError(f"cart {cart_id} was not expired at {FROZEN_AT}")
    demo = next(d for d in catalog_of("cart").streams if d.write == "set a price")
    _, changed_price = repository.put_price(demo.params["sku"], Decimal(str(demo.body["price"])),
                                            demo.body["currency"], now)
    if not changed_price:
        raise RuntimeError(f"the explorer's price change of {demo.params['sku']} is the seed's price: nothing streams")
    box.streams.settle()


# What is written after a domain's seed (its consumers caught up), for sample data its seed does not lead to.
AFTER_SEED: dict[str, Callable[[Sandbox], None]] = {"cart": cart_after_seed}


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


def catalog_of(domain: str) -> Domain:
    return load(domain)


def model(domain: str) -> dict[str, Any]:
    """The Workbench model of one domain."""
    tables: tuple[TableSpec, ...] = importlib.import_module(f"functions.{domain}.schema").TABLES
    catalog = catalog_of(domain)
    if catalog.entities is None:
        raise ValueError(f"functions/{domain}/domain.toml has no [entities]: the model's facets")
    rows = entities(catalog.entities, tables)
    items = sample_items(domain, tables)
    title = domain.replace("_", " ").capitalize()
    page = f"docs/{domain.replace('_', '-')}.md"
    consumers = ", ".join(f"functions/{domain}/{c.module}.py" for c in consumers_of(domain))
    after = AFTER_SEED.get(domain)
    samples = f"seeds/{domain}.py" + (f" and tools/workbench.py's {after.__name__}" if after else "") + \
        (f", with what its stream consumers ({consumers}) derive from {'them' if after else 'it'}" if consumers else "")
    return {
        "ModelName": f"Blueprints {domain.replace('_', ' ')}",
        "ModelMetadata": {
            "Author": "Blueprints (make workbench)",
            "DateCreated": "Dec 01, 2026, 08:00 AM",
            "DateLastModified": "Dec 01, 2026, 08:00 AM",
            "Description": f"{title}: tables and indexes from functions/{domain}/schema.py, a facet per entity of "
                           f"{page}, sample data from {samples}. Access patterns: {page}.",
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
