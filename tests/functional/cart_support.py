"""Shared by the Cart functional tests: the four tables (and the parked-records table), a settable clock for the API
and the consumers, moto's streams as Lambda delivers them, and a lock that makes in-process moto atomic per call."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from functions.cart import abandoned_carts, api, price_notifier
from functions.cart.repository import CartRepository, TableNames
from functions.cart.schema import DEFAULT_IDLE_TTL_SECONDS, TABLES
from functions.cart.service import CartService
from functions.shared import ddb
from functions.shared.parked import PARKED_TABLE
from functions.shared.settings import settings
from local.streams import lambda_record
from tests.functional.conftest import Client, LambdaContext, make_table, ok

ADMIN = ("admin",)
IDLE = timedelta(seconds=DEFAULT_IDLE_TTL_SECONDS)
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


class Clock:
    """The service's and the consumers' clock, set by the test (starts at the real now: moto's stream times are
    real)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    return Clock()


@pytest.fixture
def tables(aws, monkeypatch, clock) -> dict[str, str]:
    names = {spec.env_var: make_table(spec, monkeypatch) for spec in (*TABLES, PARKED_TABLE)}
    for cached in (settings, api.service, price_notifier.repository, abandoned_carts.repository):
        cached.cache_clear()
    service = CartService(CartRepository(TableNames(settings())), clock=clock)
    monkeypatch.setitem(api.app.dependency_overrides, api.service, lambda: service)
    monkeypatch.setattr(price_notifier, "utc_now", clock)
    yield names
    for cached in (price_notifier.repository, abandoned_carts.repository):
        cached.cache_clear()


@pytest.fixture
def client(tables) -> Client:
    return Client.of(api)


def set_price(client: Client, sku: str, price: str, currency: str = "USD") -> dict[str, Any]:
    return ok(client.call("PUT", f"/cart/prices/{sku}", body={"price": price, "currency": currency}, user="root",
                          groups=ADMIN))


def new_cart(client: Client, user: str = "alice", lines: dict[str, int] | None = None) -> str:
    cart_id = ok(client.call("POST", "/cart/carts", user=user), 201)["cartId"]
    for sku, quantity in (lines or {}).items():
        ok(client.call("PUT", f"/cart/carts/{cart_id}/lines/{sku}", body={"quantity": quantity}, user=user))
    return cart_id


def raw_items(table: str) -> list[dict[str, Any]]:
    """Every item of a table (a test-side check, never the code under test)."""
    return ddb.table(table).scan(ConsistentRead=True)["Items"]


def raw_item(table: str, key: dict[str, Any]) -> dict[str, Any] | None:
    return ddb.table(table).get_item(Key=key, ConsistentRead=True).get("Item")


class Stream:
    """A table's stream on moto (its one shard), handed over as Lambda's event source mapping shapes records."""

    def __init__(self, table_name: str):
        self._client = boto3.client("dynamodbstreams")
        self.arn = boto3.client("dynamodb").describe_table(TableName=table_name)["Table"]["LatestStreamArn"]
        (shard,) = self._client.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
        self.shard_id = shard["ShardId"]
        self._after: str | None = None

    def new(self) -> list[dict[str, Any]]:
        """The records written since the last call, in order."""
        position = ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": self._after} if self._after
                    else {"ShardIteratorType": "TRIM_HORIZON"})
        iterator = self._client.get_shard_iterator(StreamArn=self.arn, ShardId=self.shard_id, **position)
        raw = self._client.get_records(ShardIterator=iterator["ShardIterator"], Limit=1000)["Records"]
        if raw:
            self._after = raw[-1]["dynamodb"]["SequenceNumber"]
        return [lambda_record(r, stream_arn=self.arn, region="us-east-1").event for r in raw]


def by_ttl(record: dict[str, Any]) -> dict[str, Any]:
    """The record as DynamoDB streams a TTL deletion: with the service's identity."""
    return {**record, "userIdentity": dict(TTL_IDENTITY)}


def deliver(handler, records: list[dict[str, Any]]) -> dict[str, Any]:
    """One invocation of a consumer (`module.lambda_handler`, looked up now: IAM wraps it per test)."""
    return handler({"Records": records}, LambdaContext())


def notifier(records: list[dict[str, Any]]) -> dict[str, Any]:
    return deliver(price_notifier.lambda_handler, records)


def abandoned(records: list[dict[str, Any]]) -> dict[str, Any]:
    return deliver(abandoned_carts.lambda_handler, records)


def index_holders(carts: Stream) -> None:
    """The Carts stream's consumer catches up (as its mapping would, within seconds): the holder index with it."""
    assert abandoned(carts.new()) == {"batchItemFailures": []}


def cart_item(table: str, cart_id: str) -> dict[str, Any] | None:
    return raw_item(table, {"cartId": cart_id})


_moto_lock = threading.RLock()


def atomic_moto(monkeypatch) -> None:
    """DynamoDB applies each request atomically; in-process moto does not (no locks: local/aws.py serializes the
    runtime's moto the same way). Each request is atomic here; nothing holds between two requests of a handler."""
    from moto.dynamodb.models import DynamoDBBackend

    for name in ("transact_write_items", "update_item", "put_item", "delete_item", "query", "get_item"):
        original = getattr(DynamoDBBackend, name)

        def locked(self, *args, __original=original, **kwargs):
            with _moto_lock:
                return __original(self, *args, **kwargs)

        monkeypatch.setattr(DynamoDBBackend, name, locked)
    # and the answer's serialization: moto turns the item it returns into JSON after the backend call, while another
    # thread's update may be changing that very item (one request, one lock, as DynamoDB answers it)
    from moto.dynamodb.responses import DynamoHandler

    original_call = DynamoHandler.call_action

    def locked_call(self, *args, **kwargs):
        with _moto_lock:
            return original_call(self, *args, **kwargs)

    monkeypatch.setattr(DynamoHandler, "call_action", locked_call)
