"""The HTTP side of a list: the page request a list route takes (`limit`, `cursor`) and its signed cursors.

A cursor is `base64url(json({"b": binding, "k": LastEvaluatedKey})) + "." + HMAC-SHA256`, where the
binding names the route and its parameters. A cursor edited by hand, minted by another route or for other
parameters is a 400: a cursor can never turn one read into a read elsewhere
(docs/adr/0098-cursors-bound-to-the-request.md).
The signing key is a Secrets Manager secret the CDK creates (CURSOR_SECRET_ARN), read once per container.
The page the cursor points into is read by the repository (functions/shared/pages.py).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import inspect
import json
import typing
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from aws_lambda_powertools.event_handler import Depends, Request
from aws_lambda_powertools.event_handler.openapi.params import Query
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

from functions.shared.container import per_container
from functions.shared.errors import InvalidInputError
from functions.shared.pages import Page, StartKey
from functions.shared.settings import settings

CURSOR_SECRET_ENV = "CURSOR_SECRET_ARN"  # noqa: S105  the name of a variable that holds an ARN, not a secret
DEFAULT_LIMIT = 25
MAX_LIMIT = 100
MAX_CURSOR_LENGTH = 2048


def binding(route: str, **params: Any) -> str:
    """The route and its parameters in one canonical string (None-valued parameters left out)."""
    query = "&".join(f"{k}={params[k]}" for k in sorted(params) if params[k] is not None)
    return f"{route}?{query}"


class CursorCodec:
    def __init__(self, key: bytes):
        if len(key) < 16:
            raise ValueError("cursor signing key too short")
        self._key = key

    def encode(self, last_key: Mapping[str, Any] | None, bound_to: str) -> str | None:
        if not last_key:
            return None
        payload = json.dumps({"b": bound_to, "k": _to_json(last_key)}, separators=(",", ":"), sort_keys=True)
        body = base64.urlsafe_b64encode(payload.encode()).rstrip(b"=").decode()
        return f"{body}.{self._sign(body)}"

    def decode(self, cursor: str | None, bound_to: str) -> dict[str, Any] | None:
        if cursor is None:
            return None
        body, _, signature = cursor.partition(".")
        # Compared as bytes: `compare_digest` refuses str holding non-ASCII characters (TypeError, a 502).
        if not body or not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            raise _invalid_cursor()
        try:
            payload = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
        except (binascii.Error, ValueError) as error:
            raise _invalid_cursor() from error
        if not isinstance(payload, dict) or payload.get("b") != bound_to or not isinstance(payload.get("k"), dict):
            raise _invalid_cursor()
        return _from_json(payload["k"])

    def _sign(self, body: str) -> str:
        digest = hmac.new(self._key, body.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


CURSOR_FIELD = "query.cursor"


def invalid_cursor_message() -> str:
    return "cursor is not valid for this list; start again without it"


def _invalid_cursor() -> InvalidInputError:
    """400 INVALID_CURSOR: the code of every cursor this list did not give, whether off the shape (the resolver's
    validation, functions/shared/http.py) or well-shaped but not signed for this list and these parameters."""
    return InvalidInputError(
        invalid_cursor_message(),
        code="INVALID_CURSOR",
        details=[{"field": CURSOR_FIELD, "message": "not a cursor this list gave for these parameters"}],
    )


def _to_json(key: Mapping[str, Any]) -> dict[str, Any]:
    return {name: {"n": str(v)} if isinstance(v, Decimal) else v for name, v in key.items()}


def _from_json(key: Mapping[str, Any]) -> dict[str, Any]:
    return {name: Decimal(v["n"]) if isinstance(v, dict) else v for name, v in key.items()}


PageModel = TypeVar("PageModel")

# The shape `CursorCodec.encode` gives: a base64url payload, '.', a base64url HMAC-SHA256 (32 bytes: 43 characters).
# Stated in the description and checked by validation, so a string that cannot be a cursor is schema-invalid; it is a
# 400 INVALID_CURSOR as a well-shaped one the API did not sign for this list is (one code for "not this list's cursor").
CURSOR_PATTERN = r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$"

# The two query parameters of every list route.
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=(
    "page size, at most: a filtered list can answer a short or empty page while nextCursor is set; the list "
    "ends when nextCursor is null"))]
Cursor = Annotated[
    str | None,
    Query(min_length=45, max_length=MAX_CURSOR_LENGTH, pattern=CURSOR_PATTERN,
          description="nextCursor of the previous page, unchanged (a cursor is signed and bound to its list)"),
]


# The parameters of every list route that are not part of what it lists: the page's size and where it starts.
PAGING_PARAMETERS = frozenset({"limit", "cursor"})


def request_binding(request: Request, params: Mapping[str, Any], **also: Any) -> str:
    """What a list request's cursor is bound to: the route API Gateway matched (method and resource) and the route's
    parameters as validated (`params`: the values Powertools passed the handler, not re-read from the request), but
    the page's size and cursor (a client may change the size between pages), and `also`: what the list depends on
    that is not a parameter (the caller, for a list of the caller's own)."""
    event = typing.cast(APIGatewayProxyEvent, request.resolved_event)  # the REST resolver's event
    bound = {name: value for name, value in params.items()
             if name not in PAGING_PARAMETERS and isinstance(value, str | int | float | bool)}
    return route_binding(event.http_method.upper(), event.resource, **bound, **also)


def route_binding(method: str, path: str, **params: Any) -> str:
    """The binding of a list route's cursor (`request_binding`), for another route that gives its first cursor
    (a customer read with the first page of their orders)."""
    return binding(f"{method} {path}", **params)


class PageRequest:
    """The page a list request asks for: its size (`limit`) and where it starts (`cursor`, checked against what it is
    bound to when the page is read). A handler takes it as a parameter annotated `PageRequest` under `@paged`."""

    def __init__(self, limit: int, cursor: str | None, request: Request, params: Mapping[str, Any]) -> None:
        self.limit = limit
        self.cursor = cursor
        self._request = request
        self._params = dict(params)  # the route's own parameters, as validated (what `@paged` was passed)

    def page(self, page_model: Callable[..., PageModel], fetch: Callable[[StartKey], Page], **also: Any) -> PageModel:
        """The list route's answer: the cursor checked against what it is bound to (`request_binding`: this route,
        these parameters, and `also`), one page fetched from where it points (`fetch(start_key)`), and the next page's
        cursor bound the same way."""
        bound = request_binding(self._request, self._params, **also)
        codec = cursor_codec()
        page = fetch(codec.decode(self.cursor, bound))
        return page_model(items=page.items, next_cursor=codec.encode(page.last_key, bound))

    def of(self, page_model: Callable[..., PageModel], read: Callable[..., Page], *args: Any,
           bound_to: Mapping[str, Any] | None = None, **kwargs: Any) -> PageModel:
        """`page` for a list read the usual way: `read(*args, **kwargs, limit=<this page's>, start_key=<where the
        cursor points>)`, its cursor bound also to `bound_to` (an owner's list: another caller's cursor is refused)."""
        return self.page(page_model, lambda start: read(*args, **kwargs, limit=self.limit, start_key=start),
                         **(bound_to or {}))


_Handler = TypeVar("_Handler", bound=Callable[..., Any])
_REQUEST = "request__"  # the Request Powertools injects into the wrapper: a name no handler parameter takes


def paged(handler: _Handler | None = None, *, limit: Any = Limit, default: int = DEFAULT_LIMIT) -> Any:
    """A list route: the handler's `PageRequest` parameter becomes the route's `limit` and `cursor` query parameters
    (`@paged`; `@paged(limit=..., default=...)` for a list whose page size is declared otherwise).

    Powertools documents a `Depends()` dependency's own query parameters but neither validates nor passes them to it
    (3.x: `solve_dependencies` injects sub-dependencies and the Request only), so a page request cannot be a
    dependency: this decorator gives Powertools the handler's signature without the page request and with
    `limit: Limit` and `cursor: Cursor` last (validated, documented and refused like any parameter), and hands the
    handler a `PageRequest` made of them (docs/adr/0125-handlers-take-what-they-use.md)."""
    if handler is None:
        return functools.partial(paged, limit=limit, default=default)
    hints = typing.get_type_hints(handler, include_extras=True)
    names = [name for name, hint in hints.items() if hint is PageRequest]
    if len(names) != 1:
        raise TypeError(f"{handler.__name__}: @paged needs exactly one parameter annotated PageRequest")
    page_name = names[0]
    parameters = [parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[parameter.name])
                  for parameter in inspect.signature(handler).parameters.values() if parameter.name != page_name]
    # Last, after the route's own query parameters, as every list route has always listed them.
    parameters += [
        inspect.Parameter("limit", inspect.Parameter.KEYWORD_ONLY, default=default, annotation=limit),
        inspect.Parameter("cursor", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Cursor),
        inspect.Parameter(_REQUEST, inspect.Parameter.KEYWORD_ONLY, annotation=Request),
    ]

    # The route's own parameters (path, query), as opposed to what dependencies provide: what a cursor is bound to.
    own = [p.name for p in parameters if p.name not in (_REQUEST, "limit", "cursor") and not _provided(p.annotation)]

    @functools.wraps(handler)
    def route(**kwargs: Any) -> Any:
        page = PageRequest(kwargs.pop("limit"), kwargs.pop("cursor"), kwargs.pop(_REQUEST),
                           {name: kwargs[name] for name in own if name in kwargs})
        return handler(**kwargs, **{page_name: page})

    route.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=hints.get("return", inspect.Signature.empty))
    route.__annotations__ = {p.name: p.annotation for p in parameters} | (
        {"return": hints["return"]} if "return" in hints else {})
    del route.__wrapped__  # Powertools must read the signature above, not the handler's
    return typing.cast(_Handler, route)


def _provided(annotation: Any) -> bool:
    """Whether a parameter is a dependency's (`Annotated[..., Depends(...)]`): the service, the caller."""
    return typing.get_origin(annotation) is Annotated and any(
        isinstance(meta, Depends) for meta in typing.get_args(annotation)[1:])


@per_container
def cursor_codec() -> CursorCodec:
    """The codec keyed by the deployment's secret (fetched on first use, cached for the container's life)."""
    from aws_lambda_powertools.utilities import parameters

    secret = parameters.get_secret(settings().text(CURSOR_SECRET_ENV), max_age=3600)
    return CursorCodec(str(secret).encode())


