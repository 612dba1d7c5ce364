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
    BIN_MS,
    LEGACY_BINS,
    MAX_EPOCH,
    MAX_READINGS_PER_BATCH,
    MAX_READINGS_PER_WRITE,
    MEASUREMENTS_TABLE,
    RETENTION_SECONDS,
    bin_of,
    expires_at,
)
from functions.measurements.service import MeasurementsService
from functions.shared.capacity import item_size, write_units
from functions.shared.domain import load
from functions.shared.settings import settings
from seeds import measurements as seed
from tests.functional.conftest import Client, error, make_table, ok

ROUTES = load("measurements").routes

ADMIN = ("admin",)
INGEST = "/measurements/readings"
NOW = 1796115600  # 2026-12-01T09:00:00Z, the start of a bin
T = NOW - 3600  # an hour ago
T_MS = T * 1000  # the start of a 400 ms bin (and of a 5-minute bin of the layout before)
EVERY = 25  # the series' device reports every 25 ms: 16 readings a bin


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
    return Client.of(api)


def reading(epoch: int, device: str = "1", temperature: float = 30, pressure: float = 90) -> dict[str, Any]:
    return {"deviceId": device, "epoch": epoch, "temperature": temperature, "pressure": pressure}


def reading_ms(epoch_ms: int, device: str = "1", temperature: float = 30, pressure: float = 90) -> dict[str, Any]:
    return {"deviceId": device, "epochMs": epoch_ms, "temperature": temperature, "pressure": pressure}


def answered(epoch_ms: int, device: str = "1", temperature: float = 30.0, pressure: float = 90.0) -> dict[str, Any]:
    """A reading as the API answers it: its instant in seconds (rounded down) and milliseconds."""
    return {"deviceId": device, "epoch": epoch_ms // 1000, "epochMs": epoch_ms, "temperature": temperature,
            "pressure": pressure}


def ingest(client: Client, readings: list[dict[str, Any]], **kwargs):
    return client.call("POST", INGEST, body={"readings": readings}, user="pipeline", groups=ADMIN, **kwargs)


def readings_url(first: int, last: int, device: str = "1", **params: Any) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"from": first, "to": last, **params}.items())
    return f"/measurements/devices/{device}/readings?{query}"


def epochs(reply) -> list[int]:
    return [r["epoch"] for r in ok(reply)["items"]]


def instants(reply) -> list[int]:
    items = ok(reply)["items"]
    assert all(r["epoch"] == r["epochMs"] // 1000 for r in items)
    return [r["epochMs"] for r in items]


def walk(client: Client, url: str) -> tuple[list[int], int]:
    """Every reading's epochMs of a list, page by page; and how many pages it took."""
    seen, cursor, pages = [], None, 0
    while True:
        page = ok(client.call("GET", url + (f"&cursor={cursor}" if cursor else "")))
        seen += [r["epochMs"] for r in page["items"]]
        pages += 1
        if page["nextCursor"] is None:
            return seen, pages
        cursor = page["nextCursor"]


def stored(table: str) -> list[dict[str, Any]]:
    """Every item of the table, read test-side (not through the function's role or the call recorder)."""
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


def updates(calls) -> list[dict[str, Any]]:
    return [params for params, _ in calls.of("UpdateItem")]


def queries(calls) -> dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
    """The Queries made, by the bin layout their key range reads (a 5-minute bin's key is an epoch second)."""
    by_layout: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {"400 ms": [], "5 min": []}
    for params, response in calls.of("Query"):
        values = params["ExpressionAttributeValues"]
        bins = [int(values[p]["N"]) for p in values if p in params["KeyConditionExpression"] and "N" in values[p]]
        by_layout["5 min" if max(bins) <= MAX_EPOCH else "400 ms"].append((params, response))
    return by_layout


def key_condition(params: dict[str, Any]) -> str:
    condition = params["KeyConditionExpression"]
    for placeholder, name in params["ExpressionAttributeNames"].items():
        condition = condition.replace(placeholder, name)
    for placeholder, value in params["ExpressionAttributeValues"].items():
        condition = condition.replace(placeholder, json.dumps(value))
    return condition


# --- ingest: one write per (device, bin) ---------------------------------------------------------------

def test_ingest_writes_once_per_device_and_bin_not_once_per_reading(client, calls):
    # 40 readings of one device in one 400 ms bin (every 10 ms): one UpdateItem
    calls.clear()
    answer = ok(ingest(client, [reading_ms(T_MS + i * 10) for i in range(40)]))
    assert answer == {"readings": 40, "writes": 1}
    assert calls.names() == ["UpdateItem"]
    # 10 readings in 10 bins: 10 UpdateItems
    calls.clear()
    answer = ok(ingest(client, [reading_ms(T_MS + i * BIN_MS + 7, device="2") for i in range(10)]))
    assert answer == {"readings": 10, "writes": 10}
    assert calls.names() == ["UpdateItem"] * 10
    # several devices in one batch: one write per device and bin
    calls.clear()
    batch = [reading_ms(T_MS + ms, device=device) for device in ("a", "b", "c") for ms in range(0, BIN_MS, 40)]
    assert ok(ingest(client, batch)) == {"readings": 30, "writes": 3}
    assert sorted(p["Key"]["DeviceId"]["S"] for p in updates(calls)) == ["a", "b", "c"]


def test_a_bins_readings_are_slots_of_one_item_with_its_ttl(client, table, calls):
    calls.clear()
    ok(ingest(client, [reading_ms(T_MS + 12, temperature=21.5, pressure=1013.25),
                       reading_ms(T_MS + 399, temperature=-3)]))
    (params,) = updates(calls)
    assert params["Key"] == {"DeviceId": {"S": "1"}, "bin": {"N": str(T_MS)}}
    assert "ConditionExpression" not in params and "ADD" not in params["UpdateExpression"]
    (item,) = stored(table)
    assert item == {
        "DeviceId": "1", "bin": Decimal(T_MS), "expiresAt": Decimal(T + 1 + RETENTION_SECONDS),
        "r012": {"t": Decimal("21.5"), "p": Decimal("1013.25")},
        "r399": {"t": Decimal("-3.0"), "p": Decimal("90.0")},
    }
    # a reading named in seconds is its second's first millisecond: slot r000 of the bin starting that second
    calls.clear()
    ok(ingest(client, [reading(T + 2)]))
    assert updates(calls)[0]["Key"]["bin"] == {"N": str(T_MS + 2000)} and "r000" in updates(calls)[0]["UpdateExpression"]


def test_a_sensor_can_send_readings_every_10_ms_and_each_write_stays_one_write_unit(client, table):
    # Given a sensor reporting every 10 ms for 2 seconds, named in milliseconds, sent as a batching stage sends it
    times = [T_MS + i * 10 for i in range(200)]
    answer = ok(ingest(client, [reading_ms(t, temperature=20 + i % 50 / 10) for i, t in enumerate(times)]))
    # Then it takes one write per 400 ms bin, and every bin is within one write unit
    assert answer == {"readings": 200, "writes": 5}
    assert sorted(len([k for k in item if k.startswith("r")]) for item in stored(table)) == [40] * 5
    assert all(write_units(item_size(item)) == 1 for item in stored(table))
    # And every reading is served, in time order, with both its epochMs and its epoch second
    seen, pages = walk(client, readings_url(T, T + 1, limit=100))
    assert seen == times and pages == 2
    first = ok(client.call("GET", readings_url(T, T, limit=2)))["items"]
    assert first == [answered(T_MS, temperature=20.0), answered(T_MS + 10, temperature=20.1)]


def test_a_retried_ingest_duplicates_nothing_and_a_resent_reading_overwrites_its_slot(client, table):
    batch = [reading_ms(T_MS + i * 40) for i in range(20)]  # 20 readings over 2 bins (0 … 760 ms)
    first = ok(ingest(client, batch))
    before = stored(table)
    assert ok(ingest(client, batch)) == first == {"readings": 20, "writes": 2}
    assert stored(table) == before
    assert instants(client.call("GET", readings_url(T, NOW))) == [T_MS + i * 40 for i in range(20)]
    # the same reading sent again in a later batch with a corrected value takes the same slot
    ok(ingest(client, [reading_ms(T_MS + 40, temperature=31)]))
    items = ok(client.call("GET", readings_url(T, NOW)))["items"]
    assert len(items) == 20
    assert items[1] == answered(T_MS + 40, temperature=31.0)
    # named in seconds, the same instant is the same slot too
    ok(ingest(client, [reading(T, temperature=32)]))
    assert ok(client.call("GET", readings_url(T, NOW)))["items"][0] == answered(T_MS, temperature=32.0)
    assert len(stored(table)) == 2


def test_a_reading_twice_in_one_batch_counts_once_but_two_values_for_one_instant_are_refused(client, table):
    assert ok(ingest(client, [reading(T), reading(T), reading_ms(T_MS), reading(T + 1)])) == {"readings": 2,
                                                                                              "writes": 2}
    reply = ingest(client, [reading(T + 5), reading(T + 6), reading(T + 6, temperature=31)])
    assert error(reply) == (400, "READING_CONFLICT")
    assert reply.body["error"]["details"] == [
        {"field": "body.readings.2", "message": "another reading of this device and millisecond"}
    ]
    # one millisecond named twice with two values, in milliseconds or once in seconds: refused the same way
    for batch in ([reading_ms(T_MS + 7005), reading_ms(T_MS + 7005, pressure=91)],
                  [reading(T + 7), reading_ms(T_MS + 7000, pressure=91)]):
        reply = ingest(client, batch)
        assert error(reply) == (400, "READING_CONFLICT") and reply.body["error"]["details"][0]["field"] == (
            "body.readings.1")
    # two readings of one second, a millisecond apart, are two readings
    assert ok(ingest(client, [reading_ms(T_MS + 8000), reading_ms(T_MS + 8001, pressure=91)]))["readings"] == 2
    assert epochs(client.call("GET", readings_url(T, NOW))) == [T, T + 1, T + 8, T + 8]  # nothing of the refused


def test_a_bin_with_more_readings_than_one_expression_takes_one_more_write(client, calls):
    calls.clear()
    answer = ok(ingest(client, [reading_ms(T_MS + i) for i in range(MAX_READINGS_PER_WRITE + 1)]))
    assert answer == {"readings": MAX_READINGS_PER_WRITE + 1, "writes": 2}
    assert [p["Key"]["bin"] for p in updates(calls)] == [{"N": str(T_MS)}] * 2
    assert all(len(p["UpdateExpression"]) < 4096 for p in updates(calls))
    assert instants(client.call("GET", readings_url(T, T, limit=100))) == list(range(T_MS, T_MS + 100))


def test_readings_older_than_the_retention_or_from_the_future_are_refused_writing_nothing(client, table, subtests):
    for name, late, field in (
        ("older than 90 days", reading(NOW - RETENTION_SECONDS - 1), "epoch"),
        ("too far in the future", reading(NOW + 301), "epoch"),
        ("a millisecond older than 90 days", reading_ms((NOW - RETENTION_SECONDS) * 1000 - 1), "epochMs"),
        ("a second too far in the future, in milliseconds", reading_ms((NOW + 301) * 1000), "epochMs"),
    ):
        with subtests.test(name):
            reply = ingest(client, [reading(T), late])
            assert error(reply) == (409, "READING_OUT_OF_RANGE")
            message = "older than 90 days" if "older" in name else "in the future"
            assert reply.body["error"]["details"] == [{"field": f"body.readings.1.{field}", "message": message}]
            assert stored(table) == []
    # the edges are accepted: exactly 90 days old, and 5 minutes of clock skew (to that second's last millisecond)
    edges = [reading(NOW - RETENTION_SECONDS), reading(NOW + 300), reading_ms((NOW + 300) * 1000 + 999)]
    assert ok(ingest(client, edges))["readings"] == 3


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
        # an instant in milliseconds: whole, in range; and exactly one of epoch and epochMs
        ({"readings": [reading_ms(T_MS + 0.5)]}, "body.readings.0.epochMs"),
        ({"readings": [reading_ms(10**14 + 1)]}, "body.readings.0.epochMs"),
        ({"readings": [reading_ms(True)]}, "body.readings.0.epochMs"),
        ({"readings": [{**reading(T), "epochMs": None}]}, "body.readings.0.epochMs"),
        ({"readings": [{**reading(T), "epochMs": T_MS}]}, "body.readings.0"),
        ({"readings": [{"deviceId": "1", "temperature": 30, "pressure": 90}]}, "body.readings.0"),
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
    """Device 1: a reading every 25 ms for 10 seconds from T (25 bins of 16); device 2: one reading at T + 1."""
    times = list(range(T_MS, T_MS + 10_000, EVERY))
    for start in range(0, len(times), MAX_READINGS_PER_BATCH):
        ok(ingest(client, [reading_ms(t, temperature=20 + (t - T_MS) // EVERY % 100) for t in
                           times[start:start + MAX_READINGS_PER_BATCH]]))
    ok(ingest(client, [reading(T + 1, device="2")]))
    return times


def test_readings_between_two_instants_in_time_order_trimmed_to_the_range_inclusive(client, series):
    # from T + 1 to T + 2: every millisecond of both seconds, bins 800 … 2800 ms trimmed at 1000 and 2999
    assert instants(client.call("GET", readings_url(T + 1, T + 2, limit=100))) == [
        t for t in series if T_MS + 1000 <= t <= T_MS + 2999]
    assert instants(client.call("GET", readings_url(T + 2, T + 2, limit=100))) == list(range(T_MS + 2000, T_MS + 3000,
                                                                                          EVERY))
    assert instants(client.call("GET", readings_url(T + 10, T + 20))) == []
    assert instants(client.call("GET", readings_url(T, NOW, device="2"))) == [T_MS + 1000]
    assert ok(client.call("GET", readings_url(T, NOW, device="nobody"))) == {"items": [], "nextCursor": None}
    page = ok(client.call("GET", readings_url(T, T, limit=2)))
    assert page["items"] == [answered(T_MS, temperature=20.0), answered(T_MS + 25, temperature=21.0)]


def test_the_range_read_is_a_key_query_on_the_devices_bins_in_each_layout(client, series, table, calls):
    calls.clear()
    assert instants(client.call("GET", readings_url(T + 1, T + 1, limit=100))) == list(range(T_MS + 1000, T_MS + 2000,
                                                                                        EVERY))
    assert set(calls.names()) == {"Query"}
    by_layout = queries(calls)
    for params, _ in calls.of("Query"):
        assert params["TableName"] == table and "IndexName" not in params
    # this layout's bins: 800 … 1600 ms of T (the three bins the second touches), and nothing else read
    assert {key_condition(p) for p, _ in by_layout["400 ms"]} == {
        f'(DeviceId = {{"S": "1"}} AND bin BETWEEN {{"N": "{T_MS + 800}"}} AND {{"N": "{T_MS + 1600}"}})'}
    assert sum(response["ScannedCount"] for _, response in by_layout["400 ms"]) == 3
    # the layout before (5-minute bins keyed by epoch second): one Query of the one bin that could hold the second
    ((legacy, response),) = by_layout["5 min"]
    assert key_condition(legacy) == f'(DeviceId = {{"S": "1"}} AND bin BETWEEN {{"N": "{T}"}} AND {{"N": "{T}"}})'
    assert response["ScannedCount"] == 0


def test_a_round_that_stops_on_the_ranges_last_bin_ends_the_read(client, series, calls):
    """Limit stopped the second round (2 + 4 bins) on the range's last bin: DynamoDB gives a LastEvaluatedKey there,
    and no bin can follow it, so no third Query is sent (it could only come back empty)."""
    calls.clear()
    page = ok(client.call("GET", readings_url(T + 1, T + 2, limit=100)))  # bins 800 … 2800 ms: six
    assert [r["epochMs"] for r in page["items"]] == [t for t in series if T_MS + 1000 <= t <= T_MS + 2999]
    assert page["nextCursor"] is None
    assert [p["Limit"] for p, _ in queries(calls)["400 ms"]] == [2, 4]


def test_pages_resume_inside_a_bin_without_losing_or_repeating_a_reading(client, series, subtests):
    for limit in (1, 7, 16, 17, 100):  # 7 and 17 end pages inside bins; 16 exactly at a bin's end
        with subtests.test(limit=limit):
            seen, pages = walk(client, readings_url(T + 8, NOW, limit=limit))
            assert seen == [t for t in series if t >= T_MS + 8000]
            assert pages == -(-len(seen) // limit)  # no empty last page


def test_a_page_without_a_limit_holds_25_readings(client, series):
    # docs/measurements.md: `limit` 1–100, 25 when not given
    page = ok(client.call("GET", readings_url(T, NOW)))
    assert [r["epochMs"] for r in page["items"]] == series[:25] and page["nextCursor"] is not None
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


# --- the layout before: 5-minute bins, served until TTL deletes them ------------------------------------

def legacy_bin(device: str, bin_start: int, slots: dict[int, tuple[float, float]], expires: int | None = None) -> dict:
    """A bin as the layout before wrote it (docs/adr/0044-measurements-readings-binned.md): `bin` an epoch second, a
    multiple of 300; `r<SSS>` seconds into it; `expiresAt` = bin + 300 s + 90 days."""
    return {"DeviceId": device, "bin": bin_start,
            "expiresAt": LEGACY_BINS.expires_at(bin_start) if expires is None else expires,
            **{f"r{s:03d}": {"t": Decimal(str(t)), "p": Decimal(str(p))} for s, (t, p) in slots.items()}}


def test_bins_of_the_layout_before_are_served_beside_new_ones_until_they_expire(client, table, clock):
    # Given a stage upgraded at T + 8: its table still holds 5-minute bins written before (one of them past its TTL)
    items = boto3.resource("dynamodb").Table(table)
    items.put_item(Item=legacy_bin("1", T, {0: (20, 90), 5: (21, 90), 8: (22, 90)}))
    items.put_item(Item=legacy_bin("1", T - 300, {299: (19, 90)}, expires=NOW))  # expired: never served
    items.put_item(Item=legacy_bin("2", T, {1: (5, 5)}))
    # When new readings arrive in 400 ms bins: one later, one of the same instant as an old one (a resend)
    ok(ingest(client, [reading(T + 8, temperature=23), reading_ms(T_MS + 8500, temperature=24),
                       reading_ms(T_MS + 4000, temperature=25), reading(NOW - 10, temperature=26)]))
    # Then a read merges both layouts in time order; for one instant in both, the later write (the new bin) wins
    expected = [answered(T_MS, temperature=20.0), answered(T_MS + 4000, temperature=25.0),
                answered(T_MS + 5000, temperature=21.0), answered(T_MS + 8000, temperature=23.0),
                answered(T_MS + 8500, temperature=24.0), answered((NOW - 10) * 1000, temperature=26.0)]
    assert ok(client.call("GET", readings_url(T - 300, NOW)))["items"] == expected
    # by pages of any size, each reading once
    for limit in (1, 2, 3):
        seen, _ = walk(client, readings_url(T - 300, NOW, limit=limit))
        assert seen == [r["epochMs"] for r in expected]
    assert instants(client.call("GET", readings_url(T, NOW, device="2"))) == [T_MS + 1000]
    # And 90 days on, the old bins are past their TTL and absent, as any expired bin, while later readings are served
    clock.now = LEGACY_BINS.expires_at(T)
    assert instants(client.call("GET", readings_url(T, NOW))) == [(NOW - 10) * 1000]


def test_a_page_that_ends_where_the_layout_before_ran_out_of_rounds_loses_nothing(client, table, monkeypatch):
    from functions.measurements import repository

    # Given 5-minute bins of the layout before, one reading each, and this layout's bins between them
    items = boto3.resource("dynamodb").Table(table)
    for k in range(8):
        items.put_item(Item=legacy_bin("1", T + 300 * k, {0: (k, 90)}))
    ok(ingest(client, [reading(T + 300 * k + 1, temperature=100 + k) for k in range(8)]))
    monkeypatch.setattr(repository, "_MAX_ROUNDS", 1)  # 2 bins a Query at most, in each layout
    seen, pages = walk(client, readings_url(T, NOW, limit=100))
    assert seen == sorted([(T + 300 * k) * 1000 for k in range(8)] + [(T + 300 * k + 1) * 1000 for k in range(8)])
    assert pages > 2  # pages ended where one layout's rounds ran out (2 bins a Query), and still lost nothing


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
    items.put_item(Item={"DeviceId": "1", "bin": T_MS, "expiresAt": NOW, "r000": {"t": 1, "p": 1}})
    items.put_item(Item={"DeviceId": "1", "bin": T_MS + BIN_MS, "expiresAt": NOW + 1, "r000": {"t": 2, "p": 2}})
    assert [i["expiresAt"] for i in stored(table)] == [NOW, NOW + 1]
    # When read at NOW, the bin whose expiresAt <= now is absent
    calls.clear()
    assert instants(client.call("GET", readings_url(T, NOW))) == [T_MS + BIN_MS]
    for params, _ in calls.of("Query"):
        assert "expiresAt" in params["ExpressionAttributeNames"].values() and "FilterExpression" in params


def test_the_key_range_is_clamped_to_the_retention_window(client, clock, calls):
    ok(ingest(client, [reading(NOW - 10)]))
    calls.clear()
    assert epochs(client.call("GET", readings_url(0, NOW))) == [NOW - 10]
    oldest_ms = (NOW - RETENTION_SECONDS) * 1000
    by_layout = queries(calls)
    ((params, _),) = by_layout["400 ms"]
    assert {"N": str(bin_of(oldest_ms))} in params["ExpressionAttributeValues"].values()
    assert expires_at(bin_of(oldest_ms)) > NOW  # the oldest bin the key range reaches can still hold live readings
    ((params, _),) = by_layout["5 min"]
    assert {"N": str(LEGACY_BINS.bin_of(oldest_ms))} in params["ExpressionAttributeValues"].values()
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
    assert seed.load(env, now=NOW) == 5  # 102 readings, 5 bins: the seed's two, then 40 + 40 + 20
    before = stored(table)
    assert seed.load(env, now=NOW + 3600) == 5
    assert stored(table) == before
    day = NOW - NOW % 86400 - 86400  # yesterday, the seed's times of day
    first, second = day + 6 * 3600 + 38 * 60 + 52, day + 6 * 3600 + 40 * 60 + 27
    items, _ = walk(client, readings_url(day, NOW, limit=100))
    assert ok(client.call("GET", readings_url(day, NOW, limit=2)))["items"] == [
        answered(first * 1000), answered(second * 1000)]
    assert second - first == 0x5513A9DB - 0x5513A97C == 95
    extra = (day + 6 * 3600 + 45 * 60) * 1000
    assert items[2:] == [extra + 10 * i for i in range(100)]  # a reading every 10 ms


def test_a_page_that_reads_its_most_bins_ends_after_the_last_bin_read(client, series, monkeypatch, calls):
    from functions.measurements import repository

    monkeypatch.setattr(repository, "_MAX_ROUNDS", 2)  # 2 + 4 bins a page at most
    calls.clear()
    page = ok(client.call("GET", readings_url(T, NOW, limit=100)))
    assert [p["Limit"] for p, _ in queries(calls)["400 ms"]] == [2, 4]
    assert [r["epochMs"] for r in page["items"]] == series[:96]  # 6 bins of 16, read whole
    rest, cursor = [], page["nextCursor"]
    while cursor:  # (DynamoDB may answer a LastEvaluatedKey at the range's very end: then one more, empty page)
        more = ok(client.call("GET", readings_url(T, NOW, limit=100) + f"&cursor={cursor}"))
        rest, cursor = rest + [r["epochMs"] for r in more["items"]], more["nextCursor"]
    assert rest == series[96:]


def test_values_are_stored_and_answered_to_four_decimals(client, table):
    # Given readings with more decimals than kept, and a number DynamoDB cannot hold (1e-200: an Underflow)
    sent = [reading(T, temperature=21.123456, pressure=1e-200), reading(T + 1, temperature=-0.00004, pressure=99.99996)]
    # When they are ingested, then they are stored and answered rounded to 4 decimals
    assert ok(ingest(client, sent)) == {"readings": 2, "writes": 2}
    answered_ = ok(client.call("GET", readings_url(T, T + 1)))["items"]
    assert [(r["temperature"], r["pressure"]) for r in answered_] == [(21.1235, 0.0), (0.0, 100.0)]
