"""Measurements: its entities and access patterns, declared once. docs/measurements.md's two tables are rendered from
them (`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the
tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("entity", "table", "partition key", "sort key", "other attributes", "indexes"),
    rows=(
        (
            "Bin",
            "DeviceMeasurements",
            "`DeviceId` (S)",
            "`bin` (N): the bin's first epoch second, a multiple of 300",
            "`expiresAt` (N, **TTL**) = bin + 300 s + 90 days; one `r<SSS>` per reading",
            "—",
        ),
        (
            "Reading",
            "(inside its bin)",
            "—",
            "—",
            (
                "`r<SSS>` = `{\"t\": temperature, \"p\": pressure}`, SSS = seconds since the bin's start "
                "(`r000`…`r299`); its instant is `bin + SSS`"
            ),
            "—",
        ),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="ingest a batch of readings (any devices)",
        route=(
            "`POST /measurements/readings` `{readings: [{deviceId, epoch, temperature, pressure}]}` (≤ 500) → "
            "`{readings, writes}`"
        ),
        who="admin (the ingest pipeline)",
        source="DeviceMeasurements",
        key_condition=(
            "UpdateItem `DeviceId = :d, bin = :b` per (device, bin): `SET expiresAt = :e, r012 = :r012, r047 = :r047, "
            "…`"
        ),
        repository_method="`put_readings`",
        tests=(
            "`test_ingest_writes_once_per_device_and_bin_not_once_per_reading`, "
            "`test_a_bins_readings_are_slots_of_one_item_with_its_ttl`, "
            "`test_a_retried_ingest_duplicates_nothing_and_a_resent_reading_overwrites_its_slot`, "
            "`test_a_bin_with_more_readings_than_one_expression_takes_one_more_write`, e2e "
            "`test_ingest_retry_and_a_range_across_bins_in_order_and_by_pages`"
        ),
    ),
    AccessPattern(
        name="readings of a device between two instants",
        route="`GET /measurements/devices/{deviceId}/readings?from=&to=` (epoch seconds, inclusive)",
        who="signed in",
        source="DeviceMeasurements",
        key_condition=(
            "`DeviceId = :d AND bin BETWEEN bin(max(from, now − 90 d)) AND bin(to)`, oldest first, filter `expiresAt > "
            "now`"
        ),
        repository_method="`readings_between`",
        tests=(
            "`test_readings_between_two_instants_in_time_order_trimmed_to_the_range_inclusive`, "
            "`test_the_range_read_is_one_key_query_on_the_devices_bins`, "
            "`test_pages_resume_inside_a_bin_without_losing_or_repeating_a_reading`, "
            "`test_a_page_that_reads_its_most_bins_ends_after_the_last_bin_read`, "
            "`test_a_cursor_is_bound_to_its_device_and_range`, `test_a_page_without_a_limit_holds_25_readings`, "
            "`test_a_reversed_range_is_400_naming_both_fields`, e2e "
            "`test_the_seeds_device_1_readings_are_served_moved_to_yesterday`"
        ),
    ),
    AccessPattern(
        name="90 days of retention",
        route="(both routes)",
        who="",
        source="DeviceMeasurements",
        key_condition="TTL `expiresAt`; reads clamp the key range to now − 90 d and drop bins with `expiresAt ≤ now`",
        repository_method="`readings_between`",
        tests=(
            "`test_readings_older_than_90_days_are_never_served_though_still_stored`, "
            "`test_a_bin_past_its_expiresat_is_not_served_even_inside_the_range`, "
            "`test_the_key_range_is_clamped_to_the_retention_window`"
        ),
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/measurements.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "deviceId": "1",
    "from": "0",
    "to": "4102444800",
}

# The seed's user (seeds/measurements.py), whom the explorer runs the patterns as (`make token USER=alice`):
# any signed-in caller reads the devices.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_measurements_api.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='a retried ingest duplicates nothing',
        enforced_by='each reading is its own slot, SET (never appended)',
        refusal='— (the same answer again)',
        tests=(
            API + 'test_a_retried_ingest_duplicates_nothing_and_a_resent_reading_overwrites_its_slot',
        ),
    ),
    Rule(
        rule='one reading per device and second',
        enforced_by='the slot name is the second; two different values in one batch are refused before any write',
        refusal='400 `READING_CONFLICT`',
        tests=(
            API + 'test_a_reading_twice_in_one_batch_counts_once_but_two_values_for_one_second_are_refused',
        ),
    ),
    Rule(
        rule='readings no older than 90 days, no more than 5 minutes ahead',
        enforced_by='checked against the clock before any write (all or nothing)',
        refusal='409 `READING_OUT_OF_RANGE` naming each reading (well formed, refused by the clock)',
        tests=(
            API + 'test_readings_older_than_the_retention_or_from_the_future_are_refused_writing_nothing',
        ),
    ),
    Rule(
        rule='only the ingest pipeline writes',
        enforced_by='`admin_only`, before validation',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_only_admins_ingest',
        ),
    ),
    Rule(
        rule=(
            'at most 500 readings a request; values JSON numbers (`true`, `false` and strings are not), finite, in '
            'range (kept to 4 decimals: more are rounded, as stored and answered); epochs whole seconds ≤ 10¹¹'
        ),
        enforced_by='request validation',
        refusal='400 `VALIDATION_FAILED` naming the field',
        tests=(
            API + 'test_invalid_input_is_400_naming_the_field_and_writes_nothing',
            API + 'test_values_are_stored_and_answered_to_four_decimals',
        ),
    ),
    Rule(
        rule='`from` ≤ `to`, both required',
        enforced_by='request validation, service check before any read',
        refusal='400 `VALIDATION_FAILED` (a reversed range names `query.from` and `query.to`)',
        tests=(
            API + 'test_a_range_read_needs_from_and_to_in_order',
            API + 'test_a_reversed_range_is_400_naming_both_fields',
        ),
    ),
    Rule(
        rule='a cursor belongs to its device and range',
        enforced_by='signed cursor bound to `deviceId`, `from`, `to`',
        refusal='400 `INVALID_CURSOR`',
        tests=(
            API + 'test_a_cursor_is_bound_to_its_device_and_range',
        ),
    ),
    Rule(
        rule='expired readings are absent',
        enforced_by='key range clamped to now − 90 days; filter `expiresAt > now`',
        refusal='—',
        tests=(
            API + 'test_a_bin_past_its_expiresat_is_not_served_even_inside_the_range',
        ),
    ),
)
