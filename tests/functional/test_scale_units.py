"""`make scale` (bench/scale/workloads.py) counts a request's units with the same rules the local runtime bills by
(functions/shared/capacity.py, local/moto_capacity.py): here, for the requests its workloads are made of, its figures
equal what the answer's `Server-Timing` reports for the same request, per table and index."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from bench.scale import workloads
from functions.cart.schema import CART_TABLE, CARTS_BY_SKU_INDEX, PRICE_TABLE
from functions.measurements import api as measurements_api
from functions.measurements.models import Reading
from functions.measurements.repository import MeasurementsRepository
from functions.measurements.schema import BIN_SECONDS, MEASUREMENTS_TABLE
from functions.measurements.service import MeasurementsService
from functions.messaging import api as messaging_api
from functions.messaging.repository import message_from
from functions.messaging.schema import INBOX_INDEX, MESSAGES_TABLE
from functions.shared.settings import settings
from functions.measurements.routes import ROUTES as MEASUREMENT_ROUTES
from functions.messaging.routes import ROUTES as MESSAGING_ROUTES
from tests.functional.cart_support import (  # noqa: F401 (fixtures)
    client,
    clock,
    new_cart,
    ok,
    raw_item,
    set_price,
    tables,
)
from tests.functional.conftest import Client, make_table
from tests.functional.conftest import server_timing as timing

NOW = 1796115600  # 2026-12-01T09:00:00Z, the start of a bin


def test_a_line_change_and_a_cart_read_cost_what_the_cart_workload_counts(client, tables):
    cart_table, price_table = tables[CART_TABLE.env_var], tables[PRICE_TABLE.env_var]
    skus = [f"SKU-{n:06d}" for n in range(5)]
    for sku in skus:
        set_price(client, sku, "9.99")
    cart_id = new_cart(client, "alice", {sku: 1 for sku in skus[:4]})

    # When the fifth line is added
    reply = client.call("PUT", f"/cart/carts/{cart_id}/lines/{skus[4]}", body={"quantity": 2}, user="alice")
    ok(reply)
    # Then the workload's units of a line change, from the items as they now stand, are the ones billed
    header = raw_item(cart_table, {"cartId": cart_id, "sk": "#cart"})
    line = raw_item(cart_table, {"cartId": cart_id, "sk": f"LINE#{skus[4]}"})
    price = raw_item(price_table, {"sku": skus[4]})
    units = workloads.line_change_units(header, line, price)
    billed = timing(reply)
    assert billed[f"ddb.{cart_table}"]["wcu"] == units["cart"]
    assert billed[f"ddb.{price_table}"]["wcu"] == units["price"]
    assert billed[f"ddb.{cart_table}.{CARTS_BY_SKU_INDEX}"]["wcu"] == units["index"] == 1

    # And a read of the cart (header + 5 lines: the workload's cart) costs what the workload counts
    reply = client.call("GET", f"/cart/carts/{cart_id}", user="alice")
    ok(reply)
    lines = [raw_item(cart_table, {"cartId": cart_id, "sk": f"LINE#{sku}"}) for sku in skus]
    assert timing(reply)[f"ddb.{cart_table}"]["rcu"] == workloads.cart_read_units(header, lines)


class Clock:
    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def measurements(aws, monkeypatch) -> tuple[Client, str]:
    table = make_table(MEASUREMENTS_TABLE, monkeypatch)
    service = MeasurementsService(MeasurementsRepository(settings()), clock=Clock(NOW + BIN_SECONDS))
    monkeypatch.setitem(measurements_api.app.dependency_overrides, measurements_api.service, lambda: service)
    return Client(measurements_api.lambda_handler, [route.path for route in MEASUREMENT_ROUTES]), table


def test_each_ingest_write_of_a_filling_bin_costs_what_the_time_series_workload_counts(measurements):
    client, table = measurements
    stored: dict[str, Any] | None = None
    costs = []
    for first in range(0, 60, 10):  # a device's readings, 10 seconds a write, as the workload batches them
        readings = [Reading(device_id="1", epoch=NOW + s, temperature=21.4, pressure=1013.2)
                    for s in range(first, first + 10)]
        reply = client.call("POST", "/measurements/readings", user="pipeline", groups=("admin",),
                            body={"readings": [r.model_dump(by_alias=True) for r in readings]})
        assert reply.status == 200, reply.body
        expected_item, units = workloads.bin_update(stored, readings)
        stored = boto3.resource("dynamodb").Table(table).get_item(Key={"DeviceId": "1", "bin": NOW})["Item"]
        assert stored == expected_item  # the workload's bin is the one the repository wrote
        assert timing(reply)[f"ddb.{table}"]["wcu"] == units
        costs.append(units)
    assert costs[-1] > costs[0]  # an update pays for the bin so far


@pytest.fixture
def messaging(aws, monkeypatch) -> tuple[Client, str]:
    table = make_table(MESSAGES_TABLE, monkeypatch)
    messaging_api.service.cache_clear()
    yield Client(messaging_api.lambda_handler, [route.path for route in MESSAGING_ROUTES]), table
    messaging_api.service.cache_clear()


def test_an_inbox_page_costs_what_the_messaging_workload_counts_for_its_headers(messaging):
    client, table = messaging
    for n in range(12):
        reply = client.call("POST", "/messaging/messages", user="bob",
                            body={"recipient": "david", "subject": f"Re: the plan, part {n}", "body": "x" * 15_000})
        assert reply.status == 201, reply.body

    reply = client.call("GET", "/messaging/inbox", user="david")
    assert reply.status == 200, reply.body
    items = boto3.resource("dynamodb").Table(table).scan()["Items"]
    messages = [message_from(item) for item in items]
    headers_only = workloads.inbox_page_units(messages, headers_only=True)
    assert timing(reply)[f"ddb.{table}.{INBOX_INDEX}"]["rcu"] == headers_only == 0.5
    # the same page with the bodies in the queried items (the seed's v.1): 12 × ~15.1 KB = 45 units of 4 KB, halved
    assert workloads.inbox_page_units(messages, headers_only=False) == 22.5
