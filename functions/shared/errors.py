"""Domain errors. Each carries its HTTP status and a stable code; the resolver turns them into
`{"error": {"code", "message", "details"?}}` in one place (functions/shared/http.py)."""

from __future__ import annotations

from typing import Any, TypeVar

Found = TypeVar("Found")


class AppError(Exception):
    """A domain error; a kind of it states its status and code where it is declared
    (`class NotFoundError(AppError, status=404, code="NOT_FOUND")`), and `retry_after` when it is transient."""

    status: int = 500
    code: str = "INTERNAL_ERROR"
    retry_after: int | None = None  # seconds, sent as `Retry-After`: the error is transient, retrying may succeed

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None, retry_after: int | None = None,
                          **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code
        if retry_after is not None:
            cls.retry_after = retry_after

    def __init__(self, message: str, *, code: str | None = None, details: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details


class InvalidInputError(AppError, status=400, code="VALIDATION_FAILED"):
    """The request is refused as it stands."""


class UnauthorizedError(AppError, status=401, code="UNAUTHORIZED"):
    """No signed-in caller."""


class ForbiddenError(AppError, status=403, code="FORBIDDEN"):
    """The caller may not do this."""


class NotFoundError(AppError, status=404, code="NOT_FOUND"):
    """Nothing stored under what was asked."""


def found(value: Found | None, message: str, code: str) -> Found:
    """`value`, or a 404 with `code` when the read found nothing."""
    if value is None:
        raise NotFoundError(message, code=code)
    return value


class ConflictError(AppError, status=409, code="CONFLICT"):
    """The stored state refuses the request (a rule, a uniqueness, a state transition)."""


# DynamoDB capacity is metered per second; the SDK has already backed off within the request.
class ThrottledError(AppError, status=429, code="THROTTLED", retry_after=1):
    """Too much at once: throttled capacity, or an item that kept changing while the request ran; retry."""


# A 5xx or a timeout that outlasted the SDK's own retries: give the service a moment.
class ServiceUnavailableError(AppError, status=503, code="SERVICE_UNAVAILABLE", retry_after=2):
    """A store did not answer, or a write is still in progress; retry later."""


def check_range(first: Any, last: Any, *, low: str = "from", high: str = "to", where: str = "query") -> None:
    """A range's bounds in order, both given: `first` after `last` is a 400 VALIDATION_FAILED naming both fields.
    An OpenAPI description cannot state "from <= to" (JSON Schema compares no two values), so the API says it here
    and in each docs page; an empty answer would hide a client's swapped bounds."""
    if first is not None and last is not None and first > last:
        raise InvalidInputError(
            f"{low} must not be after {high}",
            details=[
                {"field": f"{where}.{low}", "message": f"must not be after {high}"},
                {"field": f"{where}.{high}", "message": f"must not be before {low}"},
            ],
        )
