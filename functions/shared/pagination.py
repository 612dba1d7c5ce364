"""Opaque, signed list cursors and the page loop every list route uses.

A cursor is `base64url(json({"b": binding, "k": LastEvaluatedKey})) + "." + HMAC-SHA256`, where the
binding names the route and its parameters. A cursor edited by hand, minted by another route or for other
parameters is a 400: a cursor can never turn one read into a read elsewhere.
The signing key is a Secrets Manager secret the CDK creates (CURSOR_SECRET_ARN), read once per container.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Annotated, Any, Generic, TypeVar

from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.shared.container import per_container
from functions.shared.errors import InvalidInputError
from functions.shared.settings import settings

CURSOR_SECRET_ENV = "CURSOR_SECRET_ARN"  # noqa: S105  the name of a variable that holds an ARN, not a secret
DEFAULT_LIMIT = 25
MAX_LIMIT = 100
MAX_CURSOR_LENGTH = 2048
# A FilterExpression may leave a page short; we keep reading, but never more than this many round trips.
_MAX_ROUNDS = 10


StartKey = dict[str, Any] | None


Item = TypeVar("Item")


@dataclass
class Page(Generic[Item]):
    """A page of a read: its items (raw items, or what a repository made of them) and where the next page starts."""

    items: list[Item]
    last_key: dict[str, Any] | None = None


def listed_under(page: Page, first_page: bool, exists: Callable[[], bool], missing: Exception) -> Page:
    """A list read from an index (or a partition) that does not hold its parent's own item: an empty first page costs
    one existence read of the parent (`exists`), so an unknown parent raises `missing` and a known one with nothing
    listed is an empty list. Non-empty and later pages cost nothing more."""
    if first_page and not page.items and not exists():
        raise missing
    return page


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


def request_binding(app: Any, **also: Any) -> str:
    """What a list request's cursor is bound to: the route API Gateway matched (method and resource) and the route's
    parameters as validated, but the page's size and cursor (a client may change the size between pages), and
    `also`: what the list depends on that is not a parameter (the caller, for a list of the caller's own)."""
    event = app.current_event
    params = {name: value for name, value in app.request.path_parameters.items()
              if name not in PAGING_PARAMETERS and isinstance(value, str | int | float | bool)}
    return route_binding(event.http_method.upper(), event.resource, **params, **also)


def route_binding(method: str, path: str, **params: Any) -> str:
    """The binding of a list route's cursor (`request_binding`), for another route that gives its first cursor
    (a customer read with the first page of their orders)."""
    return binding(f"{method} {path}", **params)


def paginate(app: Any, page_model: Callable[..., PageModel], cursor: str | None,
             fetch: Callable[[StartKey], Page], **also: Any) -> PageModel:
    """A list route's answer: the cursor checked against what it is bound to (`request_binding`: this route, these
    parameters, and `also`), one page fetched from where it points, and the next page's cursor bound the same way."""
    bound = request_binding(app, **also)
    codec = cursor_codec()
    page = fetch(codec.decode(cursor, bound))
    return page_model(items=page.items, next_cursor=codec.encode(page.last_key, bound))


@per_container
def cursor_codec() -> CursorCodec:
    """The codec keyed by the deployment's secret (fetched on first use, cached for the container's life)."""
    from aws_lambda_powertools.utilities import parameters

    secret = parameters.get_secret(settings().text(CURSOR_SECRET_ENV), max_age=3600)
    return CursorCodec(str(secret).encode())


def query_page(
    query: Callable[..., Mapping[str, Any]], *, limit: int, start_key: dict[str, Any] | None,
    range_end: tuple[str, Any] | None = None, parent_first: bool = False, **kwargs: Any,
) -> Page[dict[str, Any]]:
    """Up to `limit` items of one Query, resuming at `start_key`.

    `parent_first`: the read starts at its item collection's parent item (the seed's "a parent and its children in
    one Query"). The first page (no `start_key`) asks for one item more, so that it holds the parent and `limit`
    children: DynamoDB's Limit is "the maximum number of items to evaluate", the parent included
    (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html). Later pages resume past the
    parent and hold children only.

    With a FilterExpression DynamoDB applies Limit before the filter, so a page can come back short while
    more items remain; we read on from LastEvaluatedKey (asking only for what is missing) a bounded number
    of times. The returned `last_key` is exactly where the next page must start.

    `range_end`, (sort key, value), is the key condition's last value in the direction read, for a table's own sort
    key (unique in its partition, so no other item can follow one that holds it). DynamoDB returns LastEvaluatedKey
    whenever Limit stops a page, even on the range's last item: a LastEvaluatedKey there ends the range instead of
    costing one more Query, in this request or in the client's next one, that can only come back empty.
    """
    if parent_first and start_key is None:
        limit += 1
    items: list[dict[str, Any]] = []
    last_key = start_key
    for _ in range(_MAX_ROUNDS):
        request = dict(kwargs, Limit=limit - len(items))
        if last_key:
            request["ExclusiveStartKey"] = last_key
        response = query(**request)
        items.extend(response.get("Items", []))
        last_key = response.get("LastEvaluatedKey")
        if last_key and range_end is not None and last_key.get(range_end[0]) == range_end[1]:
            last_key = None
        if not last_key or len(items) >= limit:
            break
    return Page(items=items, last_key=last_key)


def read_page(query: Callable[..., Mapping[str, Any]], parse: Callable[[dict[str, Any]], Item],
              **options: Any) -> Page[Item]:
    """`query_page` (its `limit`, `start_key`, `range_end`, `parent_first` and the Query's parameters in `options`),
    each item read into what `parse` makes of it: a repository's paged read is this call with its table's `query`
    and its item parser (`from_item`, a model's constructor)."""
    page = query_page(query, **options)
    return Page(items=[parse(item) for item in page.items], last_key=page.last_key)
