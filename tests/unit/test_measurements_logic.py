"""Measurements' pure logic: bins and slots (this layout's and the one before), the readings a bin item holds, which
readings an ingest accepts."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from functions.measurements.models import Reading, StoredReading
from functions.measurements.repository import readings_of_bin
from functions.measurements.schema import (
    BIN_MS,
    BINS,
    LEGACY_BINS,
    MAX_EPOCH,
    MAX_READINGS_PER_WRITE,
    READINGS_PER_SECOND_IN_ONE_UNIT,
    RETENTION_SECONDS,
    bin_of,
    expires_at,
    is_slot,
    layout_of,
    slot_of,
)
from functions.measurements.service import MeasurementsService, distinct_readings
from functions.shared.capacity import WRITE_UNIT, item_size, write_units
from functions.shared.errors import ConflictError, InvalidInputError

SEED = 0x5513A97C  # 2015-03-26T06:38:52Z
SEED_MS = SEED * 1000 + 123


def test_a_reading_has_one_bin_and_one_slot_in_it():
    assert BIN_MS == 400
    assert bin_of(SEED_MS) == SEED * 1000 == 1427351932000  # 06:38:52.000 is a multiple of 400 ms
    assert slot_of(SEED_MS) == "r123"
    assert BINS.instant_of(bin_of(SEED_MS), slot_of(SEED_MS)) == SEED_MS
    start = bin_of(SEED_MS)
    assert {slot_of(start + ms) for ms in range(BIN_MS)} == {f"r{ms:03d}" for ms in range(BIN_MS)}
    assert bin_of(start + BIN_MS - 1) == start != bin_of(start + BIN_MS) == BINS.end_of(start)


def test_the_layout_before_binned_5_minutes_by_epoch_second_and_is_told_apart_by_its_sort_key():
    assert LEGACY_BINS.bin_of(SEED * 1000 + 999) == SEED - 52 - 3 * 60 == 1427351700  # 06:35:00, in seconds
    assert LEGACY_BINS.slot_of(SEED * 1000) == "r232"
    assert LEGACY_BINS.instant_of(1427351700, "r232") == SEED * 1000
    assert LEGACY_BINS.expires_at(1427351700) == 1427351700 + 300 + RETENTION_SECONDS  # as that layout wrote it
    # an epoch second is at most MAX_EPOCH; a millisecond bin of any reading within 90 days of now is far above it
    assert layout_of(1427351700) is layout_of(MAX_EPOCH) is LEGACY_BINS
    assert layout_of(bin_of(SEED_MS)) is BINS and bin_of(1_000_000_000 * 1000) > MAX_EPOCH


def test_slots_are_told_apart_from_other_attributes():
    assert all(is_slot(slot_of(ms)) for ms in range(BIN_MS))
    assert not any(is_slot(name) for name in ("DeviceId", "bin", "expiresAt", "r12", "r1234", "x123"))


def test_a_bin_expires_90_days_after_its_last_millisecond():
    assert expires_at(1796115600000) == 1796115601 + 90 * 86400  # ends at .400: the next whole second
    assert expires_at(1796115600800) == 1796115602 + 90 * 86400  # ends at 01.200
    assert RETENTION_SECONDS == 90 * 86400


def test_a_bin_of_a_device_reporting_every_10_ms_is_one_write_unit_whatever_it_holds():
    # The largest bin at 100 readings a second (and two more for jitter): a 64-character device id, the longest values
    worst = {"DeviceId": "d" * 64, "bin": Decimal(1796115600400), "expiresAt": Decimal(1803891601)}
    per_bin = READINGS_PER_SECOND_IN_ONE_UNIT * BIN_MS // 1000
    assert per_bin == 40
    worst |= {f"r{ms:03d}": {"t": Decimal("-273.1499"), "p": Decimal("999999.9999")} for ms in range(per_bin + 2)}
    assert item_size(worst) == 1021 <= WRITE_UNIT and write_units(item_size(worst)) == 1
    # a reading every millisecond (the API takes it): 400 slots, ~9 KB, far from the 400 KB item limit
    full = worst | {f"r{ms:03d}": {"t": Decimal("-273.1499"), "p": Decimal("999999.9999")} for ms in range(BIN_MS)}
    assert write_units(item_size(full)) == 9
    assert MAX_READINGS_PER_WRITE * len(", r000 = :r000") < 4096 - len("SET #expires = :expires")


def test_a_bin_item_reads_back_as_its_readings_in_time_order_in_either_layout():
    item = {"DeviceId": "1", "bin": Decimal(1796115600400), "expiresAt": Decimal(10**10),
            "r399": {"t": Decimal(30), "p": Decimal(90)}, "r005": {"t": Decimal("-1.5"), "p": Decimal(0)}}
    assert readings_of_bin(item) == [
        StoredReading(device_id="1", epoch=1796115600, epoch_ms=1796115600405, temperature=-1.5, pressure=0),
        StoredReading(device_id="1", epoch=1796115600, epoch_ms=1796115600799, temperature=30, pressure=90),
    ]
    legacy = {"DeviceId": "1", "bin": Decimal(300), "expiresAt": Decimal(10**9),
              "r299": {"t": Decimal(30), "p": Decimal(90)}, "r005": {"t": Decimal("-1.5"), "p": Decimal(0)}}
    assert readings_of_bin(legacy) == [
        StoredReading(device_id="1", epoch=305, epoch_ms=305_000, temperature=-1.5, pressure=0),
        StoredReading(device_id="1", epoch=599, epoch_ms=599_000, temperature=30, pressure=90),
    ]


def test_a_reading_names_its_instant_in_seconds_or_milliseconds_exactly_once():
    assert Reading(device_id="1", epoch=2, temperature=1, pressure=1).instant_ms == 2000
    assert Reading(device_id="1", epoch_ms=2001, temperature=1, pressure=1).instant_ms == 2001
    for instants in ({}, {"epoch": 2, "epochMs": 2000}, {"epochMs": None}, {"epochMs": 1.5}, {"epochMs": True},
                     {"epochMs": -1}, {"epochMs": 10**14 + 1}):
        with pytest.raises(ValidationError):
            Reading.model_validate({"deviceId": "1", "temperature": 1, "pressure": 1, **instants})


def test_values_are_kept_to_four_decimals_and_no_infinity():
    assert Reading(device_id="1", epoch=0, temperature=21.1234, pressure=1e5).temperature == 21.1234
    # more decimals are rounded (as stored and answered); 1e-200, which DynamoDB cannot hold, is 0
    assert Reading(device_id="1", epoch=0, temperature=21.12346, pressure=1e-200).model_dump(exclude_none=True) == {
        "device_id": "1", "epoch": 0, "temperature": 21.1235, "pressure": 0.0}
    for bad in ({"temperature": 10_000.00001}, {"pressure": float("inf")},
                {"temperature": float("nan")}, {"epoch": True}, {"epoch": -1}):
        with pytest.raises(ValidationError):
            Reading.model_validate({"deviceId": "1", "epoch": 0, "temperature": 1, "pressure": 1, **bad})


def reading(epoch: int, device: str = "1", temperature: float = 30) -> Reading:
    return Reading(device_id=device, epoch=epoch, temperature=temperature, pressure=90)


def reading_ms(epoch_ms: int, temperature: float = 30) -> Reading:
    return Reading(device_id="1", epoch_ms=epoch_ms, temperature=temperature, pressure=90)


def test_the_same_reading_twice_counts_once_and_two_values_for_one_millisecond_are_refused():
    assert distinct_readings([reading(1), reading(1), reading(1, device="2"), reading(2)]) == [
        reading(1), reading(1, device="2"), reading(2)]
    # one instant named in seconds and in milliseconds is one reading; the next millisecond is another
    assert distinct_readings([reading(1), reading_ms(1000), reading_ms(1001)]) == [reading(1), reading_ms(1001)]
    with pytest.raises(InvalidInputError) as refused:
        distinct_readings([reading(1), reading(2), reading(1, temperature=31)])
    assert refused.value.code == "READING_CONFLICT" and refused.value.details[0]["field"] == "body.readings.2"
    with pytest.raises(InvalidInputError) as refused:
        distinct_readings([reading_ms(1005), reading_ms(1005, temperature=31)])
    assert refused.value.details == [
        {"field": "body.readings.1", "message": "another reading of this device and millisecond"}]


def test_readings_are_accepted_from_90_days_ago_to_5_minutes_ahead():
    now = 1796115600
    MeasurementsService.check_times([reading(now - RETENTION_SECONDS), reading(now + 300),
                                     reading_ms((now + 300) * 1000 + 999)], now)
    with pytest.raises(ConflictError) as refused:
        MeasurementsService.check_times([reading(now - RETENTION_SECONDS - 1), reading(now), reading(now + 301),
                                         reading_ms((now - RETENTION_SECONDS) * 1000 - 1)], now)
    assert refused.value.code == "READING_OUT_OF_RANGE"
    assert refused.value.details == [
        {"field": "body.readings.0.epoch", "message": "older than 90 days"},
        {"field": "body.readings.2.epoch", "message": "in the future"},
        {"field": "body.readings.3.epochMs", "message": "older than 90 days"},
    ]


class _Recorder:
    """A repository that records the range a page asks for."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def readings_between(self, device_id, start, end, *, now, limit):
        from functions.measurements.repository import ReadingsPage

        self.asked.append((start, end))
        return ReadingsPage([], end + 1)


def test_a_page_resumes_at_its_cursors_millisecond_and_a_cursor_from_before_at_its_second():
    now = 1796115600
    recorder = _Recorder()
    service = MeasurementsService(recorder, clock=lambda: now)  # type: ignore[arg-type]
    page = service.readings_of("1", now - 10, now, limit=5, start_key=None)
    assert recorder.asked[-1] == ((now - 10) * 1000, now * 1000 + 999)  # every millisecond of both seconds
    assert page.last_key == {"fromMs": now * 1000 + 1000}
    service.readings_of("1", now - 10, now, limit=5, start_key={"fromMs": (now - 5) * 1000 + 7})
    assert recorder.asked[-1][0] == (now - 5) * 1000 + 7
    # a cursor signed before readings had milliseconds holds the epoch second to resume at
    service.readings_of("1", now - 10, now, limit=5, start_key={"from": now - 5})
    assert recorder.asked[-1][0] == (now - 5) * 1000
