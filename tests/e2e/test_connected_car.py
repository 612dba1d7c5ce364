"""ConnectedCar over HTTP on the local runtime: every route, capacity under concurrency, isActive via the stream."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from seeds import connected_car as seed
from tests.support.waiting import eventually

ADMIN = ("admin",)
BASE = "/connected-car"


def unique_vin() -> str:
    alphabet = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"
    number = uuid.uuid4().int
    return "".join(alphabet[(number >> (5 * i)) % len(alphabet)] for i in range(17))


def unique_hour(days_ahead: int = 30) -> str:
    """A timeslot hour no other test uses: a random hour of a far-future day."""
    day = datetime.now(UTC).date() + timedelta(days=days_ahead + uuid.uuid4().int % 3000)
    return f"{day.isoformat()}T{uuid.uuid4().int % 24:02d}"


def active_usernames(api) -> set[str]:
    reply = api.call("GET", f"{BASE}/customers?active=true&limit=100", user="root", groups=ADMIN)
    assert reply.status_code == 200, reply.text
    return {c["username"] for c in reply.json()["items"]}


@pytest.fixture
def customer(api):
    """A fresh customer with a fresh vehicle (admin-created); returns (username, vin)."""
    username = f"driver-{uuid.uuid4().hex[:8]}"
    vin = unique_vin()
    assert api.call("PUT", f"{BASE}/customers/{username}", user=username,
                    json={"name": "Dee River", "email": f"{username}@example.com"}).status_code == 200
    assert api.call("PUT", f"{BASE}/vehicles/{vin}", user="root", groups=ADMIN,
                    json={"make": "Volvo", "model": "V70", "year": 2015}).status_code == 200
    return username, vin


def register(api, username: str, vin: str, status: str) -> None:
    reply = api.call("PUT", f"{BASE}/customers/{username}/registrations/{vin}", user=username,
                     json={"statusCode": status})
    assert reply.status_code == 200, reply.text
    assert reply.json()["statusCode"] == status


def new_timeslot(api, bays: int, dealer: str = "boulder-north") -> str:
    hour = unique_hour()
    reply = api.call("PUT", f"{BASE}/dealers/{dealer}/timeslots/{hour}", user="root", groups=ADMIN,
                     json={"serviceBayCount": bays})
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"dealerId": dealer, "serviceDateHour": hour, "serviceBayCount": bays,
                            "bookedCount": 0, "availableBays": bays}
    return hour


def book(api, username: str, vin: str, hour: str, dealer: str = "boulder-north"):
    return api.call("POST", f"{BASE}/appointments", user=username,
                    json={"dealerId": dealer, "serviceDateHour": hour, "username": username, "vin": vin})


# --- the example data ------------------------------------------------------------------------------------

def test_seeded_registrations_made_alice_and_bob_active_not_carol(api):
    eventually(lambda: {"alice", "bob"} <= active_usernames(api), timeout=5.0)
    assert "carol" not in active_usernames(api)
    alice = api.call("GET", f"{BASE}/customers/alice", user="alice")
    assert alice.status_code == 200 and alice.json()["isActive"] is True


def test_seeded_timeslots_a_week_ahead_with_free_bays(api):
    tomorrow = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    reply = api.call("GET", f"{BASE}/dealers/denver-downtown/timeslots?from={tomorrow}&to={tomorrow}", user="bob")
    assert reply.status_code == 200
    items = reply.json()["items"]
    assert [i["serviceDateHour"] for i in items] == [f"{tomorrow}T{h:02d}" for h in seed.OPENING_HOURS]
    nine = items[0]
    assert (nine["serviceBayCount"], nine["bookedCount"], nine["availableBays"]) == (3, 2, 1)  # alice and bob
    free = api.call("GET", f"{BASE}/dealers/denver-downtown/timeslots?from={tomorrow}&to={tomorrow}&minAvailableBays=3",
                    user="bob").json()["items"]
    assert [i["serviceDateHour"] for i in free] == [f"{tomorrow}T{h:02d}" for h in seed.OPENING_HOURS if h != 9]


# --- the "done when" -------------------------------------------------------------------------------

def test_registering_activates_and_deactivating_the_only_one_deactivates(api, customer):
    username, vin = customer
    assert username not in active_usernames(api)
    register(api, username, vin, "active")
    started = time.monotonic()
    eventually(lambda: username in active_usernames(api), timeout=2.0)
    assert time.monotonic() - started < 2.0
    assert api.call("GET", f"{BASE}/customers/{username}", user=username).json()["isActive"] is True
    register(api, username, vin, "inactive")
    eventually(lambda: username not in active_usernames(api), timeout=2.0)
    assert api.call("GET", f"{BASE}/customers/{username}", user=username).json()["isActive"] is False


def test_two_bays_take_two_bookings_the_third_is_full_and_cancel_frees_one(api, customer):
    username, vin = customer
    register(api, username, vin, "active")
    hour = new_timeslot(api, bays=2)
    first, second, third = (book(api, username, vin, hour) for _ in range(3))
    assert (first.status_code, second.status_code) == (201, 201)
    assert third.status_code == 409 and third.json()["error"]["code"] == "TIMESLOT_FULL"

    appointment = first.json()["appointmentId"]
    assert api.call("GET", f"{BASE}/appointments/{appointment}", user=username).json()["serviceDateHour"] == hour
    assert api.call("DELETE", f"{BASE}/appointments/{appointment}", user=username).status_code == 204
    assert api.call("DELETE", f"{BASE}/appointments/{appointment}", user=username).status_code == 404
    slot = api.call("GET", f"{BASE}/dealers/boulder-north/timeslots?from={hour}&to={hour}", user=username).json()
    assert slot["items"][0]["availableBays"] == 1 and slot["items"][0]["bookedCount"] == 1
    assert book(api, username, vin, hour).status_code == 201


def test_parallel_bookings_never_overbook(api, customer):
    username, vin = customer
    register(api, username, vin, "active")
    bays = 3
    hour = new_timeslot(api, bays=bays)
    with ThreadPoolExecutor(max_workers=3 * bays) as pool:
        replies = list(pool.map(lambda _: book(api, username, vin, hour), range(3 * bays)))
    outcome = Counter(
        r.status_code if r.status_code == 201 else (r.status_code, r.json()["error"]["code"]) for r in replies
    )
    assert outcome == {201: bays, (409, "TIMESLOT_FULL"): 2 * bays}
    listed = api.call("GET", f"{BASE}/dealers/boulder-north/timeslots/{hour}/appointments", user="root", groups=ADMIN)
    assert sorted(a["appointmentId"] for a in listed.json()["items"]) == sorted(
        r.json()["appointmentId"] for r in replies if r.status_code == 201
    )
    slot = api.call("GET", f"{BASE}/dealers/boulder-north/timeslots?from={hour}&to={hour}", user=username).json()
    assert (slot["items"][0]["bookedCount"], slot["items"][0]["availableBays"]) == (bays, 0)


def test_booking_needs_an_active_registration(api, customer):
    username, vin = customer
    hour = new_timeslot(api, bays=1)
    missing = book(api, username, vin, hour)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "REGISTRATION_NOT_FOUND"
    register(api, username, vin, "inactive")
    inactive = book(api, username, vin, hour)
    assert inactive.status_code == 409 and inactive.json()["error"]["code"] == "REGISTRATION_INACTIVE"
    register(api, username, vin, "active")
    unknown = book(api, username, vin, unique_hour())
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "TIMESLOT_NOT_FOUND"


# --- the remaining routes ----------------------------------------------------------------------------------

def test_dealer_vehicle_and_registration_reads(api, customer):
    username, vin = customer
    dealer = f"dealer-{uuid.uuid4().hex[:6]}"
    put = api.call("PUT", f"{BASE}/dealers/{dealer}", user="root", groups=ADMIN, json={"name": "Test Motors"})
    assert put.status_code == 200
    assert api.call("GET", f"{BASE}/dealers/{dealer}", user=username).json() == {
        "dealerId": dealer, "name": "Test Motors", "address": None,
    }
    assert api.call("PUT", f"{BASE}/dealers/{dealer}", user=username, json={"name": "x"}).status_code == 403
    assert api.call("GET", f"{BASE}/vehicles/{vin}", user=username).json()["model"] == "V70"
    register(api, username, vin, "active")
    mine = api.call("GET", f"{BASE}/customers/{username}/registrations", user=username).json()["items"]
    assert [(r["vin"], r["statusCode"]) for r in mine] == [(vin, "active")]
    by_vehicle = api.call("GET", f"{BASE}/vehicles/{vin}/registrations", user="root", groups=ADMIN).json()["items"]
    assert [(r["username"], r["statusCode"]) for r in by_vehicle] == [(username, "active")]
    assert api.call("GET", f"{BASE}/customers/{username}/registrations", user="someone-else").status_code == 403


def test_appointments_of_a_registration_in_time_order(api, customer):
    username, vin = customer
    register(api, username, vin, "active")
    hours = sorted(new_timeslot(api, bays=1) for _ in range(2))
    for hour in reversed(hours):
        assert book(api, username, vin, hour).status_code == 201
    listed = api.call("GET", f"{BASE}/customers/{username}/registrations/{vin}/appointments", user=username)
    assert [a["serviceDateHour"] for a in listed.json()["items"]] == hours


def test_vehicle_events_submitted_and_read_by_owner(api, customer):
    username, vin = customer
    post = api.call("POST", f"{BASE}/vehicles/{vin}/events", user=vin, groups=("vehicle",),
                    json={"type": "error", "code": "P0420", "message": "Catalyst efficiency below threshold"})
    assert post.status_code == 201, post.text
    assert api.call("GET", f"{BASE}/vehicles/{vin}/events", user=username).status_code == 403  # not registered
    register(api, username, vin, "active")
    errors = api.call("GET", f"{BASE}/vehicles/{vin}/events?type=error", user=username)
    assert errors.status_code == 200
    assert [(e["code"], e["type"]) for e in errors.json()["items"]] == [("P0420", "error")]
    assert api.call("GET", f"{BASE}/vehicles/{vin}/events?type=warning", user=username).json()["items"] == []
    assert api.call("POST", f"{BASE}/vehicles/{vin}/events", user=username,
                    json={"type": "error", "code": "X", "message": "y"}).status_code == 403
