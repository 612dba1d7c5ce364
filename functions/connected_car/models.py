"""API shapes of the ConnectedCar domain (camelCase on the wire, times in UTC)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import AfterValidator, Field, StringConstraints

from functions.shared.models import HOUR_PATTERN, WHITE_SPACE, ApiModel, JsonInt, PageOf, stripped_rules

DEALER_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
# No "#": usernames and VINs are parts of the seed's delimited compound keys.
USERNAME_PATTERN = r"^[A-Za-z0-9._@+-]{1,128}$"
VIN_PATTERN = r"^[A-HJ-NPR-Z0-9]{17}$"  # 17 characters, never I, O or Q (ISO 3779)
SERVICE_DATE_HOUR_PATTERN = HOUR_PATTERN  # a real hour, so the OpenAPI description states what is refused

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
DealerPath = Annotated[str, Path(pattern=DEALER_ID_PATTERN)]
HourPath = Annotated[str, Path(pattern=SERVICE_DATE_HOUR_PATTERN, description="YYYY-MM-DDTHH (UTC)")]
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]
VinPath = Annotated[str, Path(pattern=VIN_PATTERN)]
IdPath = Annotated[str, Path(min_length=1, max_length=64)]


def check_service_date_hour(value: str) -> str:
    """`YYYY-MM-DDTHH` naming a real hour (what HOUR_PATTERN says, checked by the calendar too)."""
    datetime.strptime(value, "%Y-%m-%dT%H")
    return value


Name = Annotated[str, *stripped_rules(1, 100)]
Text = Annotated[str, *stripped_rules(1, 200)]
DealerId = Annotated[str, StringConstraints(pattern=DEALER_ID_PATTERN)]
Username = Annotated[str, StringConstraints(pattern=USERNAME_PATTERN)]
Vin = Annotated[str, StringConstraints(pattern=VIN_PATTERN)]
ServiceDateHour = Annotated[
    str, StringConstraints(pattern=SERVICE_DATE_HOUR_PATTERN), AfterValidator(check_service_date_hour)
]
EMAIL_PATTERN = rf"^[^@{WHITE_SPACE}]+@[^@{WHITE_SPACE}]+\.[^@{WHITE_SPACE}]+$"
Email = Annotated[str, StringConstraints(strip_whitespace=True, max_length=254, pattern=EMAIL_PATTERN)]
StatusCode = Literal["active", "inactive"]
EventType = Literal["error", "warning"]


class DealerIn(ApiModel):
    name: Name
    address: Text | None = None


class Dealer(DealerIn):
    dealer_id: str


class TimeslotIn(ApiModel):
    service_bay_count: Annotated[JsonInt, Field(ge=1, le=100, strict=True)]


class Timeslot(ApiModel):
    dealer_id: str
    service_date_hour: str
    service_bay_count: int
    booked_count: int
    available_bays: int


class CustomerIn(ApiModel):
    name: Name
    email: Email


class Customer(CustomerIn):
    username: str
    is_active: bool


class VehicleIn(ApiModel):
    make: Name
    model: Name
    year: Annotated[JsonInt, Field(ge=1886, le=2100, strict=True)]


class Vehicle(VehicleIn):
    vin: str


class RegistrationIn(ApiModel):
    status_code: StatusCode


class Registration(ApiModel):
    username: str
    vin: str
    status_code: StatusCode
    updated_at: datetime


class AppointmentIn(ApiModel):
    dealer_id: DealerId
    service_date_hour: ServiceDateHour
    username: Username
    vin: Vin


class Appointment(ApiModel):
    appointment_id: str
    dealer_id: str
    service_date_hour: str
    username: str
    vin: str
    timeslot_key: str
    registration_key: str
    created_at: datetime


class VehicleEventIn(ApiModel):
    type: EventType
    code: Annotated[str, *stripped_rules(1, 50)]
    message: Annotated[str, *stripped_rules(1, 500)]


class VehicleEvent(VehicleEventIn):
    vin: str
    event_id: str
    timestamp: datetime
    expires_at: int = Field(description="epoch seconds after which the event is gone (TTL)")


class TimeslotPage(PageOf[Timeslot]):
    pass


class CustomerPage(PageOf[Customer]):
    pass


class RegistrationPage(PageOf[Registration]):
    pass


class AppointmentPage(PageOf[Appointment]):
    pass


class VehicleEventPage(PageOf[VehicleEvent]):
    pass
