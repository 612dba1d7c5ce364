"""The tables every domain shares, as data: the infrastructure builds them from here without importing the
code that uses them (Powertools' idempotency utility, the stream-record parking). Also the one setting the
infrastructure gives every API function by stage, `EXPLAIN_ENV`, and the names of the metrics the functions emit and
the infrastructure watches."""

from functions.shared.table_spec import KeyAttribute, TableSpec

# Powertools' idempotency records for `Idempotency-Key` on creates (functions/shared/idempotency.py), expired by TTL.
IDEMPOTENCY_TABLE = TableSpec("IdempotencyTable", partition_key=KeyAttribute("id"), ttl_attribute="expiration")

# Stream records a consumer can never apply, kept whole for an operator (functions/shared/parked.py).
PARKED_TABLE = TableSpec(
    "ParkedRecordsTable",
    partition_key=KeyAttribute("consumer"),
    sort_key=KeyAttribute("position"),
    # Set only when a record is replayed (or superseded): pending records stay until an operator deals with them.
    ttl_attribute="expiresAt",
)

# Powertools metrics (EMF) every function writes, under the `service` dimension (POWERTOOLS_SERVICE_NAME): the namespace
# the infrastructure sets (POWERTOOLS_METRICS_NAMESPACE) and the metrics its alarms and dashboard read
# (infra/constructs/monitoring.py).
METRICS_NAMESPACE = "Blueprints"
# One per stream record parked (functions/shared/parked.py).
PARKED_RECORDS_METRIC = "StreamRecordsParked"
# One per DynamoDB call the function gave up on for throttling (the caller got 429) or for DynamoDB's own faults
# (503): the stage's one throttle symptom and its system errors (functions/shared/ddb.py).
THROTTLED_METRIC = "DynamoDBThrottled"
UNAVAILABLE_METRIC = "DynamoDBUnavailable"
# The counts above are written under the `stage` dimension alone too, so that one alarm per stage reads them
# (an alarm cannot add up a metric's values across the `service` dimension).
STAGE_METRICS = (PARKED_RECORDS_METRIC, THROTTLED_METRIC, UNAVAILABLE_METRIC)
# Every function's stage (`dev`, `prod`): a dimension of every metric it writes, so that two stages in one account
# never fire each other's alarms.
STAGE_ENV = "BLUEPRINTS_STAGE"
# Per API request, from DynamoDB's own figures, as the `Server-Timing` header tells them (functions/shared/http.py).
REQUEST_COST_METRICS = ("DynamoDBRequests", "DynamoDBItemsRead", "DynamoDBReadUnits", "DynamoDBWriteUnits")

# Set ("items") on the dev stage's API functions only: a request may then ask for the items its DynamoDB calls read or
# wrote (functions/shared/cost.py), which the model explorer draws by item collection.
EXPLAIN_ENV = "BLUEPRINTS_EXPLAIN"
