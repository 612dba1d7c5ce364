"""The Users table (seed 002, slide "1:1 relationships or key-values"), as the seed draws it, plus email markers.

Kept from the seed: table `Users` keyed by `UserId`, attributes `Email` and `JoinDate`, and the `Users-Email-GSI`
(here `UsersEmailIndex`, partition key `Email`) answering "given an email, get the user".

Added: an email is unique across users, as The DynamoDB Book enforces it — one marker item per email in the same
table, `UserId = "EMAIL#<normalized email>"`, `OwnerId = <user id>`, written and deleted in the same transaction as
the user. A marker has no `Email` attribute, so the sparse index never holds one; a user id may not contain `#`
(functions/users/models.py), so a user can never collide with a marker.
"""

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

USER_ID = "UserId"
EMAIL = "Email"
JOIN_DATE = "JoinDate"
OWNER_ID = "OwnerId"  # on an email marker: the user who holds the email

EMAIL_MARKER_PREFIX = "EMAIL#"
USERS_EMAIL_INDEX = "UsersEmailIndex"

USERS_TABLE = TableSpec(
    "UsersTable",
    partition_key=KeyAttribute(USER_ID),
    # The email lookup answers the whole user: its id (the table key, always projected) and join date.
    indexes=(IndexSpec(USERS_EMAIL_INDEX, KeyAttribute(EMAIL), projection=(JOIN_DATE,)),),
)

TABLES = (USERS_TABLE,)


def email_marker_key(normalized_email: str) -> dict[str, str]:
    """The key of the item that reserves an email: `UserId = EMAIL#<normalized email>`."""
    return {USER_ID: f"{EMAIL_MARKER_PREFIX}{normalized_email}"}
