"""Shared by the ConnectedCar functional tests: the seven tables, a DynamoDB call recorder, a settable clock,
and the Registration table's stream read back from moto as the Lambda event source mapping delivers it."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from functions.connected_car import active_customers, api
from functions.connected_car.repository import ConnectedCarRepository, TableNames
from functions.connected_car.schema import REGISTRATION_TABLE, TABLES
from functions.connected_car.service import ConnectedCarService
from functions.shared import ddb
from functions.shared.parked import PARKED_TABLE
from functions.shared.settings import settings
from functions.shared.table_spec import TableSpec
from tests.functional.conftest import Client, LambdaContext, fresh_service

ADMIN = ("admin",)
VEHICLE = ("vehicle",)
VIN = "1HGCM82633A004352"
VIN2 = "JH4KA7561PC008269"
VIN3 = "WDBRF40J53F372436"
VIN4 = "5YJSA1E26HF000337"
DEALER = "denver-1"
HOUR = "2026-12-01T09"
PREFIX = "/connected-car"


@pytest.fixture
def tables(aws, monkeypatch) -> dict[str, str]:
    with fresh_service(api):
        yield make_tables(monkeypatch)


@pytest.fixture
def client(tables):
    return connected_car_client()


def connected_car_client() -> Client:
    return Client.of(api)


def make_tables(
    monkeypatch, prefix: str = "test", specs: tuple[TableSpec, ...] = (*TABLES, PARKED_TABLE)
) -> dict[str, str]:
    """The tables on moto as conftest.make_table builds them (`<prefix>-<construct id>`, env var set), with
    one client for all of them; api.service is cleared so that it reads the new names. Env var -> table name.
    The default includes the parked-records table, where the isActive consumer parks what it can never apply."""
    client = boto3.client("dynamodb")
    names = {}
    for spec in specs:
        names[spec.env_var] = f"{prefix}-{spec.construct_id}"
        client.create_table(**spec.create_table_kwargs(names[spec.env_var]))
        monkeypatch.setenv(spec.env_var, names[spec.env_var])
    # the new names, as a new deployment's containers would read them (the DynamoDB client stays: calls are recorded)
    for cached in (settings, api.service, active_customers.repository):
        cached.cache_clear()
    return names


def table_items(name: str) -> list[dict[str, Any]]:
    """Every item of a table (a test-side check, never the code under test)."""
    return ddb.table(name).scan(ConsistentRead=True)["Items"]


def raw_item(name: str, key: dict[str, Any]) -> dict[str, Any] | None:
    return ddb.table(name).get_item(Key=key, ConsistentRead=True).get("Item")


class Clock:
    """The service's clock, set by the test."""

    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def use_clock(monkeypatch, clock: Clock) -> None:
    """Route handlers get a service on this clock (through the resolver's dependency_overrides)."""
    service = ConnectedCarService(ConnectedCarRepository(TableNames(settings())), clock=clock)
    monkeypatch.setitem(api.app.dependency_overrides, api.service, lambda: service)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


# --- the Registration stream, as Lambda's event source mapping hands it over -----------------------------

class RegistrationStream:
    """Reads the Registration table's stream on moto (DescribeStream, GetShardIterator, GetRecords) and turns
    each record into the shape of a Lambda DynamoDB stream event record (moto's streams corrected by
    local/dynamodb/fidelity/, applied in tests/conftest.py).
    """

    def __init__(self, table_name: str):
        description = boto3.client("dynamodb").describe_table(TableName=table_name)["Table"]
        self.arn = description["LatestStreamArn"]
        self._client = boto3.client("dynamodbstreams")
        self._iterators: dict[str, str | None] = {}
        self._delivered: list[dict[str, Any]] = []

    def new(self) -> list[dict[str, Any]]:
        """The records written since the last call, in shard order."""
        fresh: list[dict[str, Any]] = []
        if not self._iterators:
            shards = self._client.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
            for shard in shards:
                self._iterators[shard["ShardId"]] = self._client.get_shard_iterator(
                    StreamArn=self.arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
                )["ShardIterator"]
        for shard_id, iterator in self._iterators.items():
            while iterator:
                response = self._client.get_records(ShardIterator=iterator)
                iterator = response.get("NextShardIterator")
                self._iterators[shard_id] = iterator
                if not response["Records"]:
                    break
                fresh += [self._lambda_record(r) for r in response["Records"]]
        self._delivered += fresh
        return fresh

    def all(self) -> list[dict[str, Any]]:
        """Every record since the stream began."""
        self.new()
        return list(self._delivered)

    def _lambda_record(self, record: dict[str, Any]) -> dict[str, Any]:
        change = record["dynamodb"]
        assert change["StreamViewType"] == "KEYS_ONLY" and set(change["Keys"]) == {"username", "vin"}
        return {
            "eventID": record["eventID"],
            "eventName": record["eventName"],
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": record["awsRegion"],
            "dynamodb": {
                "ApproximateCreationDateTime": int(change["ApproximateCreationDateTime"].timestamp()),
                "Keys": change["Keys"],
                "SequenceNumber": change["SequenceNumber"],
                "SizeBytes": change["SizeBytes"],
                "StreamViewType": change["StreamViewType"],
            },
            "eventSourceARN": self.arn,
        }


def registration_stream() -> RegistrationStream:
    return RegistrationStream(os.environ[REGISTRATION_TABLE.env_var])


def deliver(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One invocation of the isActive consumer with a batch of stream records."""
    return active_customers.lambda_handler({"Records": records}, LambdaContext())


def username_of(record: dict[str, Any]) -> str:
    return record["dynamodb"]["Keys"]["username"]["S"]
