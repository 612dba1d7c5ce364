"""Measurements' pure logic: bins and slots, the readings a bin item holds, which readings an ingest accepts."""

from __future__ import annotations

from decimal import Decimal

import pytest
from pydantic import ValidationError

from functions.measurements.models import Reading
from functions.measurements.repository import readings_of_bin
from functions.measurements.schema import (
    BIN_SECONDS,
    MAX_READINGS_PER_WRITE,
    RETENTION_SECONDS,
    bin_of,
    epoch_of,
    expires_at,
    is_slot,
    slot_of,
)
from functions.measurements.service import MeasurementsService, distinct_readings
from functions.shared.capacity import ITEM_LIMIT, item_size, write_units
from functions.shared.errors import ConflictError, InvalidInputError

SEED = 0x5513A97C  # 2015-03-26T06:38:52Z


def test_a_reading_has_one_bin_and_one_slot_in_it():
    assert BIN_SECONDS == 300
    assert bin_of(SEED) == SEED - 52 - 3 * 60 == 1427351700  # 06:35:00
    assert slot_of(SEED) == "r232"
    assert epoch_of(bin_of(SEED), slot_of(SEED)) == SEED
    assert {slot_of(bin_of(SEED) + s) for s in range(BIN_SECONDS)} == {f"r{s:03d}" for s in range(BIN_SECONDS)}
    assert bin_of(bin_of(SEED) + BIN_SECONDS - 1) == bin_of(SEED) != bin_of(bin_of(SEED) + BIN_SECONDS)


def test_slots_are_told_apart_from_other_attributes():
    assert all(is_slot(slot_of(s)) for s in range(BIN_SECONDS))
    assert not any(is_slot(name) for name in ("DeviceId", "bin", "expiresAt", "r12", "r1234", "x123"))


def test_a_bin_expires_90_days_after_its_last_second():
    assert expires_at(1000 * BIN_SECONDS) == 1000 * BIN_SECONDS + BIN_SECONDS + 90 * 86400
    assert RETENTION_SECONDS == 90 * 86400


def test_a_full_bin_stays_small_so_one_write_per_bin_stays_cheap():
    item = {"DeviceId": "device-000000000001", "bin": Decimal(1796115600), "expiresAt": Decimal(1803891900)}
    item |= {f"r{s:03d}": {"t": Decimal("-12.3456"), "p": Decimal("101325.1234")} for s in range(BIN_SECONDS)}
    assert item_size(item) < 10 * 1024 < ITEM_LIMIT  # a reading every second, with long values
    sparse = {**{k: v for k, v in item.items() if not is_slot(k)}, **{f"r{s:03d}": {"t": Decimal(30), "p": Decimal(90)}
                                                                     for s in range(0, BIN_SECONDS, 10)}}
    assert write_units(item_size(sparse)) == 1  # a reading every 10 s: 30 readings for one write unit
    assert MAX_READINGS_PER_WRITE * len(", r000 = :r000") < 4096 - len("SET #expires = :expires")


def test_a_bin_item_reads_back_as_its_readings_in_time_order():
    item = {"DeviceId": "1", "bin": Decimal(300), "expiresAt": Decimal(10**9),
            "r299": {"t": Decimal(30), "p": Decimal(90)}, "r005": {"t": Decimal("-1.5"), "p": Decimal(0)}}
    assert readings_of_bin(item) == [
        Reading(device_id="1", epoch=305, temperature=-1.5, pressure=0),
        Reading(device_id="1", epoch=599, temperature=30, pressure=90),
    ]


def test_values_are_kept_to_four_decimals_and_no_infinity():
    assert Reading(device_id="1", epoch=0, temperature=21.1234, pressure=1e5).temperature == 21.1234
    # more decimals are rounded (as stored and answered); 1e-200, which DynamoDB cannot hold, is 0
    assert Reading(device_id="1", epoch=0, temperature=21.12346, pressure=1e-200).model_dump() == {
        "device_id": "1", "epoch": 0, "temperature": 21.1235, "pressure": 0.0}
    for bad in ({"temperature": 10_000.00001}, {"pressure": float("inf")},
                {"temperature": float("nan")}, {"epoch": True}, {"epoch": -1}):
        with pytest.raises(ValidationError):
            Reading.model_validate({"deviceId": "1", "epoch": 0, "temperature": 1, "pressure": 1, **bad})


def reading(epoch: int, device: str = "1", temperature: float = 30) -> Reading:
    return Reading(device_id=device, epoch=epoch, temperature=temperature, pressure=90)


def test_the_same_reading_twice_counts_once_and_two_values_for_one_second_are_refused():
    assert distinct_readings([reading(1), reading(1), reading(1, device="2"), reading(2)]) == [
        reading(1), reading(1, device="2"), reading(2)]
    with pytest.raises(InvalidInputError) as refused:
        distinct_readings([reading(1), reading(2), reading(1, temperature=31)])
    assert refused.value.code == "READING_CONFLICT" and refused.value.details[0]["field"] == "body.readings.2"


def test_readings_are_accepted_from_90_days_ago_to_5_minutes_ahead():
    now = 1796115600
    MeasurementsService.check_times([reading(now - RETENTION_SECONDS), reading(now + 300)], now)
    with pytest.raises(ConflictError) as refused:
        MeasurementsService.check_times([reading(now - RETENTION_SECONDS - 1), reading(now), reading(now + 301)], now)
    assert refused.value.code == "READING_OUT_OF_RANGE"
    assert refused.value.details == [
        {"field": "body.readings.0.epoch", "message": "older than 90 days"},
        {"field": "body.readings.2.epoch", "message": "in the future"},
    ]
