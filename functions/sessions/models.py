"""Sessions API models (camelCase on the wire; the table keeps the seed's PascalCase names, mapped in the
repository)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import Field

from functions.shared.models import ApiModel, PageOf

# What `secrets.token_urlsafe(32)` makes (43 characters), and the seed's uuid4 tokens (36) of the example data.
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{16,128}$"  # noqa: S105  a pattern, not a token
USERNAME_PATTERN = r"^[A-Za-z0-9_.@+-]{1,128}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
TokenPath = Annotated[str, Path(pattern=TOKEN_PATTERN)]
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]


class Session(ApiModel):
    session_token: str
    username: str
    created_at: datetime
    expires_at: datetime = Field(description="after this instant the session is gone (404), whether or not TTL has "
                                             "deleted it yet")


class SessionPage(PageOf[Session]):
    pass
