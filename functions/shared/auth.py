"""Who is calling: the identity API Gateway's Cognito authorizer verified, read in one place."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Request, Response
from aws_lambda_powertools.event_handler.middlewares import NextMiddleware

from functions.shared.errors import ForbiddenError, UnauthorizedError
from functions.shared.routes import ADMIN as ADMIN  # the group name is route data (functions/shared/routes.py)


@dataclass(frozen=True)
class Caller:
    user_id: str
    username: str
    groups: frozenset[str]

    def is_in(self, group: str) -> bool:
        return group in self.groups


def require_self_or_admin(caller: Caller, username: str, *, who: str = "user") -> None:
    """What is a user's own (their profile, cart, games, orders) is acted on by them or by an admin: 403 otherwise,
    naming the kind of user (`who`: "user", "customer")."""
    if caller.username != username and not caller.is_in(ADMIN):
        raise ForbiddenError(f"only the {who} themself or an admin may do this")


def parse_groups(value: Any) -> frozenset[str]:
    """`cognito:groups` as REST API claims carry it ("a,b"), as HTTP APIs do ("[a b]"), or as a list."""
    if value is None:
        return frozenset()
    if isinstance(value, (list, tuple, set, frozenset)):
        return frozenset(str(v).strip() for v in value if str(v).strip())
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].replace(",", " ")
        parts: Iterable[str] = text.split()
    else:
        parts = text.split(",")
    return frozenset(p.strip() for p in parts if p.strip())


def signed_in(event: Mapping[str, Any]) -> Caller | None:
    """The caller the authorizer verified, read from the raw API Gateway event's claims (`sub`, the username, the
    groups); None without an identity. The one reader of the claims: the resolver's refusals, the caller a handler
    takes and the group a route requires all ask here."""
    claims = ((event.get("requestContext") or {}).get("authorizer") or {}).get("claims") or {}
    user_id = claims.get("sub")
    if not user_id:
        return None
    return Caller(
        user_id=user_id,
        username=claims.get("cognito:username") or claims.get("username") or user_id,
        groups=parse_groups(claims.get("cognito:groups")),
    )


def caller_of(event: Mapping[str, Any]) -> Caller:
    """The signed-in caller of a request's raw event; 401 if the authorizer passed no identity."""
    caller = signed_in(event)
    if caller is None:
        raise UnauthorizedError("sign in first")
    return caller


def current_caller(request: Request) -> Caller:
    """The `Depends()` dependency a handler takes its caller through (`caller: kit.Caller`)."""
    return caller_of(request.resolved_event.raw_event)


def forbidden_message(group: str) -> str:
    return f"this action needs the '{group}' group"


def require_group(group: str):
    """Route middleware: only members of `group` get through (403 otherwise).

    The middleware carries the group as `required_group`: `functions.shared.http.Resolver` reads it to refuse a
    caller outside the group before Powertools validates the body (route middlewares run after validation), so
    a non-member gets 403 whatever the body and learns nothing of the route's schema. The check below stays as
    defence in depth, for a resolver that would not do that."""

    def middleware(app: APIGatewayRestResolver, next_middleware: NextMiddleware) -> Response:
        if not caller_of(app.current_event.raw_event).is_in(group):
            raise ForbiddenError(forbidden_message(group))
        return next_middleware(app)

    middleware.__name__ = f"require_group_{group}"
    middleware.required_group = group  # type: ignore[attr-defined]
    return middleware


admin_only = require_group(ADMIN)
