"""Users API shapes (camelCase on the wire). The stored attributes keep the seed's names (`UserId`, `Email`,
`JoinDate`): functions/users/repository.py maps between the two."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import StringConstraints

from functions.shared.models import WHITE_SPACE, WHITE_SPACE_CHARS, ApiModel, Day, normalized_rules

# No "#": a user id must never look like an email marker's key (`EMAIL#…`, functions/users/schema.py).
USER_ID_PATTERN = r"^[A-Za-z0-9._@+-]{1,128}$"
# Deliberately loose (what a mail server accepts is its business), but one "@", a dot in the domain, no spaces,
# and no "/" so that an address fits in a path segment (GET /users/by-email/{email}).
EMAIL_PATTERN = rf"^[^@/{WHITE_SPACE}]+@[^@/{WHITE_SPACE}]+\.[^@/{WHITE_SPACE}]+$"
EMAIL_MAX_LENGTH = 254

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
UserIdPath = Annotated[str, Path(pattern=USER_ID_PATTERN)]
EmailPath = Annotated[str, Path(max_length=EMAIL_MAX_LENGTH, pattern=EMAIL_PATTERN)]


def normalize_email(value: str) -> str:
    """The form an email is unique and looked up in: trimmed and lower-cased (`" Bob@Gmail.com "` → `bob@gmail.com`).

    Lower-casing the local part is what every large mail provider does in practice, although RFC 5321 lets a server
    tell `Bob@` from `bob@`: two accounts differing only in case would be a support problem, not a feature."""
    return value.strip(WHITE_SPACE_CHARS).lower()


Email = Annotated[str, *normalized_rules(normalize_email, EMAIL_PATTERN, EMAIL_MAX_LENGTH)]
UserId = Annotated[str, StringConstraints(pattern=USER_ID_PATTERN)]


class SignUpIn(ApiModel):
    user_id: UserId
    email: Email
    join_date: Day | None = None  # default: today (UTC)


class EmailChangeIn(ApiModel):
    email: Email


class User(ApiModel):
    user_id: str
    email: str  # normalized
    join_date: date
