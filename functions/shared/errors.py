"""Domain errors. Each carries its HTTP status and a stable code; the resolver turns them into
`{"error": {"code", "message", "details"?}}` in one place (functions/shared/http.py)."""

from __future__ import annotations

from typing import Any, TypeVar

Found = TypeVar("Found")


class AppError(Exception):
    status: int = 500
    code: str = "INTERNAL_ERROR"
    retry_after: int | None = None  # seconds, sent as `Retry-After`: the error is transient, retrying may succeed

    def __init__(self, message: str, *, code: str | None = None, details: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details


class InvalidInputError(AppError):
    status = 400
    code = "VALIDATION_FAILED"


class UnauthorizedError(AppError):
    status = 401
    code = "UNAUTHORIZED"


class ForbiddenError(AppError):
    status = 403
    code = "FORBIDDEN"


class NotFoundError(AppError):
    status = 404
    code = "NOT_FOUND"


def found(value: Found | None, message: str, code: str) -> Found:
    """`value`, or a 404 with `code` when the read found nothing."""
    if value is None:
        raise NotFoundError(message, code=code)
    return value


class ConflictError(AppError):
    status = 409
    code = "CONFLICT"


class ThrottledError(AppError):
    status = 429
    code = "THROTTLED"
    retry_after = 1  # DynamoDB capacity is metered per second; the SDK has already backed off within the request


class ServiceUnavailableError(AppError):
    status = 503
    code = "SERVICE_UNAVAILABLE"
    retry_after = 2  # a 5xx or a timeout that outlasted the SDK's own retries: give the service a moment


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
