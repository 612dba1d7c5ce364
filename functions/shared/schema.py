"""The tables every domain shares, as data: the infrastructure builds them from here without importing the
code that uses them (Powertools' idempotency utility, the stream-record parking). Also the one setting the
infrastructure gives every API function by stage, `EXPLAIN_ENV`."""

from functions.shared.table_spec import KeyAttribute, TableSpec

# Powertools' idempotency records for `Idempotency-Key` on creates (functions/shared/idempotency.py), expired by TTL.
IDEMPOTENCY_TABLE = TableSpec(
    construct_id="IdempotencyTable",
    env_var="IDEMPOTENCY_TABLE_NAME",
    partition_key=KeyAttribute("id"),
    ttl_attribute="expiration",
)

# Stream records a consumer can never apply, kept whole for an operator (functions/shared/parked.py).
PARKED_TABLE = TableSpec(
    construct_id="ParkedRecordsTable",
    env_var="PARKED_RECORDS_TABLE_NAME",
    partition_key=KeyAttribute("consumer"),
    sort_key=KeyAttribute("position"),
    # Set only when a record is replayed (or superseded): pending records stay until an operator deals with them.
    ttl_attribute="expiresAt",
)

# Set ("items") on the dev stage's API functions only: a request may then ask for the items its DynamoDB calls read or
# wrote (functions/shared/cost.py), which the model explorer draws by item collection.
EXPLAIN_ENV = "BLUEPRINTS_EXPLAIN"
