"""ConnectedCar API: handler → service → repository on moto, fed API Gateway REST events."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from functions.connected_car import api
from functions.connected_car.models import Appointment, AppointmentIn, Dealer, Vehicle
from functions.connected_car.schema import (
    APPOINTMENT_TABLE,
    CUSTOMER_TABLE,
    EVENT_TABLE,
    REGISTRATION_TABLE,
    TIMESLOT_TABLE,
    VEHICLE_EVENT_TYPE_INDEX,
    VEHICLE_TABLE,
)
from functions.shared.domain import load
from functions.shared.errors import ConflictError, NotFoundError
from functions.shared.settings import settings
from tests.functional.conftest import error, ok
from tests.functional.connected_car_support import (  # noqa: F401 (client, tables: shared fixtures)
    ADMIN,
    DEALER,
    HOUR,
    PREFIX,
    VEHICLE,
    VIN,
    VIN2,
    VIN3,
    VIN4,
    Clock,
    client,
    connected_car_client,
    make_tables,
    raw_item,
    table_items,
    tables,
    use_clock,
    utc,
)

ROUTES = load("connected_car").routes

T0 = utc(2026, 12, 1, 9)


@pytest.fixture
def clock(tables) -> Clock:
    """The API's clock, at T0 until the test moves it."""
    clock = Clock(T0)
    with pytest.MonkeyPatch.context() as patch:  # undone before `tables` clears api.service
        use_clock(patch, clock)
        yield clock


@pytest.fixture
def garage(client):
    """Dealer denver-1 with a 2-bay timeslot; alice (VIN, active), bob (VIN2, active), carol (VIN3, inactive).

    Seeded through the service, as the routes tested here write them, without an API round trip each."""
    service = api.service()
    service.repository.put_dealer(Dealer(dealer_id=DEALER, name="Denver Motors", address="1 Main St"))
    service.repository.put_timeslot(DEALER, HOUR, 2)
    for user in ("alice", "bob", "carol"):
        service.repository.put_customer(user, user.title(), f"{user}@example.com")
    for vin in (VIN, VIN2, VIN3):
        service.repository.put_vehicle(Vehicle(vin=vin, make="Honda", model="Accord", year=2003))
    for user, vin, status in (("alice", VIN, "active"), ("bob", VIN2, "active"), ("carol", VIN3, "inactive")):
        service.register(user, vin, status)
    return client


def snapshot(tables: dict[str, str]) -> dict[str, list[str]]:
    """Every item of every table, comparable."""
    return {
        env: sorted(json.dumps(item, default=str, sort_keys=True) for item in table_items(name))
        for env, name in tables.items()
    }


def timeslot_counts(tables, hour: str = HOUR, dealer: str = DEALER) -> tuple[int, int, int]:
    item = raw_item(tables[TIMESLOT_TABLE.env_var], {"dealerId": dealer, "serviceDateHour": hour})
    return int(item["serviceBayCount"]), int(item["bookedCount"]), int(item["availableBays"])


def book(client, username: str = "alice", vin: str = VIN, hour: str = HOUR, dealer: str = DEALER, **kwargs):
    body = {"dealerId": dealer, "serviceDateHour": hour, "username": username, "vin": vin}
    return client.call("POST", f"{PREFIX}/appointments", body=body, **{"user": username, **kwargs})


def appointment_ids(tables) -> list[str]:
    return sorted(item["appointmentId"] for item in table_items(tables[APPOINTMENT_TABLE.env_var]))


def put_timeslot(client, hour: str, bays: int, dealer: str = DEALER):
    return client.call("PUT", f"{PREFIX}/dealers/{dealer}/timeslots/{hour}", body={"serviceBayCount": bays}, groups=ADMIN)


# --- dealers, vehicles, customers ----------------------------------------------------------------------

def test_admin_puts_dealers_and_vehicles_and_anyone_signed_in_reads_them(client):
    created = client.call("PUT", f"{PREFIX}/dealers/{DEALER}", body={"name": " Denver Motors "}, groups=ADMIN)
    assert ok(created) == {"dealerId": DEALER, "name": "Denver Motors", "address": None}
    replaced = client.call("PUT", f"{PREFIX}/dealers/{DEALER}", body={"name": "Denver Motors", "address": "1 Main St"}, groups=ADMIN)
    assert ok(replaced) == {"dealerId": DEALER, "name": "Denver Motors", "address": "1 Main St"}
    assert ok(client.call("GET", f"{PREFIX}/dealers/{DEALER}", user="bob")) == replaced.body
    refused = client.call("PUT", f"{PREFIX}/dealers/{DEALER}", body={"name": "Mine now"}, user="bob")
    assert error(refused) == (403, "FORBIDDEN")
    assert ok(client.call("GET", f"{PREFIX}/dealers/{DEALER}"))["name"] == "Denver Motors"
    assert error(client.call("GET", f"{PREFIX}/dealers/nowhere")) == (404, "DEALER_NOT_FOUND")

    vehicle = {"make": "Honda", "model": "Accord", "year": 2003}
    assert ok(client.call("PUT", f"{PREFIX}/vehicles/{VIN}", body=vehicle, groups=ADMIN)) == {"vin": VIN, **vehicle}
    assert ok(client.call("GET", f"{PREFIX}/vehicles/{VIN}", user="bob")) == {"vin": VIN, **vehicle}
    assert error(client.call("PUT", f"{PREFIX}/vehicles/{VIN2}", body=vehicle, user="bob")) == (403, "FORBIDDEN")
    assert error(client.call("GET", f"{PREFIX}/vehicles/{VIN2}")) == (404, "VEHICLE_NOT_FOUND")


def test_customer_is_written_and_read_by_self_or_admin(client):
    mine = client.call("PUT", f"{PREFIX}/customers/alice", body={"name": "Alice", "email": "alice@example.com"}, user="alice")
    assert ok(mine) == {"username": "alice", "name": "Alice", "email": "alice@example.com", "isActive": False}
    by_admin = client.call("PUT", f"{PREFIX}/customers/alice", body={"name": "Alice B", "email": "ab@example.com"}, user="root", groups=ADMIN)
    assert ok(by_admin) == {"username": "alice", "name": "Alice B", "email": "ab@example.com", "isActive": False}
    assert ok(client.call("GET", f"{PREFIX}/customers/alice", user="alice")) == by_admin.body
    assert ok(client.call("GET", f"{PREFIX}/customers/alice", user="root", groups=ADMIN)) == by_admin.body
    other_put = client.call("PUT", f"{PREFIX}/customers/alice", body={"name": "Eve", "email": "eve@example.com"}, user="eve")
    assert error(other_put) == (403, "FORBIDDEN")
    assert error(client.call("GET", f"{PREFIX}/customers/alice", user="eve")) == (403, "FORBIDDEN")
    assert ok(client.call("GET", f"{PREFIX}/customers/alice"))["name"] == "Alice B"
    assert error(client.call("GET", f"{PREFIX}/customers/nobody", user="root", groups=ADMIN)) == (404, "CUSTOMER_NOT_FOUND")
    assert error(client.call("GET", f"{PREFIX}/customers/nobody", user="nobody")) == (404, "CUSTOMER_NOT_FOUND")


# --- auth on every route -------------------------------------------------------------------------------

def concrete(path: str) -> str:
    return (path.replace("{dealerId}", DEALER).replace("{serviceDateHour}", HOUR).replace("{username}", "bob")
            .replace("{vin}", VIN2).replace("{appointmentId}", "some-id"))


def test_every_route_needs_a_signed_in_caller(garage, tables, subtests):
    before = snapshot(tables)
    for route in ROUTES:
        with subtests.test(route=f"{route.method} {route.path}"):
            body = {"name": "x"} if route.method in ("PUT", "POST") else None
            reply = garage.call(route.method, concrete(route.path), body=body, user=None)
            assert error(reply) == (401, "UNAUTHORIZED")
    assert snapshot(tables) == before


def test_admin_routes_refuse_others_and_self_routes_refuse_another_user(garage, tables, subtests):
    appointment = ok(book(garage, "bob", VIN2), 201)["appointmentId"]
    before = snapshot(tables)
    refused = [
        # admin only
        ("PUT", f"{PREFIX}/dealers/{DEALER}", {"name": "Mine"}),
        ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}", {"serviceBayCount": 9}),
        ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}/appointments", None),
        ("GET", f"{PREFIX}/customers?active=true", None),
        ("PUT", f"{PREFIX}/vehicles/{VIN4}", {"make": "Tesla", "model": "S", "year": 2017}),
        ("GET", f"{PREFIX}/vehicles/{VIN2}/registrations", None),
        # the customer themself or an admin
        ("PUT", f"{PREFIX}/customers/bob", {"name": "Bob", "email": "evil@example.com"}),
        ("GET", f"{PREFIX}/customers/bob", None),
        ("PUT", f"{PREFIX}/customers/bob/registrations/{VIN2}", {"statusCode": "inactive"}),
        ("GET", f"{PREFIX}/customers/bob/registrations", None),
        ("GET", f"{PREFIX}/customers/bob/registrations/{VIN2}/appointments", None),
        ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": HOUR, "username": "bob", "vin": VIN2}),
        ("GET", f"{PREFIX}/appointments/{appointment}", None),
        ("DELETE", f"{PREFIX}/appointments/{appointment}", None),
        # vehicles (group vehicle) and admins only
        ("POST", f"{PREFIX}/vehicles/{VIN}/events", {"type": "error", "code": "P0300", "message": "misfire"}),
    ]
    for method, url, body in refused:
        with subtests.test(route=f"{method} {url}"):
            assert error(garage.call(method, url, body=body, user="alice", groups=("staff",))) == (403, "FORBIDDEN")
    assert snapshot(tables) == before
    assert timeslot_counts(tables) == (2, 1, 1)


INVALID = [
    ("PUT", f"{PREFIX}/dealers/bad.id", {"name": "x"}, "path.dealerId"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}", {"name": "x", "phone": "555"}, "body.phone"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}", {"name": "  "}, "body.name"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}", {"serviceBayCount": 0}, "body.serviceBayCount"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}", {"serviceBayCount": 101}, "body.serviceBayCount"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}", {"serviceBayCount": "2"}, "body.serviceBayCount"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}", {"serviceBayCount": 2, "bookedCount": 0}, "body.bookedCount"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/2026-02-30T09", {"serviceBayCount": 2}, "path.serviceDateHour"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/2026-12-01T24", {"serviceBayCount": 2}, "path.serviceDateHour"),
    ("PUT", f"{PREFIX}/dealers/{DEALER}/timeslots/2026-12-01", {"serviceBayCount": 2}, "path.serviceDateHour"),
    ("PUT", f"{PREFIX}/customers/dave", {"name": "Dave", "email": "not-an-email"}, "body.email"),
    ("PUT", f"{PREFIX}/customers/dave", {"name": "Dave", "email": "d@example.com", "isActive": True}, "body.isActive"),
    ("PUT", f"{PREFIX}/customers/da%23ve", {"name": "Dave", "email": "d@example.com"}, "path.username"),
    ("PUT", f"{PREFIX}/vehicles/1HGCM82633A00435I", {"make": "Honda", "model": "Accord", "year": 2003}, "path.vin"),
    ("PUT", f"{PREFIX}/vehicles/1HGCM82633A00435", {"make": "Honda", "model": "Accord", "year": 2003}, "path.vin"),
    ("PUT", f"{PREFIX}/vehicles/{VIN4}", {"make": "Honda", "model": "Accord", "year": "2003"}, "body.year"),
    ("PUT", f"{PREFIX}/customers/alice/registrations/{VIN}", {"statusCode": "pending"}, "body.statusCode"),
    ("PUT", f"{PREFIX}/customers/alice/registrations/{VIN}", {}, "body.statusCode"),
    ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": HOUR, "username": "alice", "vin": "1HGCM82633A00435O"}, "body.vin"),
    ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": "2026-02-30T09", "username": "alice", "vin": VIN}, "body.serviceDateHour"),
    ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": "2026-12-01T24", "username": "alice", "vin": VIN}, "body.serviceDateHour"),
    ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": "2026-12-1T9", "username": "alice", "vin": VIN}, "body.serviceDateHour"),
    ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": HOUR, "username": "alice", "vin": VIN, "bay": 1}, "body.bay"),
    ("POST", f"{PREFIX}/appointments", {"dealerId": DEALER, "serviceDateHour": HOUR, "vin": VIN}, "body.username"),
    ("POST", f"{PREFIX}/vehicles/{VIN}/events", {"type": "info", "code": "P0300", "message": "m"}, "body.type"),
    ("POST", f"{PREFIX}/vehicles/{VIN}/events", {"type": "error", "code": "", "message": "m"}, "body.code"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-02-30T09", None, "query.from"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?to=2026-12-01T24", None, "query.to"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-1T9", None, "query.from"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-W48-1", None, "query.from"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?minAvailableBays=0", None, "query.minAvailableBays"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?limit=0", None, "query.limit"),
    ("GET", f"{PREFIX}/dealers/{DEALER}/timeslots/2026-02-30T09/appointments", None, "path.serviceDateHour"),
    ("GET", f"{PREFIX}/customers?active=false", None, "query.active"),
    ("GET", f"{PREFIX}/customers", None, "query.active"),
    ("GET", f"{PREFIX}/vehicles/{VIN}/events?from=yesterday", None, "query.from"),
    ("GET", f"{PREFIX}/vehicles/{VIN}/events?type=info", None, "query.type"),
]


# `from` after `to`: docs/connected-car.md says 400 VALIDATION_FAILED naming both fields (a day `to` ends at its last
# hour and a day `from` starts at its first: the bounds are compared as the range they name).
REVERSED = [
    f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-02&to=2026-12-01",
    f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01T10&to=2026-12-01T09",
    f"{PREFIX}/vehicles/{VIN}/events?from=2026-12-02&to=2026-12-01",
    f"{PREFIX}/vehicles/{VIN}/events?from=2026-12-01T10:00:00Z&to=2026-12-01T09:59:59.5Z",
]


def test_a_reversed_range_is_400_naming_both_fields(garage, subtests):
    for url in REVERSED:
        with subtests.test(url=url):
            reply = garage.call("GET", url, user="root", groups=ADMIN)
            assert error(reply) == (400, "VALIDATION_FAILED"), reply.body
            assert [d["field"] for d in reply.body["error"]["details"]] == ["query.from", "query.to"]
    # a day and an hour inside it are in order: the day's first hour is not after 10:00
    same_day = f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01&to=2026-12-01T10"
    assert garage.call("GET", same_day, user="root", groups=ADMIN).status == 200


def test_invalid_input_is_400_naming_the_field_and_writes_nothing(garage, tables, subtests):
    before = snapshot(tables)
    for method, url, body, field in INVALID:
        with subtests.test(request=f"{method} {url} {body}"):
            reply = garage.call(method, url, body=body, user="root", groups=ADMIN)
            assert error(reply) == (400, "VALIDATION_FAILED"), reply.body
            assert [detail["field"] for detail in reply.body["error"]["details"]] == [field]
    assert snapshot(tables) == before


# --- timeslots and capacity ----------------------------------------------------------------------------

def test_a_timeslot_takes_as_many_bookings_as_bays_and_no_more(garage, tables):
    first = book(garage, "alice", VIN)
    second = book(garage, "bob", VIN2)
    assert ok(first, 201)["timeslotKey"] == f"{DEALER}#{HOUR}"
    assert ok(second, 201)["registrationKey"] == f"bob#{VIN2}"
    assert timeslot_counts(tables) == (2, 2, 0)
    before = snapshot(tables)
    third = book(garage, "alice", VIN)
    assert error(third) == (409, "TIMESLOT_FULL")
    assert snapshot(tables) == before
    listed = ok(garage.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}/appointments", user="root", groups=ADMIN))
    assert sorted(a["appointmentId"] for a in listed["items"]) == sorted([first.body["appointmentId"], second.body["appointmentId"]])
    assert listed["nextCursor"] is None


def test_booking_is_one_conditioned_transaction(garage, calls):
    # The rule is DynamoDB's, not a read-then-write of ours: one TransactWriteItems checks the registration,
    # takes a bay only if one is free, and stores the appointment.
    calls.clear()
    ok(book(garage), 201)
    assert calls.names() == ["TransactWriteItems"]
    (params, _), = calls.of("TransactWriteItems")
    check, take, put = params["TransactItems"]
    assert check["ConditionCheck"]["ConditionExpression"] == "statusCode = :active"
    assert take["Update"]["ConditionExpression"] == "attribute_exists(dealerId) AND availableBays > :zero"
    assert put["Put"]["Item"]["timeslotKey"] == {"S": f"{DEALER}#{HOUR}"}


def test_cancel_frees_the_bay_once(garage, tables):
    appointment = ok(book(garage, "alice", VIN), 201)
    ok(book(garage, "bob", VIN2), 201)
    assert timeslot_counts(tables) == (2, 2, 0)
    url = f"{PREFIX}/appointments/{appointment['appointmentId']}"
    cancelled = garage.call("DELETE", url, user="alice")
    assert (cancelled.status, cancelled.body) == (204, None)
    assert timeslot_counts(tables) == (2, 1, 1)
    again = garage.call("DELETE", url, user="alice")
    assert error(again) == (404, "APPOINTMENT_NOT_FOUND")
    assert timeslot_counts(tables) == (2, 1, 1)
    assert error(garage.call("GET", url, user="alice")) == (404, "APPOINTMENT_NOT_FOUND")
    # a cancel that read the appointment before the first one deleted it (a concurrent cancel) frees nothing
    stale = Appointment.model_validate(appointment)
    with pytest.raises(NotFoundError) as refused:
        api.service().repository.cancel(stale)
    assert refused.value.code == "APPOINTMENT_NOT_FOUND"
    assert timeslot_counts(tables) == (2, 1, 1)
    # the freed bay can be booked again, and only it
    again = ok(book(garage, "alice", VIN), 201)
    assert error(book(garage, "alice", VIN)) == (409, "TIMESLOT_FULL")
    assert timeslot_counts(tables) == (2, 2, 0)
    # another customer may not cancel it; an admin may
    url = f"{PREFIX}/appointments/{again['appointmentId']}"
    assert error(garage.call("DELETE", url, user="bob")) == (403, "FORBIDDEN")
    assert timeslot_counts(tables) == (2, 2, 0)
    assert garage.call("DELETE", url, user="root", groups=ADMIN).status == 204
    assert timeslot_counts(tables) == (2, 1, 1)
    assert len(appointment_ids(tables)) == 1


def test_admin_puts_a_timeslot_and_changing_its_bay_count_keeps_the_bookings(garage, tables):
    created = put_timeslot(garage, "2026-12-01T10", 3)
    assert ok(created) == {"dealerId": DEALER, "serviceDateHour": "2026-12-01T10", "serviceBayCount": 3, "bookedCount": 0, "availableBays": 3}
    assert error(put_timeslot(garage, HOUR, 2, dealer="nowhere")) == (404, "DEALER_NOT_FOUND")
    assert sorted((t["dealerId"], t["serviceDateHour"]) for t in table_items(tables[TIMESLOT_TABLE.env_var])) == [
        (DEALER, HOUR), (DEALER, "2026-12-01T10"),
    ]
    ok(book(garage, "alice", VIN), 201)
    ok(book(garage, "bob", VIN2), 201)
    raised = put_timeslot(garage, HOUR, 4)
    assert ok(raised) == {"dealerId": DEALER, "serviceDateHour": HOUR, "serviceBayCount": 4, "bookedCount": 2, "availableBays": 2}
    assert ok(put_timeslot(garage, HOUR, 2))["availableBays"] == 0
    before = snapshot(tables)
    too_few = put_timeslot(garage, HOUR, 1)
    assert error(too_few) == (409, "BAYS_IN_USE")
    assert snapshot(tables) == before
    assert len(appointment_ids(tables)) == 2
    # after a cancellation the count may come down to what is booked
    first = appointment_ids(tables)[0]
    owner = raw_item(tables[APPOINTMENT_TABLE.env_var], {"appointmentId": first})["username"]
    assert garage.call("DELETE", f"{PREFIX}/appointments/{first}", user=owner).status == 204
    assert ok(put_timeslot(garage, HOUR, 1)) == {
        "dealerId": DEALER, "serviceDateHour": HOUR, "serviceBayCount": 1, "bookedCount": 1, "availableBays": 0,
    }
    assert error(book(garage, "alice", VIN)) == (409, "TIMESLOT_FULL")


def test_a_days_timeslots_are_one_transaction_all_or_nothing(garage, tables, calls):
    # put_timeslots: how the example data opens a day (seeds/connected_car.py), under put_timeslot's rules
    repository = api.service().repository
    day = [f"2026-12-02T{hour:02d}" for hour in range(9, 17)]
    calls.clear()
    repository.put_timeslots(DEALER, day, 3)
    assert calls.names() == ["TransactWriteItems"]
    assert [timeslot_counts(tables, hour) for hour in day] == [(3, 0, 3)] * 8
    ok(book(garage, "alice", VIN, hour=day[5]), 201)
    before = snapshot(tables)
    with pytest.raises(ConflictError, match=f"booked at {day[5]}") as refused:
        repository.put_timeslots(DEALER, day, 0)  # day[5] has a booking: no timeslot of the day changes
    assert refused.value.code == "BAYS_IN_USE"
    with pytest.raises(NotFoundError) as unknown:
        repository.put_timeslots("nowhere", day, 3)
    assert unknown.value.code == "DEALER_NOT_FOUND"
    assert snapshot(tables) == before
    for wrong in ([f"2026-12-{d:02d}T{h:02d}" for d in range(3, 8) for h in range(20)], [], day[0], [day[0]] * 2):
        with pytest.raises(ValueError):  # over 99, none, a bare string, twice the same
            repository.put_timeslots(DEALER, wrong, 3)


REFUSED_BOOKINGS = [
    ("alice", VIN2, HOUR, DEALER, (404, "REGISTRATION_NOT_FOUND")),  # bob's car, never registered to alice
    ("carol", VIN3, HOUR, DEALER, (409, "REGISTRATION_INACTIVE")),
    ("alice", VIN, "2026-12-01T10", DEALER, (404, "TIMESLOT_NOT_FOUND")),
    ("alice", VIN, HOUR, "nowhere", (404, "TIMESLOT_NOT_FOUND")),
]


def test_a_refused_booking_writes_nothing(garage, tables, subtests):
    before = snapshot(tables)
    for username, vin, hour, dealer, expected in REFUSED_BOOKINGS:
        with subtests.test(booking=(username, vin, hour, dealer)):
            assert error(book(garage, username, vin, hour, dealer)) == expected
            assert snapshot(tables) == before
            assert timeslot_counts(tables) == (2, 0, 2)
    # booking follows the registration's status
    registration = f"{PREFIX}/customers/alice/registrations/{VIN}"
    ok(garage.call("PUT", registration, body={"statusCode": "inactive"}, user="alice"))
    assert error(book(garage)) == (409, "REGISTRATION_INACTIVE")
    assert timeslot_counts(tables) == (2, 0, 2)
    ok(garage.call("PUT", registration, body={"statusCode": "active"}, user="alice"))
    assert ok(book(garage), 201)["username"] == "alice"
    assert timeslot_counts(tables) == (2, 1, 1)


# --- idempotent booking --------------------------------------------------------------------------------

def test_a_retried_booking_returns_the_same_appointment_and_takes_one_bay(garage, tables):
    ok(put_timeslot(garage, HOUR, 1))
    key = {"Idempotency-Key": "book-alice-1"}
    first = book(garage, headers=key)
    retry = book(garage, headers=key)
    assert ok(first, 201) == ok(retry, 201)
    assert timeslot_counts(tables) == (1, 1, 0)
    assert appointment_ids(tables) == [first.body["appointmentId"]]
    # a new key is a new booking: the only bay is taken
    assert error(book(garage, headers={"Idempotency-Key": "book-alice-2"})) == (409, "TIMESLOT_FULL")
    # the same key for another booking is refused, not served the first answer
    other = book(garage, "bob", VIN2, user="alice", groups=ADMIN, headers=key)
    assert error(other) == (409, "IDEMPOTENCY_KEY_REUSED")
    assert timeslot_counts(tables) == (1, 1, 0)


def test_a_refused_booking_is_not_remembered_under_its_key(garage, tables):
    key = {"Idempotency-Key": "book-carol"}
    assert error(book(garage, "carol", VIN3, headers=key)) == (409, "REGISTRATION_INACTIVE")
    ok(garage.call("PUT", f"{PREFIX}/customers/carol/registrations/{VIN3}", body={"statusCode": "active"}, user="carol"))
    booked = book(garage, "carol", VIN3, headers=key)
    assert ok(booked, 201)["username"] == "carol"
    assert ok(book(garage, "carol", VIN3, headers=key), 201) == booked.body
    assert timeslot_counts(tables) == (2, 1, 1)


# --- reading appointments ------------------------------------------------------------------------------

def test_appointment_is_read_by_its_customer_or_an_admin(garage, clock):
    booked = ok(book(garage), 201)
    assert booked == {
        "appointmentId": booked["appointmentId"], "dealerId": DEALER, "serviceDateHour": HOUR, "username": "alice",
        "vin": VIN, "timeslotKey": f"{DEALER}#{HOUR}", "registrationKey": f"alice#{VIN}",
        "createdAt": "2026-12-01T09:00:00Z",
    }
    url = f"{PREFIX}/appointments/{booked['appointmentId']}"
    assert ok(garage.call("GET", url, user="alice")) == booked
    assert ok(garage.call("GET", url, user="root", groups=ADMIN)) == booked
    assert error(garage.call("GET", url, user="bob")) == (403, "FORBIDDEN")
    assert error(garage.call("GET", f"{PREFIX}/appointments/nope", user="root", groups=ADMIN)) == (404, "APPOINTMENT_NOT_FOUND")
    for_bob = ok(book(garage, "bob", VIN2, user="root", groups=ADMIN), 201)  # an admin books for a customer
    assert ok(garage.call("GET", f"{PREFIX}/appointments/{for_bob['appointmentId']}", user="bob")) == for_bob


def test_appointments_of_a_timeslot_are_for_admins(garage):
    url = f"{PREFIX}/dealers/{DEALER}/timeslots/{HOUR}/appointments"
    assert ok(garage.call("GET", url, user="root", groups=ADMIN)) == {"items": [], "nextCursor": None}
    ids = sorted(ok(book(garage, user, vin), 201)["appointmentId"] for user, vin in (("alice", VIN), ("bob", VIN2)))
    first = ok(garage.call("GET", url + "?limit=1", user="root", groups=ADMIN))
    rest = ok(garage.call("GET", url + f"?limit=1&cursor={first['nextCursor']}", user="root", groups=ADMIN))
    assert sorted(a["appointmentId"] for a in first["items"] + rest["items"]) == ids
    assert error(garage.call("GET", url, user="alice")) == (403, "FORBIDDEN")
    unknown = garage.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots/2026-12-01T10/appointments", user="root", groups=ADMIN)
    assert error(unknown) == (404, "TIMESLOT_NOT_FOUND")


def test_appointments_of_a_registration_are_for_its_customer_or_an_admin(garage, tables):
    url = f"{PREFIX}/customers/alice/registrations/{VIN}/appointments"
    assert ok(garage.call("GET", url, user="alice")) == {"items": [], "nextCursor": None}
    ok(put_timeslot(garage, "2026-12-01T08", 1))
    later = ok(book(garage, hour=HOUR), 201)
    earlier = ok(book(garage, hour="2026-12-01T08"), 201)
    ok(book(garage, "bob", VIN2), 201)
    listed = ok(garage.call("GET", url, user="alice"))
    assert listed == {"items": [earlier, later], "nextCursor": None}  # in service time order, alice's only
    assert ok(garage.call("GET", url, user="root", groups=ADMIN)) == listed
    assert error(garage.call("GET", url, user="bob")) == (403, "FORBIDDEN")
    unregistered = garage.call("GET", f"{PREFIX}/customers/alice/registrations/{VIN2}/appointments", user="alice")
    assert error(unregistered) == (404, "REGISTRATION_NOT_FOUND")


# --- registrations -------------------------------------------------------------------------------------

def test_registration_is_written_by_self_or_admin_and_needs_customer_and_vehicle(garage, tables, clock):
    ok(garage.call("PUT", f"{PREFIX}/vehicles/{VIN4}", body={"make": "Tesla", "model": "S", "year": 2017}, groups=ADMIN))
    assert raw_item(tables[CUSTOMER_TABLE.env_var], {"username": "alice"})["regVersion"] == 1
    url = f"{PREFIX}/customers/alice/registrations/{VIN4}"
    mine = garage.call("PUT", url, body={"statusCode": "active"}, user="alice")
    assert ok(mine) == {"username": "alice", "vin": VIN4, "statusCode": "active", "updatedAt": "2026-12-01T09:00:00Z"}
    clock.advance(hours=1)
    by_admin = garage.call("PUT", url, body={"statusCode": "inactive"}, user="root", groups=ADMIN)
    assert ok(by_admin) == {"username": "alice", "vin": VIN4, "statusCode": "inactive", "updatedAt": "2026-12-01T10:00:00Z"}
    stored = raw_item(tables[REGISTRATION_TABLE.env_var], {"username": "alice", "vin": VIN4})
    assert (stored["statusCode"], stored["createdAt"], stored["updatedAt"]) == (
        "inactive", "2026-12-01T09:00:00+00:00", "2026-12-01T10:00:00+00:00",
    )
    # every registration write bumps the customer's regVersion (the isActive consumer's race guard)
    customers = tables[CUSTOMER_TABLE.env_var]
    assert [raw_item(customers, {"username": u})["regVersion"] for u in ("alice", "bob")] == [3, 1]
    before = snapshot(tables)
    assert error(garage.call("PUT", url, body={"statusCode": "active"}, user="bob")) == (403, "FORBIDDEN")
    no_vehicle = garage.call("PUT", f"{PREFIX}/customers/alice/registrations/{VIN4[:-1]}9", body={"statusCode": "active"}, user="alice")
    assert error(no_vehicle) == (404, "VEHICLE_NOT_FOUND")
    no_customer = garage.call("PUT", f"{PREFIX}/customers/dave/registrations/{VIN4}", body={"statusCode": "active"}, user="dave")
    assert error(no_customer) == (404, "CUSTOMER_NOT_FOUND")
    assert snapshot(tables) == before  # neither a registration nor a regVersion bump


def test_a_vehicle_has_at_most_one_active_registration(garage, tables):
    url = f"{PREFIX}/customers/bob/registrations/{VIN}"  # VIN is alice's, active
    before = snapshot(tables)
    assert error(garage.call("PUT", url, body={"statusCode": "active"}, user="bob")) == (409, "VEHICLE_ALREADY_REGISTERED")
    assert snapshot(tables) == before  # no registration, no regVersion bump
    # an inactive registration by another customer does not release alice's hold
    ok(garage.call("PUT", url, body={"statusCode": "inactive"}, user="bob"))
    assert raw_item(tables[VEHICLE_TABLE.env_var], {"vin": VIN})["activeUsername"] == "alice"
    assert error(garage.call("PUT", url, body={"statusCode": "active"}, user="bob")) == (409, "VEHICLE_ALREADY_REGISTERED")
    # describing the vehicle again keeps the hold; alice deactivating releases it
    ok(garage.call("PUT", f"{PREFIX}/vehicles/{VIN}", body={"make": "Honda", "model": "Civic", "year": 2004}, groups=ADMIN))
    assert raw_item(tables[VEHICLE_TABLE.env_var], {"vin": VIN})["activeUsername"] == "alice"
    ok(garage.call("PUT", f"{PREFIX}/customers/alice/registrations/{VIN}", body={"statusCode": "inactive"}, user="alice"))
    assert "activeUsername" not in raw_item(tables[VEHICLE_TABLE.env_var], {"vin": VIN})
    assert ok(garage.call("PUT", url, body={"statusCode": "active"}, user="bob"))["statusCode"] == "active"
    assert raw_item(tables[VEHICLE_TABLE.env_var], {"vin": VIN})["activeUsername"] == "bob"


def test_registrations_of_a_customer_and_of_a_vehicle(garage):
    ok(garage.call("PUT", f"{PREFIX}/customers/alice/registrations/{VIN2}", body={"statusCode": "inactive"}, user="alice"))
    of_alice = ok(garage.call("GET", f"{PREFIX}/customers/alice/registrations", user="alice"))
    assert [(r["vin"], r["statusCode"]) for r in of_alice["items"]] == sorted([(VIN, "active"), (VIN2, "inactive")])
    assert of_alice["nextCursor"] is None
    page = ok(garage.call("GET", f"{PREFIX}/customers/alice/registrations?limit=1", user="root", groups=ADMIN))
    rest = ok(garage.call("GET", f"{PREFIX}/customers/alice/registrations?limit=1&cursor={page['nextCursor']}", user="alice"))
    assert page["items"] + rest["items"] == of_alice["items"]
    assert error(garage.call("GET", f"{PREFIX}/customers/alice/registrations", user="bob")) == (403, "FORBIDDEN")
    unknown = garage.call("GET", f"{PREFIX}/customers/dave/registrations", user="root", groups=ADMIN)
    assert error(unknown) == (404, "CUSTOMER_NOT_FOUND")

    of_vin2 = ok(garage.call("GET", f"{PREFIX}/vehicles/{VIN2}/registrations", user="root", groups=ADMIN))
    assert sorted((r["username"], r["statusCode"]) for r in of_vin2["items"]) == [("alice", "inactive"), ("bob", "active")]
    assert error(garage.call("GET", f"{PREFIX}/vehicles/{VIN2}/registrations", user="bob")) == (403, "FORBIDDEN")
    none_yet = garage.call("GET", f"{PREFIX}/vehicles/{VIN4}/registrations", user="root", groups=ADMIN)
    assert error(none_yet) == (404, "VEHICLE_NOT_FOUND")


# --- timeslots by dealer and range ---------------------------------------------------------------------

SLOTS = ["2026-11-30T23", "2026-12-01T00", "2026-12-01T08", "2026-12-01T09", "2026-12-01T10", "2026-12-01T23", "2026-12-02T00"]


@pytest.fixture
def calendar(client):
    """denver-1 with a 2-bay timeslot every SLOTS hour (alice booked 09, bob 09 and 10); boulder-1 with 08 to 10."""
    service = api.service()
    for dealer, slots in ((DEALER, SLOTS), ("boulder-1", SLOTS[2:5])):
        service.repository.put_dealer(Dealer(dealer_id=dealer, name=dealer))
        for hour in slots:
            service.repository.put_timeslot(dealer, hour, 2)
    for user, vin in (("alice", VIN), ("bob", VIN2)):
        service.repository.put_customer(user, user.title(), f"{user}@example.com")
        service.repository.put_vehicle(Vehicle(vin=vin, make="Honda", model="Accord", year=2003))
        service.register(user, vin, "active")
    for user, vin, hour in (("alice", VIN, "2026-12-01T09"), ("bob", VIN2, "2026-12-01T09"), ("bob", VIN2, "2026-12-01T10")):
        service.book(AppointmentIn(dealer_id=DEALER, service_date_hour=hour, username=user, vin=vin))
    return client


def hours(reply) -> list[str]:
    return [t["serviceDateHour"] for t in ok(reply)["items"]]


def test_timeslots_of_a_day_or_between_hours_inclusive(calendar):
    day = calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01&to=2026-12-01")
    assert hours(day) == ["2026-12-01T00", "2026-12-01T08", "2026-12-01T09", "2026-12-01T10", "2026-12-01T23"]
    assert day.body["items"][2] == {
        "dealerId": DEALER, "serviceDateHour": "2026-12-01T09", "serviceBayCount": 2, "bookedCount": 2, "availableBays": 0,
    }
    between = calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01T08&to=2026-12-01T10")
    assert hours(between) == ["2026-12-01T08", "2026-12-01T09", "2026-12-01T10"]
    one_hour = calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01T23&to=2026-12-01T23")
    assert hours(one_hour) == ["2026-12-01T23"]
    open_start = calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?to=2026-12-01T00")
    assert hours(open_start) == ["2026-11-30T23", "2026-12-01T00"]
    open_end = calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01T23")
    assert hours(open_end) == ["2026-12-01T23", "2026-12-02T00"]
    assert hours(calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots")) == SLOTS
    assert hours(calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2027-01-01")) == []
    unknown = calendar.call("GET", f"{PREFIX}/dealers/nowhere/timeslots?from=2026-12-01")
    assert error(unknown) == (404, "DEALER_NOT_FOUND")


def test_min_available_bays_filters_the_key_query_only(calendar):
    base = f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01&to=2026-12-01"
    assert hours(calendar.call("GET", base + "&minAvailableBays=1")) == [
        "2026-12-01T00", "2026-12-01T08", "2026-12-01T10", "2026-12-01T23",
    ]
    assert hours(calendar.call("GET", base + "&minAvailableBays=2")) == ["2026-12-01T00", "2026-12-01T08", "2026-12-01T23"]
    assert hours(calendar.call("GET", base + "&minAvailableBays=3")) == []
    # filtered pages still hold `limit` items while more match
    first = ok(calendar.call("GET", base + "&minAvailableBays=2&limit=2"))
    assert [t["serviceDateHour"] for t in first["items"]] == ["2026-12-01T00", "2026-12-01T08"]
    rest = ok(calendar.call("GET", base + f"&minAvailableBays=2&limit=2&cursor={first['nextCursor']}"))
    assert [t["serviceDateHour"] for t in rest["items"]] == ["2026-12-01T23"]


def test_the_range_read_is_one_query_on_the_dealers_timeslots(calendar, tables, calls):
    calls.clear()
    reply = calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01T08&to=2026-12-01T10&minAvailableBays=1")
    assert hours(reply) == ["2026-12-01T08", "2026-12-01T10"]
    assert calls.names() == ["Query"]
    (params, response), = calls.of("Query")
    assert params["TableName"] == tables[TIMESLOT_TABLE.env_var]
    assert "IndexName" not in params
    names = params["ExpressionAttributeNames"]
    values = params["ExpressionAttributeValues"]
    key_condition = params["KeyConditionExpression"]
    for placeholder, name in names.items():
        key_condition = key_condition.replace(placeholder, name)
    for placeholder, value in values.items():
        key_condition = key_condition.replace(placeholder, json.dumps(value))
    assert key_condition == (
        '(dealerId = {"S": "denver-1"} AND serviceDateHour BETWEEN {"S": "2026-12-01T08"} AND {"S": "2026-12-01T10"})'
    )
    assert response["ScannedCount"] == 3  # the key range only: not boulder-1's, not the other hours
    assert response["Count"] == 2


def test_timeslot_pages_cover_the_range_once_and_their_cursor_is_bound(calendar, subtests):
    url = f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01&limit=2"
    seen, cursors = [], []
    while True:
        page = ok(calendar.call("GET", url + (f"&cursor={cursors[-1]}" if cursors else "")))
        assert len(page["items"]) <= 2
        seen += [t["serviceDateHour"] for t in page["items"]]
        if page["nextCursor"] is None:
            break
        cursors.append(page["nextCursor"])
    assert seen == SLOTS[1:] and len(cursors) == 2
    for other in (
        f"{PREFIX}/dealers/boulder-1/timeslots?from=2026-12-01",
        f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-02",
        f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01&to=2026-12-01",
        f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01&minAvailableBays=1",
        f"{PREFIX}/dealers/{DEALER}/timeslots/2026-12-01T09/appointments?",
    ):
        with subtests.test(url=other):
            reply = calendar.call("GET", f"{other}&limit=2&cursor={cursors[0]}", user="root", groups=ADMIN)
            assert error(reply) == (400, "INVALID_CURSOR")


def test_a_timeslot_page_that_ends_on_the_ranges_last_hour_has_no_cursor(calendar, calls):
    """DynamoDB gives a LastEvaluatedKey whenever Limit stops a page, even on the range's last hour; a table's sort key
    is unique, so nothing can follow it: no cursor, rather than a next page that can only be empty."""
    calls.clear()
    page = ok(calendar.call("GET", f"{PREFIX}/dealers/{DEALER}/timeslots?from=2026-12-01T08&to=2026-12-01T10&limit=3"))
    assert [t["serviceDateHour"] for t in page["items"]] == SLOTS[2:5]
    assert page["nextCursor"] is None
    (_, response), = calls.of("Query")
    assert "LastEvaluatedKey" in response  # (moto, too, stopped on it: the partition holds 23:00 after it)


def test_no_read_route_scans(calendar, calls, clock):
    ok(calendar.call("POST", f"{PREFIX}/vehicles/{VIN}/events", body={"type": "error", "code": "P0300", "message": "m"},
                     user=VIN, groups=VEHICLE), 201)
    appointment = ok(calendar.call("GET", f"{PREFIX}/customers/alice/registrations/{VIN}/appointments"))["items"][0]["appointmentId"]
    calls.clear()
    reads = [  # (route, url, signed in as admin?)
        ("/dealers/{dealerId}", f"/dealers/{DEALER}", False),
        ("/dealers/{dealerId}/timeslots", f"/dealers/{DEALER}/timeslots", False),
        ("/dealers/{dealerId}/timeslots", f"/dealers/{DEALER}/timeslots?from=2026-12-01&to=2026-12-01T10&minAvailableBays=1", False),
        ("/dealers/{dealerId}/timeslots/{serviceDateHour}/appointments", f"/dealers/{DEALER}/timeslots/{HOUR}/appointments", True),
        ("/customers", "/customers?active=true", True),
        ("/customers/{username}", "/customers/alice", False),
        ("/customers/{username}/registrations", "/customers/alice/registrations", False),
        ("/customers/{username}/registrations/{vin}/appointments", f"/customers/alice/registrations/{VIN}/appointments", False),
        ("/vehicles/{vin}", f"/vehicles/{VIN}", False),
        ("/vehicles/{vin}/registrations", f"/vehicles/{VIN}/registrations", True),
        ("/vehicles/{vin}/events", f"/vehicles/{VIN}/events", False),
        ("/vehicles/{vin}/events", f"/vehicles/{VIN}/events?type=error&from=2026-11-30", False),
        ("/appointments/{appointmentId}", f"/appointments/{appointment}", False),
    ]
    assert {PREFIX + route for route, _, _ in reads} == {route.path for route in ROUTES if route.method == "GET"}
    for _, url, as_admin in reads:
        reply = calendar.call("GET", PREFIX + url, user="root" if as_admin else "alice", groups=ADMIN if as_admin else ())
        assert reply.status == 200, (url, reply.body)
    assert set(calls.names()) <= {"Query", "GetItem", "BatchGetItem"}
    assert "Query" in calls.names()


# --- vehicle events ------------------------------------------------------------------------------------

def submit(client, event_type: str = "error", code: str = "P0300", message: str = "misfire", vin: str = VIN, **kwargs):
    kwargs.setdefault("groups", VEHICLE)
    kwargs.setdefault("user", vin)  # a vehicle signs in with its VIN as username
    body = {"type": event_type, "code": code, "message": message}
    return client.call("POST", f"{PREFIX}/vehicles/{vin}/events", body=body, **kwargs)


def codes(reply) -> list[str]:
    return [event["code"] for event in ok(reply)["items"]]


def test_a_vehicle_submits_an_event(garage, tables, clock):
    clock.now = utc(2026, 12, 1, 9, 15, 2, 123456)
    reply = submit(garage, "warning", " P0420 ", "catalyst below threshold")
    body = ok(reply, 201)
    assert re.fullmatch(r"2026-12-01T09:15:02\.123Z#[0-9a-f]{12}", body["eventId"])
    assert body == {
        "vin": VIN, "eventId": body["eventId"], "type": "warning", "code": "P0420", "message": "catalyst below threshold",
        "timestamp": "2026-12-01T09:15:02.123456Z", "expiresAt": int((clock.now + timedelta(days=30)).timestamp()),
    }
    stored = raw_item(tables[EVENT_TABLE.env_var], {"vin": VIN, "eventId": body["eventId"]})
    assert (stored["vinType"], stored["expiresAt"]) == (f"{VIN}#warning", body["expiresAt"])
    assert ok(submit(garage, user="root", groups=ADMIN), 201)["type"] == "error"
    before = snapshot(tables)
    assert error(submit(garage, user="alice", groups=())) == (403, "FORBIDDEN")  # alice owns VIN, but is no vehicle
    assert error(submit(garage, user=VIN3)) == (403, "FORBIDDEN")  # a vehicle speaks only for itself
    assert error(submit(garage, vin=VIN4)) == (404, "VEHICLE_NOT_FOUND")
    assert snapshot(tables) == before


def test_events_are_read_by_the_vehicle_admins_and_its_active_customer(garage, clock):
    ok(submit(garage), 201)
    ok(submit(garage, vin=VIN3), 201)
    url = f"{PREFIX}/vehicles/{VIN}/events"
    assert codes(garage.call("GET", url, user=VIN, groups=VEHICLE)) == ["P0300"]
    assert error(garage.call("GET", url, user=VIN3, groups=VEHICLE)) == (403, "FORBIDDEN")  # another vehicle
    assert codes(garage.call("GET", url, user="root", groups=ADMIN)) == ["P0300"]
    assert codes(garage.call("GET", url, user="alice")) == ["P0300"]
    assert error(garage.call("GET", url, user="bob")) == (403, "FORBIDDEN")  # bob's car is VIN2
    assert error(garage.call("GET", url, user=None)) == (401, "UNAUTHORIZED")
    carols = f"{PREFIX}/vehicles/{VIN3}/events"
    assert error(garage.call("GET", carols, user="carol")) == (403, "FORBIDDEN")  # her registration is inactive
    ok(garage.call("PUT", f"{PREFIX}/customers/carol/registrations/{VIN3}", body={"statusCode": "active"}, user="carol"))
    assert codes(garage.call("GET", carols, user="carol")) == ["P0300"]
    ok(garage.call("PUT", f"{PREFIX}/customers/alice/registrations/{VIN}", body={"statusCode": "inactive"}, user="alice"))
    assert error(garage.call("GET", url, user="alice")) == (403, "FORBIDDEN")
    for window in ("", "?to=2020-01-01"):  # also when the window is past the retention
        unknown = garage.call("GET", f"{PREFIX}/vehicles/{VIN4}/events{window}", user="root", groups=ADMIN)
        assert error(unknown) == (404, "VEHICLE_NOT_FOUND")


def test_events_newest_first_and_by_type_from_the_type_index(garage, tables, clock, calls):
    for n, event_type in enumerate(("error", "warning", "error", "warning", "error")):
        ok(submit(garage, event_type, code=f"C{n}"), 201)
        clock.advance(minutes=1)
    ok(submit(garage, "error", code="OTHER", vin=VIN2), 201)
    url = f"{PREFIX}/vehicles/{VIN}/events"
    calls.clear()
    assert codes(garage.call("GET", url, user="alice")) == ["C4", "C3", "C2", "C1", "C0"]
    queries = calls.of("Query")
    assert [(p["TableName"], p.get("IndexName"), p["ScanIndexForward"]) for p, _ in queries] == [
        (tables[EVENT_TABLE.env_var], None, False),
    ]
    calls.clear()
    assert codes(garage.call("GET", url + "?type=error", user="alice")) == ["C4", "C2", "C0"]
    (params, response), = calls.of("Query")
    assert (params["TableName"], params["IndexName"]) == (tables[EVENT_TABLE.env_var], VEHICLE_EVENT_TYPE_INDEX)
    assert response["ScannedCount"] == 3  # the warnings were never read
    assert codes(garage.call("GET", url + "?type=warning", user="alice")) == ["C3", "C1"]
    first = ok(garage.call("GET", url + "?type=error&limit=2", user="alice"))
    rest = ok(garage.call("GET", url + f"?type=error&limit=2&cursor={first['nextCursor']}", user="alice"))
    assert [e["code"] for e in first["items"] + rest["items"]] == ["C4", "C2", "C0"]
    assert rest["nextCursor"] is None
    assert error(garage.call("GET", url + f"?type=warning&limit=2&cursor={first['nextCursor']}", user="alice")) == (400, "INVALID_CURSOR")


def test_event_window_includes_from_and_excludes_to(garage, clock):
    for hour, minute, code in ((9, 0, "at-9"), (9, 30, "at-9-30"), (10, 0, "at-10")):
        clock.now = utc(2026, 12, 1, hour, minute)
        ok(submit(garage, code=code), 201)
    clock.now = utc(2026, 12, 1, 10, 0, 5)
    url = f"{PREFIX}/vehicles/{VIN}/events"
    assert codes(garage.call("GET", url + "?from=2026-12-01T09:00:00Z&to=2026-12-01T10:00:00Z")) == ["at-9-30", "at-9"]
    assert codes(garage.call("GET", url + "?from=2026-12-01T09:30:00Z")) == ["at-10", "at-9-30"]
    assert codes(garage.call("GET", url + "?to=2026-12-01T09:30:00Z")) == ["at-9"]
    assert codes(garage.call("GET", url + "?from=2026-12-01T09:00:00.001Z")) == ["at-10", "at-9-30"]
    assert codes(garage.call("GET", url + "?from=2026-12-01T09:30:00Z&to=2026-12-01T09:30:00Z")) == []
    assert codes(garage.call("GET", url + "?from=2026-12-01")) == ["at-10", "at-9-30", "at-9"]
    assert codes(garage.call("GET", url + "?from=2026-12-01T10:30:00%2B01:00")) == ["at-10", "at-9-30"]  # = 09:30Z
    assert codes(garage.call("GET", url + "?to=2026-12-01")) == []


def test_a_cursor_whose_events_aged_out_of_the_retention_meanwhile_ends_the_list(garage, clock, calls):
    """The lower bound of the key range is now minus the retention, so it moves between two pages. A cursor left
    below it must not reach DynamoDB: a start key outside the sort key condition is a ValidationException there
    (local/dynamodb/fidelity/query_start_key.py). Newest first, everything after such a cursor has expired: the list ends."""
    for code in ("C0", "C1", "C2"):                        # T0, T0 + 1 min, T0 + 2 min
        ok(submit(garage, code=code), 201)
        clock.advance(minutes=1)
    url = f"{PREFIX}/vehicles/{VIN}/events"
    first = ok(garage.call("GET", url + "?limit=2", user="alice"))
    assert [e["code"] for e in first["items"]] == ["C2", "C1"]
    clock.now = T0 + timedelta(days=30, seconds=90)       # C0 and C1 have expired, C2 has not
    calls.clear()
    rest = ok(garage.call("GET", url + f"?limit=2&cursor={first['nextCursor']}", user="alice"))
    assert rest == {"items": [], "nextCursor": None}
    assert calls.of("Query") == []
    assert codes(garage.call("GET", url, user="alice")) == ["C2"]


def test_expired_events_are_never_served_though_still_stored(garage, tables, clock, monkeypatch):
    ok(submit(garage, code="old"), 201)                    # T0
    clock.advance(days=20)
    ok(submit(garage, code="recent"), 201)                 # T0 + 20 days
    url = f"{PREFIX}/vehicles/{VIN}/events"
    clock.now = T0 + timedelta(days=30) - timedelta(seconds=1)
    assert codes(garage.call("GET", url)) == ["recent", "old"]
    clock.now = T0 + timedelta(days=30, seconds=1)
    assert codes(garage.call("GET", url)) == ["recent"]
    assert codes(garage.call("GET", url + "?from=2026-11-01")) == ["recent"]  # asking for older does not bring it back
    # The table still holds the old event: TTL deletes lazily, the read must not serve it.
    assert sorted(e["code"] for e in table_items(tables[EVENT_TABLE.env_var])) == ["old", "recent"]
    # A shorter retention hides what it has expired at once...
    monkeypatch.setenv("EVENT_RETENTION_DAYS", "5")
    settings.cache_clear()  # the function reads its environment once per container: a new deployment
    assert codes(garage.call("GET", url)) == []
    # ...and a longer one does not revive what the TTL it was stored with (expiresAt) has expired.
    monkeypatch.setenv("EVENT_RETENTION_DAYS", "60")
    settings.cache_clear()
    assert codes(garage.call("GET", url)) == ["recent"]
    assert len(table_items(tables[EVENT_TABLE.env_var])) == 2
