"""Messaging rules that are not storage: a message's id and date, and who may read it."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from functions.messaging import models
from functions.messaging.repository import MessagingRepository
from functions.shared.errors import found

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def message_date(moment: datetime) -> str:
    """`Date` as stored and sorted: ISO-8601 UTC with milliseconds and `Z` (`2014-10-02T09:14:00.000Z`), one fixed
    width so that string order is time order. Several messages may share a Date; the index keeps them all."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def new_msg_id() -> str:
    return uuid.uuid4().hex


class MessagingService:
    def __init__(self, repository: MessagingRepository, clock: Clock = utc_now,
                 new_id: Callable[[], str] = new_msg_id) -> None:
        self.repository = repository
        self.clock = clock
        self.new_id = new_id

    def send(self, sender: str, request: models.MessageIn) -> models.MessageHeader:
        """The caller sends: a new message under a new id, dated now. Answers its headers."""
        message = models.Message(msg_id=self.new_id(), sender=sender, date=message_date(self.clock()),
                                 **request.model_dump())
        self.repository.put_message(message)
        return models.MessageHeader(**message.model_dump(include=set(models.MessageHeader.model_fields)))

    def message_for(self, reader: str, msg_id: str) -> models.Message:
        """A whole message, for its sender or its recipient only. Anyone else gets the same 404 as for an id that
        does not exist, so ids cannot be probed."""
        message = self.repository.get_message(msg_id)
        readable = message if message is not None and reader in (message.sender, message.recipient) else None
        return found(readable, f"no message {msg_id}", code="MESSAGE_NOT_FOUND")
