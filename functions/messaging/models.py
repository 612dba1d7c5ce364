"""Messaging API models: camelCase on the wire. The stored items keep the seed's PascalCase attribute names
(`MsgId`, `Recipient`, `Date`...), built and read in the repository."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import AfterValidator, Field, StringConstraints

from functions.shared.models import ApiModel, JsonInt, PageOf, stripped_rules

MSG_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
MsgIdPath = Annotated[str, Path(pattern=MSG_ID_PATTERN)]

# Cognito usernames as the authorizer passes them (`cognito:username`); compared exactly.
USERNAME_PATTERN = r"^[A-Za-z0-9._@+-]{1,128}$"
CONTENT_TYPE_PATTERN = r"^[A-Za-z0-9!#$&^_.+-]{1,64}/[A-Za-z0-9!#$&^_.+-]{1,64}$"

# The API refuses request bodies over 64 KiB (functions/shared/http.py MAX_BODY_BYTES) before reading them. A message
# body is capped at a quarter of that in UTF-8 bytes: JSON may escape each non-ASCII character as \uXXXX (up to 3 bytes
# of JSON per byte of UTF-8), so a body at the cap still fits in one request, escaped, with its headers. The stored
# item stays far below DynamoDB's 400 KB.
MAX_BODY_BYTES = 16 * 1024
MAX_ATTACHMENTS = 10
MAX_ATTACHMENT_SIZE = 25 * 1024 * 1024  # metadata only: the files themselves live elsewhere (S3)


def within_body_cap(value: str) -> str:
    """At most MAX_BODY_BYTES of UTF-8 (a character count alone would let 4-byte characters through 4 times over)."""
    size = len(value.encode("utf-8"))
    if size > MAX_BODY_BYTES:
        raise ValueError(f"body is {size} bytes of UTF-8; at most {MAX_BODY_BYTES}")
    return value


Username = Annotated[str, StringConstraints(pattern=USERNAME_PATTERN)]
Subject = Annotated[str, *stripped_rules(1, 200)]
Body = Annotated[str, AfterValidator(within_body_cap)]


class Attachment(ApiModel):
    """An attachment's metadata (the seed's "Attachments"): what a reader needs to list and fetch it."""

    name: Annotated[str, *stripped_rules(1, 255)]
    size: Annotated[JsonInt, Field(ge=0, le=MAX_ATTACHMENT_SIZE, strict=True, description="bytes")]
    content_type: Annotated[str, StringConstraints(pattern=CONTENT_TYPE_PATTERN)]


class MessageIn(ApiModel):
    recipient: Username
    subject: Subject
    body: Body
    attachments: Annotated[list[Attachment], Field(default_factory=list, max_length=MAX_ATTACHMENTS)]


class MessageHeader(ApiModel):
    """What an inbox or outbox shows: exactly the attributes the Inbox and Outbox indexes hold."""

    msg_id: str
    sender: str
    recipient: str
    date: str = Field(description="ISO-8601 UTC with milliseconds; several messages may share one")
    subject: str


class Message(MessageHeader):
    body: str
    attachments: list[Attachment] = Field(default_factory=list)


class MessagePage(PageOf[MessageHeader]):
    pass
