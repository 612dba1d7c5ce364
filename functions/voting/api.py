"""Voting API (seed 002, "Real-time voting"): polls, my ballot, results, recount."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response

from functions.shared import kit
from functions.shared.observability import logger
from functions.voting import models
from functions.voting.repository import TableNames, VotingRepository
from functions.voting.service import VotingService

router = kit.DomainRouter.of(__file__)


service = kit.service(VotingService, VotingRepository, TableNames)
Service = Annotated[VotingService, kit.Depends(service)]


@router.serve
def put_poll(poll_id: models.PollIdPath, poll: models.PollIn, svc: Service) -> Response[models.Poll]:
    """Create or replace a poll."""
    stored, created = svc.create_poll(poll_id, poll)
    return kit.created(created, stored)


@router.serve
def get_poll(poll_id: models.PollIdPath, svc: Service) -> models.Poll:
    """Read a poll."""
    return svc.poll(poll_id)


@router.serve
def vote(poll_id: models.PollIdPath, ballot: models.VoteIn, svc: Service, create: kit.CreateOnce,
         idempotency_key: kit.IdempotencyKey = None) -> Response[models.Vote]:
    """Vote in a poll, once per caller."""
    response = create(operation="voting.vote", key=idempotency_key,
                      request={"pollId": poll_id, **ballot.model_dump(mode="json")},
                      make=lambda: svc.vote(poll_id, create.caller.user_id, ballot.candidate))
    kit.metrics.add_metric(name="VoteCast", unit="Count", value=1)
    return response


@router.serve
def my_vote(poll_id: models.PollIdPath, svc: Service, caller: kit.Caller) -> models.Vote:
    """Read the caller's vote in a poll."""
    return svc.my_vote(poll_id, caller.user_id)


@router.serve
def change_vote(poll_id: models.PollIdPath, ballot: models.VoteIn, svc: Service, caller: kit.Caller) -> models.Vote:
    """Change the caller's vote in a poll."""
    return svc.change_vote(poll_id, caller.user_id, ballot.candidate)


@router.serve
def withdraw_vote(poll_id: models.PollIdPath, svc: Service, caller: kit.Caller) -> Response[None]:
    """Withdraw the caller's vote from a poll."""
    svc.withdraw(poll_id, caller.user_id)
    return Response(status_code=204)


@router.serve
def results(poll_id: models.PollIdPath, svc: Service) -> models.Results:
    """Read a poll's counted results."""
    return svc.results(poll_id)


@router.serve
def recount(poll_id: models.PollIdPath, svc: Service) -> models.Recount:
    """Recount a poll's results from its votes."""
    outcome = svc.recount(poll_id)
    if outcome.corrected:
        logger.warning("recount corrected drift", extra={"pollId": poll_id, "corrected": outcome.corrected})
        kit.metrics.add_metric(name="VoteDriftCorrected", unit="Count", value=1)
    return outcome


app, lambda_handler = kit.serve(router)
