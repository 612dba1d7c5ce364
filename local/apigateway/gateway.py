"""The local API Gateway stage as a WSGI app. `Gateway.handle` takes a request through one linear chain, as API
Gateway does: route (the method, the stage's throttling and limits) -> authorizer (Cognito, authorizer.py) -> method
request (the Lambda proxy event) -> integration (the function, or a MOCK integration's answer: CORS preflights) ->
response (the proxy result as HTTP); each step returns the next step's input or the refusal API Gateway answers
(restapi.py `gateway_response`). Then payload compression, and one log line per request
(`GET /contacts/persons 200 ContactsApi… 41ms`). Tests drive `Gateway` with werkzeug's test client; the runtime
serves it with werkzeug's threaded server (local/aws.py `WsgiServer`).

The same port answers the two Lambda API operations `make replay` needs (`LambdaApi`): moto cannot run functions
without Docker (docs/adr/0035-replay-through-consumer-via-lambda-api.md), and a plain boto3 `lambda` client then
works the same locally and on AWS.
- ListFunctions: `GET /2015-03-31/functions/` (name, ARN, handler, runtime, timeout, memory, environment);
- Invoke: `POST /2015-03-31/functions/{FunctionName}/invocations`, RequestResponse only; a function error is a 200 with
  `X-Amz-Function-Error: Unhandled`, as on AWS. No authorizer, no throttling: the local AWS, on 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import binascii
import functools
import gzip
import json
import logging
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from werkzeug import Request, Response
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.serving import WSGIRequestHandler

from local.apigateway.authorizer import InvalidToken, bearer_token, www_authenticate
from local.apigateway.restapi import (
    DEFAULT_4XX,
    DEFAULT_5XX,
    MAX_BODY_BYTES,
    MAX_URL_CHARS,
    MISSING_AUTHENTICATION_TOKEN,
    REQUEST_TOO_LARGE,
    THROTTLED,
    UNAUTHORIZED,
    Match,
    Method,
    RestApi,
    Throttle,
    TokenBucket,
    gateway_response,
    tracing_headers,
)
from local.awslambda.events import RequestContext, rest_event
from local.awslambda.pool import FunctionError, FunctionSpec

log = logging.getLogger("local.apigateway")
PREFIX = "/2015-03-31/functions"

Invoke = Callable[[str, dict[str, Any], str], Any]  # (function "Stack/LogicalId", event, request id)
Verify = Callable[[str], Mapping[str, Any]]  # token -> claims, raises InvalidToken


class MalformedResponse(Exception):
    """The function's result is not a valid Lambda proxy response (API Gateway answers 502)."""


@dataclass(frozen=True)
class Call:
    """A request on its way through the stage, as the route step leaves it; the authorizer adds the claims."""
    request: Request
    context: RequestContext
    source_ip: str
    path: str  # raw (percent-encoding kept) and without the stage, as API Gateway puts it in the event
    match: Match
    body: bytes
    claims: Mapping[str, Any] | None = None

    @property
    def method(self) -> Method:
        return self.match.method


@dataclass(frozen=True)
class MockAnswer:
    """A MOCK integration's answer (status, headers): CDK's CORS preflights."""
    status: int
    headers: Mapping[str, str]


class Gateway:
    """One REST API stage. Throttling is the template's: the stage's default (`api.throttle`, one bucket for every
    method without its own) and each method's own (`api.method_throttles`, a bucket each), unless `throttle` replaces
    them all (tests and benchmarks that need more than the stage allows say so); None on both: not throttled."""

    def __init__(self, api: RestApi, invoke: Invoke, verify: Verify, *, throttle: Throttle | None = None,
                 clock: Callable[[], float] = time.monotonic, lambda_api: LambdaApi | None = None) -> None:
        self.api, self._invoke, self._verify, self.lambda_api = api, invoke, verify, lambda_api
        self.throttle = throttle or api.throttle
        self._bucket = TokenBucket(self.throttle, clock) if self.throttle else None
        self._method_buckets = {} if throttle else {
            key: TokenBucket(limits, clock) for key, limits in api.method_throttles.items()}

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started, request = time.monotonic(), Request(environ)
        request.max_content_length = MAX_BODY_BYTES
        function: str | None = "(Lambda API)"
        try:
            if self.lambda_api is not None and (request.path + "/").startswith(PREFIX + "/"):
                response = self.lambda_api.handle(request)
            else:
                response, function = self.handle(request)
                compress(response, request, self.api.minimum_compression_size)
        except Exception:
            log.exception("%s %s: local gateway error", request.method, request.path)
            response, function = Response('{"message": "Internal server error"}', 500,
                                          content_type="application/json"), None
        log.info("%s %s %d %s %.0fms", request.method, request.path, response.status_code, function or "-",
                 (time.monotonic() - started) * 1000)
        return response(environ, start_response)

    def handle(self, request: Request) -> tuple[Response, str | None]:
        """The response, and the function that produced it (None if the gateway did): API Gateway's chain, each step
        handing the next its input or answering with a refusal."""
        call = self.route(request)
        if isinstance(call, Response):  # 429, 414, 400, 413, 403 (no route)
            return call, None
        authorized = self.authorize(call)
        if isinstance(authorized, Response):  # 401
            return authorized, None
        event = self.method_request(authorized)
        outcome = self.integration(authorized, event)
        if isinstance(outcome, Response):  # 502: the function failed
            return outcome, authorized.method.function_label
        return self.response(authorized, outcome)

    def route(self, request: Request) -> Call | Response:
        """The request's method and body, or the stage's refusal: throttled (the method's bucket, else the stage's),
        a URL or a body over API Gateway's limits, then no method for the path (MISSING_AUTHENTICATION_TOKEN)."""
        context, source_ip = RequestContext.new(), request.remote_addr or "127.0.0.1"
        # The raw path (percent-encoding kept) as API Gateway puts it in the event; the router decodes segments.
        path = self.api.strip_stage(request.environ.get("RAW_URI", "").partition("?")[0] or request.path)
        match = self.api.match(request.method, path)

        def refuse(kind: str) -> Response:
            return gateway_response(self.api, kind, context, source_ip=source_ip, http_method=request.method,
                                    request_headers=dict(request.headers.items()), path=path)

        bucket = self._bucket
        if match is not None:  # an ANY method's setting may name the request's method or ANY
            resource_path = match.method.resource_path
            bucket = self._method_buckets.get((request.method.upper(), resource_path)) or self._method_buckets.get(
                (match.method.http_method, resource_path), bucket)
        if bucket is not None and not bucket.take():  # the request's log line says 429
            return refuse(THROTTLED)
        if len(request.environ.get("RAW_URI") or request.full_path) > MAX_URL_CHARS:
            return self.refusal(414, "Request-URI Too Long", context, source_ip, request.method)
        if not (request.headers.get("Content-Length") or "0").isdigit():  # werkzeug would read it as no body
            return self.refusal(400, "Bad Request", context, source_ip, request.method)
        try:
            body = request.get_data()
        except RequestEntityTooLarge:
            return refuse(REQUEST_TOO_LARGE)
        if match is None:
            return refuse(MISSING_AUTHENTICATION_TOKEN)
        return Call(request, context, source_ip, path, match, body)

    def authorize(self, call: Call) -> Call | Response:
        """The method's Cognito authorizer: the call with the token's claims, or 401 (UNAUTHORIZED) saying why.
        API Gateway's says only "Unauthorized" ($context.error.message); locally the reason is known, and said
        (README, "Who may call what": what differs deployed)."""
        if call.method.authorization_type != "COGNITO_USER_POOLS":
            return call
        request = call.request
        try:
            claims = self._verify(bearer_token(request.headers.get(call.method.token_header)))
        except InvalidToken as refused:
            log.info("%s %s: token rejected: %s", request.method, request.path, refused)
            response = gateway_response(self.api, UNAUTHORIZED, call.context, source_ip=call.source_ip,
                                        http_method=request.method, message=str(refused),
                                        request_headers=dict(request.headers.items()), path=call.path)
            response.headers["WWW-Authenticate"] = www_authenticate(refused)
            return response
        return replace(call, claims=claims)

    def method_request(self, call: Call) -> dict[str, Any]:
        """The Lambda proxy event of the call (REST API v1 shape, local/awslambda/events.py)."""
        request, method = call.request, call.method
        return rest_event(
            request.method, call.path, resource=method.resource_path, resource_id=method.resource_id,
            path_parameters=call.match.path_parameters, query=request.query_string.decode("latin-1"),
            headers=list(request.headers.items()), body=call.body, claims=call.claims, stage=self.api.stage,
            api_id=self.api.api_id, source_ip=call.source_ip, context=call.context)

    def integration(self, call: Call, event: dict[str, Any]) -> Any:
        """The MOCK integration's answer, or the function's result; a function that failed is API Gateway's 502."""
        request, method = call.request, call.method
        if method.mock is not None:  # header names as sent: a mapping template's header.get is case-sensitive
            return MockAnswer(*method.mock.answer(dict(request.headers.items())))
        try:
            return self._invoke(method.function, event, call.context.request_id)
        except FunctionError as exc:
            log.error("%s %s: %s failed: %s: %s\n%s", request.method, request.path, method.function_label,
                      exc.error_type, exc.message, exc.trace.rstrip())
        return self._bad_gateway(call)

    def response(self, call: Call, outcome: Any) -> tuple[Response, str | None]:
        """The HTTP response of the integration's outcome, and the function that produced it: a MOCK's answer, or
        the function's proxy result (502 if it is not a valid one)."""
        if isinstance(outcome, MockAnswer):
            return Response(b"", outcome.status, {**outcome.headers, "Content-Type": "application/json",
                                                  **tracing_headers(call.context)}), None
        try:
            return proxy_response(outcome, call.context), call.method.function_label
        except MalformedResponse as exc:
            log.error("%s: Malformed Lambda proxy response: %s", call.method.function_label, exc)
        return self._bad_gateway(call), call.method.function_label

    def _bad_gateway(self, call: Call) -> Response:
        return gateway_response(self.api, DEFAULT_5XX, call.context, source_ip=call.source_ip,
                                http_method=call.request.method, status=502,
                                request_headers=dict(call.request.headers.items()), path=call.path)

    def refusal(self, status: int, message: str, context: RequestContext | None = None, source_ip: str = "",
                http_method: str = "") -> Response:
        """API Gateway's answer to a request it cannot take (no gateway response type of its own: DEFAULT_4XX/5XX)."""
        kind = DEFAULT_4XX if status < 500 else DEFAULT_5XX
        return gateway_response(self.api, kind, context or RequestContext.new(), source_ip=source_ip,
                                http_method=http_method, status=status, message=message)


def compress(response: Response, request: Request, minimum_size: int | None) -> None:
    """API Gateway's payload compression ("Receive an API response with a compressed payload in API Gateway"): with a
    MinimumCompressionSize on the API, an answer of at least that many bytes and no Content-Encoding of its own is
    encoded as the request's Accept-Encoding asks, if its highest-priority coding is one API Gateway supports (gzip,
    deflate, identity: "Enable payload compression for an API"); no header, or only `*`, gets no compression."""
    if minimum_size is None or "Content-Encoding" in response.headers or response.status_code in (204, 304):
        return
    body = response.get_data()
    if not body or len(body) < minimum_size:
        return
    codings: list[tuple[str, float]] = []
    for part in (request.headers.get("Accept-Encoding") or "").split(","):
        coding, _, params = part.strip().partition(";")
        quality = params.strip()[2:] if params.strip().startswith("q=") else "1"
        try:
            codings.append((coding.strip().lower(), float(quality)))
        except ValueError:
            continue
    codings = [(coding, q) for coding, q in codings if coding and coding != "*" and q > 0]
    if not codings:
        return
    best = max(q for _, q in codings)
    preferred = [coding for coding, q in codings if q == best and coding in ("gzip", "deflate", "identity")]
    if not preferred or preferred[0] == "identity":
        return
    coding = preferred[0]
    response.set_data(encoded(body, coding) if len(body) >= REUSED_ENCODING_BYTES else _encode(body, coding))
    response.headers["Content-Encoding"] = coding


# A large answer is often the same bytes again (Swagger UI's script, 1.5 MB: 0.1 s to gzip here, at every first visit
# of /docs): its encoding is kept for the next request, the same bytes either way (gzip without a timestamp).
REUSED_ENCODING_BYTES = 256 * 1024


def _encode(body: bytes, coding: str) -> bytes:
    return gzip.compress(body, mtime=0) if coding == "gzip" else zlib.compress(body)


@functools.lru_cache(maxsize=4)
def encoded(body: bytes, coding: str) -> bytes:
    return _encode(body, coding)


def _header_value(value: Any) -> str:
    """A proxy result's header value as API Gateway sends it: JSON's true/false for a boolean, else its text."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def proxy_response(result: Any, context: RequestContext) -> Response:
    """The HTTP response for a Lambda proxy result; `MalformedResponse` where API Gateway answers 502."""
    if not isinstance(result, Mapping):
        raise MalformedResponse(f"result is {type(result).__name__}, not an object")
    status = result.get("statusCode")
    status = int(status) if isinstance(status, str) and status.isdigit() else status
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        raise MalformedResponse(f"statusCode {status!r} is not an HTTP status code")
    unknown = set(result) - {"statusCode", "headers", "multiValueHeaders", "body", "isBase64Encoded"}
    if unknown:  # not fatal here; worth a look (e.g. HTTP API v2 fields such as "cookies")
        log.warning("proxy response has keys API Gateway REST ignores: %s", sorted(unknown))
    body, single, multi = result.get("body"), result.get("headers") or {}, result.get("multiValueHeaders") or {}
    if not (isinstance(body, (str, type(None))) and isinstance(single, Mapping) and isinstance(multi, Mapping)
            and all(isinstance(values, list) for values in multi.values())):
        raise MalformedResponse("body must be a string, headers an object, multiValueHeaders an object of lists")
    headers = [(str(name), _header_value(v)) for name, values in multi.items() for v in values]
    headers += [(str(n), _header_value(v)) for n, v in single.items()
                if str(n).lower() not in {str(m).lower() for m in multi}]
    try:
        encoded = result.get("isBase64Encoded")
        payload = base64.b64decode(body or "", validate=True) if encoded else (body or "").encode()
    except (binascii.Error, ValueError) as exc:
        raise MalformedResponse(f"body is not valid base64: {exc}") from exc
    if not any(name.lower() == "content-type" for name, _ in headers):
        headers.append(("Content-Type", "application/json"))
    response = Response(payload, status)
    response.headers.clear()
    for name, value in [*headers, *tracing_headers(context).items()]:
        if name.lower() not in ("content-length", "transfer-encoding", "connection"):  # the server's own
            response.headers.add(name, value)
    return response


class LambdaApi:
    """ListFunctions and Invoke over the runtime's functions (`specs` to list, `invoke` to run, `known` to check)."""

    def __init__(self, specs: Callable[[], Iterable[FunctionSpec]], invoke: Invoke,
                 known: Callable[[str], bool]) -> None:
        self._specs, self._invoke, self._known = specs, invoke, known

    def handle(self, request: Request) -> Response:
        rest = request.path[len(PREFIX):].strip("/")
        if request.method == "GET" and rest == "":
            return _json({"Functions": [
                {"FunctionName": spec.name, "FunctionArn": spec.arn, "Runtime": spec.runtime, "Handler": spec.handler,
                 "Timeout": int(spec.timeout), "MemorySize": spec.memory,
                 "Environment": {"Variables": dict(spec.environment)}} for spec in self._specs()]})
        parts = rest.split("/")
        if request.method == "POST" and len(parts) == 2 and parts[1] == "invocations":
            return self._run(parts[0], request)
        return _error(404, "ResourceNotFoundException", f"no Lambda API operation {request.method} {request.path}")

    def _run(self, name: str, request: Request) -> Response:
        # A name or ARN without a version or alias qualifier (`:$LATEST`): the runtime runs $LATEST only.
        function = ":".join(name.split(":")[:7]) if name.startswith("arn:") else name.split(":", 1)[0]
        if not self._known(function):
            return _error(404, "ResourceNotFoundException", f"Function not found: {name}")
        invocation_type = request.headers.get("X-Amz-Invocation-Type") or "RequestResponse"
        if invocation_type != "RequestResponse":
            return _error(400, "InvalidParameterValueException",
                          f"InvocationType {invocation_type} is not served locally (RequestResponse only)")
        try:
            event = json.loads(request.get_data() or b"{}")
        except json.JSONDecodeError as exc:
            return _error(400, "InvalidRequestContentException", f"Could not parse request body into json: {exc}")
        request_id = str(uuid.uuid4())
        headers = {"X-Amz-Executed-Version": "$LATEST", "X-Amzn-RequestId": request_id}
        try:
            return _json(self._invoke(function, event, request_id), headers=headers)
        except FunctionError as exc:
            log.warning("Lambda API: invoke %s: %s: %s", function, exc.error_type, exc.message)
            document = {"errorMessage": exc.message, "errorType": exc.error_type, "stackTrace": exc.trace.splitlines()}
            return _json(document, headers={**headers, "X-Amz-Function-Error": "Unhandled"})


def _json(document: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(document), status, headers, content_type="application/json")


def _error(status: int, code: str, message: str) -> Response:
    return _json({"Type": "User", "message": message}, status, {"x-amzn-ErrorType": code})


class GatewayRequestHandler(WSGIRequestHandler):
    """werkzeug's handler, with the errors the HTTP server answers before any WSGI app runs (a request line over
    64 KB: 414, a malformed request line: 400, an HTTP version it does not speak: 505) answered as the gateway's JSON
    rather than http.server's HTML page."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        gateway = getattr(self.server, "app", None)
        if not isinstance(gateway, Gateway):
            super().send_error(code, message, explain)
            return
        short = message or self.responses.get(code, ("Error",))[0]
        response = gateway.refusal(code, short)
        body = response.get_data()
        self.close_connection = True
        self.request_version = "HTTP/1.1"  # a line it could not parse reads as HTTP/0.9, which has no status line
        self.send_response(code, short)
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "connection"):
                self.send_header(name, value)
        self.send_header("Connection", "close")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
