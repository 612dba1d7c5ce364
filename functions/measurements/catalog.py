"""Measurements: its entities and access patterns, declared once. docs/measurements.md's two tables are rendered from
them (`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the
tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, columns

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
