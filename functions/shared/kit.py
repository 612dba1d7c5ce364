"""What a domain's `api.py` is made of, in one import: `from functions.shared import kit`.

    router = kit.DomainRouter.of(__file__)               # the routes of domain.toml, served by name

    service = kit.service(VotingService, VotingRepository, TableNames)   # built once per execution environment
    Service = Annotated[VotingService, kit.Depends(service)]            # what each handler takes: `svc: Service`
    Repository = Annotated[VotingRepository, kit.Depends(kit.repository_of(service))]  # a read with no rule

    # path parameters live in models.py beside their patterns: PollIdPath = Annotated[str, Path(pattern=...)]
    @router.serve
    def my_vote(poll_id: PollIdPath, svc: Service, caller: kit.Caller) -> Vote: ...

    @router.serve
    @kit.paged                                           # `page` becomes the route's `limit` and `cursor`
    def list_votes(poll_id: PollIdPath, svc: Service, page: kit.PageRequest) -> VotePage:
        return page.of(VotePage, svc.votes, poll_id)      # svc.votes(poll_id, limit=, start_key=)

    app, lambda_handler = kit.serve(router)

A route that creates what is not there yet answers `kit.created(created, stored)`: 201 or 200.

A handler takes what it uses, never the resolver: its caller (`caller: kit.Caller`), its page (`page:
kit.PageRequest` under `@kit.paged`), a creation retried with an `Idempotency-Key` (`create: kit.CreateOnce`, with
`idempotency_key: kit.IdempotencyKey = None`) — docs/adr/0125-handlers-take-what-they-use.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from aws_lambda_powertools.event_handler import Depends, Response, content_types
from pydantic import BaseModel

from functions.shared import auth, idempotency
from functions.shared.container import PerContainer, per_container
from functions.shared.cursors import DEFAULT_LIMIT, Cursor, Limit, PageRequest, paged
from functions.shared.errors import InvalidInputError
from functions.shared.handler import serve
from functions.shared.http import DomainRouter
from functions.shared.idempotency import IdempotencyKey
from functions.shared.models import DAY_PATTERN, dump
from functions.shared.observability import metrics
from functions.shared.settings import settings

__all__ = [
    "DAY_PATTERN",
    "DEFAULT_LIMIT",
    "Caller",
    "CreateOnce",
    "Cursor",
    "Depends",
    "DomainRouter",
    "IdempotencyKey",
    "InvalidInputError",
    "Limit",
    "PageRequest",
    "answer",
    "created",
    "dump",
    "metrics",
    "paged",
    "per_container",
    "repository_of",
    "serve",
    "service",
    "settings",
]

# The signed-in caller (401 without one), parsed from the authorizer's claims in one place (functions/shared/auth.py).
Caller = Annotated[auth.Caller, Depends(auth.current_caller)]
# A creation made once per (caller, operation, Idempotency-Key): `create(operation=, key=, request=, make=)` is a 201.
CreateOnce = Annotated[idempotency.CreateOnce, Depends(idempotency.create_once)]

Built = TypeVar("Built")


def service(outer: Callable[..., Built], *inner: Callable[[Any], Any]) -> PerContainer[Built]:
    """The domain's service as a dependency's provider, built once per execution environment (`per_container`):
    each callable is given what the next one builds, the last one the function's settings
    (`kit.service(VotingService, VotingRepository, TableNames)` builds
    `VotingService(VotingRepository(TableNames(settings())))`). Tests swap it in the resolver's `dependency_overrides`
    or clear it (`service.cache_clear()`) when the settings change."""

    @per_container
    def provide() -> Built:
        built: Any = settings()
        for make in reversed(inner):
            built = make(built)
        return outer(built)

    return provide


def repository_of(service: Callable[[], Any]) -> Callable[..., Any]:
    """A dependency's provider: the repository of the service `service` provides. A read whose only rule is its key
    (an absent item is the repository's 404) goes from the handler to the repository; the service holds the rules
    (docs/adr/0128-reads-without-a-rule-skip-the-service.md). Resolved through `service` as a sub-dependency, so a
    test's `dependency_overrides` of the service give its repository too."""

    def repository(svc: Any) -> Any:
        return svc.repository

    # set, not written in the signature: this module's annotations are strings, and `service` is a local name
    repository.__annotations__ = {"svc": Annotated[Any, Depends(service)], "return": Any}
    return repository


def answer(status: int, model: BaseModel) -> Response:
    """`model` as a JSON answer with a status the route chooses (201 or 200): camelCase, JSON types (`dump`). The
    route's return annotation (`Response[User]`) describes the body to Powertools, which validates it."""
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=dump(model))


def created(made: bool, model: BaseModel, *, metric: str | None = None) -> Response:
    """A put's or a create-if-absent's answer: 201 with what the request created (`made`), counted in `metric` when
    one is named, or 200 with what was there already or was replaced."""
    if made and metric:
        metrics.add_metric(name=metric, unit="Count", value=1)
    return answer(201 if made else 200, model)
