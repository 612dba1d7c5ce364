"""`make migrate STAGE=<stage>`: copy a deployed stage's items from an old key layout into the new one.

A key design change is a data change (docs/adr/0113-key-changes-migrated-by-make-migrate.md). Two kinds:
- the key *schema* changes (attribute names or types): CloudFormation replaces the table, and every table's
  UpdateReplacePolicy is Retain (infra/constructs/spec_table.py), so the old physical table survives beside the new
  one; the migration copies the old table's items, transformed, into the new tables (`in_place=False`);
- only key *values* change (same attributes, new composition): the table stays, old and new items live in it side
  by side; the migration writes each old item's new items and deletes the old one (`in_place=True`); a new item
  with the old item's own key (a new index key backfilled) is one UpdateItem of the attributes that differ, each
  conditioned on still holding what the Scan read (`_rewrite`);
- an index whose key changes gets a new name; the old one (`Migration.retires`) stays through a first deploy
  (`-c keepRetiredIndexes=true`), the migration fills the new one, and a second deploy drops the old
  (tools/deploy.py runs the passes while a stage's table still has a retired index).

Each domain that changed its keys declares its migrations in tools/migrations/<domain>.py (`MIGRATIONS`): the
table's construct id, the old layout's TableSpec and a `transform(old_item) -> [(target construct id, new item)]`.

Safe to repeat and to resume:
- every new item is written with a PutItem conditioned on `attribute_not_exists(<partition key>)`: a newer write
  made through the new API wins, and a second run writes nothing (ConditionalCheckFailed counts as "already");
- an in-place run deletes an old item only after its new items are written, and only if its key is not one of them;
- progress (the Scan's LastEvaluatedKey) is saved after each page is written, in
  `.local/stages/<stage>/migrations/<name>.json`; a run stopped half way starts again from its last saved page.

On a stage: `make deploy` records the tables' physical names before `cdk deploy` (`record`) and migrates after it
(`run`): a table whose physical name changed was replaced, and its old name is where the copy reads from.
`make migrate STAGE=<stage> [FROM=<ConstructId>=<old table name>]` runs the same step by hand.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from tools.migrations import Migration

ROOT = Path(__file__).resolve().parents[1]
COUNTS = ("scanned", "written", "already", "deleted", "pages")


def _serialize(key: Mapping[str, Any] | None) -> Any:
    from boto3.dynamodb.types import TypeSerializer

    if key is None:
        return None
    serializer = TypeSerializer()
    return {k: serializer.serialize(v) for k, v in key.items()}


def _deserialize(key: Any) -> dict[str, Any] | None:
    from boto3.dynamodb.types import TypeDeserializer

    if key is None:
        return None
    deserializer = TypeDeserializer()
    return {k: deserializer.deserialize(v) for k, v in key.items()}


def _load_progress(path: Path) -> dict[str, Any]:
    if path.exists():
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return data
    return {"done": False, "last_key": None, **dict.fromkeys(COUNTS, 0)}


def _save_progress(path: Path, progress: Mapping[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(progress, indent=1) + "\n", encoding="utf-8")
    temporary.replace(path)  # a crash leaves the last whole record, never half of one


def _key_attributes(client: Any, names: Mapping[str, str]) -> dict[str, list[str]]:
    """Each target table's key attributes, from DescribeTable (what the table really is, not what we think)."""
    out = {}
    for construct_id, name in names.items():
        schema = client.describe_table(TableName=name)["Table"]["KeySchema"]
        out[construct_id] = [k["AttributeName"] for k in sorted(schema, key=lambda k: k["KeyType"] != "HASH")]
    return out


PAGE_SIZE = 100  # items a Scan page reads: progress is saved after each page


def run(migration: Migration, *, source: str, targets: Mapping[str, str], progress: Path,
        stop_after: int | None = None) -> dict[str, Any]:
    """Copy (or, in place, rewrite) every item of `source` by `migration.transform` into `targets` (construct id ->
    table name), with boto3's default session. Stops after `stop_after` pages when given (the tests' half-way stop).
    Returns the counts so far and whether the source was read to its end (`done`)."""
    import boto3

    resource = boto3.resource("dynamodb")
    state = _load_progress(progress)
    if state["done"]:
        return {**state, "skipped": True}
    keys = _key_attributes(resource.meta.client, targets)
    if migration.reads_source:
        bound = partial(migration.transform, source=resource.Table(source))  # type: ignore[call-arg]
        migration = replace(migration, transform=bound)
    scan: dict[str, Any] = {"ConsistentRead": True, "Limit": PAGE_SIZE}
    pages = 0
    while True:
        if state["last_key"] is not None:
            scan["ExclusiveStartKey"] = _deserialize(state["last_key"])
        page = resource.Table(source).scan(**scan)
        for item in page.get("Items", []):
            _migrate_item(resource, migration, item, {c: (targets[c], keys[c]) for c in targets}, state)
        last = page.get("LastEvaluatedKey")
        state.update(last_key=_serialize(last), pages=state["pages"] + 1, done=last is None)
        _save_progress(progress, state)
        pages += 1
        if state["done"] or (stop_after is not None and pages >= stop_after):
            return dict(state)


def _migrate_item(resource: Any, migration: Migration, item: dict[str, Any],
                  targets: Mapping[str, tuple[str, list[str]]], state: dict[str, Any]) -> None:
    """One old item's new items, each written unless its key is taken; in place, the old item (in the migration's
    own table) deleted after."""
    from botocore.exceptions import ClientError

    state["scanned"] += 1
    written = []
    for construct_id, new_item in migration.transform(dict(item)):
        if construct_id not in targets:
            raise KeyError(f"{migration.name}: no target table for {construct_id!r}")
        name, attributes = targets[construct_id]
        written.append((name, {a: new_item[a] for a in attributes}))
        if migration.in_place and construct_id == migration.table and written[-1][1] == migration.old_key(item):
            # the old item's own key, other attributes changed (an index key backfilled): `_rewrite`
            state["written" if _rewrite(resource.Table(name), item, new_item, attributes) else "already"] += 1
            continue
        try:
            resource.Table(name).put_item(Item=new_item, ConditionExpression="attribute_not_exists(#pk)",
                                          ExpressionAttributeNames={"#pk": attributes[0]})
            state["written"] += 1
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            state["already"] += 1
    old = migration.old_key(item)
    source = targets[migration.table][0] if migration.table in targets else None
    if migration.in_place and written and (source, old) not in written:
        resource.Table(source).delete_item(Key=old)
        state["deleted"] += 1


def _rewrite(table: Any, old: Mapping[str, Any], new: Mapping[str, Any], key: list[str]) -> bool:
    """An in-place item that keeps its key (an attribute added, changed or dropped: a new index key backfilled): one
    UpdateItem of only the attributes that differ, conditioned on each still holding what the Scan read (absent, for
    one added). A write through the new API meanwhile wins (False); attributes the migration does not change are never
    touched, so no concurrent write to them is lost."""
    from botocore.exceptions import ClientError

    changed = [a for a in new if a not in key and old.get(a) != new[a]]
    dropped = [a for a in old if a not in key and a not in new]
    if not changed and not dropped:
        return False
    alias = {a: f"#a{i}" for i, a in enumerate([*changed, *dropped])}
    values: dict[str, Any] = {f":n{i}": new[a] for i, a in enumerate(changed)}
    conditions = []
    for i, a in enumerate([*changed, *dropped]):
        if a in old:
            values[f":o{i}"] = old[a]
            conditions.append(f"{alias[a]} = :o{i}")
        else:
            conditions.append(f"attribute_not_exists({alias[a]})")
    update = " ".join(part for part in (
        "SET " + ", ".join(f"{alias[a]} = :n{i}" for i, a in enumerate(changed)) if changed else "",
        "REMOVE " + ", ".join(alias[a] for a in dropped) if dropped else "") if part)
    try:
        table.update_item(Key={a: old[a] for a in key}, UpdateExpression=update,
                          ConditionExpression=" AND ".join(conditions),
                          ExpressionAttributeNames={n: a for a, n in alias.items()}, ExpressionAttributeValues=values)
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


# --- which migrations exist, and where a stage's tables are ----------------------------------------------------------

def migrations() -> Iterator[Migration]:
    """Every domain's MIGRATIONS (tools/migrations/<domain>.py), in domain order."""
    import tools.migrations

    for module in sorted(m.name for m in pkgutil.iter_modules(tools.migrations.__path__)):
        yield from importlib.import_module(f"tools.migrations.{module}").MIGRATIONS


def stage_tables(cloudformation: Any, stack: str) -> dict[str, str]:
    """Construct id -> physical table name of every table in `stack` and its nested stacks (by each resource's
    `aws:cdk:path`, `.../<ConstructId>/Table/Resource`, as infra/constructs/spec_table.py builds it)."""
    out: dict[str, str] = {}
    template = cloudformation.get_template(StackName=stack)["TemplateBody"]
    if isinstance(template, str):
        template = json.loads(template)
    resources = template.get("Resources", {})
    for summary in _stack_resources(cloudformation, stack):
        definition = resources.get(summary["LogicalResourceId"], {})
        if summary["ResourceType"] == "AWS::CloudFormation::Stack" and summary.get("PhysicalResourceId"):
            out.update(stage_tables(cloudformation, summary["PhysicalResourceId"]))
        elif (summary["ResourceType"] == "AWS::DynamoDB::Table" and summary.get("PhysicalResourceId")
              and summary.get("ResourceStatus") != "DELETE_COMPLETE"):  # a rolled-back create's tables are gone
            path = definition.get("Metadata", {}).get("aws:cdk:path", "")
            parts = path.split("/")
            if len(parts) >= 3 and parts[-2:] == ["Table", "Resource"]:
                out[parts[-3]] = summary["PhysicalResourceId"]
    return out


def _stack_resources(cloudformation: Any, stack: str) -> Iterator[dict[str, Any]]:
    for page in cloudformation.get_paginator("list_stack_resources").paginate(StackName=stack):
        yield from page["StackResourceSummaries"]


def stage_dir(stage: str) -> Path:
    return ROOT / ".local" / "stages" / stage


def record(cloudformation: Any, stage: str) -> dict[str, str]:
    """Before a deploy: the stage's tables as they are now (nothing when the stage does not exist yet)."""
    from botocore.exceptions import ClientError

    try:
        tables = stage_tables(cloudformation, f"Blueprints-{stage}")
    except ClientError as error:
        if "does not exist" not in str(error):
            raise
        tables = {}
    path = stage_dir(stage) / "tables-before.json"
    # A copy a deploy started and did not finish (stopped, failed) must still find its source on the next deploy:
    # a table recorded under another name than it has now keeps its recorded (old) name until its copy is done.
    previous = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    unfinished = {m.table for m in migrations()
                  if not m.in_place and not _load_progress(progress_path(stage, m))["done"]}
    for construct_id, old in previous.items():
        if construct_id in unfinished and tables.get(construct_id) not in (None, old):
            tables[construct_id] = old
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(tables, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return tables


def progress_path(stage: str, migration: Migration) -> Path:
    return stage_dir(stage) / "migrations" / f"{_slug(migration.name)}.json"


def wait_for_indexes(dynamodb: Any, table_names: Iterable[str], *, poll_seconds: float = 15.0,
                     timeout_seconds: float = 6 * 3600) -> None:
    """Until every index of these tables is ACTIVE and not backfilling: CloudFormation moves on while a new index
    is still being built, a Query on it fails until then, and the table takes no other index change meanwhile."""
    import time

    deadline = time.monotonic() + timeout_seconds
    for name in table_names:
        while True:
            indexes = dynamodb.describe_table(TableName=name)["Table"].get("GlobalSecondaryIndexes", [])
            building = [i["IndexName"] for i in indexes if i.get("IndexStatus") != "ACTIVE" or i.get("Backfilling")]
            if not building:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name}: indexes {', '.join(building)} still building")
            print(f"{name}: waiting for {', '.join(building)} to be built", file=sys.stderr)
            time.sleep(poll_seconds)


KEEP_RETIRED_INDEXES = "keepRetiredIndexes"  # the context infra/domains/*.py read (ADRs 0109, 0110)


def retiring(dynamodb: Any, tables: Mapping[str, str], pending: list[Migration]) -> list[str]:
    """The retired indexes a stage's tables still have: while there is one, its migration has not finished."""
    found = []
    for migration in pending:
        if migration.retires and migration.table in tables:
            description = dynamodb.describe_table(TableName=tables[migration.table])["Table"]
            present = {index["IndexName"] for index in description.get("GlobalSecondaryIndexes", [])}
            found += [f"{migration.table}.{name}" for name in migration.retires if name in present]
    return found


def plan(before: Mapping[str, str], now: Mapping[str, str],
         pending: list[Migration]) -> list[tuple[Migration, str]]:
    """(migration, source table name) for each migration that has something to read: an in-place one reads its table
    as it is now; a copy reads the table as it was before the deploy, when the deploy replaced it."""
    out = []
    for migration in pending:
        if migration.in_place and migration.table in now:
            out.append((migration, now[migration.table]))
        elif migration.table in before and migration.table in now and before[migration.table] != now[migration.table]:
            out.append((migration, before[migration.table]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.migrate", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("record", "run"))
    parser.add_argument("--stage", required=True)
    parser.add_argument("--from", dest="sources", action="append", default=[], metavar="CONSTRUCT=TABLE",
                        help="the old table of a construct, when `record` did not see it (repeatable)")
    args = parser.parse_args(argv)
    import boto3

    from tools.region import session as region_session

    session = region_session()
    boto3.setup_default_session(region_name=session.region_name)  # what `run` uses
    cloudformation = session.client("cloudformation")
    if args.action == "record":
        tables = record(cloudformation, args.stage)
        print(f"recorded {len(tables)} tables of Blueprints-{args.stage}")
        return 0
    before_path = stage_dir(args.stage) / "tables-before.json"
    before = json.loads(before_path.read_text(encoding="utf-8")) if before_path.exists() else {}
    before.update(dict(s.split("=", 1) for s in args.sources))
    now = stage_tables(cloudformation, f"Blueprints-{args.stage}")
    work = plan(before, now, list(migrations()))
    if not work:
        print("nothing to migrate")
    for migration, source in work:
        counts = run(migration, source=source, targets=now,
                     progress=progress_path(args.stage, migration))
        print(f"{migration.name}: {source} -> {now[migration.table]}: "
              + ", ".join(f"{counts.get(k, 0)} {k}" for k in COUNTS[:4])
              + (" (done before)" if counts.get("skipped") else ""))
    return 0


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")


if __name__ == "__main__":
    os.environ.setdefault("AWS_ACCOUNT_ID_ENDPOINT_MODE", "disabled")
    raise SystemExit(main())
