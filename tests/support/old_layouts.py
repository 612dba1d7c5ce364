"""The example data as the layouts before the key changes of ADRs 0106-0111 stored it, frozen from that code
(tests/functional/data/<domain>_old_layout.json: items in DynamoDB JSON by table construct id), for the migration
tests to start from a deployed stage's old items."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest

from tools import migrate
from tools.migrations import Migration

DATA = Path(__file__).resolve().parents[1] / "functional" / "data"


def old_layout(domain: str) -> dict[str, list[dict[str, Any]]]:
    return json.loads((DATA / f"{domain}_old_layout.json").read_text(encoding="utf-8"))


def put_old_items(domain: str, construct_id: str, table_name: str) -> None:
    """The old layout's items of one table, written as they were (DynamoDB JSON, so no type is re-guessed)."""
    client = boto3.client("dynamodb")
    for item in old_layout(domain)[construct_id]:
        client.put_item(TableName=table_name, Item=item)


def migrate_in_place(migration: Migration, construct_id: str, table_name: str, progress: Path,
                     stop_after: int | None = None) -> dict[str, Any]:
    """A run of a migration that rewrites one table in place (the table is its own source and target): its counts."""
    return migrate.run(migration, source=table_name, targets={construct_id: table_name}, progress=progress,
                       stop_after=stop_after)


def stopped_then_resumed(run: Callable[..., dict[str, Any]], progress: Path, monkeypatch: pytest.MonkeyPatch, *,
                         page_size: int, stop_after: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """`run(progress, stop_after=...)` stopped after `stop_after` pages of `page_size` items, then run again from
    where its progress file says it stopped: both runs' counts."""
    monkeypatch.setattr(migrate, "PAGE_SIZE", page_size)
    first = run(progress, stop_after=stop_after)
    return first, run(progress)
