"""Reading the parked-records table from a test (never through the code under test) and the operator's replay."""

from __future__ import annotations

import json
import os
from typing import Any

from boto3.dynamodb.conditions import Key

from functions.shared import ddb
from functions.shared.parked import PARKED_TABLE, position_of

REPLAY = {"replay": {"limit": 100}}


def parked_items(consumer: str) -> list[dict[str, Any]]:
    """Every parked item of a consumer, in stream order, with `record` parsed back from its JSON."""
    table = ddb.table(os.environ[PARKED_TABLE.env_var])
    items = table.query(KeyConditionExpression=Key("consumer").eq(consumer), ConsistentRead=True)["Items"]
    return [{**item, "record": json.loads(item["record"])} for item in items]


def consumers() -> list[str]:
    table = ddb.table(os.environ[PARKED_TABLE.env_var])
    items = table.query(KeyConditionExpression=Key("consumer").eq("#consumers"), ConsistentRead=True)["Items"]
    return [item["position"] for item in items]


def assert_parked(item: dict[str, Any], consumer: str, record: dict[str, Any], error_type: str, status: str) -> None:
    """The parked item holds the whole stream record (keys, images, sequence number, eventID, source), the error
    and when, under the record's stream position."""
    assert item["consumer"] == consumer
    assert item["position"] == position_of(record)
    assert item["record"] == record
    assert item["eventID"] == record["eventID"]
    assert item["sequenceNumber"] == record["dynamodb"]["SequenceNumber"]
    assert item["eventSourceARN"] == record["eventSourceARN"]
    assert item["errorType"] == error_type and item["errorMessage"]
    assert item["parkedAt"] and item["status"] == status
