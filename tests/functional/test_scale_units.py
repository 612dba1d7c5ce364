"""`make scale` (bench/scale/workloads.py) counts a request's units with the same rules the local runtime bills by
(functions/shared/capacity.py, local/dynamodb/capacity.py): here, for the requests its workloads are made of, its figures
equal what the answer's `Server-Timing` reports for the same request, per table and index."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from bench.scale import workloads
from functions.cart.schema import CART_TABLE, HOLDER_TABLE, PRICE_TABLE, holder_item
from functions.measurements import api as measurements_api
from functions.measurements.models import Reading
from functions.measurements.repository import MeasurementsRepository
from functions.measurements.schema import MEASUREMENTS_TABLE
from functions.measurements.service import MeasurementsService
from functions.messaging import api as messaging_api
from functions.messaging.repository import message_from
from functions.messaging.schema import INBOX_INDEX, MESSAGES_TABLE
from functions.shared.settings import settings
from tests.functional.cart_support import (  # noqa: F401 (fixtures)
    client,
    clock,
    new_cart,
    raw_item,
    set_price,
    tables,
)
from tests.functional.conftest import Client, fresh_service, make_table, ok
from tests.functional.conftest import server_timing as timing

NOW = 1796115600  # 2026-12-01T09:00:00Z, the start of a bin


def test_a_line_change_and_a_cart_read_cost_what_the_cart_workload_counts(client, tables):
    cart_table, price_table = tables[CART_TABLE.env_var], tables[PRICE_TABLE.env_var]
    skus = [f"SKU-{n:06d}" for n in range(5)]
    for sku in skus:
        set_price(client, sku, "9.99")
    cart_id = new_cart(client, "alice", {sku: 1 for sku in skus[:4]})
    before = raw_item(cart_table, {"cartId": cart_id})  # and the fifth SKU's price not read by this container yet

    # When the fifth line is added
    reply = client.call("PUT", f"/cart/carts/{cart_id}/lines/{skus[4]}", body={"quantity": 2}, user="alice")
    ok(reply)
    # Then the workload's units of a line change, from the items as they now stand, are the ones billed
    after = raw_item(cart_table, {"cartId": cart_id})
    price = raw_item(price_table, {"sku": skus[4]})
    holder = holder_item(skus[4], cart_id, int(after["expiresAt"]))  # what the Carts stream's consumer writes
    units = workloads.line_change_units(before, after, price, holder)
    billed = timing(reply)
    assert billed[f"ddb.{cart_table}"]["wcu"] == units["cart_wru"] == 1
    assert billed[f"ddb.{price_table}"]["rcu"] == units["price_rru"] == 0.5
    assert units["holder_wru"] == 1 and tables[HOLDER_TABLE.env_var] not in str(billed)  # written by the consumer

    # And a read of the cart (5 lines: the workload's cart) costs what the workload counts
    reply = client.call("GET", f"/cart/carts/{cart_id}", user="alice")
    ok(reply)
    assert timing(reply)[f"ddb.{cart_table}"]["rcu"] == workloads.cart_read_units(after) == 0.5


class Clock:
    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def measurements(aws, monkeypatch) -> tuple[Client, str]:
    table = make_table(MEASUREMENTS_TABLE, monkeypatch)
    service = MeasurementsService(MeasurementsRepository(settings()), clock=Clock(NOW + 1))
    monkeypatch.setitem(measurements_api.app.dependency_overrides, measurements_api.service, lambda: service)
    return Client.of(measurements_api), table


def test_each_ingest_write_of_a_filling_bin_costs_what_the_time_series_workload_counts(measurements):
    client, table = measurements
    stored: dict[str, Any] | None = None
    costs = []
    for first in range(0, 400, 100):  # a sensor every 10 ms, 10 readings a write, as the workload batches them
        readings = [Reading(device_id="1", epoch_ms=NOW * 1000 + ms, temperature=21.4, pressure=1013.2)
                    for ms in range(first, first + 100, workloads.READING_EVERY_MS)]
        reply = client.call("POST", "/measurements/readings", user="pipeline", groups=("admin",),
                            body={"readings": [r.model_dump(by_alias=True, exclude_none=True) for r in readings]})
        assert reply.status == 200, reply.body
        expected_item, units = workloads.bin_update(stored, readings)
        stored = boto3.resource("dynamodb").Table(table).get_item(Key={"DeviceId": "1", "bin": NOW * 1000})["Item"]
        assert stored == expected_item  # the workload's bin is the one the repository wrote
        assert timing(reply)[f"ddb.{table}"]["wcu"] == units
        costs.append(units)
    assert costs == [1, 1, 1, 1]  # the bin stays within one write unit to its last write


@pytest.fixture
def messaging(aws, monkeypatch) -> tuple[Client, str]:
    table = make_table(MESSAGES_TABLE, monkeypatch)
    with fresh_service(messaging_api):
        yield Client.of(messaging_api), table


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
