"""What a `make smoke` run wrote, deleted at the end of each domain's check, whatever failed (tools/smoke.py).

A round trip registers each write's undoing as it makes the write (before it, when the key is the run's own and known
in advance): a DELETE through the API where a route deletes it, else a DeleteItem in the table, by the key the run
wrote or under a partition key only the run uses (`smoke-<run>`). `Cleanup.run` undoes them last first and goes on
past a step that fails; each step is safe to repeat (a 404, or a DeleteItem of a missing key, deletes nothing), and a
step that failed stays for the next `run`. The tables are reached with the operator's AWS credentials on a stage, or
the local runtime's DynamoDB endpoint; their names are the ones the API's functions are given (`TableSpec.env_var`
in their environments): the stage's functions found through its stack (tools/stage.py), the local runtime's through
its Lambda API (ListFunctions).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from functions.shared.table_spec import TableSpec
from tools import stage as stages

WAIT_SECONDS = 60.0  # for a stream consumer's write (the local runtime's take about a second, Lambda's a few)
POLL_SECONDS = 0.25

Key = Mapping[str, Any]


class CleanupError(Exception):
    """A step that could not be done: what is left, and why."""


class Tables:
    """The API's tables, for what no route deletes. `functions`: the API's function configurations, asked once."""

    def __init__(self, dynamodb: Any, functions: Callable[[], Sequence[Mapping[str, Any]]]) -> None:
        self._dynamodb, self._functions = dynamodb, functions
        self._configurations: Sequence[Mapping[str, Any]] | None = None
        self._serialize, self._deserialize = TypeSerializer().serialize, TypeDeserializer().deserialize

    def name(self, spec: TableSpec) -> str:
        if self._configurations is None:
            self._configurations = self._functions()
        name = stages.variable(self._configurations, spec.env_var)
        if not name:
            raise CleanupError(f"no function of the API names {spec.env_var} ({spec.construct_id})")
        return name

    def get(self, spec: TableSpec, key: Key) -> dict[str, Any] | None:
        item = self._dynamodb.get_item(TableName=self.name(spec), Key=self._typed(key), ConsistentRead=True).get("Item")
        return None if item is None else self._plain(item)

    def delete(self, spec: TableSpec, key: Key) -> int:
        """DeleteItem: 1 if the item was there, 0 if not."""
        reply = self._dynamodb.delete_item(TableName=self.name(spec), Key=self._typed(key), ReturnValues="ALL_OLD")
        return 1 if reply.get("Attributes") else 0

    def items(self, spec: TableSpec, partition: Any) -> list[dict[str, Any]]:
        """Every item under one partition key (Query, strongly consistent, every page)."""
        request = {"TableName": self.name(spec), "ConsistentRead": True, "KeyConditionExpression": "#pk = :pk",
                   "ExpressionAttributeNames": {"#pk": spec.partition_key.name},
                   "ExpressionAttributeValues": {":pk": self._serialize(partition)}}
        return [self._plain(item) for page in self._dynamodb.get_paginator("query").paginate(**request)
                for item in page.get("Items", [])]

    def delete_partition(self, spec: TableSpec, partition: Any) -> int:
        """Every item under a partition key the run named (only the run's items are there)."""
        names = [attribute.name for attribute in spec.key_attributes]
        return sum(self.delete(spec, {name: item[name] for name in names}) for item in self.items(spec, partition))

    def _typed(self, key: Key) -> dict[str, Any]:
        return {name: self._serialize(value) for name, value in key.items()}

    def _plain(self, item: Mapping[str, Any]) -> dict[str, Any]:
        return {name: self._deserialize(value) for name, value in item.items()}


def local_tables(api_url: str, dynamodb_endpoint: str) -> Tables:
    """The local runtime's tables: names from its Lambda API (ListFunctions on the API's port), items on its DynamoDB
    endpoint, with its fake credentials."""
    from local.aws import local_client, region_from_env

    region = region_from_env()

    def functions() -> Sequence[Mapping[str, Any]]:
        client = local_client("lambda", api_url.rstrip("/"), region, attempts=1)
        return [f for page in client.get_paginator("list_functions").paginate() for f in page.get("Functions", [])]

    return Tables(local_client("dynamodb", dynamodb_endpoint, region), functions)


def stage_tables(session: Any, stage: str) -> Tables:
    """A deployed stage's tables: names from its functions, found through its stack, items with your credentials."""
    return Tables(session.client("dynamodb"), lambda: stages.functions(session, stage))


def wait_until(what: str, done: Callable[[], bool], seconds: float | None = None) -> None:
    """Polls `done` until it holds; CleanupError naming `what` after `seconds` (default WAIT_SECONDS)."""
    seconds = WAIT_SECONDS if seconds is None else seconds
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise CleanupError(f"{what}: not within {seconds:g} s")
        time.sleep(POLL_SECONDS)


@dataclass(frozen=True)
class Step:
    what: str
    via: str  # "api" or "table"
    undo: Callable[[], int]  # returns how many items it deleted (0: gone already), or calls it made ("api")


class Cleanup:
    """The undoing of what one domain's round trip wrote. `delete_route(path, who)` calls DELETE `path` through the API
    (a 404 is fine: gone already) and raises CleanupError on any other refusal."""

    def __init__(self, tables: Tables, delete_route: Callable[[str, Any], None]) -> None:
        self.tables, self._delete_route = tables, delete_route
        self.steps: list[Step] = []
        self.deleted: Counter[str] = Counter()

    def route(self, path: str, who: Any) -> None:
        """DELETE `path` as `who` at the end (where the API has a route for it)."""
        def undo() -> int:
            self._delete_route(path, who)
            return 1  # a call, whether it found the item or not (a DELETE route answers 204 either way, or 404)

        self.steps.append(Step(f"DELETE {path}", "api", undo))

    def item(self, spec: TableSpec, key: Key) -> None:
        """DeleteItem of `key` at the end (no route deletes it)."""
        self.steps.append(Step(f"{spec.construct_id} {dict(key)}", "table", lambda: self.tables.delete(spec, key)))

    def partition(self, spec: TableSpec, value: Any) -> None:
        """Every item under the partition key `value`, which only the run uses, deleted at the end."""
        self.steps.append(Step(f"{spec.construct_id} {spec.partition_key.name}={value}", "table",
                               lambda: self.tables.delete_partition(spec, value)))

    def then(self, what: str, undo: Callable[[Tables], int]) -> None:
        """A step of its own (waits for a stream consumer, then deletes in the tables)."""
        self.steps.append(Step(what, "table", lambda: undo(self.tables)))

    def run(self) -> list[str]:
        """Every step not done yet, the last registered first; returns what failed (those steps stay)."""
        errors = []
        for step in reversed(list(self.steps)):
            try:
                self.deleted[step.via] += step.undo()
            except Exception as exc:  # noqa: BLE001  a step that fails must not keep the others from running: reported
                errors.append(f"{step.what}: {exc}")
                continue
            self.steps.remove(step)
        return errors

    def summary(self) -> str:
        return f"cleanup: {self.deleted['api']} DELETE calls, {self.deleted['table']} items deleted in the tables"

