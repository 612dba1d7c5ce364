"""ConnectedCar API (seed 001): dealers and timeslots, customers, vehicles, registrations, appointments, events."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.connected_car import models
from functions.connected_car.repository import ConnectedCarRepository, TableNames
from functions.connected_car.service import ConnectedCarService
from functions.shared import kit
from functions.shared.models import DAY_OR_HOUR_PATTERN, MOMENT_PATTERN

router = kit.DomainRouter.of(__file__)


service = kit.service(ConnectedCarService, ConnectedCarRepository, TableNames)
Service = Annotated[ConnectedCarService, kit.Depends(service)]
Repository = Annotated[ConnectedCarRepository, kit.Depends(kit.repository_of(service))]


def _hour(value: str) -> str:
    try:
        return models.check_service_date_hour(value)
    except ValueError as error:
        raise kit.InvalidInputError(
            "serviceDateHour is not a real hour",
            details=[{"field": "path.service_date_hour", "message": "must be a real YYYY-MM-DDTHH"}],
        ) from error


# --- dealers and timeslots ----------------------------------------------------------------------------


@router.serve
def put_dealer(dealer_id: models.DealerPath, dealer: models.DealerIn, svc: Service) -> models.Dealer:
    """Create or replace a dealer."""
    return svc.put_dealer(models.Dealer(dealer_id=dealer_id, **dealer.model_dump()))


@router.serve
def get_dealer(dealer_id: models.DealerPath, repo: Repository) -> models.Dealer:
    """Read a dealer."""
    return repo.dealer(dealer_id)


@router.serve
def put_timeslot(dealer_id: models.DealerPath, service_date_hour: models.HourPath, timeslot: models.TimeslotIn,
                 svc: Service) -> models.Timeslot:
    """Open a dealer's hour with its bay count."""
    return svc.put_timeslot(dealer_id, _hour(service_date_hour), timeslot.service_bay_count)


@router.serve
@kit.paged
def timeslots_of(
    dealer_id: models.DealerPath,
    svc: Service, page: kit.PageRequest,
    first: Annotated[
        str | None,
        Query(alias="from", pattern=DAY_OR_HOUR_PATTERN, description="YYYY-MM-DD or YYYY-MM-DDTHH, inclusive"),
    ] = None,
    last: Annotated[
        str | None, Query(alias="to", pattern=DAY_OR_HOUR_PATTERN, description="YYYY-MM-DD or YYYY-MM-DDTHH, inclusive")
    ] = None,
    min_available: Annotated[int | None, Query(alias="minAvailableBays", ge=1, le=100)] = None
) -> models.TimeslotPage:
    """List a dealer's hours over a range, optionally with free bays."""
    return page.of(models.TimeslotPage, svc.timeslots_of, dealer_id, first=first, last=last,
                   min_available=min_available)


# Admins only: a timeslot's appointments name customers.
@router.serve
@kit.paged
def appointments_of_timeslot(dealer_id: models.DealerPath, service_date_hour: models.HourPath, svc: Service,
                             page: kit.PageRequest) -> models.AppointmentPage:
    """List the appointments booked in a dealer's hour."""
    hour = _hour(service_date_hour)
    return page.of(models.AppointmentPage, svc.appointments_of_timeslot, dealer_id, hour)


# --- customers, vehicles, registrations ---------------------------------------------------------------


@router.serve
def put_customer(username: models.UsernamePath, customer: models.CustomerIn, svc: Service,
                 caller: kit.Caller) -> models.Customer:
    """Create or replace a customer."""
    svc.require_self_or_admin(caller, username)
    return svc.put_customer(username, customer.name, customer.email)


@router.serve
def get_customer(username: models.UsernamePath, svc: Service, caller: kit.Caller) -> models.Customer:
    """Read a customer."""
    svc.require_self_or_admin(caller, username)
    return svc.get_customer(username)


@router.serve
@kit.paged
def active_customers(
    active: Annotated[Literal["true"], Query(description="only active=true is served: a read of a sparse index")],
    repo: Repository, page: kit.PageRequest
) -> models.CustomerPage:
    """List the active customers."""
    return page.of(models.CustomerPage, repo.active_customers)


@router.serve
def put_vehicle(vin: models.VinPath, vehicle: models.VehicleIn, svc: Service) -> models.Vehicle:
    """Create or replace a vehicle."""
    return svc.put_vehicle(models.Vehicle(vin=vin, **vehicle.model_dump()))


@router.serve
def get_vehicle(vin: models.VinPath, repo: Repository) -> models.Vehicle:
    """Read a vehicle."""
    return repo.vehicle(vin)


@router.serve
def put_registration(username: models.UsernamePath, vin: models.VinPath, registration: models.RegistrationIn,
                     svc: Service,
                     caller: kit.Caller) -> models.Registration:
    """Register a vehicle to a customer."""
    svc.require_self_or_admin(caller, username)
    return svc.register(username, vin, registration.status_code)


@router.serve
@kit.paged
def registrations_of_customer(username: models.UsernamePath, svc: Service, caller: kit.Caller,
                              page: kit.PageRequest) -> models.RegistrationPage:
    """List the vehicles registered to a customer."""
    svc.require_self_or_admin(caller, username)
    return page.of(models.RegistrationPage, svc.registrations_of_customer, username)


@router.serve
@kit.paged
def registrations_of_vehicle(vin: models.VinPath, svc: Service, page: kit.PageRequest) -> models.RegistrationPage:
    """List the customers a vehicle is registered to."""
    return page.of(models.RegistrationPage, svc.registrations_of_vehicle, vin)


@router.serve
@kit.paged
def appointments_of_registration(username: models.UsernamePath, vin: models.VinPath, svc: Service, caller: kit.Caller,
                                 page: kit.PageRequest) -> models.AppointmentPage:
    """List the appointments of a customer's vehicle."""
    svc.require_self_or_admin(caller, username)
    return page.of(models.AppointmentPage, svc.appointments_of_registration, username, vin)


# --- appointments -------------------------------------------------------------------------------------


@router.serve
def book(appointment: models.AppointmentIn, svc: Service, caller: kit.Caller, create: kit.CreateOnce,
         idempotency_key: kit.IdempotencyKey = None) -> Response[models.Appointment]:
    """Book a service appointment in a dealer's hour."""
    svc.require_self_or_admin(caller, appointment.username)
    response = create(operation="connected-car.book", key=idempotency_key,
                      request=appointment.model_dump(mode="json"), make=lambda: svc.book(appointment))
    kit.metrics.add_metric(name="AppointmentBooked", unit="Count", value=1)
    return response


@router.serve
def get_appointment(appointment_id: models.IdPath, svc: Service, caller: kit.Caller) -> models.Appointment:
    """Read an appointment."""
    return svc.appointment_for(caller, appointment_id)


@router.serve
def cancel(appointment_id: models.IdPath, svc: Service, caller: kit.Caller) -> Response[None]:
    """Cancel an appointment, freeing its bay."""
    svc.cancel(caller, appointment_id)
    return Response(status_code=204)


# --- vehicle events -----------------------------------------------------------------------------------


@router.serve
def submit_event(vin: models.VinPath, event: models.VehicleEventIn, svc: Service, caller: kit.Caller,
                 create: kit.CreateOnce,
                 idempotency_key: kit.IdempotencyKey = None) -> Response[models.VehicleEvent]:
    """Record an event a vehicle reports."""
    svc.require_vehicle_writer(caller, vin)
    return create(operation="connected-car.submit_event", key=idempotency_key,
                  request={"vin": vin, **event.model_dump(mode="json")},
                  make=lambda: svc.submit_event(vin, event))


@router.serve
@kit.paged
def events_of(
    vin: models.VinPath,
    svc: Service, caller: kit.Caller, page: kit.PageRequest,
    first: Annotated[
        str | None,
        Query(alias="from", max_length=40, pattern=MOMENT_PATTERN, description="ISO-8601 time or day, inclusive"),
    ] = None,
    last: Annotated[
        str | None,
        Query(alias="to", max_length=40, pattern=MOMENT_PATTERN, description="ISO-8601 time or day, exclusive"),
    ] = None,
    event_type: Annotated[Literal["error", "warning"] | None, Query(alias="type")] = None
) -> models.VehicleEventPage:
    """List a vehicle's events over a time range."""
    svc.require_vehicle_reader(caller, vin)
    return page.of(models.VehicleEventPage, svc.events_of, vin, first=first, last=last, event_type=event_type)


app, lambda_handler = kit.serve(router)
