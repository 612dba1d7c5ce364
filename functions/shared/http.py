"""The API resolver every domain uses: validation on, and every error turned into
`{"error": {"code", "message", "details"?}}` here, in one place, never per route."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Mapping
from re import Match
from typing import Any, TypeVar
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import (
    APIGatewayRestResolver,
    CORSConfig,
    Response,
    content_types,
)
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import (
    OpenAPIRequestValidationMiddleware,
    OpenAPIResponseValidationMiddleware,
)
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestValidationError,
)
from aws_lambda_powertools.metrics import MetricUnit
from botocore.exceptions import ClientError

from functions.shared import cors, cost
from functions.shared.auth import ADMIN, forbidden_message, require_group, signed_in
from functions.shared.cursors import CURSOR_FIELD, CURSOR_PATTERN, invalid_cursor_message
from functions.shared.ddb import (
    TRANSPORT_ERRORS,
    translate_client_error,
    translate_transport_error,
)
from functions.shared.domain import load
from functions.shared.errors import AppError, ServiceUnavailableError
from functions.shared.models import PATTERN_FORMATS
from functions.shared.observability import logger, metrics
from functions.shared.openapi import camel, refine
from functions.shared.routes import Routes

_Handler = TypeVar("_Handler", bound=Callable[..., Any])

# The key of the invocation's Lambda context in the resolver's per-request context, for a dependency (which gets the
# Request, not the resolver) that needs it: an idempotent creation bounds its in-progress record by the deadline.
LAMBDA_CONTEXT = "lambda_context"

# Far above any valid request of ours and far below Lambda's 6 MB: a bigger body is refused unread.
MAX_BODY_BYTES = 64 * 1024


def error_response(status: int, code: str, message: str, details: list[dict[str, Any]] | None = None, *,
                   retry_after: int | None = None) -> Response:
    """The error envelope; `retry_after` (seconds) adds a `Retry-After` header (RFC 9110 §10.2.3) to a transient one."""
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = details
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body={"error": error},
                    headers=headers)


def _field_of(location: Any) -> str:
    """Pydantic's error location as a dotted field name: ("body", "lastName") -> "body.lastName"; a path
    parameter as API Gateway and the OpenAPI description name it: ("path", "person_id") -> "path.personId"."""
    parts = [str(part) for part in location or ()]
    if len(parts) == 2 and parts[0] == "path":
        parts[1] = camel(parts[1])
    return ".".join(parts)


# A regular expression longer than this is no message for a person: the refusal names the format instead.
_READABLE_PATTERN = 64
_FORMATS = {**PATTERN_FORMATS, CURSOR_PATTERN: "expected the nextCursor of this list's previous page, unchanged"}


def _message(error: dict[str, Any]) -> str:
    """Pydantic's message, but a pattern mismatch says what the value should look like (with an example for the
    shared date and time patterns), not a regular expression of hundreds of characters."""
    if error.get("type") == "string_pattern_mismatch":
        pattern = str((error.get("ctx") or {}).get("pattern", ""))
        if pattern in _FORMATS:
            return _FORMATS[pattern]
        if len(pattern) > _READABLE_PATTERN:
            return "not in the form this field takes (its pattern is in the OpenAPI description, /docs?format=json)"
    if error.get("type") == "value_error" and (error.get("ctx") or {}).get("error") is not None:
        return str(error["ctx"]["error"])  # our validator's own words, without pydantic's "Value error, " before them
    return str(error.get("msg", "invalid"))


def validation_details(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"field": _field_of(e.get("loc")), "message": _message(e)} for e in errors]


def parse_json_body(text: str) -> Any:
    """Powertools' JSON body parser (`json_body_deserializer`): `json.loads`, with the inputs it cannot parse
    (nesting deeper than the interpreter's stack: RecursionError; an integer over Python's 4300-digit limit:
    ValueError) raised as the JSONDecodeError Powertools turns into `json_invalid`, hence our 400 MALFORMED_JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except (RecursionError, ValueError) as error:
        raise json.JSONDecodeError(f"unparseable JSON ({type(error).__name__})", text, 0) from None


class UnknownQueryParametersFirst(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation, after the refusal of a query parameter the route does not take."""

    def handler(self, app: Any, next_middleware: Any) -> Response:
        return unknown_query_parameters(app) or super().handler(app, next_middleware)


class Resolver(APIGatewayRestResolver):
    """Powertools' REST resolver with refusals that must come before its request validation (which always
    runs first in the middleware stack), in this order: an oversized body (413, left unparsed), a body that
    is not JSON (415), unless `public` a request without a verified identity (401 — defence in depth behind
    the authorizer), a caller outside the group the matched route requires (403, whatever the body: a
    validation error would tell a non-member the route's schema), then a body that is not UTF-8 (400
    MALFORMED_JSON, as a body that does not parse: Powertools would fail decoding it).
    Path parameters reach the route percent-decoded (API Gateway REST keeps `event.path` encoded, and
    Powertools takes the parameters from `event.path`)."""

    def __init__(self, *, public: bool = False):
        super().__init__(enable_validation=True, json_body_deserializer=parse_json_body, cors=cors_config())
        self._public = public
        self._groups: dict[tuple[str, str], list[str]] = {}
        # Powertools makes its validation middlewares on first use unless the resolver has them: ours refuses an
        # unknown query parameter before validating the known ones (a misspelt name is the likelier mistake).
        self._request_validation_middleware = UnknownQueryParametersFirst()
        self._response_validation_middleware = OpenAPIResponseValidationMiddleware(
            validation_serializer=self._serializer, has_response_validation_error=self._has_response_validation_error)

    def resolve(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        """The answer, with what it cost in DynamoDB (functions/shared/cost.py) as a `Server-Timing` header and as
        metrics; on the dev stage, asked with `X-Blueprints-Explain: items`, also the items each call read or wrote
        (`X-Blueprints-Items`, for the model explorer)."""
        with cost.metered(explain=_asks_for_bill(event)) as ledger:
            response = self._answer(event, context)
        _bill(response, ledger, contents=_asks_to_explain(event))
        return response

    def _answer(self, event: Mapping[str, Any], context: Any) -> dict[str, Any]:
        body = event.get("body")
        if body is not None and len(body.encode() if isinstance(body, str) else body) > MAX_BODY_BYTES:
            return _proxy_error(413, "PAYLOAD_TOO_LARGE", f"request body is over {MAX_BODY_BYTES} bytes")
        if body:
            refusal = _json_only(event)
            if refusal is not None:
                return refusal
            event = _read_as_json(event)
        caller = signed_in(event)
        if not self._public and caller is None:
            return _proxy_error(401, "UNAUTHORIZED", "sign in first")
        for group in self._groups_required_by(event):
            if caller is None:  # a public resolver serving a group's route: as `caller_of` would answer
                return _proxy_error(401, "UNAUTHORIZED", "sign in first")
            if not caller.is_in(group):
                return _proxy_error(403, "FORBIDDEN", forbidden_message(group))
        if body and not _is_utf8(body, encoded=bool(event.get("isBase64Encoded"))):
            return _proxy_error(400, "MALFORMED_JSON", "the request body is not UTF-8 JSON")
        self.append_context(**{LAMBDA_CONTEXT: context})  # cleared with the rest when Powertools has answered
        return super().resolve(event, context)

    def _convert_matches_into_route_keys(self, match: Match) -> dict[str, str]:
        """Powertools' hook for the route's keyword arguments: `<param>`s matched in the still-encoded path,
        decoded here (`a%40b.com` -> `a@b.com`, `a%2Bb` -> `a+b`; a `+` stays a `+`: it is no space in a path)."""
        return {name: unquote(value) for name, value in match.groupdict().items()}

    def get_openapi_schema(self, **kwargs: Any) -> Any:
        """Powertools' description of the routes, made exact by `functions.shared.openapi.refine` (real error
        statuses with the envelope, the bearer scheme, API Gateway's parameter names, summaries)."""
        from aws_lambda_powertools.event_handler.openapi.compat import model_json
        from aws_lambda_powertools.event_handler.openapi.models import OpenAPI

        generated = json.loads(model_json(super().get_openapi_schema(**kwargs), by_alias=True, exclude_none=True))
        return OpenAPI.model_validate(refine(generated, self._static_routes + self._dynamic_routes))

    def include_router(self, router: Router, prefix: str | None = None) -> None:
        """Powertools' `include_router`; a `DomainRouter` must serve every route its domain declares, and the
        groups its routes require are kept by (method, path) for `_groups_required_by`."""
        if isinstance(router, DomainRouter):
            router.check_every_route_served()
            for route in router.routes:
                self._groups[route.key] = [route.group] if route.group else []
        super().include_router(router, prefix)

    def _groups_required_by(self, event: Mapping[str, Any]) -> list[str]:
        """The groups the route requires, by the method and the resource API Gateway matched (the event's
        `httpMethod` and `resource`, which the stack made from the same declared routes); none for a method this
        function does not declare (Powertools answers it 404)."""
        return self._groups.get(((event.get("httpMethod") or "").upper(), event.get("resource") or ""), [])


class DomainRouter(Router):
    """Powertools' Router over a domain's declared routes (functions/<domain>/domain.toml): `@router.serve` above a
    handler registers it under the route named like it, with the route's method, path, OpenAPI responses and tag,
    and the group it requires."""

    def __init__(self, routes: Routes):
        super().__init__()
        self.routes = routes
        self._served: set[str] = set()

    @classmethod
    def of(cls, module_file: str) -> DomainRouter:
        """The router of the domain whose module this is (`DomainRouter.of(__file__)` in its api.py): the routes
        its domain.toml declares."""
        return cls(load(module_file).routes)

    def serve(self, handler: _Handler) -> _Handler:
        route = self.routes[handler.__name__]
        self._served.add(route.name)
        register = self.route(
            route.rule,
            route.method,
            tags=[self.routes.tag],
            responses={status: {"description": text} for status, text in route.responses.items()} or None,
            include_in_schema=route.in_schema,
            middlewares=[require_group(route.group)] if route.group else None,
        )
        return register(handler)

    def check_every_route_served(self) -> None:
        unserved = [route.name for route in self.routes if route.name not in self._served]
        if unserved:
            raise LookupError(f"declared in domain.toml but served by no handler: {', '.join(unserved)}")


def cors_config() -> CORSConfig | None:
    """Powertools' CORS answer for the origins the stage allows (functions/shared/cors.py): an allowed `Origin` gets
    `Access-Control-Allow-Origin` with its own value, any other none; no origins configured, no CORS headers at all.
    API Gateway answers the preflight OPTIONS itself (the MOCK integrations of infra/constructs/rest_api.py)."""
    origins = cors.allowed_origins()
    if not origins:
        return None
    return CORSConfig(allow_origin=origins[0], extra_origins=list(origins[1:]), allow_headers=list(cors.ALLOW_HEADERS),
                      expose_headers=list(cors.EXPOSE_HEADERS), max_age=cors.MAX_AGE_SECONDS)


def _is_utf8(body: str | bytes, *, encoded: bool) -> bool:
    """Whether the body, base64-decoded if API Gateway encoded it (it does for bytes that are not UTF-8), is UTF-8."""
    try:
        raw = base64.b64decode(body, validate=True) if encoded else body
        if isinstance(raw, bytes):
            raw.decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    return True


def _media_type(event: Mapping[str, Any]) -> str:
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    return (headers.get("content-type") or "").split(";")[0].strip().lower()


def _json_only(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """Bodies are JSON. Without a Content-Type we read them as JSON (`_read_as_json`); a form or any other type is
    a 415 (Powertools would otherwise parse `curl -d` bodies as forms and answer a puzzling 400)."""
    media_type = _media_type(event)
    if not media_type or media_type == "application/json" or media_type.endswith("+json"):
        return None
    return _proxy_error(415, "UNSUPPORTED_MEDIA_TYPE", "send the body as JSON with Content-Type: application/json")


def _read_as_json(event: Mapping[str, Any]) -> Mapping[str, Any]:
    """The event, given `Content-Type: application/json` when it has no Content-Type."""
    if _media_type(event):
        return event
    return {**event, "headers": {**(event.get("headers") or {}), "Content-Type": content_types.APPLICATION_JSON}}


def _asks_to_explain(event: Mapping[str, Any]) -> bool:
    """Whether to answer the items the request's DynamoDB calls read or wrote: asked (`X-Blueprints-Explain: items`),
    by a caller of the admin group, on a stage that allows it (dev). A function reads items it does not show its
    caller (another user's cart it refuses, an idempotency record): only an admin, who may read them anyway, sees."""
    if not cost.explaining_allowed():
        return False
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    if headers.get(cost.EXPLAIN_REQUEST_HEADER.lower()) != "items":
        return False
    caller = signed_in(event)
    return caller is not None and caller.is_in(ADMIN)


def _asks_for_bill(event: Mapping[str, Any]) -> bool:
    """Whether to answer the bill of every DynamoDB call (operation, table, item count and sizes, units, the rule):
    asked, by any signed-in caller, on a stage that allows it (dev). The items' attributes are for admins only
    (`_asks_to_explain`); sizes and counts of what a function read are what its Server-Timing already tells."""
    if not cost.explaining_allowed():
        return False
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    return headers.get(cost.EXPLAIN_REQUEST_HEADER.lower()) == "items" and signed_in(event) is not None


def _bill(response: dict[str, Any], ledger: cost.Ledger, *, contents: bool = True) -> None:
    headers = {"Server-Timing": ledger.server_timing()}
    if ledger.calls is not None:
        headers[cost.EXPLAIN_RESPONSE_HEADER] = ledger.explanation(contents=contents)
    for name, value in headers.items():
        if isinstance(response.get("multiValueHeaders"), dict):
            response["multiValueHeaders"][name] = [value]
        else:
            response["headers"] = {**(response.get("headers") or {}), name: value}
    metrics.add_metric(name="DynamoDBRequests", unit=MetricUnit.Count, value=ledger.requests)
    metrics.add_metric(name="DynamoDBItemsRead", unit=MetricUnit.Count, value=ledger.items_read)
    metrics.add_metric(name="DynamoDBReadUnits", unit=MetricUnit.Count, value=ledger.read_units)
    metrics.add_metric(name="DynamoDBWriteUnits", unit=MetricUnit.Count, value=ledger.write_units)


def _proxy_error(status: int, code: str, message: str) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"Content-Type": content_types.APPLICATION_JSON},
        "body": json.dumps({"error": {"code": code, "message": message}}),
        "isBase64Encoded": False,
    }


def _answer_idempotency_errors(app: Resolver, app_error: Callable[[AppError], Response]) -> None:
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyPersistenceLayerError,
        IdempotencyValidationError,
    )

    @app.exception_handler(IdempotencyValidationError)
    def _key_reused(_: IdempotencyValidationError) -> Response:
        return error_response(409, "IDEMPOTENCY_KEY_REUSED", "this Idempotency-Key was used with another request body")

    @app.exception_handler(IdempotencyAlreadyInProgressError)
    def _in_progress(_: IdempotencyAlreadyInProgressError) -> Response:
        return error_response(409, "REQUEST_IN_PROGRESS", "a request with this Idempotency-Key is still running; retry")

    @app.exception_handler(IdempotencyPersistenceLayerError)
    def _idempotency_store(_: IdempotencyPersistenceLayerError) -> Response:
        return app_error(ServiceUnavailableError("the idempotency store is unavailable; retry later"))


def unknown_query_parameters(app: APIGatewayRestResolver) -> Response | None:
    """A query parameter the matched route does not take is a 400 naming it: `?lastname=Smith` for `?lastName=` or
    `?limt=2` would otherwise answer the whole list as if nothing had been asked. What a route takes is what its
    handler declares (Powertools' `Query()` parameters), which is also what the OpenAPI description lists."""
    route = app.context.get("_route")
    event = app.current_event
    given = set(event.query_string_parameters or {}) | set(event.multi_value_query_string_parameters or {})
    if route is None or not given:
        return None
    taken = {field.alias for field in route.dependant.query_params}
    unknown = sorted(given - taken)
    if not unknown:
        return None
    takes = f"this route takes {', '.join(sorted(taken))}" if taken else "this route takes none"
    details = [{"field": f"query.{name}", "message": "not a parameter of this route"} for name in unknown]
    return error_response(400, "VALIDATION_FAILED", f"unknown query parameter(s): {', '.join(unknown)}; {takes}",
                          details)


def build_resolver(*, public: bool = False) -> Resolver:
    """A resolver whose routes all need a signed-in caller, unless `public` (health and docs only)."""
    app = Resolver(public=public)

    @app.exception_handler(RequestValidationError)
    def _invalid_request(error: RequestValidationError) -> Response:
        errors = list(error.errors())
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(400, "MALFORMED_JSON", "the request body is not valid JSON")
        details = validation_details(errors)
        if details and all(d["field"] == CURSOR_FIELD for d in details):
            # A cursor off its shape is as invalid as a forged one: one code for both (functions/shared/cursors.py)
            return error_response(400, "INVALID_CURSOR", invalid_cursor_message(), details)
        fields = ", ".join(d["field"] for d in details)
        return error_response(400, "VALIDATION_FAILED", f"invalid input: {fields}", details)

    @app.exception_handler(AppError)
    def _app_error(error: AppError) -> Response:
        if error.status >= 500:
            logger.warning("answered %s", error.status, extra={"code": error.code})
        return error_response(error.status, error.code, error.message, error.details, retry_after=error.retry_after)

    if not public:  # a public route writes nothing, and importing idempotency loads boto3 (ddb.resource() says why)
        _answer_idempotency_errors(app, _app_error)

    @app.exception_handler(ClientError)
    def _aws_error(error: ClientError) -> Response:
        translated = translate_client_error(error)
        if translated is None:
            raise error  # a defect of ours: let it surface as a 502 and in the logs, not as a made-up 4xx
        return _app_error(translated)

    @app.exception_handler(list(TRANSPORT_ERRORS))
    def _no_answer(error: Exception) -> Response:
        return _app_error(translate_transport_error(error))

    @app.not_found
    def _not_found(_: Exception) -> Response:
        # As API Gateway's own answer to a route it does not have (infra/constructs/rest_api.py GATEWAY_MESSAGES):
        # requestContext.path is the path with the stage, as $context.path is
        event = app.current_event
        path = event.request_context.path or event.path
        return error_response(404, "ROUTE_NOT_FOUND", f"no route matches {event.http_method} {path}")

    return app
