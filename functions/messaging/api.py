"""Messaging API (seed 002, "Messaging App"): send, inbox, outbox, read one message. The caller is always the
signed-in user: nobody reads another user's inbox or outbox, and a message only by its sender or recipient."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.messaging.models import (
    MSG_ID_PATTERN,
    Message,
    MessageHeader,
    MessageIn,
    MessagePage,
)
from functions.messaging.repository import MessagingRepository
from functions.messaging.routes import ROUTES
from functions.messaging.service import MessagingService
from functions.shared import kit
from functions.shared.pagination import MAX_LIMIT

router = kit.DomainRouter(ROUTES)

# The seed's page: the 50 newest headers (1 RCU); up to 100 on request.
PAGE_SIZE = 50
PageLimit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="page size (50 by default)")]
MsgIdPath = Annotated[str, Path(pattern=MSG_ID_PATTERN)]


@kit.per_container
def service() -> MessagingService:
    return MessagingService(MessagingRepository(kit.settings()))


Service = Annotated[MessagingService, kit.Depends(service)]


@router.serve
def send(message: MessageIn, svc: Service, idempotency_key: kit.IdempotencyKey = None) -> Response[MessageHeader]:
    """Send a message."""
    sender = kit.caller_of(app).username
    response = kit.create_once(app, operation="messaging.send", key=idempotency_key,
                               request=message.model_dump(mode="json"), make=lambda: svc.send(sender, message))
    kit.metrics.add_metric(name="MessageSent", unit="Count", value=1)
    return response


@router.serve
def inbox(svc: Service, limit: PageLimit = PAGE_SIZE, cursor: kit.Cursor = None) -> MessagePage:
    """List the caller's received messages, newest first."""
    me = kit.caller_of(app).username
    return kit.paginate(app, MessagePage, cursor, lambda start: svc.inbox(me, limit=limit, start_key=start), owner=me)


@router.serve
def outbox(svc: Service, limit: PageLimit = PAGE_SIZE, cursor: kit.Cursor = None) -> MessagePage:
    """List the caller's sent messages, newest first."""
    me = kit.caller_of(app).username
    return kit.paginate(app, MessagePage, cursor, lambda start: svc.outbox(me, limit=limit, start_key=start), owner=me)


@router.serve
def get_message(msg_id: MsgIdPath, svc: Service) -> Message:
    """Read one of the caller's messages."""
    return svc.message_for(kit.caller_of(app).username, msg_id)


app, lambda_handler = kit.serve(router)
