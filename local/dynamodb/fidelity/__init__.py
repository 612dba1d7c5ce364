"""Places where moto's DynamoDB differs from DynamoDB, corrected in-process: one module per correction, each saying
what moto does, what DynamoDB does (with the AWS document that says so) and how it is corrected.

- stream_unchanged_write: a write that changes nothing writes no stream record.
- stream_update_insert: an UpdateItem that creates an item writes one INSERT, of the whole item.
- transaction_update_size: an Update past 400 KB inside TransactWriteItems cancels the transaction.
- backend_list: moto's server lists its package directory once, not on every request.
- transaction_rollback: a transaction backs up the items it names, not whole tables.
- stream_cancelled_transaction: a cancelled transaction leaves no stream record.
- nested_update_size: an update of a nested path past 400 KB is refused.
- consumed_capacity: ConsumedCapacity as DynamoDB counts it (the rules: local/dynamodb/capacity.py).
- query_partition: a Query reads its partition, not the whole table.
- query_start_key: a Query's ExclusiveStartKey outside its sort key condition is refused.
- transaction_client_token: TransactWriteItems honours its ClientRequestToken.

`apply()` patches moto once per process: the local runtime (whose moto runs in-process) and the test suite call it.
Each correction has a canary in tests/local/unit/test_moto_canaries.py, run on moto without the corrections
(`plain_moto()`): it fails once moto behaves as DynamoDB by itself, naming the module to delete.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from local.dynamodb.fidelity import (
    backend_list,
    consumed_capacity,
    nested_update_size,
    query_partition,
    query_start_key,
    stream_cancelled_transaction,
    stream_unchanged_write,
    stream_update_insert,
    transaction_client_token,
    transaction_rollback,
    transaction_update_size,
)
from local.dynamodb.fidelity.query_partition import stored_table, written
from local.dynamodb.fidelity.transaction_client_token import TOKEN_WINDOW_SECONDS

__all__ = ["CORRECTIONS", "TOKEN_WINDOW_SECONDS", "applied", "apply", "plain_moto", "revert", "stored_table",
           "written"]

# In the order they are applied. Corrections of the same moto function wrap one another in this order (the last is
# outermost): UpdateItem is stream_update_insert then transaction_update_size; TransactWriteItems is
# transaction_update_size, transaction_rollback, stream_cancelled_transaction; a request is consumed_capacity then
# query_partition; Table.query is consumed_capacity, query_partition, query_start_key.
CORRECTIONS = (
    stream_unchanged_write,
    stream_update_insert,
    transaction_update_size,
    backend_list,
    transaction_rollback,
    stream_cancelled_transaction,
    nested_update_size,
    consumed_capacity,
    query_partition,
    query_start_key,
    transaction_client_token,
)


def apply() -> None:
    """Patch moto with every correction (idempotent)."""
    for correction in CORRECTIONS:
        correction.apply()


def revert() -> None:
    """Take every correction off: moto as released."""
    for correction in reversed(CORRECTIONS):
        correction.revert()


def applied() -> bool:
    """Whether every correction is on."""
    return all(correction.applied() for correction in CORRECTIONS)


@contextmanager
def plain_moto() -> Iterator[None]:
    """moto without the corrections for the block, then the corrections as they were (the canaries)."""
    was = [correction for correction in CORRECTIONS if correction.applied()]
    revert()
    try:
        yield
    finally:
        for correction in was:
            correction.apply()
