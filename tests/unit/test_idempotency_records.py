"""Which stored idempotency record `RetrySafePersistenceLayer` takes for the one its retried put wrote
(functions/shared/idempotency.py; the store itself is exercised in tests/functional/test_faults.py)."""

from __future__ import annotations

import time

import pytest
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

from functions.shared.idempotency import _same_record

NOW = int(time.time())
PUT = DataRecord(idempotency_key="k", status="INPROGRESS", expiry_timestamp=NOW + 86_400,  # as put: not expired
                 in_progress_expiry_timestamp=NOW * 1000 + 9_123, payload_hash="h")


def copy(record: DataRecord, **changes) -> DataRecord:
    fields = dict(idempotency_key=record.idempotency_key, status=record.status,
                  expiry_timestamp=record.expiry_timestamp,
                  in_progress_expiry_timestamp=record.in_progress_expiry_timestamp, payload_hash=record.payload_hash)
    return DataRecord(**{**fields, **changes})


def test_the_record_this_put_wrote_is_its_own() -> None:
    assert _same_record(copy(PUT), PUT)


@pytest.mark.parametrize("change", [
    {"in_progress_expiry_timestamp": NOW * 1000 + 9_124},  # another invocation's deadline, a millisecond apart
    {"expiry_timestamp": NOW + 86_401},
    {"payload_hash": "other"},
    {"status": "COMPLETED"},
])
def test_another_requests_record_is_not(change) -> None:
    assert not _same_record(copy(PUT, **change), PUT)


def test_without_an_in_progress_deadline_no_record_is_taken_for_its_own() -> None:
    put = copy(PUT, in_progress_expiry_timestamp=None)
    assert not _same_record(copy(put), put)  # two requests in the same second would look alike
