"""Measurements over HTTP on the local runtime: the seed's readings, binned ingest, retries, ranges across bins, a
sensor every 10 ms."""

from __future__ import annotations

import time
import uuid

from functions.measurements.schema import BIN_MS, RETENTION_SECONDS, bin_of
from seeds import measurements as seed

ADMIN = ("admin",)
DAY = 86400


def readings_of(api, device: str, first: int, last: int, limit: int = 100) -> tuple[list[dict], int]:
    """Every reading of the range, page by page; and how many pages it took."""
    items, cursor, pages = [], None, 0
    while True:
        params = {"from": first, "to": last, "limit": limit, **({"cursor": cursor} if cursor else {})}
        reply = api.call("GET", f"/measurements/devices/{device}/readings", params=params)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        items += body["items"]
        pages += 1
        if body["nextCursor"] is None:
            return items, pages
        cursor = body["nextCursor"]


def test_the_seeds_device_1_readings_are_served_moved_to_yesterday(api):
    now = int(time.time())
    items, _ = readings_of(api, seed.DEVICE, now - 2 * DAY, now)  # yesterday as of the load (the suite may span 0:00)
    day = items[0]["epoch"] - items[0]["epoch"] % DAY
    assert day in (now - now % DAY - DAY, now - now % DAY - 2 * DAY)
    first, second = (day + epoch % DAY for epoch in seed.SEED_EPOCHS)  # 06:38:52 and 06:40:27 UTC
    assert items[:2] == [
        {"deviceId": "1", "epoch": first, "epochMs": first * 1000, "temperature": 30.0, "pressure": 90.0},
        {"deviceId": "1", "epoch": second, "epochMs": second * 1000, "temperature": 30.0, "pressure": 90.0},
    ]
    assert len(items) == 2 + seed.EXTRA_COUNT
    assert len({bin_of(r["epochMs"]) for r in items}) == 5


def test_ingest_retry_and_a_range_across_bins_in_order_and_by_pages(api):
    device = f"sensor-{uuid.uuid4().hex[:8]}"
    now = int(time.time())
    start = now - 3600
    times = [start + i * 15 for i in range(80)]  # one reading every 15 s: a bin each
    batch = {"readings": [{"deviceId": device, "epoch": t, "temperature": 20 + i % 7, "pressure": 1000 + i}
                          for i, t in enumerate(reversed(times))]}  # sent newest first: served in time order anyway
    reply = api.call("POST", "/measurements/readings", user="pipeline", groups=ADMIN, json=batch)
    assert (reply.status_code, reply.json()) == (200, {"readings": 80, "writes": 80})
    # the pipeline retries the same batch (its first answer was lost): nothing doubles
    retry = api.call("POST", "/measurements/readings", user="pipeline", groups=ADMIN, json=batch)
    assert (retry.status_code, retry.json()) == (200, {"readings": 80, "writes": 80})
    items, pages = readings_of(api, device, start, now)
    assert [r["epoch"] for r in items] == times
    # by pages of 7, over a range that starts and ends between readings: each reading once, in order
    first, last = start + 100, start + 1000
    items, pages = readings_of(api, device, first, last, limit=7)
    expected = [t for t in times if first <= t <= last]
    assert [r["epoch"] for r in items] == expected and pages == -(-len(expected) // 7)


def test_a_sensor_reporting_every_10_ms_is_served_every_reading(api):
    device = f"sensor-{uuid.uuid4().hex[:8]}"
    start = (int(time.time()) - 600) * 1000  # ten minutes ago, a whole second (a multiple of 400 ms every 2 s)
    start -= start % (5 * BIN_MS)
    times = [start + i * 10 for i in range(500)]  # 5 seconds of a reading every 10 ms: 12.5 bins of 40
    batch = {"readings": [{"deviceId": device, "epochMs": t, "temperature": 20 + i % 10, "pressure": 1000}
                          for i, t in enumerate(times)]}
    reply = api.call("POST", "/measurements/readings", user="pipeline", groups=ADMIN, json=batch)
    assert (reply.status_code, reply.json()) == (200, {"readings": 500, "writes": 13})
    items, pages = readings_of(api, device, start // 1000, start // 1000 + 4, limit=100)
    assert [r["epochMs"] for r in items] == times and pages == 5
    assert all(r["epoch"] == r["epochMs"] // 1000 for r in items)
    # a page ending inside a bin resumes at the next millisecond: pages of 33 lose and repeat nothing
    items, pages = readings_of(api, device, start // 1000 + 1, start // 1000 + 2, limit=33)
    assert [r["epochMs"] for r in items] == [t for t in times if start + 1000 <= t < start + 3000] and pages == 7


def test_only_admins_ingest_and_stale_readings_are_refused(api):
    reading = {"deviceId": "1", "epoch": int(time.time()), "temperature": 30, "pressure": 90}
    reply = api.call("POST", "/measurements/readings", user="alice", json={"readings": [reading]})
    assert (reply.status_code, reply.json()["error"]["code"]) == (403, "FORBIDDEN")
    stale = {**reading, "epoch": int(time.time()) - RETENTION_SECONDS - 60}
    reply = api.call("POST", "/measurements/readings", user="pipeline", groups=ADMIN, json={"readings": [stale]})
    assert (reply.status_code, reply.json()["error"]["code"]) == (409, "READING_OUT_OF_RANGE")
    both = {**reading, "epochMs": reading["epoch"] * 1000}
    reply = api.call("POST", "/measurements/readings", user="pipeline", groups=ADMIN, json={"readings": [both]})
    assert (reply.status_code, reply.json()["error"]["code"]) == (400, "VALIDATION_FAILED")
    assert api.call("GET", "/measurements/devices/1/readings?from=0&to=1", user=None).status_code == 401
