"""Messaging API (seed 002, "Messaging App"): send, inbox, outbox, read one message. The caller is always the
signed-in user: nobody reads another user's inbox or outbox, and a message only by its sender or recipient."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.messaging import models
from functions.messaging.repository import MessagingRepository
from functions.messaging.service import MessagingService
from functions.shared import kit
from functions.shared.cursors import MAX_LIMIT

router = kit.DomainRouter.of(__file__)

# The seed's page: the 50 newest headers (1 RCU); up to 100 on request.
PAGE_SIZE = 50
PageLimit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="page size (50 by default)")]


service = kit.service(MessagingService, MessagingRepository)
Service = Annotated[MessagingService, kit.Depends(service)]
Repository = Annotated[MessagingRepository, kit.Depends(kit.repository_of(service))]


@router.serve
def send(message: models.MessageIn, svc: Service, caller: kit.Caller, create: kit.CreateOnce,
         idempotency_key: kit.IdempotencyKey = None) -> Response[models.MessageHeader]:
    """Send a message."""
    sender = caller.username
    response = create(operation="messaging.send", key=idempotency_key,
                      request=message.model_dump(mode="json"), make=lambda: svc.send(sender, message))
    kit.metrics.add_metric(name="MessageSent", unit="Count", value=1)
    return response


@router.serve
@kit.paged(limit=PageLimit, default=PAGE_SIZE)
def inbox(repo: Repository, caller: kit.Caller, page: kit.PageRequest) -> models.MessagePage:
    """List the caller's received messages, newest first."""
    me = caller.username
    return page.of(models.MessagePage, repo.inbox_of, me, bound_to={"owner": me})


@router.serve
@kit.paged(limit=PageLimit, default=PAGE_SIZE)
def outbox(repo: Repository, caller: kit.Caller, page: kit.PageRequest) -> models.MessagePage:
    """List the caller's sent messages, newest first."""
    me = caller.username
    return page.of(models.MessagePage, repo.outbox_of, me, bound_to={"owner": me})


@router.serve
def get_message(msg_id: models.MsgIdPath, svc: Service, caller: kit.Caller) -> models.Message:
    """Read one of the caller's messages."""
    return svc.message_for(caller.username, msg_id)


app, lambda_handler = kit.serve(router)
