"""The Session Store table (seed 003, "Examples" → "Session Store"), exactly as the seed's table structure.

- Sessions: a simple primary key `SessionToken`; `Username`, `CreatedAt`, `ExpiresAt` (ISO-8601, UTC) as the seed
  writes them, plus `TTL` (epoch seconds, a Number): the attribute DynamoDB's TTL reads, and the one every read
  compares with the clock (TTL deletes expired items only within days).
- `UserIndex`: partition key `Username`, KEYS_ONLY (it holds the tokens of a user, nothing else).
"""

from __future__ import annotations

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

TOKEN = "SessionToken"  # noqa: S105  an attribute's name, not a token
USERNAME = "Username"
CREATED_AT = "CreatedAt"
EXPIRES_AT = "ExpiresAt"
TTL = "TTL"

USER_INDEX = "UserIndex"

# How long a session lives (the seed's 7 days); a stage may set another lifetime through the environment.
LIFETIME_ENV = "SESSIONS_LIFETIME_SECONDS"
DEFAULT_LIFETIME_SECONDS = 7 * 24 * 3600

SESSION_TABLE = TableSpec(
    "SessionTable",
    env_var="SESSIONS_TABLE_NAME",
    partition_key=KeyAttribute(TOKEN),
    indexes=(IndexSpec(USER_INDEX, KeyAttribute(USERNAME), projection="KEYS_ONLY"),),
    ttl_attribute=TTL,
)

TABLES = (SESSION_TABLE,)
