"""The TTL sweeper on moto: what DynamoDB would expire, and how its deletes are told apart."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from local.aws import MotoService
from local.resources import TableInfo
from local.ttl import SERVICE_IDENTITY, ServiceDeletes, TtlSweeper, sweep_seconds_from_env
from tests.unit.local.stream_support import wait_for

NOW = 1_800_000_000.0
KEYS = ({"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"})


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[Any]:
    service = MotoService(0).start()
    yield service.client("dynamodb", "us-east-1")
    service.stop()


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
    return TableInfo("Table", name, f"arn:{name}", f"arn:{name}/stream/1", "ttl", KEYS)


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
    sweeper = TtlSweeper([table], dynamodb, deletes=ServiceDeletes(), clock=lambda: NOW)
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
    deletes = ServiceDeletes()
    sweeper = TtlSweeper([table], ExtendingClient(dynamodb), deletes=deletes, clock=lambda: NOW)
    assert sweeper.sweep() == 0
    assert remaining(dynamodb, table) == ["extended"]
    # the expectation was withdrawn: a later REMOVE of this item is the user's
    keys = {"PK": {"S": "extended"}, "SK": {"N": "1"}}
    assert deletes.identity(table.name, _remove(keys, "7")) is None


def test_the_background_sweeper_deletes_and_stops(dynamodb: Any, table: TableInfo) -> None:
    sweeper = TtlSweeper([table], dynamodb, deletes=ServiceDeletes(), interval=0.05)
    sweeper.start()
    put(dynamodb, table, "soon", {"N": str(int(time.time()) - 1)})
    wait_for(lambda: remaining(dynamodb, table) == [], timeout=5)
    sweeper.stop()
    assert "ttl-sweeper" not in {t.name for t in threading.enumerate()}


def test_tables_without_ttl_are_not_swept(dynamodb: Any, table: TableInfo) -> None:
    no_ttl = TableInfo("Other", table.name, table.arn, None, None, KEYS)
    put(dynamodb, table, "expired", {"N": str(int(NOW) - 10)})
    sweeper = TtlSweeper([no_ttl], dynamodb, deletes=ServiceDeletes(), clock=lambda: NOW)
    sweeper.start()  # nothing to do: no thread
    assert sweeper.sweep() == 0 and remaining(dynamodb, table) == ["expired"]
    assert "ttl-sweeper" not in {t.name for t in threading.enumerate()}


def _remove(keys: dict[str, Any], sequence: str, event: str = "REMOVE") -> dict[str, Any]:
    return {"eventName": event, "dynamodb": {"Keys": keys, "SequenceNumber": sequence}}


def test_service_deletes_mark_exactly_the_sweepers_remove_records() -> None:
    deletes = ServiceDeletes()
    keys = {"PK": {"S": "a"}}
    deletes.expect("T", keys)
    assert deletes.identity("T", _remove(keys, "5", event="MODIFY")) is None
    assert deletes.identity("Other", _remove(keys, "5")) is None
    assert deletes.identity("T", _remove(keys, "5")) == SERVICE_IDENTITY
    assert deletes.identity("T", _remove(keys, "5")) == SERVICE_IDENTITY  # another mapping
    assert deletes.identity("T", _remove(keys, "9")) is None  # a later delete: the user's
    deletes.expect("T", keys)
    deletes.cancel("T", keys)
    assert deletes.identity("T", _remove(keys, "11")) is None


def test_service_deletes_stay_bounded() -> None:
    deletes = ServiceDeletes(capacity=2)
    for n in range(3):
        deletes.expect("T", {"PK": {"S": str(n)}})
    assert deletes.identity("T", _remove({"PK": {"S": "0"}}, "1")) is None  # evicted, oldest
    assert deletes.identity("T", _remove({"PK": {"S": "2"}}, "2")) == SERVICE_IDENTITY


@pytest.mark.parametrize(("value", "seconds"), [(None, 1.0), ("0", 0.0), ("2.5", 2.5)])
def test_sweep_interval_comes_from_the_environment(value: str | None, seconds: float) -> None:
    environ = {} if value is None else {"LOCAL_TTL_SWEEP_SECONDS": value}
    assert sweep_seconds_from_env(environ) == seconds
