"""Measurements: handler -> service -> repository on moto, under the function's IAM role, with a settable clock."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import boto3
import pytest

from functions.measurements import api
from functions.measurements.repository import MeasurementsRepository
from functions.measurements.schema import (
    BIN_SECONDS,
    MAX_READINGS_PER_BATCH,
    MAX_READINGS_PER_WRITE,
    MEASUREMENTS_TABLE,
    RETENTION_SECONDS,
    bin_of,
    expires_at,
)
from functions.measurements.service import MeasurementsService
from functions.shared.settings import settings
from functions.measurements.routes import ROUTES
from seeds import measurements as seed
from tests.functional.conftest import Client, make_table

ADMIN = ("admin",)
INGEST = "/measurements/readings"
NOW = 1796115600  # 2026-12-01T09:00:00Z, the start of a bin
T = NOW - 3600  # an hour ago: 12 bins of readings fit before NOW


class Clock:
    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(NOW)


@pytest.fixture
def table(aws, monkeypatch) -> str:
    return make_table(MEASUREMENTS_TABLE, monkeypatch)


@pytest.fixture
def client(table, clock, monkeypatch) -> Client:
    service = MeasurementsService(MeasurementsRepository(settings()), clock=clock)
    monkeypatch.setitem(api.app.dependency_overrides, api.service, lambda: service)
    return Client(api.lambda_handler, [route.path for route in ROUTES])


def reading(epoch: int, device: str = "1", temperature: float = 30, pressure: float = 90) -> dict[str, Any]:
    return {"deviceId": device, "epoch": epoch, "temperature": temperature, "pressure": pressure}


def ingest(client: Client, readings: list[dict[str, Any]], **kwargs):
    return client.call("POST", INGEST, body={"readings": readings}, user="pipeline", groups=ADMIN, **kwargs)


def ok(reply, status: int = 200):
    assert reply.status == status, reply.body
    return reply.body


def error(reply) -> tuple[int, str]:
    return reply.status, reply.body["error"]["code"]


def readings_url(first: int, last: int, device: str = "1", **params: Any) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"from": first, "to": last, **params}.items())
    return f"/measurements/devices/{device}/readings?{query}"


def epochs(reply) -> list[int]:
    return [r["epoch"] for r in ok(reply)["items"]]


def stored(table: str) -> list[dict[str, Any]]:
    """Every item of the table, read test-side (not through the function's role or the call recorder)."""
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


def updates(calls) -> list[dict[str, Any]]:
    return [params for params, _ in calls.of("UpdateItem")]


# --- ingest: one write per (device, bin) ---------------------------------------------------------------

def test_ingest_writes_once_per_device_and_bin_not_once_per_reading(client, calls):
    # 100 readings of one device in one bin: one UpdateItem
    calls.clear()
    answer = ok(ingest(client, [reading(T + i) for i in range(100)]))
    assert answer == {"readings": 100, "writes": 1}
    assert calls.names() == ["UpdateItem"]
    # 10 readings in 10 bins: 10 UpdateItems
    calls.clear()
    answer = ok(ingest(client, [reading(T + i * BIN_SECONDS + 7, device="2") for i in range(10)]))
    assert answer == {"readings": 10, "writes": 10}
    assert calls.names() == ["UpdateItem"] * 10
    # several devices in one batch: one write per device and bin
    calls.clear()
    batch = [reading(T + i, device=device) for device in ("a", "b", "c") for i in range(0, BIN_SECONDS, 30)]
    assert ok(ingest(client, batch)) == {"readings": 30, "writes": 3}
    assert sorted(p["Key"]["DeviceId"]["S"] for p in updates(calls)) == ["a", "b", "c"]


def test_a_bins_readings_are_slots_of_one_item_with_its_ttl(client, table, calls):
    calls.clear()
    ok(ingest(client, [reading(T + 12, temperature=21.5, pressure=1013.25), reading(T + 299, temperature=-3)]))
    (params,) = updates(calls)
    assert params["Key"] == {"DeviceId": {"S": "1"}, "bin": {"N": str(T)}}
    assert "ConditionExpression" not in params and "ADD" not in params["UpdateExpression"]
    (item,) = stored(table)
    assert item == {
        "DeviceId": "1", "bin": Decimal(T), "expiresAt": Decimal(T + BIN_SECONDS + RETENTION_SECONDS),
        "r012": {"t": Decimal("21.5"), "p": Decimal("1013.25")},
        "r299": {"t": Decimal("-3.0"), "p": Decimal("90.0")},
    }


def test_a_retried_ingest_duplicates_nothing_and_a_resent_reading_overwrites_its_slot(client, table):
    batch = [reading(T + i * 40) for i in range(20)]  # 20 readings over 3 bins (0 … 760 s)
    first = ok(ingest(client, batch))
    before = stored(table)
    assert ok(ingest(client, batch)) == first == {"readings": 20, "writes": 3}
    assert stored(table) == before
    assert epochs(client.call("GET", readings_url(T, NOW))) == [T + i * 40 for i in range(20)]
    # the same reading sent again with a corrected value takes the same slot
    ok(ingest(client, [reading(T + 40, temperature=31)]))
    items = ok(client.call("GET", readings_url(T, NOW)))["items"]
    assert len(items) == 20
    assert items[1] == {"deviceId": "1", "epoch": T + 40, "temperature": 31.0, "pressure": 90.0}


def test_a_reading_twice_in_one_batch_counts_once_but_two_values_for_one_second_are_refused(client, table):
    assert ok(ingest(client, [reading(T), reading(T), reading(T + 1)])) == {"readings": 2, "writes": 1}
    reply = ingest(client, [reading(T + 5), reading(T + 6), reading(T + 6, temperature=31)])
    assert error(reply) == (400, "READING_CONFLICT")
    assert reply.body["error"]["details"] == [
        {"field": "body.readings.2", "message": "another reading of this device and second"}
    ]
    assert epochs(client.call("GET", readings_url(T, NOW))) == [T, T + 1]  # nothing of the refused batch


def test_a_bin_with_more_readings_than_one_expression_takes_one_more_write(client, calls):
    calls.clear()
    answer = ok(ingest(client, [reading(T + i) for i in range(MAX_READINGS_PER_WRITE + 1)]))
    assert answer == {"readings": MAX_READINGS_PER_WRITE + 1, "writes": 2}
    assert [p["Key"]["bin"] for p in updates(calls)] == [{"N": str(T)}] * 2
    assert all(len(p["UpdateExpression"]) < 4096 for p in updates(calls))
    assert epochs(client.call("GET", readings_url(T, T + BIN_SECONDS, limit=100))) == list(range(T, T + 100))


def test_readings_older_than_the_retention_or_from_the_future_are_refused_writing_nothing(client, table, subtests):
    for name, epoch, field in (
        ("older than 90 days", NOW - RETENTION_SECONDS - 1, "older than 90 days"),
        ("too far in the future", NOW + 301, "in the future"),
    ):
        with subtests.test(name):
            reply = ingest(client, [reading(T), reading(epoch)])
            assert error(reply) == (409, "READING_OUT_OF_RANGE")
            assert reply.body["error"]["details"] == [{"field": "body.readings.1.epoch", "message": field}]
            assert stored(table) == []
    # the edges are accepted: exactly 90 days old, and 5 minutes of clock skew
    assert ok(ingest(client, [reading(NOW - RETENTION_SECONDS), reading(NOW + 300)]))["readings"] == 2


def test_only_admins_ingest(client, table):
    reply = client.call("POST", INGEST, body={"readings": [reading(T)]}, user="1", groups=("device",))
    assert error(reply) == (403, "FORBIDDEN")
    assert client.call("POST", INGEST, body={"readings": [reading(T)]}, user=None).status == 401
    assert stored(table) == []


@pytest.mark.parametrize(
    "body, field",
    [
        ({"readings": []}, "body.readings"),
        ({"readings": [reading(T)] * (MAX_READINGS_PER_BATCH + 1)}, "body.readings"),
        ({"readings": [reading(T, device="no/slash")]}, "body.readings.0.deviceId"),
        ({"readings": [{**reading(T), "epoch": "1796112000"}]}, "body.readings.0.epoch"),
        ({"readings": [{**reading(T), "epoch": 1.5}]}, "body.readings.0.epoch"),
        ({"readings": [{**reading(T), "epoch": 10**40}]}, "body.readings.0.epoch"),
        ({"readings": [reading(T, temperature=-300)]}, "body.readings.0.temperature"),
        ({"readings": [reading(T, pressure=-1)]}, "body.readings.0.pressure"),
        # JSON's true and false are no numbers (docs/measurements.md: values are numbers; true was stored as 1.0)
        ({"readings": [reading(T, temperature=True)]}, "body.readings.0.temperature"),
        ({"readings": [reading(T, pressure=False)]}, "body.readings.0.pressure"),
        ({"readings": [{**reading(T), "epoch": True}]}, "body.readings.0.epoch"),
        ({"readings": [reading(T, temperature="30")]}, "body.readings.0.temperature"),
        ({"readings": [{"deviceId": "1", "epoch": T, "temperature": 30}]}, "body.readings.0.pressure"),
        ({"readings": [{**reading(T), "humidity": 40}]}, "body.readings.0.humidity"),
    ],
)
def test_invalid_input_is_400_naming_the_field_and_writes_nothing(client, table, body, field):
    reply = ingest(client, body["readings"])
    assert error(reply) == (400, "VALIDATION_FAILED"), reply.body
    assert field in [d["field"] for d in reply.body["error"]["details"]]
    assert stored(table) == []


def test_not_a_number_is_400(client, table):
    body = f'{{"readings": [{{"deviceId": "1", "epoch": {T}, "temperature": NaN, "pressure": Infinity}}]}}'
    reply = client.call("POST", INGEST, raw_body=body, user="pipeline", groups=ADMIN)
    assert reply.status == 400 and stored(table) == []
    assert error(reply) == (400, "MALFORMED_JSON") or {d["field"] for d in reply.body["error"]["details"]} == {
        "body.readings.0.temperature", "body.readings.0.pressure"}


# --- readings between two instants -------------------------------------------------------------------

@pytest.fixture
def series(client) -> list[int]:
    """Device 1: a reading every 20 s for the past hour (12 bins of 15); device 2: one reading."""
    times = list(range(T, NOW, 20))
    ok(ingest(client, [reading(t, temperature=20 + (t - T) // 20) for t in times]))
    ok(ingest(client, [reading(T + 60, device="2")]))
    return times


def test_readings_between_two_instants_in_time_order_trimmed_to_the_range_inclusive(client, series):
    first, last = T + 130, T + 1000  # both inside bins: 140 … 1000
    assert epochs(client.call("GET", readings_url(first, last, limit=100))) == [t for t in series if first <= t <= last]
    assert epochs(client.call("GET", readings_url(T + 140, T + 140))) == [T + 140]
    assert epochs(client.call("GET", readings_url(T + 141, T + 159))) == []
    assert epochs(client.call("GET", readings_url(T, NOW, device="2"))) == [T + 60]
    assert ok(client.call("GET", readings_url(T, NOW, device="nobody"))) == {"items": [], "nextCursor": None}
    page = ok(client.call("GET", readings_url(T, T + 20)))
    assert page == {"items": [
        {"deviceId": "1", "epoch": T, "temperature": 20.0, "pressure": 90.0},
        {"deviceId": "1", "epoch": T + 20, "temperature": 21.0, "pressure": 90.0},
    ], "nextCursor": None}


def test_the_range_read_is_one_key_query_on_the_devices_bins(client, series, table, calls):
    calls.clear()
    assert epochs(client.call("GET", readings_url(T + 130, T + 170))) == [T + 140, T + 160]
    (params, response), = calls.of("Query")
    assert calls.names() == ["Query"]
    assert params["TableName"] == table and "IndexName" not in params
    condition = params["KeyConditionExpression"]
    for placeholder, name in params["ExpressionAttributeNames"].items():
        condition = condition.replace(placeholder, name)
    for placeholder, value in params["ExpressionAttributeValues"].items():
        condition = condition.replace(placeholder, json.dumps(value))
    assert condition == f'(DeviceId = {{"S": "1"}} AND bin BETWEEN {{"N": "{T}"}} AND {{"N": "{T}"}})'
    assert response["ScannedCount"] == 1  # one bin read for two readings: not device 2's, not the other bins


def test_a_round_that_stops_on_the_ranges_last_bin_ends_the_read(client, series, calls):
    """Limit stopped the first round (2 bins) on the range's last bin: DynamoDB gives a LastEvaluatedKey there, and
    no bin can follow it, so no second Query is sent (it could only come back empty)."""
    calls.clear()
    page = ok(client.call("GET", readings_url(T, T + 2 * BIN_SECONDS - 1, limit=100)))
    assert [r["epoch"] for r in page["items"]] == [t for t in series if t < T + 2 * BIN_SECONDS]
    assert page["nextCursor"] is None
    assert [p["Limit"] for p, _ in calls.of("Query")] == [2]


def test_pages_resume_inside_a_bin_without_losing_or_repeating_a_reading(client, series, subtests):
    for limit in (1, 7, 15, 16, 100):  # 7 and 16 end pages inside bins; 15 exactly at a bin's end
        with subtests.test(limit=limit):
            seen, cursors = [], []
            while True:
                url = readings_url(T + 50, NOW, limit=limit) + (f"&cursor={cursors[-1]}" if cursors else "")
                page = ok(client.call("GET", url))
                assert len(page["items"]) <= limit
                seen += [r["epoch"] for r in page["items"]]
                if page["nextCursor"] is None:
                    break
                cursors.append(page["nextCursor"])
            assert seen == [t for t in series if t >= T + 50]
            assert len(cursors) == -(-len(seen) // limit) - 1  # no empty last page


def test_a_page_without_a_limit_holds_25_readings(client, series):
    # docs/measurements.md: `limit` 1–100, 25 when not given
    page = ok(client.call("GET", readings_url(T, NOW)))
    assert [r["epoch"] for r in page["items"]] == series[:25] and page["nextCursor"] is not None
    assert len(series) > 25


def test_a_cursor_is_bound_to_its_device_and_range(client, series, subtests):
    cursor = ok(client.call("GET", readings_url(T, NOW, limit=5)))["nextCursor"]
    for other in (readings_url(T, NOW, device="2"), readings_url(T + 1, NOW), readings_url(T, NOW - 1),
                  readings_url(T, NOW) + "&cursor=" + cursor[:-2] + "xx"):
        with subtests.test(url=other):
            url = other if "cursor=" in other else f"{other}&cursor={cursor}"
            assert error(client.call("GET", url)) == (400, "INVALID_CURSOR")


def test_a_range_read_needs_from_and_to_in_order(client, subtests):
    for url, field in (
        ("/measurements/devices/1/readings?to=5", "query.from"),
        ("/measurements/devices/1/readings?from=5", "query.to"),
        ("/measurements/devices/1/readings?from=yesterday&to=5", "query.from"),
        (readings_url(-1, 5), "query.from"),
        (readings_url(0, 10**40), "query.to"),
        (readings_url(0, 5, limit=0), "query.limit"),
        ("/measurements/devices/a%20b/readings?from=0&to=5", "path.deviceId"),
    ):
        with subtests.test(url=url):
            reply = client.call("GET", url)
            assert error(reply) == (400, "VALIDATION_FAILED")
            assert field in [d["field"] for d in reply.body["error"]["details"]]
    assert client.call("GET", readings_url(0, 5), user=None).status == 401


def test_a_reversed_range_is_400_naming_both_fields(client):
    # docs/measurements.md: `from` ≤ `to`, else 400 VALIDATION_FAILED
    reply = client.call("GET", readings_url(10, 5))
    assert error(reply) == (400, "VALIDATION_FAILED")
    assert [d["field"] for d in reply.body["error"]["details"]] == ["query.from", "query.to"]
    assert ok(client.call("GET", readings_url(5, 5))) == {"items": [], "nextCursor": None}  # one instant is a range


# --- 90 days of retention ----------------------------------------------------------------------------

def test_readings_older_than_90_days_are_never_served_though_still_stored(client, table, clock):
    ok(ingest(client, [reading(T), reading(T + 310), reading(NOW)]))
    clock.now = T + RETENTION_SECONDS  # T is exactly 90 days old
    assert epochs(client.call("GET", readings_url(0, clock.now))) == [T, T + 310, NOW]
    clock.now = T + RETENTION_SECONDS + 1
    assert epochs(client.call("GET", readings_url(0, clock.now))) == [T + 310, NOW]
    clock.now = NOW + RETENTION_SECONDS + 1
    assert epochs(client.call("GET", readings_url(0, clock.now))) == []
    assert len(stored(table)) == 3  # TTL has not deleted them (it does so within days): the read must not serve them


def test_a_bin_past_its_expiresat_is_not_served_even_inside_the_range(client, table, clock, calls):
    # Given bins still stored past their TTL, inside the retention window: e.g. written by a build that kept 30 days
    items = boto3.resource("dynamodb").Table(table)
    items.put_item(Item={"DeviceId": "1", "bin": T, "expiresAt": NOW, "r000": {"t": 1, "p": 1}})
    items.put_item(Item={"DeviceId": "1", "bin": T + BIN_SECONDS, "expiresAt": NOW + 1, "r000": {"t": 2, "p": 2}})
    assert [i["expiresAt"] for i in stored(table)] == [NOW, NOW + 1]
    # When read at NOW, the bin whose expiresAt <= now is absent
    calls.clear()
    assert epochs(client.call("GET", readings_url(T, NOW))) == [T + BIN_SECONDS]
    (params, _), = calls.of("Query")
    assert "expiresAt" in params["ExpressionAttributeNames"].values() and "FilterExpression" in params


def test_the_key_range_is_clamped_to_the_retention_window(client, clock, calls):
    ok(ingest(client, [reading(NOW - 10)]))
    calls.clear()
    assert epochs(client.call("GET", readings_url(0, NOW))) == [NOW - 10]
    (params, _), = calls.of("Query")
    lower = bin_of(NOW - RETENTION_SECONDS)
    assert {"N": str(lower)} in params["ExpressionAttributeValues"].values()
    assert expires_at(lower) > NOW  # the oldest bin the key range reaches can still hold live readings
    # a range entirely before the window is not even queried
    calls.clear()
    assert ok(client.call("GET", readings_url(0, NOW - RETENTION_SECONDS - 1))) == {"items": [], "nextCursor": None}
    assert calls.names() == []


def test_no_read_route_scans(client, series, calls):
    calls.clear()
    get_routes = [route.path for route in ROUTES if route.method == "GET"]
    assert get_routes == ["/measurements/devices/{deviceId}/readings"]
    ok(client.call("GET", readings_url(0, NOW, limit=3)))
    assert set(calls.names()) == {"Query"}


# --- example data ------------------------------------------------------------------------------------

def test_the_seeds_readings_load_recent_and_twice_changes_nothing(client, table, clock):
    env = {MEASUREMENTS_TABLE.env_var: table}
    clock.now = NOW
    assert seed.load(env, now=NOW) == 5  # 92 readings, 5 bins
    before = stored(table)
    assert seed.load(env, now=NOW + 3600) == 5
    assert stored(table) == before
    day = NOW - NOW % 86400 - 86400  # yesterday, the seed's times of day
    first, second = day + 6 * 3600 + 38 * 60 + 52, day + 6 * 3600 + 40 * 60 + 27
    items = ok(client.call("GET", readings_url(day, NOW)))["items"]
    assert items[:2] == [
        {"deviceId": "1", "epoch": first, "temperature": 30.0, "pressure": 90.0},
        {"deviceId": "1", "epoch": second, "temperature": 30.0, "pressure": 90.0},
    ]
    assert second - first == 0x5513A9DB - 0x5513A97C == 95
    assert (first % BIN_SECONDS, second % BIN_SECONDS) == (0x5513A97C % BIN_SECONDS, 0x5513A9DB % BIN_SECONDS)


def test_a_page_that_reads_its_most_bins_ends_after_the_last_bin_read(client, series, monkeypatch, calls):
    from functions.measurements import repository

    monkeypatch.setattr(repository, "_MAX_ROUNDS", 2)  # 2 + 4 bins a page at most
    calls.clear()
    page = ok(client.call("GET", readings_url(T, NOW, limit=100)))
    assert [p["Limit"] for p, _ in calls.of("Query")] == [2, 4]
    assert [r["epoch"] for r in page["items"]] == series[:90]  # 6 bins of 15, read whole
    rest, cursor = [], page["nextCursor"]
    while cursor:  # (DynamoDB may answer a LastEvaluatedKey at the range's very end: then one more, empty page)
        more = ok(client.call("GET", readings_url(T, NOW, limit=100) + f"&cursor={cursor}"))
        rest, cursor = rest + [r["epoch"] for r in more["items"]], more["nextCursor"]
    assert rest == series[90:]


def test_values_are_stored_and_answered_to_four_decimals(client, table):
    # Given readings with more decimals than kept, and a number DynamoDB cannot hold (1e-200: an Underflow)
    sent = [reading(T, temperature=21.123456, pressure=1e-200), reading(T + 1, temperature=-0.00004, pressure=99.99996)]
    # When they are ingested, then they are stored and answered rounded to 4 decimals
    assert ok(ingest(client, sent)) == {"readings": 2, "writes": 1}
    answered = ok(client.call("GET", readings_url(T, T + 1)))["items"]
    assert [(r["temperature"], r["pressure"]) for r in answered] == [(21.1235, 0.0), (0.0, 100.0)]
