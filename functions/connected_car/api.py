"""ConnectedCar API (seed 001): dealers and timeslots, customers, vehicles, registrations, appointments, events."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.connected_car.models import (
    DEALER_ID_PATTERN,
    SERVICE_DATE_HOUR_PATTERN,
    USERNAME_PATTERN,
    VIN_PATTERN,
    Appointment,
    AppointmentIn,
    AppointmentPage,
    Customer,
    CustomerIn,
    CustomerPage,
    Dealer,
    DealerIn,
    Registration,
    RegistrationIn,
    RegistrationPage,
    Timeslot,
    TimeslotIn,
    TimeslotPage,
    Vehicle,
    VehicleEvent,
    VehicleEventIn,
    VehicleEventPage,
    VehicleIn,
    check_service_date_hour,
)
from functions.connected_car.repository import ConnectedCarRepository, TableNames
from functions.connected_car.routes import ROUTES
from functions.connected_car.service import ConnectedCarService
from functions.shared.auth import caller_of
from functions.shared.errors import InvalidInputError
from functions.shared.handler import api_handler
from functions.shared.http import DomainRouter, build_resolver
from functions.shared.idempotency import IdempotencyKey, create_once
from functions.shared.models import DAY_OR_HOUR_PATTERN, MOMENT_PATTERN
from functions.shared.observability import metrics
from functions.shared.pagination import DEFAULT_LIMIT, Cursor, Limit, paginate
from functions.shared.settings import settings

router = DomainRouter(ROUTES)

DealerPath = Annotated[str, Path(pattern=DEALER_ID_PATTERN)]
HourPath = Annotated[str, Path(pattern=SERVICE_DATE_HOUR_PATTERN, description="YYYY-MM-DDTHH (UTC)")]
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
VinPath = Annotated[str, Path(pattern=VIN_PATTERN)]
IdPath = Annotated[str, Path(min_length=1, max_length=64)]


@lru_cache(maxsize=1)
def service() -> ConnectedCarService:
    return ConnectedCarService(ConnectedCarRepository(TableNames(settings())))


def _hour(value: str) -> str:
    try:
        return check_service_date_hour(value)
    except ValueError as error:
        raise InvalidInputError(
            "serviceDateHour is not a real hour",
            details=[{"field": "path.service_date_hour", "message": "must be a real YYYY-MM-DDTHH"}],
        ) from error


# --- dealers and timeslots ----------------------------------------------------------------------------

@router.serve
def put_dealer(dealer_id: DealerPath, dealer: DealerIn) -> Dealer:
    """Create or replace a dealer."""
    return service().put_dealer(Dealer(dealer_id=dealer_id, **dealer.model_dump()))


@router.serve
def get_dealer(dealer_id: DealerPath) -> Dealer:
    """Read a dealer."""
    return service().get_dealer(dealer_id)


@router.serve
def put_timeslot(dealer_id: DealerPath, service_date_hour: HourPath, timeslot: TimeslotIn) -> Timeslot:
    """Open a dealer's hour with its bay count."""
    return service().put_timeslot(dealer_id, _hour(service_date_hour), timeslot.service_bay_count)


@router.serve
def timeslots_of(
    dealer_id: DealerPath,
    first: Annotated[str | None, Query(alias="from", pattern=DAY_OR_HOUR_PATTERN,
                                       description="YYYY-MM-DD or YYYY-MM-DDTHH, inclusive")] = None,
    last: Annotated[str | None, Query(alias="to", pattern=DAY_OR_HOUR_PATTERN,
                                      description="YYYY-MM-DD or YYYY-MM-DDTHH, inclusive")] = None,
    min_available: Annotated[int | None, Query(alias="minAvailableBays", ge=1, le=100)] = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> TimeslotPage:
    """List a dealer's hours over a range, optionally with free bays."""
    return paginate(
        TimeslotPage, f"cc.timeslots/{dealer_id}", cursor,
        lambda start: service().timeslots_of(
            dealer_id, first=first, last=last, min_available=min_available, limit=limit, start_key=start
        ),
        first=first, last=last, min=min_available,
    )


# Admins only: a timeslot's appointments name customers.
@router.serve
def appointments_of_timeslot(
    dealer_id: DealerPath, service_date_hour: HourPath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
) -> AppointmentPage:
    """List the appointments booked in a dealer's hour."""
    hour = _hour(service_date_hour)
    return paginate(
        AppointmentPage, f"cc.timeslot-appointments/{dealer_id}/{hour}", cursor,
        lambda start: service().appointments_of_timeslot(dealer_id, hour, limit=limit, start_key=start),
    )


# --- customers, vehicles, registrations ---------------------------------------------------------------

@router.serve
def put_customer(username: UsernamePath, customer: CustomerIn) -> Customer:
    """Create or replace a customer."""
    service().require_self_or_admin(caller_of(app), username)
    return service().put_customer(username, customer.name, customer.email)


@router.serve
def get_customer(username: UsernamePath) -> Customer:
    """Read a customer."""
    service().require_self_or_admin(caller_of(app), username)
    return service().get_customer(username)


@router.serve
def active_customers(
    active: Annotated[Literal["true"], Query(description="only active=true is served: a read of a sparse index")],
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> CustomerPage:
    """List the active customers."""
    return paginate(
        CustomerPage, "cc.customers", cursor,
        lambda start: service().active_customers(limit=limit, start_key=start),
        active=active,
    )


@router.serve
def put_vehicle(vin: VinPath, vehicle: VehicleIn) -> Vehicle:
    """Create or replace a vehicle."""
    return service().put_vehicle(Vehicle(vin=vin, **vehicle.model_dump()))


@router.serve
def get_vehicle(vin: VinPath) -> Vehicle:
    """Read a vehicle."""
    return service().get_vehicle(vin)


@router.serve
def put_registration(username: UsernamePath, vin: VinPath, registration: RegistrationIn) -> Registration:
    """Register a vehicle to a customer."""
    service().require_self_or_admin(caller_of(app), username)
    return service().register(username, vin, registration.status_code)


@router.serve
def registrations_of_customer(username: UsernamePath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> RegistrationPage:
    """List the vehicles registered to a customer."""
    service().require_self_or_admin(caller_of(app), username)
    return paginate(
        RegistrationPage, f"cc.customer-registrations/{username}", cursor,
        lambda start: service().registrations_of_customer(username, limit=limit, start_key=start),
    )


@router.serve
def registrations_of_vehicle(vin: VinPath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> RegistrationPage:
    """List the customers a vehicle is registered to."""
    return paginate(
        RegistrationPage, f"cc.vehicle-registrations/{vin}", cursor,
        lambda start: service().registrations_of_vehicle(vin, limit=limit, start_key=start),
    )


@router.serve
def appointments_of_registration(
    username: UsernamePath, vin: VinPath, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None
) -> AppointmentPage:
    """List the appointments of a customer's vehicle."""
    service().require_self_or_admin(caller_of(app), username)
    return paginate(
        AppointmentPage, f"cc.registration-appointments/{username}/{vin}", cursor,
        lambda start: service().appointments_of_registration(username, vin, limit=limit, start_key=start),
    )


# --- appointments -------------------------------------------------------------------------------------

@router.serve
def book(appointment: AppointmentIn, idempotency_key: IdempotencyKey = None) -> Response[Appointment]:
    """Book a service appointment in a dealer's hour."""
    service().require_self_or_admin(caller_of(app), appointment.username)
    response = create_once(app, operation="connected-car.book", key=idempotency_key,
                           request=appointment.model_dump(mode="json"), make=lambda: service().book(appointment))
    metrics.add_metric(name="AppointmentBooked", unit="Count", value=1)
    return response


@router.serve
def get_appointment(appointment_id: IdPath) -> Appointment:
    """Read an appointment."""
    return service().appointment_for(caller_of(app), appointment_id)


@router.serve
def cancel(appointment_id: IdPath) -> Response[None]:
    """Cancel an appointment, freeing its bay."""
    service().cancel(caller_of(app), appointment_id)
    return Response(status_code=204)


# --- vehicle events -----------------------------------------------------------------------------------

@router.serve
def submit_event(vin: VinPath, event: VehicleEventIn, idempotency_key: IdempotencyKey = None) -> Response[VehicleEvent]:
    """Record an event a vehicle reports."""
    service().require_vehicle_writer(caller_of(app), vin)
    return create_once(app, operation="connected-car.submit_event", key=idempotency_key,
                       request={"vin": vin, **event.model_dump(mode="json")},
                       make=lambda: service().submit_event(vin, event))


@router.serve
def events_of(
    vin: VinPath,
    first: Annotated[str | None, Query(alias="from", max_length=40, pattern=MOMENT_PATTERN,
                                       description="ISO-8601 time or day, inclusive")] = None,
    last: Annotated[str | None, Query(alias="to", max_length=40, pattern=MOMENT_PATTERN,
                                      description="ISO-8601 time or day, exclusive")] = None,
    event_type: Annotated[Literal["error", "warning"] | None, Query(alias="type")] = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
) -> VehicleEventPage:
    """List a vehicle's events over a time range."""
    service().require_vehicle_reader(caller_of(app), vin)
    return paginate(
        VehicleEventPage, f"cc.events/{vin}", cursor,
        lambda start: service().events_of(
            vin, first=first, last=last, event_type=event_type, limit=limit, start_key=start
        ),
        first=first, last=last, type=event_type,
    )


app = build_resolver()
app.include_router(router)

lambda_handler = api_handler(app)
