"""The TTL sweeper on (in-process) moto: DynamoDB's expiry rules, a conditional delete, the background thread."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from local.cloudformation.resources import TableInfo
from local.dynamodb.ttl import TtlSweeper, sweep_seconds_from_env
from tests.support.waiting import eventually

NOW = 1_800_000_000.0
KEYS = ({"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"})


@pytest.fixture
def dynamodb() -> Iterator[Any]:
    with mock_aws():
        yield boto3.client("dynamodb", region_name="us-east-1")


@pytest.fixture
def table(dynamodb: Any, request: pytest.FixtureRequest) -> TableInfo:
    name = f"ttl-{request.node.name[:40]}"
    dynamodb.create_table(
        TableName=name,
        KeySchema=list(KEYS),
        AttributeDefinitions=[
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    return TableInfo("Table", name, f"arn:{name}", None, "ttl", KEYS)


def put(dynamodb: Any, table: TableInfo, pk: str, ttl: dict[str, str] | None) -> None:
    item: dict[str, Any] = {"PK": {"S": pk}, "SK": {"N": "1"}}
    if ttl is not None:
        item["ttl"] = ttl
    dynamodb.put_item(TableName=table.name, Item=item)


def remaining(dynamodb: Any, table: TableInfo) -> list[str]:
    return sorted(item["PK"]["S"] for item in dynamodb.scan(TableName=table.name)["Items"])


def test_only_items_with_a_past_number_ttl_are_deleted(dynamodb: Any, table: TableInfo) -> None:
    for pk, ttl in [
        ("expired", {"N": str(int(NOW) - 10)}),
        ("expired-fraction", {"N": f"{NOW - 0.5}"}),
        ("future", {"N": str(int(NOW) + 10)}),
        ("missing", None),
        ("string", {"S": str(int(NOW) - 10)}),
        ("ancient", {"N": str(int(NOW) - 6 * 365 * 24 * 3600)}),  # DynamoDB ignores > 5 years
        ("milliseconds", {"N": str(int(NOW) * 1000)}),  # a classic mistake: far in the future
    ]:
        put(dynamodb, table, pk, ttl)
    sweeper = TtlSweeper([table], dynamodb, clock=lambda: NOW)
    assert sweeper.sweep() == 2
    assert remaining(dynamodb, table) == ["ancient", "future", "milliseconds", "missing", "string"]
    assert sweeper.sweep() == 0


class ExtendingClient:
    """A client on which someone extends the item's TTL between the sweeper's scan and delete."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def delete_item(self, **request: Any) -> Any:
        self._real.update_item(
            TableName=request["TableName"],
            Key=request["Key"],
            UpdateExpression="SET #ttl = :later",
            ExpressionAttributeNames={"#ttl": "ttl"},
            ExpressionAttributeValues={":later": {"N": str(int(NOW) + 3600)}},
        )
        return self._real.delete_item(**request)


def test_an_item_whose_ttl_was_just_extended_survives(dynamodb: Any, table: TableInfo) -> None:
    put(dynamodb, table, "extended", {"N": str(int(NOW) - 10)})
    sweeper = TtlSweeper([table], ExtendingClient(dynamodb), clock=lambda: NOW)
    assert sweeper.sweep() == 0
    assert remaining(dynamodb, table) == ["extended"]


def test_the_background_sweeper_deletes_and_stops(dynamodb: Any, table: TableInfo) -> None:
    sweeper = TtlSweeper([table], dynamodb, interval=0.05)
    sweeper.start()
    put(dynamodb, table, "soon", {"N": str(int(time.time()) - 1)})
    eventually(lambda: remaining(dynamodb, table) == [], timeout=5)
    sweeper.stop()
    assert "ttl-sweeper" not in {t.name for t in threading.enumerate()}


def test_tables_without_ttl_are_not_swept(dynamodb: Any, table: TableInfo) -> None:
    no_ttl = TableInfo("Other", table.name, table.arn, None, None, KEYS)
    put(dynamodb, table, "expired", {"N": str(int(NOW) - 10)})
    sweeper = TtlSweeper([no_ttl], dynamodb, clock=lambda: NOW)
    sweeper.start()  # nothing to do: no thread
    assert sweeper.sweep() == 0 and remaining(dynamodb, table) == ["expired"]
    assert "ttl-sweeper" not in {t.name for t in threading.enumerate()}


@pytest.mark.parametrize(("value", "seconds"), [(None, 1.0), ("0", 0.0), ("2.5", 2.5)])
def test_sweep_interval_comes_from_the_environment(value: str | None, seconds: float) -> None:
    environ = {} if value is None else {"LOCAL_TTL_SWEEP_SECONDS": value}
    assert sweep_seconds_from_env(environ) == seconds
