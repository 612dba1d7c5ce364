"""Voting API (seed 002, "Real-time voting"): polls, my ballot, results, recount."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Depends, Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Path

from functions.shared.auth import caller_of
from functions.shared.container import per_container
from functions.shared.handler import api_handler
from functions.shared.http import DomainRouter, build_resolver
from functions.shared.idempotency import IdempotencyKey, create_once
from functions.shared.models import dump
from functions.shared.observability import logger, metrics
from functions.shared.settings import settings
from functions.voting.models import (
    POLL_ID_PATTERN,
    Poll,
    PollIn,
    Recount,
    Results,
    Vote,
    VoteIn,
)
from functions.voting.repository import TableNames, VotingRepository
from functions.voting.routes import ROUTES
from functions.voting.service import VotingService

router = DomainRouter(ROUTES)

PollIdPath = Annotated[str, Path(pattern=POLL_ID_PATTERN)]


@per_container
def service() -> VotingService:
    return VotingService(VotingRepository(TableNames(settings())))


Service = Annotated[VotingService, Depends(service)]


def _json(status: int, body: dict) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


@router.serve
def put_poll(poll_id: PollIdPath, poll: PollIn, svc: Service) -> Response[Poll]:
    """Create or replace a poll."""
    stored, created = svc.create_poll(poll_id, poll)
    return _json(201 if created else 200, dump(stored))


@router.serve
def get_poll(poll_id: PollIdPath, svc: Service) -> Poll:
    """Read a poll."""
    return svc.poll(poll_id)


@router.serve
def vote(poll_id: PollIdPath, ballot: VoteIn, svc: Service, idempotency_key: IdempotencyKey = None) -> Response[Vote]:
    """Vote in a poll, once per caller."""
    voter = caller_of(app).user_id
    response = create_once(
        app,
        operation="voting.vote",
        key=idempotency_key,
        request={"pollId": poll_id, **ballot.model_dump(mode="json")},
        make=lambda: svc.vote(poll_id, voter, ballot.candidate),
    )
    metrics.add_metric(name="VoteCast", unit="Count", value=1)
    return response


@router.serve
def my_vote(poll_id: PollIdPath, svc: Service) -> Vote:
    """Read the caller's vote in a poll."""
    return svc.my_vote(poll_id, caller_of(app).user_id)


@router.serve
def change_vote(poll_id: PollIdPath, ballot: VoteIn, svc: Service) -> Vote:
    """Change the caller's vote in a poll."""
    return svc.change_vote(poll_id, caller_of(app).user_id, ballot.candidate)


@router.serve
def withdraw_vote(poll_id: PollIdPath, svc: Service) -> Response[None]:
    """Withdraw the caller's vote from a poll."""
    svc.withdraw(poll_id, caller_of(app).user_id)
    return Response(status_code=204)


@router.serve
def results(poll_id: PollIdPath, svc: Service) -> Results:
    """Read a poll's counted results."""
    return svc.results(poll_id)


@router.serve
def recount(poll_id: PollIdPath, svc: Service) -> Recount:
    """Recount a poll's results from its votes."""
    outcome = svc.recount(poll_id)
    if outcome.corrected:
        logger.warning("recount corrected drift", extra={"pollId": poll_id, "corrected": outcome.corrected})
        metrics.add_metric(name="VoteDriftCorrected", unit="Count", value=1)
    return outcome


app = build_resolver()
app.include_router(router)

lambda_handler = api_handler(app)
