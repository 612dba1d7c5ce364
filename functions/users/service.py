"""Users rules that are not storage: who may act for whom, the join date's default, what counts as a retried
sign-up, and reading again when a user changed between our read and our conditional write."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from functions.shared import auth
from functions.shared.errors import ConflictError, ThrottledError, found
from functions.users import models
from functions.users.repository import SignUp, UsersRepository

# Optimistic writes (change email, delete) read the user, then write on condition it is unchanged; a concurrent
# change makes them read again, this many times at most.
ATTEMPTS = 3


def utc_today() -> date:
    return datetime.now(UTC).date()


def is_retry_of(stored: models.User, request: models.SignUpIn) -> bool:
    """A sign-up for an existing user id is a retry of the one that created it when it asks for the same user:
    the same (normalized) email, and the same join date if it names one (its default, today, may have moved on)."""
    return stored.email == request.email and request.join_date in (None, stored.join_date)


class UsersService:
    def __init__(self, repository: UsersRepository, today: Callable[[], date] = utc_today) -> None:
        self.repository = repository
        self._today = today

    require_self_or_admin = staticmethod(auth.require_self_or_admin)

    def sign_up(self, request: models.SignUpIn) -> SignUp:
        """Created (201), or the same user already there (a retry: 200 with the stored user), or 409."""
        user = models.User(user_id=request.user_id, email=request.email, join_date=request.join_date or self._today())
        result = self.repository.sign_up(user)
        if not result.created and not is_retry_of(result.user, request):
            raise ConflictError(f"user {request.user_id} exists", code="USER_EXISTS")
        return result

    def get_user(self, user_id: str) -> models.User:
        return found(self.repository.get_user(user_id), f"no user {user_id}", "USER_NOT_FOUND")

    def user_by_email(self, email: str) -> models.User:
        normalized = models.normalize_email(email)
        return found(self.repository.user_by_email(normalized), f"no user with email {normalized}", "USER_NOT_FOUND")

    def change_email(self, user_id: str, new_email: str) -> models.User:
        """The same email: a no-op (no write). Otherwise one conditioned transaction; read again if the user changed."""
        for _ in range(ATTEMPTS):
            user = self._current(user_id)
            if user.email == new_email:
                return user
            changed = self.repository.change_email(user, new_email)
            if changed is not None:
                return changed
        raise ThrottledError("the user kept changing; retry")

    def delete_user(self, user_id: str) -> None:
        for _ in range(ATTEMPTS):
            if self.repository.delete_user(self._current(user_id)):
                return
        raise ThrottledError("the user kept changing; retry")

    def _current(self, user_id: str) -> models.User:
        """The user as stored now (strongly consistent): what an optimistic write conditions on."""
        return found(self.repository.get_user(user_id, consistent=True), f"no user {user_id}", "USER_NOT_FOUND")
