"""A domain's routes, declared once, as plain data (docs/adr/0124-one-declaration-per-access-pattern.md).

Each domain declares its handlers in `functions/<domain>/domain.toml`, each under the access pattern it serves
(`[patterns.handlers.<name>]`) or on its own (`[handlers.<name>]`), named like the handler function; functions/shared/
domain.py reads them into `Routes` (`load(__file__).routes`):

    [patterns.handlers.put_poll]              # the handler's name
    route = "PUT /voting/polls/{pollId}"      # method and path, as API Gateway names them
    group = "admin"                           # optional: the Cognito group a caller must be in (403 otherwise)
    paged = true                              # optional: it answers a page and a signed cursor
    public = true                             # optional: no authorizer (health, docs)
    in_schema = false                         # optional: left out of the OpenAPI description
    responses = { 201 = "created", 409 = "409 POLL_EXISTS" }   # optional: status -> description (OpenAPI)

What reads them:
- the domain's `api.py`: `@router.serve` registers each handler under its route (functions/shared/http.py);
- the resolver: the group a route requires is refused (403) before the request is validated;
- the stack (infra/domains/<domain>.py): the API Gateway methods, their authorizer and the cursor secret of a
  domain with paged routes;
- the functional tests' client and the docs (`make docs`, the OpenAPI description).

Standard library only: the stack reads it without loading Powertools.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

ADMIN = "admin"  # the Cognito group of administrators
METHODS = frozenset({"GET", "PUT", "POST", "DELETE", "PATCH"})
_PARAMETER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")


def snake(name: str) -> str:
    """A path parameter's Python name: `pollId` -> `poll_id`."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


@dataclass(frozen=True)
class Route:
    """One method of the API.

    `path` is as API Gateway names it (`/voting/polls/{pollId}`); the handler takes each parameter by its
    snake-case name (`poll_id`). `group`: the Cognito group a caller must be in (403 otherwise). `public` routes
    skip the authorizer (health, docs). `paged` routes answer with a page and a signed cursor
    (functions/shared/cursors.py): a domain with one gets the cursor-signing secret. `responses`: status ->
    description, for the OpenAPI description (errors as "404 CODE, CODE"). `in_schema`: whether the OpenAPI
    description lists it."""

    method: str
    path: str
    group: str | None = None
    public: bool = False
    paged: bool = False
    responses: Mapping[int, str] = field(default_factory=dict)
    in_schema: bool = True
    name: str = ""  # the handler's name: set by `Routes`

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"{self.method}: not one of {sorted(METHODS)}")
        if not self.path.startswith("/"):
            raise ValueError(f"{self.path}: a path starts with /")

    @property
    def rule(self) -> str:
        """The path as Powertools matches it: `/voting/polls/<poll_id>`."""
        return _PARAMETER.sub(lambda match: f"<{snake(match.group(1))}>", self.path)

    @property
    def key(self) -> tuple[str, str]:
        """(method, path): how API Gateway names the method (an event's `httpMethod` and `resource`)."""
        return self.method, self.path


class Routes:
    """A domain's routes, in the order declared, each named like its handler, with the domain's OpenAPI tag:
    `Routes("voting", put_poll=Route("PUT", "/voting/polls/{pollId}"), ...)`. Iterating gives the routes;
    `ROUTES["put_poll"]` the one named."""

    def __init__(self, tag: str, **routes: Route) -> None:
        self.tag = tag
        self._routes = {name: _named(route, name) for name, route in routes.items()}
        seen: dict[tuple[str, str], str] = {}
        for name, route in self._routes.items():
            if route.key in seen:
                raise ValueError(f"{name} and {seen[route.key]} are both {route.method} {route.path}")
            seen[route.key] = name

    def __getitem__(self, name: str) -> Route:
        return self._routes[name]

    def __len__(self) -> int:
        return len(self._routes)

    def __iter__(self) -> Iterator[Route]:
        return iter(self._routes.values())

    def __contains__(self, name: object) -> bool:
        return name in self._routes

    @property
    def paths(self) -> list[str]:
        """Every path, as API Gateway names it (a functional test's client matches events to them)."""
        return [route.path for route in self._routes.values()]

    def without(self, *names: str) -> Routes:
        """These routes but the named ones (a stage that does not serve them)."""
        return Routes(self.tag, **{name: route for name, route in self._routes.items() if name not in names})


def _named(route: Route, name: str) -> Route:
    if route.name and route.name != name:
        raise ValueError(f"route {route.method} {route.path} is named {route.name!r}, not {name!r}")
    return Route(route.method, route.path, route.group, route.public, route.paged, dict(route.responses),
                 route.in_schema, name)

