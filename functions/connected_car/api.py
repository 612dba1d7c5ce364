"""ConnectedCar API (seed 001): dealers and timeslots, customers, vehicles, registrations, appointments, events."""

from __future__ import annotations

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
from functions.shared import kit
from functions.shared.models import DAY_OR_HOUR_PATTERN, MOMENT_PATTERN

router = kit.DomainRouter(ROUTES)

DealerPath = Annotated[str, Path(pattern=DEALER_ID_PATTERN)]
HourPath = Annotated[str, Path(pattern=SERVICE_DATE_HOUR_PATTERN, description="YYYY-MM-DDTHH (UTC)")]
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
VinPath = Annotated[str, Path(pattern=VIN_PATTERN)]
IdPath = Annotated[str, Path(min_length=1, max_length=64)]


@kit.per_container
def service() -> ConnectedCarService:
    return ConnectedCarService(ConnectedCarRepository(TableNames(kit.settings())))


Service = Annotated[ConnectedCarService, kit.Depends(service)]


def _hour(value: str) -> str:
    try:
        return check_service_date_hour(value)
    except ValueError as error:
        raise kit.InvalidInputError(
            "serviceDateHour is not a real hour",
            details=[{"field": "path.service_date_hour", "message": "must be a real YYYY-MM-DDTHH"}],
        ) from error


# --- dealers and timeslots ----------------------------------------------------------------------------


@router.serve
def put_dealer(dealer_id: DealerPath, dealer: DealerIn, svc: Service) -> Dealer:
    """Create or replace a dealer."""
    return svc.put_dealer(Dealer(dealer_id=dealer_id, **dealer.model_dump()))


@router.serve
def get_dealer(dealer_id: DealerPath, svc: Service) -> Dealer:
    """Read a dealer."""
    return svc.get_dealer(dealer_id)


@router.serve
def put_timeslot(dealer_id: DealerPath, service_date_hour: HourPath, timeslot: TimeslotIn, svc: Service) -> Timeslot:
    """Open a dealer's hour with its bay count."""
    return svc.put_timeslot(dealer_id, _hour(service_date_hour), timeslot.service_bay_count)


@router.serve
def timeslots_of(
    dealer_id: DealerPath,
    svc: Service,
    first: Annotated[
        str | None,
        Query(alias="from", pattern=DAY_OR_HOUR_PATTERN, description="YYYY-MM-DD or YYYY-MM-DDTHH, inclusive"),
    ] = None,
    last: Annotated[
        str | None, Query(alias="to", pattern=DAY_OR_HOUR_PATTERN, description="YYYY-MM-DD or YYYY-MM-DDTHH, inclusive")
    ] = None,
    min_available: Annotated[int | None, Query(alias="minAvailableBays", ge=1, le=100)] = None,
    limit: kit.Limit = kit.DEFAULT_LIMIT,
    cursor: kit.Cursor = None,
) -> TimeslotPage:
    """List a dealer's hours over a range, optionally with free bays."""
    return kit.paginate(
        app,
        TimeslotPage,
        cursor,
        lambda start: svc.timeslots_of(
            dealer_id, first=first, last=last, min_available=min_available, limit=limit, start_key=start
        ),
    )


# Admins only: a timeslot's appointments name customers.
@router.serve
def appointments_of_timeslot(dealer_id: DealerPath, service_date_hour: HourPath, svc: Service,
                             limit: kit.Limit = kit.DEFAULT_LIMIT, cursor: kit.Cursor = None) -> AppointmentPage:
    """List the appointments booked in a dealer's hour."""
    hour = _hour(service_date_hour)
    return kit.paginate(app, AppointmentPage, cursor,
                        lambda start: svc.appointments_of_timeslot(dealer_id, hour, limit=limit, start_key=start))


# --- customers, vehicles, registrations ---------------------------------------------------------------


@router.serve
def put_customer(username: UsernamePath, customer: CustomerIn, svc: Service) -> Customer:
    """Create or replace a customer."""
    svc.require_self_or_admin(kit.caller_of(app), username)
    return svc.put_customer(username, customer.name, customer.email)


@router.serve
def get_customer(username: UsernamePath, svc: Service) -> Customer:
    """Read a customer."""
    svc.require_self_or_admin(kit.caller_of(app), username)
    return svc.get_customer(username)


@router.serve
def active_customers(
    active: Annotated[Literal["true"], Query(description="only active=true is served: a read of a sparse index")],
    svc: Service,
    limit: kit.Limit = kit.DEFAULT_LIMIT,
    cursor: kit.Cursor = None,
) -> CustomerPage:
    """List the active customers."""
    return kit.paginate(app, CustomerPage, cursor, lambda start: svc.active_customers(limit=limit, start_key=start))


@router.serve
def put_vehicle(vin: VinPath, vehicle: VehicleIn, svc: Service) -> Vehicle:
    """Create or replace a vehicle."""
    return svc.put_vehicle(Vehicle(vin=vin, **vehicle.model_dump()))


@router.serve
def get_vehicle(vin: VinPath, svc: Service) -> Vehicle:
    """Read a vehicle."""
    return svc.get_vehicle(vin)


@router.serve
def put_registration(username: UsernamePath, vin: VinPath, registration: RegistrationIn, svc: Service) -> Registration:
    """Register a vehicle to a customer."""
    svc.require_self_or_admin(kit.caller_of(app), username)
    return svc.register(username, vin, registration.status_code)


@router.serve
def registrations_of_customer(username: UsernamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                              cursor: kit.Cursor = None) -> RegistrationPage:
    """List the vehicles registered to a customer."""
    svc.require_self_or_admin(kit.caller_of(app), username)
    return kit.paginate(app, RegistrationPage, cursor,
                        lambda start: svc.registrations_of_customer(username, limit=limit, start_key=start))


@router.serve
def registrations_of_vehicle(vin: VinPath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                             cursor: kit.Cursor = None) -> RegistrationPage:
    """List the customers a vehicle is registered to."""
    return kit.paginate(app, RegistrationPage, cursor,
                        lambda start: svc.registrations_of_vehicle(vin, limit=limit, start_key=start))


@router.serve
def appointments_of_registration(username: UsernamePath, vin: VinPath, svc: Service,
                                 limit: kit.Limit = kit.DEFAULT_LIMIT, cursor: kit.Cursor = None) -> AppointmentPage:
    """List the appointments of a customer's vehicle."""
    svc.require_self_or_admin(kit.caller_of(app), username)
    return kit.paginate(app, AppointmentPage, cursor,
                        lambda start: svc.appointments_of_registration(username, vin, limit=limit, start_key=start))


# --- appointments -------------------------------------------------------------------------------------


@router.serve
def book(appointment: AppointmentIn, svc: Service, idempotency_key: kit.IdempotencyKey = None) -> Response[Appointment]:
    """Book a service appointment in a dealer's hour."""
    svc.require_self_or_admin(kit.caller_of(app), appointment.username)
    response = kit.create_once(app, operation="connected-car.book", key=idempotency_key,
                               request=appointment.model_dump(mode="json"), make=lambda: svc.book(appointment))
    kit.metrics.add_metric(name="AppointmentBooked", unit="Count", value=1)
    return response


@router.serve
def get_appointment(appointment_id: IdPath, svc: Service) -> Appointment:
    """Read an appointment."""
    return svc.appointment_for(kit.caller_of(app), appointment_id)


@router.serve
def cancel(appointment_id: IdPath, svc: Service) -> Response[None]:
    """Cancel an appointment, freeing its bay."""
    svc.cancel(kit.caller_of(app), appointment_id)
    return Response(status_code=204)


# --- vehicle events -----------------------------------------------------------------------------------


@router.serve
def submit_event(vin: VinPath, event: VehicleEventIn, svc: Service,
                 idempotency_key: kit.IdempotencyKey = None) -> Response[VehicleEvent]:
    """Record an event a vehicle reports."""
    svc.require_vehicle_writer(kit.caller_of(app), vin)
    return kit.create_once(app, operation="connected-car.submit_event", key=idempotency_key,
                           request={"vin": vin, **event.model_dump(mode="json")},
                           make=lambda: svc.submit_event(vin, event))


@router.serve
def events_of(
    vin: VinPath,
    svc: Service,
    first: Annotated[
        str | None,
        Query(alias="from", max_length=40, pattern=MOMENT_PATTERN, description="ISO-8601 time or day, inclusive"),
    ] = None,
    last: Annotated[
        str | None,
        Query(alias="to", max_length=40, pattern=MOMENT_PATTERN, description="ISO-8601 time or day, exclusive"),
    ] = None,
    event_type: Annotated[Literal["error", "warning"] | None, Query(alias="type")] = None,
    limit: kit.Limit = kit.DEFAULT_LIMIT,
    cursor: kit.Cursor = None,
) -> VehicleEventPage:
    """List a vehicle's events over a time range."""
    svc.require_vehicle_reader(kit.caller_of(app), vin)
    return kit.paginate(
        app,
        VehicleEventPage,
        cursor,
        lambda start: svc.events_of(vin, first=first, last=last, event_type=event_type, limit=limit, start_key=start),
    )


app, lambda_handler = kit.serve(router)
