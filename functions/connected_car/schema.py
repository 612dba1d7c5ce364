"""The ConnectedCar tables (seed 001, "Modelling Data for DynamoDB"): one table per entity, as the seed draws them.

Kept from the seed: Dealer (`dealerId`), Timeslot (`dealerId`, `serviceDateHour`), Customer (`username`), Vehicle
(`vin`), Registration (`username`, `vin`) with the reversed-key `VehicleRegistrationIndex`, Appointment (GUID key)
with the compound-key `TimeslotAppointmentIndex` / `RegistrationAppointmentIndex`, Event (vehicle runtime
errors and warnings).

Added where the seed leaves the work to "client code" or to a Scan:
- Timeslot carries `bookedCount` and `availableBays`, changed in the same transaction as the appointment, so the
  capacity rule holds in DynamoDB.
- Customer carries `regVersion` (bumped by every registration write) and the stream-maintained `isActive`; the
  sparse `ActiveCustomerShardIndex` holds only customers whose `activeShard` ("1#<n>", n a hash of the username) is
  set, so "active customers" is one Query per shard, merged by username. It projects only what that list answers
  (`name`, `email`, `isActive`): a registration write bumps `regVersion`, which the index does not hold, so it never
  rewrites an index entry (docs/adr/0109-active-customers-sharded-and-projected.md computes the shard count).
- Event is keyed by `vin` and `eventId` (`<ISO time>#<random>`), expires by TTL (`expiresAt`), and
  `VehicleEventTypeIndex` (`vinType` = "<vin>#<type>") answers "errors of a vehicle" without a filter.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

KEY_SEPARATOR = "#"
ACTIVE = "active"
INACTIVE = "inactive"
ACTIVE_FLAG = "1"  # an active customer's shard key starts with it: "1#<n>"; absent exactly when not isActive
ACTIVE_SHARD = "activeShard"  # the sparse index's partition key attribute
RETIRED_ACTIVE_FLAG = "activeFlag"  # the key of the retired ActiveCustomerIndex: "1" on every active customer
# Vehicle events expire this many days after they are stored (configurable per stage through the environment).
EVENT_RETENTION_ENV = "EVENT_RETENTION_DAYS"
DEFAULT_EVENT_RETENTION_DAYS = 30

VEHICLE_REGISTRATION_INDEX = "VehicleRegistrationIndex"
TIMESLOT_APPOINTMENT_INDEX = "TimeslotAppointmentIndex"
REGISTRATION_APPOINTMENT_INDEX = "RegistrationAppointmentIndex"
ACTIVE_CUSTOMER_INDEX = "ActiveCustomerShardIndex"
# Before ADR 0109: one key ("1") for every active customer, ALL projected. Named here for the upgrade's first deploy
# and the migration (tools/migrations/connected_car.py); no code reads or writes it.
RETIRED_ACTIVE_CUSTOMER_INDEX = IndexSpec("ActiveCustomerIndex", KeyAttribute(RETIRED_ACTIVE_FLAG),
                                          KeyAttribute("username"))
# What the active-customers list answers (functions/connected_car/models.py Customer): nothing else is projected.
ACTIVE_CUSTOMER_PROJECTION = ("name", "email", "isActive")
VEHICLE_EVENT_TYPE_INDEX = "VehicleEventTypeIndex"

DEALER_TABLE = TableSpec("DealerTable", partition_key=KeyAttribute("dealerId"))

TIMESLOT_TABLE = TableSpec(
    "TimeslotTable", partition_key=KeyAttribute("dealerId"), sort_key=KeyAttribute("serviceDateHour")
)

CUSTOMER_TABLE = TableSpec(
    "CustomerTable",
    partition_key=KeyAttribute("username"),
    indexes=(IndexSpec(ACTIVE_CUSTOMER_INDEX, KeyAttribute(ACTIVE_SHARD), KeyAttribute("username"),
                       projection=ACTIVE_CUSTOMER_PROJECTION),),
)
# The Customer table during an upgraded stage's first deploy (ADR 0109): CloudFormation creates or deletes one GSI per
# update, so the retired index stays until the next deploy deletes it.
CUSTOMER_TABLE_DURING_UPGRADE = replace(
    CUSTOMER_TABLE, indexes=(*CUSTOMER_TABLE.indexes, RETIRED_ACTIVE_CUSTOMER_INDEX)
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


# --- the active-customer index's shards (ADR 0109) ------------------------------------------------------------------

KEY_WCU = 1_000  # write units a second one partition key value takes


@dataclass(frozen=True)
class ActiveIndexLoad:
    """The figures the shard count is computed from."""

    customer_writes_per_s: int = 2_000  # the stated peak (bench/scale/workloads.py CUSTOMER_WRITES)
    # Each may write one index entry (a profile change of an active customer, an activation or a deactivation); an
    # entry (username <= 128 B, name <= 100, email <= 254, isActive, activeShard) stays under 1 KB: one unit.
    units_per_entry_write: int = 1
    target_utilisation: float = 0.5  # headroom for the hash's uneven spread and bursts


ACTIVE_INDEX_LOAD = ActiveIndexLoad()


def active_shard_count(load: ActiveIndexLoad = ACTIVE_INDEX_LOAD) -> int:
    """N = peak index writes / (one key's 1,000 WCU x target utilisation), rounded up: 2,000 / 500 = 4."""
    index_writes = load.customer_writes_per_s * load.units_per_entry_write
    return max(1, math.ceil(index_writes / (KEY_WCU * load.target_utilisation)))


ACTIVE_SHARDS = active_shard_count()


def active_shard_of(username: str, shards: int = ACTIVE_SHARDS) -> str:
    """An active customer's index key, "1#<n>": n from a hash of the username, so a customer always lands in the same
    shard and the shards fill evenly whatever the usernames look like."""
    digest = hashlib.sha256(username.encode("utf-8")).digest()
    return f"{ACTIVE_FLAG}{KEY_SEPARATOR}{int.from_bytes(digest[:8], 'big') % shards}"


def active_shards(shards: int = ACTIVE_SHARDS) -> list[str]:
    """Every shard's key, in order: the list reads them all."""
    return [f"{ACTIVE_FLAG}{KEY_SEPARATOR}{n}" for n in range(shards)]
