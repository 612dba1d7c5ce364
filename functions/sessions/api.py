"""Sessions API (seed 003, "Session Store"): create, read and end sessions; list and end all of a user's.
Each route: validated input, one call into the service."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response

from functions.sessions import models
from functions.sessions.repository import SessionsRepository
from functions.sessions.schema import DEFAULT_LIFETIME_SECONDS, LIFETIME_ENV
from functions.sessions.service import SessionsService
from functions.shared import kit

router = kit.DomainRouter.of(__file__)


service = kit.service(
    lambda repository: SessionsService(repository, kit.settings().integer(LIFETIME_ENV, DEFAULT_LIFETIME_SECONDS)),
    SessionsRepository,
)
Service = Annotated[SessionsService, kit.Depends(service)]


@router.serve
def create_session(svc: Service, caller: kit.Caller) -> Response[models.Session]:
    """Start a session for the caller."""
    session = svc.create(caller)
    return kit.answer(201, session)


@router.serve
def get_session(token: models.TokenPath, svc: Service, caller: kit.Caller) -> models.Session:
    """Read one of the caller's sessions."""
    return svc.get(caller, token)


@router.serve
def delete_session(token: models.TokenPath, svc: Service, caller: kit.Caller) -> Response[None]:
    """End a session."""
    svc.delete(caller, token)
    return Response(status_code=204)


@router.serve
@kit.paged
def sessions_of(username: models.UsernamePath, svc: Service, caller: kit.Caller,
                page: kit.PageRequest) -> models.SessionPage:
    """List a user's sessions."""
    return page.of(models.SessionPage, svc.sessions_of, caller, username)


@router.serve
def delete_sessions_of(username: models.UsernamePath, svc: Service, caller: kit.Caller) -> Response[None]:
    """End every session of a user."""
    svc.delete_all(caller, username)
    return Response(status_code=204)


app, lambda_handler = kit.serve(router)
