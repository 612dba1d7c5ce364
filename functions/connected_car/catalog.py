"""Connected car: its entities and access patterns, declared once. docs/connected-car.md's two tables are rendered from
them (`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the
tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, StreamDemo, columns

ENTITIES: EntityTable = EntityTable(
    columns=("table", "partition key", "sort key", "other attributes", "indexes"),
    rows=(
        ("Dealer", "`dealerId`", "—", "`name`, `address`?", "—"),
        (
            "Timeslot",
            "`dealerId`",
            "`serviceDateHour` (`2026-12-01T09`)",
            "`serviceBayCount`, `bookedCount`, `availableBays`",
            "—",
        ),
        (
            "Customer",
            "`username`",
            "—",
            "`name`, `email`, `isActive`, `regVersion`, `activeFlag`?",
            "**ActiveCustomerIndex** (`activeFlag`, `username`) — sparse: only active customers carry `activeFlag`",
        ),
        (
            "Vehicle",
            "`vin`",
            "—",
            "`make`, `model`, `year`, `activeUsername`? (who holds its active registration)",
            "—",
        ),
        (
            "Registration",
            "`username`",
            "`vin`",
            "`statusCode` (`active`|`inactive`), `createdAt`, `updatedAt`",
            "**VehicleRegistrationIndex** (`vin`, `username`) — the seed's reversed keys. Stream: `KEYS_ONLY`",
        ),
        (
            "Appointment",
            "`appointmentId` (UUID)",
            "—",
            (
                "`dealerId`, `serviceDateHour`, `username`, `vin`, `timeslotKey` = `dealerId#serviceDateHour`, "
                "`registrationKey` = `username#vin`, `createdAt`"
            ),
            (
                "**TimeslotAppointmentIndex** (`timeslotKey`, `appointmentId`), **RegistrationAppointmentIndex** "
                "(`registrationKey`, `serviceDateHour`)"
            ),
        ),
        (
            "Event",
            "`vin`",
            "`eventId` = `<UTC time with ms>#<random>`",
            "`type` (`error`|`warning`), `code`, `message`, `timestamp`, `expiresAt` (TTL), `vinType` = `vin#type`",
            "**VehicleEventTypeIndex** (`vinType`, `eventId`)",
        ),
    ),
)

COLUMNS: Columns = columns(key_condition="key condition / write")

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="put a dealer",
        route="`PUT /connected-car/dealers/{dealerId}`",
        who="admin",
        source="Dealer",
        key_condition="PutItem",
        repository_method="`put_dealer`",
        tests="`test_admin_puts_dealers_and_vehicles_and_anyone_signed_in_reads_them`",
    ),
    AccessPattern(
        name="get a dealer",
        route="`GET /connected-car/dealers/{dealerId}`",
        who="signed in",
        source="Dealer",
        key_condition="GetItem",
        repository_method="`get_dealer`",
        tests=(
            "`test_admin_puts_dealers_and_vehicles_and_anyone_signed_in_reads_them`, e2e "
            "`test_dealer_vehicle_and_registration_reads`"
        ),
    ),
    AccessPattern(
        name="put a timeslot",
        route="`PUT /connected-car/dealers/{dealerId}/timeslots/{serviceDateHour}` `{serviceBayCount}`",
        who="admin",
        source="Dealer + Timeslot",
        key_condition=(
            "TransactWriteItems: ConditionCheck dealer exists; Update `serviceBayCount`, keep `bookedCount`, "
            "`availableBays = count − bookedCount`, if new or `bookedCount ≤ count`"
        ),
        repository_method="`put_timeslot`",
        tests="`test_admin_puts_a_timeslot_and_changing_its_bay_count_keeps_the_bookings`",
    ),
    AccessPattern(
        name="timeslots of a dealer in a range",
        route="`GET /connected-car/dealers/{dealerId}/timeslots?from=&to=[&minAvailableBays=]`",
        who="signed in",
        source="Timeslot",
        key_condition=(
            "`dealerId = :d AND serviceDateHour BETWEEN :from AND :to` (+ filter `availableBays ≥ :n` on that result "
            "only)"
        ),
        repository_method="`timeslots_of`",
        tests=(
            "`test_timeslots_of_a_day_or_between_hours_inclusive`, "
            "`test_min_available_bays_filters_the_key_query_only`, "
            "`test_the_range_read_is_one_query_on_the_dealers_timeslots`, "
            "`test_timeslot_pages_cover_the_range_once_and_their_cursor_is_bound`"
        ),
    ),
    AccessPattern(
        name="put a customer",
        route="`PUT /connected-car/customers/{username}` `{name, email}`",
        who="self or admin",
        source="Customer",
        key_condition="UpdateItem (name, email; `isActive` untouched)",
        repository_method="`put_customer`",
        tests="`test_customer_is_written_and_read_by_self_or_admin`",
    ),
    AccessPattern(
        name="get a customer",
        route="`GET /connected-car/customers/{username}`",
        who="self or admin",
        source="Customer",
        key_condition="GetItem",
        repository_method="`get_customer`",
        tests="`test_customer_is_written_and_read_by_self_or_admin`",
    ),
    AccessPattern(
        name="active customers",
        route="`GET /connected-car/customers?active=true`",
        who="admin",
        source="ActiveCustomerIndex",
        key_condition="`activeFlag = \"1\"`",
        repository_method="`active_customers`",
        tests="`test_active_customers_list_is_the_index_and_pages`",
    ),
    AccessPattern(
        name="put / get a vehicle",
        route="`PUT` (admin) / `GET` (signed in) `/connected-car/vehicles/{vin}`",
        who="",
        source="Vehicle",
        key_condition="UpdateItem (keeps `activeUsername`) / GetItem",
        repository_method="`put_vehicle`, `get_vehicle`",
        tests="`test_admin_puts_dealers_and_vehicles_and_anyone_signed_in_reads_them`",
    ),
    AccessPattern(
        name="register / change status",
        route="`PUT /connected-car/customers/{username}/registrations/{vin}` `{statusCode}`",
        who="self or admin",
        source="Vehicle + Customer + Registration",
        key_condition=(
            "TransactWriteItems: the vehicle's `activeUsername` set (activating: if free or already this customer's) "
            "or released (deactivating: if this customer's; else only checked); `ADD regVersion 1` on the customer if "
            "it exists; Update the registration"
        ),
        repository_method="`put_registration`",
        tests=(
            "`test_registration_is_written_by_self_or_admin_and_needs_customer_and_vehicle`, "
            "`test_a_vehicle_has_at_most_one_active_registration`"
        ),
    ),
    AccessPattern(
        name="registrations of a customer",
        route="`GET /connected-car/customers/{username}/registrations`",
        who="self or admin",
        source="Registration",
        key_condition="`username = :u`",
        repository_method="`registrations_of_customer`",
        tests="`test_registrations_of_a_customer_and_of_a_vehicle`",
    ),
    AccessPattern(
        name="registrations of a vehicle",
        route="`GET /connected-car/vehicles/{vin}/registrations`",
        who="admin",
        source="VehicleRegistrationIndex",
        key_condition="`vin = :v`",
        repository_method="`registrations_of_vehicle`",
        tests="`test_registrations_of_a_customer_and_of_a_vehicle`",
    ),
    AccessPattern(
        name="book an appointment",
        route="`POST /connected-car/appointments` `{dealerId, serviceDateHour, username, vin}` → 201",
        who="self or admin",
        source="Registration + Timeslot + Appointment",
        key_condition=(
            "TransactWriteItems: ConditionCheck `statusCode = active`; Update timeslot `bookedCount + 1, availableBays "
            "− 1` if `availableBays > 0`; Put appointment"
        ),
        repository_method="`book`",
        tests=(
            "`test_a_timeslot_takes_as_many_bookings_as_bays_and_no_more`, "
            "`test_booking_is_one_conditioned_transaction`, `test_a_refused_booking_writes_nothing`, e2e "
            "`test_parallel_bookings_never_overbook`"
        ),
    ),
    AccessPattern(
        name="get an appointment",
        route="`GET /connected-car/appointments/{appointmentId}`",
        who="self or admin",
        source="Appointment",
        key_condition="GetItem",
        repository_method="`get_appointment`",
        tests="`test_appointment_is_read_by_its_customer_or_an_admin`",
    ),
    AccessPattern(
        name="cancel",
        route="`DELETE /connected-car/appointments/{appointmentId}` → 204",
        who="self or admin",
        source="Appointment + Timeslot",
        key_condition=(
            "GetItem (which timeslot, whose), then TransactWriteItems: Delete if it still exists; Update timeslot "
            "`bookedCount − 1, availableBays + 1`"
        ),
        repository_method="`cancel`",
        tests="`test_cancel_frees_the_bay_once`",
    ),
    AccessPattern(
        name="appointments of a timeslot",
        route="`GET /connected-car/dealers/{dealerId}/timeslots/{serviceDateHour}/appointments`",
        who="admin",
        source="TimeslotAppointmentIndex",
        key_condition="`timeslotKey = dealerId#serviceDateHour`",
        repository_method="`appointments_of_timeslot`",
        tests="`test_appointments_of_a_timeslot_are_for_admins`",
    ),
    AccessPattern(
        name="appointments of a registration",
        route="`GET /connected-car/customers/{username}/registrations/{vin}/appointments`",
        who="self or admin",
        source="RegistrationAppointmentIndex",
        key_condition="`registrationKey = username#vin` (ordered by `serviceDateHour`)",
        repository_method="`appointments_of_registration`",
        tests=(
            "`test_appointments_of_a_registration_are_for_its_customer_or_an_admin`, e2e "
            "`test_appointments_of_a_registration_in_time_order`"
        ),
    ),
    AccessPattern(
        name="submit a vehicle event",
        route="`POST /connected-car/vehicles/{vin}/events` `{type, code, message}` → 201",
        who="the vehicle itself (group `vehicle`, username = VIN) or admin",
        source="Vehicle + Event",
        key_condition="TransactWriteItems: ConditionCheck vehicle exists; Put event (`expiresAt` = now + retention)",
        repository_method="`put_event`",
        tests="`test_a_vehicle_submits_an_event`",
    ),
    AccessPattern(
        name="a vehicle's events",
        route="`GET /connected-car/vehicles/{vin}/events?from=&to=`",
        who="the vehicle itself, admin, or the customer with the active registration of the vin",
        source="Event",
        key_condition="`vin = :v AND eventId BETWEEN :from AND :to`, newest first",
        repository_method="`events_of`",
        tests=(
            "`test_events_are_read_by_the_vehicle_admins_and_its_active_customer`, "
            "`test_event_window_includes_from_and_excludes_to`, "
            "`test_expired_events_are_never_served_though_still_stored`"
        ),
    ),
    AccessPattern(
        name="sync `isActive`",
        route="Registration stream → `active_customers.py`",
        who="Lambda",
        source="Customer, Registration",
        key_condition=(
            "GetItem customer (consistent); Query `username = :u` (consistent); UpdateItem `isActive`/`activeFlag` if "
            "`regVersion = :seen`"
        ),
        repository_method="`sync_customer`",
        tests=(
            "`test_activation_and_deactivation`, `test_isactive_converges_to_the_registrations_whatever_the_delivery`"
        ),
    ),
    AccessPattern(
        name="park a record it can never apply",
        route="Registration stream → `active_customers.py`",
        who="Lambda",
        source="ParkedRecords",
        key_condition=(
            "PutItem (`#consumers`, `connected-car.active-customers`); PutItem (`connected-car.active-customers`, "
            "`<stream ARN>#<40-digit sequence>`) `attribute_not_exists(position)`"
        ),
        repository_method="`ParkedRecords.park` (functions/shared/parked.py)",
        tests=(
            "`test_a_registration_of_a_missing_customer_in_the_middle_is_parked…`, "
            "`test_a_record_without_a_username_is_parked…`"
        ),
    ),
    AccessPattern(
        name="replay parked records",
        route="`make replay` → `{\"replay\": {\"limit\", \"after\"}}`",
        who="operator (Lambda Invoke)",
        source="ParkedRecords, Customer, Registration",
        key_condition=(
            "Query `consumer = connected-car.active-customers` (consistent, `status = pending` filtered); per record "
            "`sync_customer`, then UpdateItem `status = replayed` if `status = pending`"
        ),
        repository_method="`ParkedRecords.pending`, `replay_record`, `ParkedRecords.mark`",
        tests="same, e2e `test_a_registration_of_a_missing_customer_is_parked_and_replayed_once_the_customer_exists`",
    ),
    AccessPattern(
        name="…of one type",
        route="`…/events?type=error`",
        who="same",
        source="VehicleEventTypeIndex",
        key_condition="`vinType = vin#error AND eventId BETWEEN …`",
        repository_method="`events_of`",
        tests="`test_events_newest_first_and_by_type_from_the_type_index`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/connected_car.py), for the
# explorer's runs (GET /explorer);
# `@today`, `@today+1T09`: dates relative to the day the page is used, as the seeds are.
EXAMPLES: dict[str, str] = {
    "dealerId": "denver-downtown",
    # one range for both: the seed's timeslots are the coming week, its vehicle events the past days
    "from": "@today-7",
    "to": "@today+8",
    "serviceDateHour": "@today+1T09",
    "username": "alice",
    "vin": "1HGCM82633A004352",
}

# The explorer shows the `isActive` consumer at work: a registration's status, then the customer's flag.
STREAMS: tuple[StreamDemo, ...] = (
    StreamDemo(
        name="isActive",
        write="register / change status",
        read="get a customer",
        what=(
            "A registration's status is written in a transaction with the vehicle and the customer's `regVersion`; "
            "the consumer of Registration's stream recomputes the customer's `isActive` (and the sparse `activeFlag` "
            "behind `GET /connected-car/customers?active=true`) from all their registrations. alice is active: set "
            "her registration `inactive`, watch `isActive` turn false, then set it `active` again."
        ),
        params={"username": "alice", "vin": "1HGCM82633A004352"},
        body={"statusCode": "inactive"},
    ),
)

# The seed's user (seeds/connected_car.py), whom the explorer runs the patterns as (`make token USER=alice`):
# alice is a customer with an active registration of the example vin.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_connected_car_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a timeslot never has more appointments than bays',
        enforced_by='booking transaction, `availableBays > 0`',
        refusal='409 `TIMESLOT_FULL`',
        tests=(
            API + 'test_a_timeslot_takes_as_many_bookings_as_bays_and_no_more',
        ),
    ),
    Rule(
        rule='booking needs an active registration',
        enforced_by='ConditionCheck `statusCode = active` in the same transaction',
        refusal='409 `REGISTRATION_INACTIVE`; 404 `REGISTRATION_NOT_FOUND` if there is none',
        tests=(
            API + 'test_a_refused_booking_writes_nothing',
        ),
    ),
    Rule(
        rule='booking an unknown timeslot',
        enforced_by="the timeslot update's `attribute_exists`",
        refusal='404 `TIMESLOT_NOT_FOUND`',
        tests=(
            API + 'test_a_refused_booking_writes_nothing',
        ),
    ),
    Rule(
        rule='a bay count below the bays in use',
        enforced_by='`bookedCount ≤ :count` on the timeslot update',
        refusal='409 `BAYS_IN_USE`',
        tests=(
            API + 'test_admin_puts_a_timeslot_and_changing_its_bay_count_keeps_the_bookings',
        ),
    ),
    Rule(
        rule='a timeslot belongs to an existing dealer',
        enforced_by='ConditionCheck in the same transaction',
        refusal='404 `DEALER_NOT_FOUND`',
        tests=(
            API + 'test_admin_puts_a_timeslot_and_changing_its_bay_count_keeps_the_bookings',
        ),
    ),
    Rule(
        rule='a vehicle has at most one active registration',
        enforced_by="the vehicle's `activeUsername`, set and released in the registration transaction",
        refusal='409 `VEHICLE_ALREADY_REGISTERED`',
        tests=(
            API + 'test_a_vehicle_has_at_most_one_active_registration',
        ),
    ),
    Rule(
        rule='a registration links an existing customer and vehicle',
        enforced_by="ConditionCheck vehicle; the customer's `regVersion` update requires the customer",
        refusal='404 `VEHICLE_NOT_FOUND` / `CUSTOMER_NOT_FOUND`',
        tests=(
            API + 'test_registration_is_written_by_self_or_admin_and_needs_customer_and_vehicle',
        ),
    ),
    Rule(
        rule='cancel frees exactly one bay',
        enforced_by='Delete `attribute_exists(appointmentId)` in the transaction',
        refusal='404 `APPOINTMENT_NOT_FOUND` for the second cancel',
        tests=(
            API + 'test_cancel_frees_the_bay_once',
        ),
    ),
    Rule(
        rule='expired events are absent',
        enforced_by='reads clamp `from` to now − retention (a key condition) and filter `expiresAt > now`',
        refusal='—',
        tests=(
            API + 'test_expired_events_are_never_served_though_still_stored',
            API + 'test_a_cursor_whose_events_aged_out_of_the_retention_meanwhile_ends_the_list',
        ),
    ),
    Rule(
        rule=(
            "a range's `from` is not after its `to` (timeslots: a day `from` is its first hour, a day `to` its last; "
            'events: instants)'
        ),
        enforced_by='service check before any read',
        refusal='400 `VALIDATION_FAILED` naming `query.from` and `query.to`',
        tests=(
            API + 'test_a_reversed_range_is_400_naming_both_fields',
        ),
    ),
)
