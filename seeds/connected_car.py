"""ConnectedCar example data: two dealers with a week of timeslots, customers, vehicles, registrations,
appointments and vehicle events.

Timeslots start tomorrow (UTC) so that they can be booked; events lie in the past days so that they are within
the retention window. Everything goes through the repository, so the same rules hold as for the API (a booking
takes a bay, a registration bumps the customer's regVersion). `isActive` is not written here: the Registration
stream consumer computes it from the registrations below, as it would in AWS.
Ids are deterministic for a given `now`, so loading twice with the same `now` changes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta, timezone

from functions.connected_car.models import Appointment, Dealer, Vehicle, VehicleEvent
from functions.connected_car.repository import ConnectedCarRepository, TableNames
from functions.shared.settings import Settings
from functions.connected_car.schema import compound_key
from functions.connected_car.service import event_retention, event_time_key
from functions.shared.errors import ConflictError

DEALERS = [
    Dealer(dealer_id="denver-downtown", name="Downtown Denver Auto Care", address="1850 Wazee Street, Denver, CO"),
    Dealer(dealer_id="boulder-north", name="Boulder North Service", address="4800 Broadway, Boulder, CO"),
]
OPENING_HOURS = range(9, 17)  # 09..16: eight one-hour timeslots a day
BAYS = {"denver-downtown": 3, "boulder-north": 2}
DAYS = 7

CUSTOMERS = [
    ("alice", "Alice Andrews", "alice@example.com"),
    ("bob", "Bob Smith", "bob@example.com"),
    ("carol", "Carol Chen", "carol@example.com"),
]
VEHICLES = [
    Vehicle(vin="1HGCM82633A004352", make="Honda", model="Accord", year=2003),
    Vehicle(vin="5YJ3E1EA7KF317000", make="Tesla", model="Model 3", year=2019),
    Vehicle(vin="WBA3A5C51CF256789", make="BMW", model="328i", year=2012),
    Vehicle(vin="JTDKN3DU0A0123456", make="Toyota", model="Prius", year=2010),
]
# (username, vin, statusCode): alice and bob end up active; carol's only registration is inactive.
REGISTRATIONS = [
    ("alice", "1HGCM82633A004352", "active"),
    ("bob", "5YJ3E1EA7KF317000", "active"),
    ("bob", "WBA3A5C51CF256789", "inactive"),
    ("carol", "JTDKN3DU0A0123456", "inactive"),
]
# (username, vin, dealerId, day offset from tomorrow, hour)
APPOINTMENTS = [
    ("alice", "1HGCM82633A004352", "denver-downtown", 0, 9),
    ("bob", "5YJ3E1EA7KF317000", "denver-downtown", 0, 9),
    ("bob", "5YJ3E1EA7KF317000", "boulder-north", 2, 14),
]
# (vin, type, code, message, hours ago)
EVENTS = [
    ("1HGCM82633A004352", "error", "P0301", "Cylinder 1 misfire detected", 50),
    ("1HGCM82633A004352", "warning", "TPMS", "Front left tyre pressure low", 26),
    ("1HGCM82633A004352", "warning", "OIL", "Oil change due in 500 km", 3),
    ("5YJ3E1EA7KF317000", "warning", "12V", "12V battery needs service soon", 8),
]


def _id(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"blueprints:connected-car:{name}"))


def service_date_hour(day: date, hour: int) -> str:
    return f"{day.isoformat()}T{hour:02d}"


def load(env: Mapping[str, str], *, now: datetime | None = None) -> None:
    repository = ConnectedCarRepository(TableNames(Settings(env)))
    now = now or datetime.now(timezone.utc)
    first_day = now.date() + timedelta(days=1)

    for dealer in DEALERS:
        repository.put_dealer(dealer)
        for offset in range(DAYS):  # a day's timeslots in one transaction
            day = first_day + timedelta(days=offset)
            repository.put_timeslots(dealer.dealer_id, [service_date_hour(day, hour) for hour in OPENING_HOURS],
                                     BAYS[dealer.dealer_id])
    for username, name, email in CUSTOMERS:
        repository.put_customer(username, name, email)
    for vehicle in VEHICLES:
        repository.put_vehicle(vehicle)
    for username, vin, status in REGISTRATIONS:
        repository.put_registration(username, vin, status, now)

    for username, vin, dealer_id, offset, hour in APPOINTMENTS:
        hour_key = service_date_hour(first_day + timedelta(days=offset), hour)
        appointment = Appointment(
            appointment_id=_id(f"{username}:{vin}:{dealer_id}:{hour_key}"),
            dealer_id=dealer_id,
            service_date_hour=hour_key,
            username=username,
            vin=vin,
            timeslot_key=compound_key(dealer_id, hour_key),
            registration_key=compound_key(username, vin),
            created_at=datetime.combine(now.date(), time(8), tzinfo=timezone.utc),
        )
        try:
            repository.book(appointment)
        except ConflictError:
            pass  # already loaded

    for vin, kind, code, message, hours_ago in EVENTS:
        moment = now - timedelta(hours=hours_ago)
        event = VehicleEvent(
            vin=vin,
            event_id=f"{event_time_key(moment)}#{_id(f'{vin}:{code}')[:12]}",
            type=kind,  # type: ignore[arg-type]
            code=code,
            message=message,
            timestamp=moment,
            expires_at=int((moment + event_retention()).timestamp()),
        )
        try:
            repository.put_event(event)
        except ConflictError:
            pass  # already loaded
