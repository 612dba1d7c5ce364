"""ConnectedCar rules that are not storage: ids, time ranges, event retention, who may act for whom."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from functions.connected_car import models
from functions.connected_car.repository import ConnectedCarRepository
from functions.connected_car.schema import (
    DEFAULT_EVENT_RETENTION_DAYS,
    EVENT_RETENTION_ENV,
    compound_key,
)
from functions.shared import auth
from functions.shared.auth import ADMIN, Caller
from functions.shared.errors import ForbiddenError, InvalidInputError, check_range
from functions.shared.pages import Page
from functions.shared.settings import settings

VEHICLE_GROUP = "vehicle"
DAY_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")
StartKey = dict[str, Any] | None
FIRST_HOUR = "0000-01-01T00"
LAST_HOUR = "9999-12-31T23"


def utc_now() -> datetime:
    return datetime.now(UTC)


def event_retention() -> timedelta:
    return timedelta(days=settings().integer(EVENT_RETENTION_ENV, DEFAULT_EVENT_RETENTION_DAYS))


def event_time_key(moment: datetime) -> str:
    """Sortable UTC time with milliseconds, the first part of an eventId: 2026-12-01T09:15:02.123Z."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def hour_bound(value: str | None, field: str, *, end: bool) -> str | None:
    """A `from`/`to` of the timeslot range as a serviceDateHour: a day means its first (from) or last (to) hour."""
    if value is None:
        return None
    try:
        # Only the two canonical forms: the bound is compared as a string with the sort key, so "2026-12-1T9"
        # (which strptime takes) or an ISO week day (which date.fromisoformat takes) must not get through.
        if DAY_PATTERN.match(value):
            return f"{date.fromisoformat(value).isoformat()}T{'23' if end else '00'}"
        if re.match(models.SERVICE_DATE_HOUR_PATTERN, value):
            return models.check_service_date_hour(value)
        raise ValueError(value)
    except ValueError as error:
        raise InvalidInputError(
            f"{field} must be YYYY-MM-DD or YYYY-MM-DDTHH",
            details=[{"field": f"query.{field}", "message": "not a day or an hour"}],
        ) from error


def moment_bound(value: str | None, field: str) -> datetime | None:
    """A `from`/`to` of the event range: an ISO-8601 time (UTC if it names no offset) or a day (its start)."""
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as error:
        raise InvalidInputError(
            f"{field} must be an ISO-8601 time or day",
            details=[{"field": f"query.{field}", "message": "not an ISO-8601 time"}],
        ) from error
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class ConnectedCarService:
    def __init__(self, repository: ConnectedCarRepository, clock: Callable[[], datetime] = utc_now):
        self.repository = repository
        self._clock = clock

    # who may act

    @staticmethod
    def require_self_or_admin(caller: Caller, username: str) -> None:
        auth.require_self_or_admin(caller, username, who="customer")

    @staticmethod
    def is_vehicle(caller: Caller, vin: str) -> bool:
        """A connected vehicle signs in as a member of group `vehicle` whose username is its VIN."""
        return caller.is_in(VEHICLE_GROUP) and caller.username == vin

    def require_vehicle_writer(self, caller: Caller, vin: str) -> None:
        if not (self.is_vehicle(caller, vin) or caller.is_in(ADMIN)):
            raise ForbiddenError(
                f"only the vehicle itself (group '{VEHICLE_GROUP}', username = VIN) or an admin may submit its events"
            )

    def require_vehicle_reader(self, caller: Caller, vin: str) -> None:
        """A vehicle's events: the vehicle itself, an admin, or the customer actively registered to it."""
        if self.is_vehicle(caller, vin) or caller.is_in(ADMIN):
            return
        registration = self.repository.get_registration(caller.username, vin)
        if registration is None or registration.status_code != "active":
            raise ForbiddenError("only the vehicle, its registered customer or an admin may read its events")

    # dealers and timeslots

    def put_dealer(self, dealer: models.Dealer) -> models.Dealer:
        return self.repository.put_dealer(dealer)

    def put_timeslot(self, dealer_id: str, service_date_hour: str, service_bay_count: int) -> models.Timeslot:
        return self.repository.put_timeslot(dealer_id, service_date_hour, service_bay_count)

    def appointments_of_timeslot(self, dealer_id: str, service_date_hour: str, *, limit: int,
                                 start_key: StartKey) -> Page:
        page = self.repository.appointments_of_timeslot(dealer_id, service_date_hour, limit=limit, start_key=start_key)
        if not page.items and start_key is None:
            self.timeslot(dealer_id, service_date_hour)  # 404 for an unknown timeslot, [] for an empty one
        return page

    def timeslots_of(
        self, dealer_id: str, *, first: str | None, last: str | None, min_available: int | None, limit: int,
        start_key: StartKey,
    ) -> Page:
        first_hour = hour_bound(first, "from", end=False)
        last_hour = hour_bound(last, "to", end=True)
        check_range(first_hour, last_hour)
        page = self.repository.timeslots_of(
            dealer_id, first=first_hour or FIRST_HOUR, last=last_hour or LAST_HOUR, min_available=min_available,
            limit=limit, start_key=start_key,
        )
        if not page.items and start_key is None:
            self.repository.dealer(dealer_id)  # 404 for an unknown dealer, [] for one without timeslots
        return page

    # customers, vehicles, registrations

    def put_customer(self, username: str, name: str, email: str) -> models.Customer:
        return self.repository.put_customer(username, name, email)

    def put_vehicle(self, vehicle: models.Vehicle) -> models.Vehicle:
        return self.repository.put_vehicle(vehicle)

    def registrations_of_customer(self, username: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.registrations_of_customer(username, limit=limit, start_key=start_key)
        if not page.items and start_key is None:
            self.get_customer(username)
        return page

    def registrations_of_vehicle(self, vin: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.registrations_of_vehicle(vin, limit=limit, start_key=start_key)
        if not page.items and start_key is None:
            self.repository.vehicle(vin)
        return page

    def appointments_of_registration(self, username: str, vin: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.appointments_of_registration(username, vin, limit=limit, start_key=start_key)
        if not page.items and start_key is None:
            self.repository.registration(username, vin)
        return page

    def register(self, username: str, vin: str, status_code: str) -> models.Registration:
        return self.repository.put_registration(username, vin, status_code, self._clock())

    def get_customer(self, username: str) -> models.Customer:
        return self.repository.customer(username)

    # appointments

    def book(self, request: models.AppointmentIn) -> models.Appointment:
        appointment = models.Appointment(
            appointment_id=str(uuid.uuid4()),
            dealer_id=request.dealer_id,
            service_date_hour=request.service_date_hour,
            username=request.username,
            vin=request.vin,
            timeslot_key=compound_key(request.dealer_id, request.service_date_hour),
            registration_key=compound_key(request.username, request.vin),
            created_at=self._clock(),
        )
        return self.repository.book(appointment)

    def appointment_for(self, caller: Caller, appointment_id: str) -> models.Appointment:
        appointment = self.repository.appointment(appointment_id)
        self.require_self_or_admin(caller, appointment.username)
        return appointment

    def cancel(self, caller: Caller, appointment_id: str) -> None:
        self.repository.cancel(self.appointment_for(caller, appointment_id))

    def timeslot(self, dealer_id: str, service_date_hour: str) -> models.Timeslot:
        return self.repository.timeslot(dealer_id, service_date_hour)

    # vehicle events

    def submit_event(self, vin: str, request: models.VehicleEventIn) -> models.VehicleEvent:
        now = self._clock()
        event = models.VehicleEvent(
            vin=vin,
            event_id=f"{event_time_key(now)}#{uuid.uuid4().hex[:12]}",
            timestamp=now,
            expires_at=int((now + event_retention()).timestamp()),
            **request.model_dump(),
        )
        return self.repository.put_event(event)

    def events_of(
        self, vin: str, *, first: str | None, last: str | None, event_type: str | None, limit: int,
        start_key: StartKey,
    ) -> Page:
        """Events in [from, to), newest first, never older than the retention (expired means absent)."""
        now = self._clock()
        start = moment_bound(first, "from")
        end = moment_bound(last, "to")
        check_range(start, end)
        oldest = now - event_retention()
        start = oldest if start is None or start < oldest else start
        end = end or now + timedelta(seconds=1)
        page: Page[Any]
        if start >= end:  # nothing can match (and DynamoDB refuses a BETWEEN whose bounds are reversed)
            page = Page(items=[])
        elif start_key is not None and str(start_key.get("eventId", "")) < event_time_key(start):
            # the cursor's event has aged out since its page (the lower bound is now minus the retention): all after
            # it, newest first, is older still; DynamoDB refuses a start key outside the key condition anyway
            page = Page(items=[])
        else:
            page = self.repository.events_of(
                vin, first=event_time_key(start), last=event_time_key(end), event_type=event_type,
                now_epoch=int(now.timestamp()), limit=limit, start_key=start_key,
            )
        if not page.items and start_key is None:
            self.repository.vehicle(vin)
        return page
