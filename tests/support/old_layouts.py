"""The example data as the layouts before the key changes of ADRs 0106-0111 stored it, frozen from that code
(tests/functional/data/<domain>_old_layout.json: items in DynamoDB JSON by table construct id), for the migration
tests to start from a deployed stage's old items."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3

DATA = Path(__file__).resolve().parents[1] / "functional" / "data"


def old_layout(domain: str) -> dict[str, list[dict[str, Any]]]:
    return json.loads((DATA / f"{domain}_old_layout.json").read_text(encoding="utf-8"))


def put_old_items(domain: str, construct_id: str, table_name: str) -> None:
    """The old layout's items of one table, written as they were (DynamoDB JSON, so no type is re-guessed)."""
    client = boto3.client("dynamodb")
    for item in old_layout(domain)[construct_id]:
        client.put_item(TableName=table_name, Item=item)
