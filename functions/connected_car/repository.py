"""ConnectedCar table access: one method per access pattern, the only module here that talks to DynamoDB.

Every rule is enforced by DynamoDB itself, in one request:
- a timeslot's bays: booking and cancelling update the timeslot's counts and the appointment in one transaction,
  the booking conditioned on `availableBays > 0` (so concurrency cannot overbook);
- booking needs an active registration (a ConditionCheck in the same transaction);
- a registration needs an existing customer and vehicle, and bumps the customer's `regVersion` in the same
  transaction: the isActive consumer writes only if no registration changed since it looked
  (functions/connected_car/active_customers.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError
from pydantic import BaseModel

from functions.connected_car import models
from functions.connected_car.schema import (
    ACTIVE,
    ACTIVE_CUSTOMER_INDEX,
    ACTIVE_SHARD,
    APPOINTMENT_TABLE,
    CUSTOMER_TABLE,
    DEALER_TABLE,
    EVENT_TABLE,
    REGISTRATION_APPOINTMENT_INDEX,
    REGISTRATION_TABLE,
    RETIRED_ACTIVE_FLAG,
    TIMESLOT_APPOINTMENT_INDEX,
    TIMESLOT_TABLE,
    VEHICLE_EVENT_TYPE_INDEX,
    VEHICLE_REGISTRATION_INDEX,
    VEHICLE_TABLE,
    active_shard_of,
    active_shards,
    compound_key,
)
from functions.shared import ddb
from functions.shared.errors import ConflictError, NotFoundError, ThrottledError, found
from functions.shared.models import from_item, to_item
from functions.shared.pages import Page, read_page
from functions.shared.settings import TableName, Tables
from functions.shared.sharded import ShardedIndex, merged_shards, resume_after

StartKey = dict[str, Any] | None
_REGISTRATION_ATTEMPTS = 3


@dataclass(frozen=True)
class CustomerActivity:
    """What the isActive consumer reads of a customer."""

    username: str
    is_active: bool
    index_key: str | None  # the sparse index's activeShard, if any
    retired_flag: bool  # still carries the retired index's activeFlag (a customer not yet migrated)
    reg_version: int

    def settled(self, active: bool) -> bool:
        """isActive says `active`, and the customer is in the index under its own shard exactly when active."""
        expected = active_shard_of(self.username) if active else None
        return self.is_active == active and self.index_key == expected and not self.retired_flag


class TableNames(Tables):
    """The domain's table names, from the function's settings when first used (the isActive consumer has only
    the Customer and Registration tables)."""

    dealer = TableName(DEALER_TABLE)
    timeslot = TableName(TIMESLOT_TABLE)
    customer = TableName(CUSTOMER_TABLE)
    vehicle = TableName(VEHICLE_TABLE)
    registration = TableName(REGISTRATION_TABLE)
    appointment = TableName(APPOINTMENT_TABLE)
    event = TableName(EVENT_TABLE)


# --- the repository ---------------------------------------------------------------------------------

class ConnectedCarRepository:
    def __init__(self, tables: TableNames):
        self.tables = tables

    # dealers and timeslots

    def put_dealer(self, dealer: models.Dealer) -> models.Dealer:
        """Create or replace a dealer (PutItem)."""
        ddb.table(self.tables.dealer).put_item(Item=to_item(dealer))
        return dealer

    def get_dealer(self, dealer_id: str) -> models.Dealer | None:
        item = ddb.table(self.tables.dealer).get_item(Key={"dealerId": dealer_id}).get("Item")
        return None if item is None else from_item(models.Dealer, item)

    def dealer(self, dealer_id: str) -> models.Dealer:
        """A dealer: GetItem `dealerId = :id` (404 DEALER_NOT_FOUND)."""
        return found(self.get_dealer(dealer_id), f"no dealer {dealer_id}", "DEALER_NOT_FOUND")

    def put_timeslot(self, dealer_id: str, service_date_hour: str, bay_count: int) -> models.Timeslot:
        """Create a timeslot or change its bay count, in one transaction with a check that the dealer exists.

        Bookings are kept: lowering the count below the bays already booked is a 409 BAYS_IN_USE.
        """
        self.put_timeslots(dealer_id, [service_date_hour], bay_count)
        return self.get_timeslot(dealer_id, service_date_hour, consistent=True)  # type: ignore[return-value]

    def put_timeslots(self, dealer_id: str, service_date_hours: Sequence[str], bay_count: int) -> None:
        """`put_timeslot` for several of a dealer's timeslots at once (the example data opens a day at a time): one
        transaction of the dealer check and an update per timeslot, all or nothing, so at most 99 timeslots."""
        if isinstance(service_date_hours, str) or len(set(service_date_hours)) != len(service_date_hours):
            raise ValueError("distinct timeslots, in a list")
        if not 0 < len(service_date_hours) < ddb.TRANSACTION_MAX_ACTIONS:
            raise ValueError(
                f"1 to {ddb.TRANSACTION_MAX_ACTIONS - 1} timeslots per call, not {len(service_date_hours)}")
        actions = [("dealer", _exists_check(self.tables.dealer, {"dealerId": dealer_id}, "dealerId"))]
        actions += [(f"timeslot {hour}", {
            "Update": {
                "TableName": self.tables.timeslot,
                "Key": {"dealerId": dealer_id, "serviceDateHour": hour},
                "UpdateExpression": (
                    "SET serviceBayCount = :count, bookedCount = if_not_exists(bookedCount, :zero), "
                    "availableBays = :count - if_not_exists(bookedCount, :zero)"
                ),
                "ConditionExpression": "attribute_not_exists(dealerId) OR bookedCount <= :count",
                "ExpressionAttributeValues": {":count": bay_count, ":zero": 0},
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }
        }) for hour in service_date_hours]
        failed = ddb.transact_write(actions)
        if failed is not None and failed.name == "dealer":
            raise NotFoundError(f"no dealer {dealer_id}", code="DEALER_NOT_FOUND") from failed.error
        if failed is not None:
            raise ConflictError(
                f"more than {bay_count} bays are booked at {failed.name.removeprefix('timeslot ')}; "
                "cancel appointments first",
                code="BAYS_IN_USE",
            ) from failed.error

    def get_timeslot(self, dealer_id: str, service_date_hour: str, *,
                     consistent: bool = False) -> models.Timeslot | None:
        item = (
            ddb.table(self.tables.timeslot)
            .get_item(Key={"dealerId": dealer_id, "serviceDateHour": service_date_hour}, ConsistentRead=consistent)
            .get("Item")
        )
        return None if item is None else from_item(models.Timeslot, item)

    def timeslot(self, dealer_id: str, service_date_hour: str) -> models.Timeslot:
        """A dealer's timeslot (404 TIMESLOT_NOT_FOUND)."""
        return found(self.get_timeslot(dealer_id, service_date_hour),
                     f"no timeslot {service_date_hour} at dealer {dealer_id}", "TIMESLOT_NOT_FOUND")

    def timeslots_of(
        self, dealer_id: str, *, first: str, last: str, min_available: int | None, limit: int, start_key: StartKey
    ) -> Page:
        """A dealer's timeslots from `first` to `last` (serviceDateHour, inclusive): Query on the table's keys.

        `minAvailableBays` filters the result of that key query only (the seed's note on serviceBayCount): it
        never reads another dealer's or another range's timeslots.
        """
        query: dict[str, Any] = {
            "KeyConditionExpression": Key("dealerId").eq(dealer_id) & Key("serviceDateHour").between(first, last)
        }
        if min_available is not None:
            query["FilterExpression"] = Attr("availableBays").gte(min_available)
        return _page(self.tables.timeslot, models.Timeslot, limit, start_key, range_end=("serviceDateHour", last),
                     **query)

    # customers, vehicles, registrations

    def put_customer(self, username: str, name: str, email: str) -> models.Customer:
        """Create or update a customer's name and email; isActive belongs to the stream consumer."""
        response = ddb.table(self.tables.customer).update_item(
            Key={"username": username},
            UpdateExpression=(
                "SET #name = :name, email = :email, isActive = if_not_exists(isActive, :false), "
                "regVersion = if_not_exists(regVersion, :zero)"
            ),
            ExpressionAttributeNames={"#name": "name"},
            ExpressionAttributeValues={":name": name, ":email": email, ":false": False, ":zero": 0},
            ReturnValues="ALL_NEW",
        )
        return from_item(models.Customer, response["Attributes"])

    def get_customer(self, username: str) -> models.Customer | None:
        item = ddb.table(self.tables.customer).get_item(Key={"username": username}).get("Item")
        return None if item is None else from_item(models.Customer, item)

    def customer(self, username: str) -> models.Customer:
        """A customer: GetItem `username = :u` (404 CUSTOMER_NOT_FOUND)."""
        return found(self.get_customer(username), f"no customer {username}", "CUSTOMER_NOT_FOUND")

    def customer_activity(self, username: str) -> CustomerActivity | None:
        """isActive sync: the customer's flag and registration version, GetItem strongly consistent."""
        item: Mapping[str, Any] | None = ddb.table(self.tables.customer).get_item(
            Key={"username": username}, ConsistentRead=True).get("Item")
        if item is None:
            return None
        return CustomerActivity(
            username=username, is_active=bool(item.get("isActive")), index_key=item.get(ACTIVE_SHARD),
            retired_flag=RETIRED_ACTIVE_FLAG in item, reg_version=int(item.get("regVersion", 0)),
        )

    def has_active_registration(self, username: str) -> bool:
        """isActive sync: Query the customer's registrations (strongly consistent, statusCode only) for an active one;
        bounded by that customer's registrations."""
        query: dict[str, Any] = {
            "KeyConditionExpression": Key("username").eq(username),
            "ProjectionExpression": "statusCode",
            "ConsistentRead": True,
        }
        table = ddb.table(self.tables.registration)
        while True:
            response = table.query(**query)
            if any(item.get("statusCode") == ACTIVE for item in response.get("Items", [])):
                return True
            if "LastEvaluatedKey" not in response:
                return False
            query["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def set_customer_active(self, username: str, active: bool, reg_version: int) -> bool:
        """isActive sync: UpdateItem isActive (and the sparse index's `activeShard`, "1#<n>") if the customer's
        regVersion is still `reg_version`; False when a registration changed meanwhile (read again). The retired
        index's `activeFlag` is removed either way (ADR 0109)."""
        if active:
            update = f"SET isActive = :active, {ACTIVE_SHARD} = :shard REMOVE {RETIRED_ACTIVE_FLAG}"
        else:
            update = f"SET isActive = :active REMOVE {ACTIVE_SHARD}, {RETIRED_ACTIVE_FLAG}"
        values: dict[str, Any] = {":active": active, ":version": reg_version}
        if active:
            values[":shard"] = active_shard_of(username)
        try:
            ddb.table(self.tables.customer).update_item(
                Key={"username": username},
                UpdateExpression=update,
                ConditionExpression="attribute_exists(username) AND regVersion = :version",
                ExpressionAttributeValues=values,
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def active_customers(self, *, limit: int, start_key: StartKey) -> Page:
        """Customers with an active registration, by username: Query each shard of the sparse
        ActiveCustomerShardIndex (`activeShard = "1#<n>" AND username > :after`, only active customers are in it)
        and merge them (ADR 0109). The cursor's key is the last username returned."""
        index = ShardedIndex(ACTIVE_CUSTOMER_INDEX, ACTIVE_SHARD, active_shards(), "username")
        page = merged_shards(ddb.table(self.tables.customer), index, limit=limit,
                             after=resume_after(start_key, "username"))
        listed: list[Any] = [from_item(models.Customer, item) for item in page.items]
        return Page(items=listed, last_key=page.last_key)

    def put_vehicle(self, vehicle: models.Vehicle) -> models.Vehicle:
        """Create or update a vehicle's description (UpdateItem: its active registration holder is kept)."""
        ddb.table(self.tables.vehicle).update_item(
            Key={"vin": vehicle.vin},
            UpdateExpression="SET make = :make, model = :model, #year = :year",
            ExpressionAttributeNames={"#year": "year"},
            ExpressionAttributeValues={":make": vehicle.make, ":model": vehicle.model, ":year": vehicle.year},
        )
        return vehicle

    def get_vehicle(self, vin: str) -> models.Vehicle | None:
        item = ddb.table(self.tables.vehicle).get_item(Key={"vin": vin}).get("Item")
        return None if item is None else from_item(models.Vehicle, item)

    def vehicle(self, vin: str) -> models.Vehicle:
        """A vehicle: GetItem `vin = :vin` (404 VEHICLE_NOT_FOUND)."""
        return found(self.get_vehicle(vin), f"no vehicle {vin}", "VEHICLE_NOT_FOUND")

    def put_registration(self, username: str, vin: str, status_code: str, now: datetime) -> models.Registration:
        """Register a vehicle to a customer or change the registration's status, in one transaction that
        - bumps the customer's regVersion (which also checks the customer exists),
        - holds the vehicle's `activeUsername`: a vehicle has at most one active registration (409 otherwise),
        - writes the registration.

        Deactivating releases the vehicle only if this customer holds it; otherwise the vehicle is only checked.
        Which of the two applies is itself a condition, so a concurrent change makes us try again (bounded).
        """
        customer_update = {
            "Update": {
                "TableName": self.tables.customer,
                "Key": {"username": username},
                "UpdateExpression": "ADD regVersion :one",
                "ConditionExpression": "attribute_exists(username)",
                "ExpressionAttributeValues": {":one": 1},
            }
        }
        registration_update = {
            "Update": {
                "TableName": self.tables.registration,
                "Key": {"username": username, "vin": vin},
                "UpdateExpression": (
                    "SET statusCode = :status, updatedAt = :now, createdAt = if_not_exists(createdAt, :now)"),
                "ExpressionAttributeValues": {":status": status_code, ":now": now.isoformat()},
            }
        }
        for vehicle_action in self._vehicle_actions(vin, username, status_code):
            failed = ddb.transact_write(
                [("customer", customer_update), ("vehicle", vehicle_action), ("registration", registration_update)]
            )
            if failed is None:
                return models.Registration(username=username, vin=vin, status_code=status_code, updated_at=now)  # type: ignore[arg-type]
            if failed.name == "customer":
                raise NotFoundError(f"no customer {username}", code="CUSTOMER_NOT_FOUND") from failed.error
            if failed.item is None:
                raise NotFoundError(f"no vehicle {vin}", code="VEHICLE_NOT_FOUND") from failed.error
            if status_code == ACTIVE:
                raise ConflictError(
                    f"{vin} has an active registration to another customer", code="VEHICLE_ALREADY_REGISTERED"
                ) from failed.error
            # deactivating: who holds the vehicle changed under us; take the other branch
        raise ThrottledError("the vehicle's registration kept changing; retry")

    def _vehicle_actions(self, vin: str, username: str, status_code: str):
        """The vehicle's part of a registration transaction, in the order to try them."""
        key = {"vin": vin}
        values = {":u": username}
        if status_code == ACTIVE:
            yield _vehicle_update(
                self.tables.vehicle, key, "SET activeUsername = :u",
                "attribute_exists(vin) AND (attribute_not_exists(activeUsername) OR activeUsername = :u)", values)
            return
        for _ in range(_REGISTRATION_ATTEMPTS):
            yield _vehicle_update(self.tables.vehicle, key, "REMOVE activeUsername", "activeUsername = :u", values)
            yield {
                "ConditionCheck": {
                    "TableName": self.tables.vehicle,
                    "Key": key,
                    "ConditionExpression": (
                        "attribute_exists(vin) AND (attribute_not_exists(activeUsername) OR activeUsername <> :u)"),
                    "ExpressionAttributeValues": values,
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }

    def get_registration(self, username: str, vin: str) -> models.Registration | None:
        item = ddb.table(self.tables.registration).get_item(Key={"username": username, "vin": vin}).get("Item")
        return None if item is None else from_item(models.Registration, item)

    def registration(self, username: str, vin: str) -> models.Registration:
        """A customer's registration of a vehicle (404 REGISTRATION_NOT_FOUND)."""
        return found(self.get_registration(username, vin), f"{username} has not registered {vin}",
                     "REGISTRATION_NOT_FOUND")

    def registrations_of_customer(self, username: str, *, limit: int, start_key: StartKey) -> Page:
        """Query the Registration table on its partition key."""
        return _page(
            self.tables.registration, models.Registration, limit, start_key,
            KeyConditionExpression=Key("username").eq(username),
        )

    def registrations_of_vehicle(self, vin: str, *, limit: int, start_key: StartKey) -> Page:
        """Query VehicleRegistrationIndex, the seed's reversed keys."""
        return _page(
            self.tables.registration, models.Registration, limit, start_key,
            IndexName=VEHICLE_REGISTRATION_INDEX, KeyConditionExpression=Key("vin").eq(vin),
        )

    # appointments

    def book(self, appointment: models.Appointment) -> models.Appointment:
        """Book a bay: check the registration is active, take a bay, store the appointment — all or nothing."""
        timeslot_key = {"dealerId": appointment.dealer_id, "serviceDateHour": appointment.service_date_hour}
        actions = [
            ("registration", {
                "ConditionCheck": {
                    "TableName": self.tables.registration,
                    "Key": {"username": appointment.username, "vin": appointment.vin},
                    "ConditionExpression": "statusCode = :active",
                    "ExpressionAttributeValues": {":active": ACTIVE},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("timeslot", {
                "Update": {
                    "TableName": self.tables.timeslot,
                    "Key": timeslot_key,
                    "UpdateExpression": "SET bookedCount = bookedCount + :one, availableBays = availableBays - :one",
                    "ConditionExpression": "attribute_exists(dealerId) AND availableBays > :zero",
                    "ExpressionAttributeValues": {":one": 1, ":zero": 0},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("appointment", {
                "Put": {
                    "TableName": self.tables.appointment,
                    "Item": to_item(appointment),
                    "ConditionExpression": "attribute_not_exists(appointmentId)",
                }
            }),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return appointment
        if failed.name == "registration":
            if failed.item is None:
                raise NotFoundError(
                    f"{appointment.username} has not registered {appointment.vin}", code="REGISTRATION_NOT_FOUND"
                ) from failed.error
            raise ConflictError(
                f"the registration of {appointment.vin} to {appointment.username} is not active",
                code="REGISTRATION_INACTIVE",
            ) from failed.error
        if failed.name == "timeslot":
            if failed.item is None:
                raise NotFoundError(
                    f"no timeslot {appointment.service_date_hour} at dealer {appointment.dealer_id}",
                    code="TIMESLOT_NOT_FOUND",
                ) from failed.error
            raise ConflictError("every service bay of this timeslot is booked", code="TIMESLOT_FULL") from failed.error
        raise ConflictError("an appointment with this id exists", code="ALREADY_EXISTS") from failed.error

    def get_appointment(self, appointment_id: str, *, consistent: bool = False) -> models.Appointment | None:
        item = (
            ddb.table(self.tables.appointment)
            .get_item(Key={"appointmentId": appointment_id}, ConsistentRead=consistent)
            .get("Item")
        )
        return None if item is None else from_item(models.Appointment, item)

    def appointment(self, appointment_id: str) -> models.Appointment:
        """An appointment, read strongly consistent (404 APPOINTMENT_NOT_FOUND)."""
        return found(self.get_appointment(appointment_id, consistent=True), f"no appointment {appointment_id}",
                     "APPOINTMENT_NOT_FOUND")

    def cancel(self, appointment: models.Appointment) -> None:
        """Delete the appointment and give its bay back, all or nothing. The delete is conditioned on the
        appointment still being there, so two concurrent cancels free one bay, not two."""
        actions = [
            ("appointment", {
                "Delete": {
                    "TableName": self.tables.appointment,
                    "Key": {"appointmentId": appointment.appointment_id},
                    "ConditionExpression": "attribute_exists(appointmentId)",
                }
            }),
            ("timeslot", {
                "Update": {
                    "TableName": self.tables.timeslot,
                    "Key": {"dealerId": appointment.dealer_id, "serviceDateHour": appointment.service_date_hour},
                    "UpdateExpression": "SET bookedCount = bookedCount - :one, availableBays = availableBays + :one",
                    "ConditionExpression": "attribute_exists(dealerId) AND bookedCount > :zero",
                    "ExpressionAttributeValues": {":one": 1, ":zero": 0},
                }
            }),
        ]
        failed = ddb.transact_write(actions)
        if failed is not None and failed.name == "appointment":
            raise NotFoundError(
                f"no appointment {appointment.appointment_id}", code="APPOINTMENT_NOT_FOUND"
            ) from failed.error
        if failed is not None:  # cannot happen while every booking goes through book(); never free a bay twice
            raise ConflictError(
                "the timeslot has no booked bay to free", code="TIMESLOT_INCONSISTENT") from failed.error

    def appointments_of_timeslot(
        self, dealer_id: str, service_date_hour: str, *, limit: int, start_key: StartKey
    ) -> Page:
        """Query TimeslotAppointmentIndex on timeslotKey = dealerId#serviceDateHour."""
        return _page(
            self.tables.appointment, models.Appointment, limit, start_key,
            IndexName=TIMESLOT_APPOINTMENT_INDEX,
            KeyConditionExpression=Key("timeslotKey").eq(compound_key(dealer_id, service_date_hour)),
        )

    def appointments_of_registration(self, username: str, vin: str, *, limit: int, start_key: StartKey) -> Page:
        """Query RegistrationAppointmentIndex on registrationKey = username#vin, in service time order."""
        return _page(
            self.tables.appointment, models.Appointment, limit, start_key,
            IndexName=REGISTRATION_APPOINTMENT_INDEX,
            KeyConditionExpression=Key("registrationKey").eq(compound_key(username, vin)),
        )

    # vehicle events

    def put_event(self, event: models.VehicleEvent) -> models.VehicleEvent:
        """Store a vehicle's event, in one transaction with a check that the vehicle exists."""
        actions = [
            ("vehicle", _exists_check(self.tables.vehicle, {"vin": event.vin}, "vin")),
            ("event", {
                "Put": {
                    "TableName": self.tables.event,
                    "Item": to_item(event, vinType=compound_key(event.vin, event.type)),
                    "ConditionExpression": "attribute_not_exists(eventId)",
                }
            }),
        ]
        failed = ddb.transact_write(actions)
        if failed is not None and failed.name == "vehicle":
            raise NotFoundError(f"no vehicle {event.vin}", code="VEHICLE_NOT_FOUND") from failed.error
        if failed is not None:
            raise ConflictError("an event with this id exists", code="ALREADY_EXISTS") from failed.error
        return event

    def events_of(
        self,
        vin: str,
        *,
        first: str,
        last: str,
        event_type: str | None,
        now_epoch: int,
        limit: int,
        start_key: StartKey,
    ) -> Page:
        """A vehicle's events with `first <= eventId <= last`, newest first.

        Without a type: Query the table on vin; with one: Query VehicleEventTypeIndex on "<vin>#<type>", so
        the read never touches the other type's events. The caller clamps `first` to the retention window, so
        expired items are outside the key range; the filter on `expiresAt` only drops the ones a shorter
        retention setting expired early (DynamoDB deletes expired items within days, not at once).
        """
        if event_type is None:
            key = Key("vin").eq(vin) & Key("eventId").between(first, last)
            index: dict[str, Any] = {}
        else:
            key = Key("vinType").eq(compound_key(vin, event_type)) & Key("eventId").between(first, last)
            index = {"IndexName": VEHICLE_EVENT_TYPE_INDEX}
        return _page(
            self.tables.event, models.VehicleEvent, limit, start_key,
            KeyConditionExpression=key,
            FilterExpression=Attr("expiresAt").gt(now_epoch),
            ScanIndexForward=False,
            **index,
        )


# --- low-level helpers ------------------------------------------------------------------------------

def _page(table_name: str, model: type[BaseModel], limit: int, start_key: StartKey, **query: Any) -> Page:
    return read_page(ddb.table(table_name).query, lambda item: from_item(model, item), limit=limit,
                     start_key=start_key, **query)


def _vehicle_update(table_name: str, key: dict[str, str], update: str, condition: str,
                    values: dict[str, str]) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": table_name,
            "Key": key,
            "UpdateExpression": update,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }


def _exists_check(table_name: str, key: dict[str, str], attribute: str) -> dict[str, Any]:
    return {
        "ConditionCheck": {
            "TableName": table_name,
            "Key": key,
            "ConditionExpression": f"attribute_exists({attribute})",
        }
    }

