"""Sessions API (seed 003, "Session Store"): create, read and end sessions; list and end all of a user's.
Each route: validated input, one call into the service."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path

from functions.sessions.models import (
    TOKEN_PATTERN,
    USERNAME_PATTERN,
    Session,
    SessionPage,
)
from functions.sessions.repository import SessionsRepository
from functions.sessions.routes import ROUTES
from functions.sessions.schema import DEFAULT_LIFETIME_SECONDS, LIFETIME_ENV
from functions.sessions.service import SessionsService
from functions.shared import kit
from functions.shared.auth import Caller

router = kit.DomainRouter(ROUTES)

TokenPath = Annotated[str, Path(pattern=TOKEN_PATTERN)]
UsernamePath = Annotated[str, Path(pattern=USERNAME_PATTERN)]


@kit.per_container
def service() -> SessionsService:
    config = kit.settings()
    return SessionsService(SessionsRepository(config), config.integer(LIFETIME_ENV, DEFAULT_LIFETIME_SECONDS))


Service = Annotated[SessionsService, kit.Depends(service)]


def _caller() -> Caller:
    return kit.caller_of(app)


@router.serve
def create_session(svc: Service) -> Response[Session]:
    """Start a session for the caller."""
    session = svc.create(_caller())
    return kit.answer(201, session)


@router.serve
def get_session(token: TokenPath, svc: Service) -> Session:
    """Read one of the caller's sessions."""
    return svc.get(_caller(), token)


@router.serve
def delete_session(token: TokenPath, svc: Service) -> Response[None]:
    """End a session."""
    svc.delete(_caller(), token)
    return Response(status_code=204)


@router.serve
def sessions_of(username: UsernamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                cursor: kit.Cursor = None) -> SessionPage:
    """List a user's sessions."""
    caller = _caller()
    return kit.paginate(app, SessionPage, cursor,
                        lambda start: svc.sessions_of(caller, username, limit=limit, start_key=start))


@router.serve
def delete_sessions_of(username: UsernamePath, svc: Service) -> Response[None]:
    """End every session of a user."""
    svc.delete_all(_caller(), username)
    return Response(status_code=204)


app, lambda_handler = kit.serve(router)
