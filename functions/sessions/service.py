"""Sessions rules that are not storage: who may see and end which session, when a session has expired, how a
token is made."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from functions.sessions import models
from functions.sessions.repository import SessionsRepository
from functions.shared.auth import ADMIN, Caller
from functions.shared.errors import ConflictError, ForbiddenError, NotFoundError
from functions.shared.pages import Page, StartKey

TOKEN_BYTES = 32  # 256 random bits: `secrets.token_urlsafe(32)`, 43 URL-safe characters
CREATE_ATTEMPTS = 3  # a taken token (never seen with 256 bits) is retried with a fresh one


def new_token() -> str:
    """A token nobody can guess: 256 bits from the OS's CSPRNG (a uuid4 is an identifier: 122 random bits that its
    RFC does not require to be unpredictable)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def session_not_found() -> NotFoundError:
    # The token itself is a secret: never echoed in an error (nor, so, in logs of error bodies).
    return NotFoundError("no such session, or it has expired", code="SESSION_NOT_FOUND")


class SessionsService:
    def __init__(self, repository: SessionsRepository, lifetime_seconds: int,
                 make_token: Callable[[], str] = new_token, clock: Callable[[], float] = time.time) -> None:
        self.repository = repository
        self.lifetime = timedelta(seconds=lifetime_seconds)
        self.make_token = make_token
        self.clock = clock

    def create(self, caller: Caller) -> models.Session:
        """A new session of the caller, valid for the lifetime (7 days by default)."""
        created_at = datetime.fromtimestamp(int(self.clock()), UTC)
        expires_at = created_at + self.lifetime
        for _ in range(CREATE_ATTEMPTS):
            session = models.Session(session_token=self.make_token(), username=caller.username,
                              created_at=created_at, expires_at=expires_at)
            if self.repository.create_session(session, ttl=int(expires_at.timestamp())):
                return session
        raise ConflictError("could not create a unique session token; retry", code="TOKEN_TAKEN")

    def get(self, caller: Caller, token: str) -> models.Session:
        """The session, if it has not expired and is the caller's (an admin's: anyone's); 404 otherwise."""
        stored = self.repository.get_session(token)
        if stored is None or stored.expired(int(self.clock())) or not _may_see(caller, stored.session.username):
            raise session_not_found()
        return stored.session

    def delete(self, caller: Caller, token: str) -> None:
        """End one session: the caller's own (gone already is fine), or anyone's for an admin; another user's is
        404, as for a read."""
        owner = None if caller.is_in(ADMIN) else caller.username
        if not self.repository.delete_session(token, owner=owner, now_epoch=int(self.clock())):
            raise session_not_found()

    def sessions_of(self, caller: Caller, username: str, *, limit: int, start_key: StartKey) -> Page:
        """One page of a user's live sessions: the caller's own, or anyone's for an admin."""
        _require_may_see(caller, username)
        return self.repository.sessions_of(username, limit=limit, start_key=start_key, now_epoch=int(self.clock()))

    def delete_all(self, caller: Caller, username: str) -> None:
        """End every session of a user: the caller's own, or anyone's for an admin."""
        _require_may_see(caller, username)
        self.repository.delete_sessions_of(username)


def _may_see(caller: Caller, username: str) -> bool:
    return caller.username == username or caller.is_in(ADMIN)


def _require_may_see(caller: Caller, username: str) -> None:
    if not _may_see(caller, username):
        raise ForbiddenError("only your own sessions (or an admin)", code="NOT_YOUR_SESSIONS")

