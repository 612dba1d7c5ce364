"""The ConnectedCar tables (seed 001, "Modelling Data for DynamoDB"): one table per entity, as the seed draws them.

Kept from the seed: Dealer (`dealerId`), Timeslot (`dealerId`, `serviceDateHour`), Customer (`username`), Vehicle
(`vin`), Registration (`username`, `vin`) with the reversed-key `VehicleRegistrationIndex`, Appointment (GUID key)
with the compound-key `TimeslotAppointmentIndex` / `RegistrationAppointmentIndex`, Event (vehicle runtime
errors and warnings).

Added where the seed leaves the work to "client code" or to a Scan:
- Timeslot carries `bookedCount` and `availableBays`, changed in the same transaction as the appointment, so the
  capacity rule holds in DynamoDB.
- Customer carries `regVersion` (bumped by every registration write) and the stream-maintained `isActive`; the
  sparse `ActiveCustomerIndex` holds only customers whose `activeFlag` is set, so "active customers" is a Query.
- Event is keyed by `vin` and `eventId` (`<ISO time>#<random>`), expires by TTL (`expiresAt`), and
  `VehicleEventTypeIndex` (`vinType` = "<vin>#<type>") answers "errors of a vehicle" without a filter.
"""

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

KEY_SEPARATOR = "#"
ACTIVE = "active"
INACTIVE = "inactive"
ACTIVE_FLAG = "1"  # the only value of Customer.activeFlag: present exactly when isActive
# Vehicle events expire this many days after they are stored (configurable per stage through the environment).
EVENT_RETENTION_ENV = "EVENT_RETENTION_DAYS"
DEFAULT_EVENT_RETENTION_DAYS = 30

VEHICLE_REGISTRATION_INDEX = "VehicleRegistrationIndex"
TIMESLOT_APPOINTMENT_INDEX = "TimeslotAppointmentIndex"
REGISTRATION_APPOINTMENT_INDEX = "RegistrationAppointmentIndex"
ACTIVE_CUSTOMER_INDEX = "ActiveCustomerIndex"
VEHICLE_EVENT_TYPE_INDEX = "VehicleEventTypeIndex"

DEALER_TABLE = TableSpec("DealerTable", partition_key=KeyAttribute("dealerId"))

TIMESLOT_TABLE = TableSpec(
    "TimeslotTable", partition_key=KeyAttribute("dealerId"), sort_key=KeyAttribute("serviceDateHour")
)

CUSTOMER_TABLE = TableSpec(
    "CustomerTable",
    partition_key=KeyAttribute("username"),
    indexes=(IndexSpec(ACTIVE_CUSTOMER_INDEX, KeyAttribute("activeFlag"), KeyAttribute("username")),),
)

VEHICLE_TABLE = TableSpec("VehicleTable", partition_key=KeyAttribute("vin"))

REGISTRATION_TABLE = TableSpec(
    "RegistrationTable",
    partition_key=KeyAttribute("username"),
    sort_key=KeyAttribute("vin"),
    indexes=(IndexSpec(VEHICLE_REGISTRATION_INDEX, KeyAttribute("vin"), KeyAttribute("username")),),
    # The isActive consumer only needs to know whose registrations changed.
    stream_view="KEYS_ONLY",
)

APPOINTMENT_TABLE = TableSpec(
    "AppointmentTable",
    partition_key=KeyAttribute("appointmentId"),
    indexes=(
        IndexSpec(TIMESLOT_APPOINTMENT_INDEX, KeyAttribute("timeslotKey"), KeyAttribute("appointmentId")),
        IndexSpec(REGISTRATION_APPOINTMENT_INDEX, KeyAttribute("registrationKey"), KeyAttribute("serviceDateHour")),
    ),
)

EVENT_TABLE = TableSpec(
    "EventTable",
    partition_key=KeyAttribute("vin"),
    sort_key=KeyAttribute("eventId"),
    indexes=(IndexSpec(VEHICLE_EVENT_TYPE_INDEX, KeyAttribute("vinType"), KeyAttribute("eventId")),),
    ttl_attribute="expiresAt",
)

TABLES = (
    DEALER_TABLE,
    TIMESLOT_TABLE,
    CUSTOMER_TABLE,
    VEHICLE_TABLE,
    REGISTRATION_TABLE,
    APPOINTMENT_TABLE,
    EVENT_TABLE,
)


def compound_key(*parts: str) -> str:
    """The seed's delimited compound keys: timeslotKey = dealerId#serviceDateHour, registrationKey = username#vin."""
    return KEY_SEPARATOR.join(parts)
