"""What a domain's `api.py` is made of, in one import: `from functions.shared import kit`.

    router = kit.DomainRouter(ROUTES)                    # the routes of routes.toml, served by name

    @kit.per_container                                   # built once per execution environment
    def service() -> VotingService:
        return VotingService(VotingRepository(TableNames(kit.settings())))

    Service = Annotated[VotingService, kit.Depends(service)]   # what each handler takes: `svc: Service`

    @router.serve
    def results(poll_id: PollIdPath, svc: Service) -> Results: ...

    app, lambda_handler = kit.serve(router)

Lists take `limit: kit.Limit = kit.DEFAULT_LIMIT, cursor: kit.Cursor = None` and answer
`kit.paginate(app, Page, cursor, fetch)`; creations retried with an `Idempotency-Key` answer `kit.create_once(...)`.
"""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Depends, Response, content_types
from pydantic import BaseModel

from functions.shared.auth import caller_of
from functions.shared.container import per_container
from functions.shared.errors import InvalidInputError
from functions.shared.handler import Handler, api_handler
from functions.shared.http import DomainRouter, Resolver, build_resolver
from functions.shared.idempotency import IdempotencyKey, create_once
from functions.shared.models import DAY_PATTERN, dump
from functions.shared.observability import metrics
from functions.shared.pagination import DEFAULT_LIMIT, Cursor, Limit, paginate
from functions.shared.settings import settings

__all__ = [
    "DAY_PATTERN",
    "DEFAULT_LIMIT",
    "Cursor",
    "Depends",
    "DomainRouter",
    "IdempotencyKey",
    "InvalidInputError",
    "Limit",
    "answer",
    "caller_of",
    "create_once",
    "dump",
    "metrics",
    "paginate",
    "per_container",
    "serve",
    "settings",
]


def answer(status: int, model: BaseModel) -> Response:
    """`model` as a JSON answer with a status the route chooses (201 or 200): camelCase, JSON types (`dump`). The
    route's return annotation (`Response[User]`) describes the body to Powertools, which validates it."""
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=dump(model))


def serve(router: DomainRouter) -> tuple[Resolver, Handler]:
    """The domain's resolver (every route needs a signed-in caller) with its router, and the Lambda handler."""
    app = build_resolver()
    app.include_router(router)
    return app, api_handler(app)
