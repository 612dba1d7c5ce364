"""The local API Gateway: throttles, authorizes, invokes the integration's function, answers over HTTP.

`Gateway.handle` is the whole request path without sockets (tests drive it directly);
`ApiServer` is a `ThreadingHTTPServer` around it, one thread per connection, so concurrent
requests reach the per-function worker pools concurrently, as they would reach Lambda.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from local.apigw import (
    DEFAULT_5XX,
    MAX_BODY_BYTES,
    MISSING_AUTHENTICATION_TOKEN,
    REQUEST_TOO_LARGE,
    THROTTLED,
    UNAUTHORIZED,
    Method,
    RestApi,
    Throttle,
    TokenBucket,
    gateway_response,
)
from local.auth import InvalidToken
from local.functions import FunctionError
from local.lambda_api import LambdaApi
from local.proxy import (
    HttpRequest,
    HttpResponse,
    MalformedResponse,
    RequestContext,
    build_event,
    proxy_response,
)

log = logging.getLogger("local.apigw")

Invoke = Callable[[str, dict[str, Any], str], Any]  # (function logical id, event, request id)
Verify = Callable[[str], Mapping[str, Any]]  # token -> claims, raises InvalidToken


class Gateway:
    """One REST API stage: throttling, routing, Cognito authorizer, Lambda proxy integration.

    Throttling is the stage's, from the template (`api.throttle`), unless `throttle` replaces it (tests and
    benchmarks that need more than the stage allows say so); None on both: not throttled."""

    def __init__(
        self,
        api: RestApi,
        invoke: Invoke,
        verify: Verify,
        *,
        throttle: Throttle | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.api = api
        self._invoke = invoke
        self._verify = verify
        self.throttle = throttle or api.throttle
        self._bucket = TokenBucket(self.throttle, clock) if self.throttle else None

    def handle(self, request: HttpRequest) -> tuple[HttpResponse, str | None]:
        """The response, and the function that produced it (None if the gateway did)."""
        context = RequestContext.new()
        if self._bucket is not None and not self._bucket.take():
            log.info("%s %s: throttled (rate %g/s, burst %d)", request.method, request.raw_path,
                     self._bucket.throttle.rate, self._bucket.throttle.burst)
            return gateway_response(self.api, THROTTLED, context, request), None
        if len(request.body) > MAX_BODY_BYTES:
            return self.too_large(request, context), None
        match = self.api.match(request.method, self.api.strip_stage(request.raw_path))
        if match is None:
            return gateway_response(self.api, MISSING_AUTHENTICATION_TOKEN, context, request), None
        method = match.method
        claims: Mapping[str, Any] | None = None
        if method.authorization_type == "COGNITO_USER_POOLS":
            claims = self._authorize(method, request)
            if claims is None:
                return gateway_response(self.api, UNAUTHORIZED, context, request), None
        elif method.authorization_type != "NONE":
            return gateway_response(self.api, UNAUTHORIZED, context, request), None
        if method.mock is not None:
            headers = list(method.mock.headers.items())
            return HttpResponse(method.mock.status, headers, b""), None
        assert method.function is not None
        event = build_event(self.api, match, request, context, claims)
        try:
            result = self._invoke(method.function, event, context.request_id)
            return proxy_response(result, context), method.function
        except FunctionError as exc:
            log.error(
                "%s %s: %s failed: %s: %s\n%s",
                request.method,
                request.raw_path,
                method.function,
                exc.error_type,
                exc.message,
                exc.trace.rstrip(),
            )
        except MalformedResponse as exc:
            log.error("%s: Malformed Lambda proxy response: %s", method.function, exc)
        return gateway_response(
            self.api, DEFAULT_5XX, context, request, status=502
        ), method.function

    def too_large(
        self, request: HttpRequest, context: RequestContext | None = None
    ) -> HttpResponse:
        return gateway_response(
            self.api, REQUEST_TOO_LARGE, context or RequestContext.new(), request
        )

    def _authorize(self, method: Method, request: HttpRequest) -> Mapping[str, Any] | None:
        header = method.authorizer.header if method.authorizer else "Authorization"
        value = (request.header(header or "Authorization") or "").strip()
        if value[:7].lower() == "bearer ":
            value = value[7:].strip()
        if not value:
            return None
        try:
            return self._verify(value)
        except InvalidToken as exc:
            log.info("%s %s: token rejected: %s", request.method, request.raw_path, exc)
            return None


DRAIN_LIMIT = 8 * MAX_BODY_BYTES


class _BodyTooLarge(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def version_string(self) -> str:
        return "local-apigateway"

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def _handle(self) -> None:
        started = time.monotonic()
        lambda_api = self.server.lambda_api
        if lambda_api is not None and lambda_api.serves(self.path.partition("?")[0]):
            self._handle_lambda_api(lambda_api, started)  # the local Lambda API (local/lambda_api.py)
            return
        gateway = self.server.gateway
        raw_path, _, query = self.path.partition("?")
        headers = list(self.headers.items())
        request = HttpRequest(
            self.command, raw_path, query.partition("#")[0], headers, b"", self.client_address[0]
        )
        function: str | None = None
        try:
            try:
                body = self._read_body()
            except _BodyTooLarge:
                self.close_connection = True
                response = gateway.too_large(request)
            else:
                request = HttpRequest(
                    self.command, raw_path, request.query, headers, body, self.client_address[0]
                )
                response, function = gateway.handle(request)
        except Exception:
            log.exception("%s %s: local gateway error", self.command, self.path)
            response = HttpResponse(
                500, [("Content-Type", "application/json")], b'{"message": "Internal server error"}'
            )
        self._send(response)
        log.info(
            "%s %s %d %s %.0fms",
            self.command,
            raw_path,
            response.status,
            function or "-",
            (time.monotonic() - started) * 1000,
        )

    def _handle_lambda_api(self, lambda_api: LambdaApi, started: float) -> None:
        path = self.path.partition("?")[0]
        try:
            response = lambda_api.handle(
                self.command, path, self._read_body(), self.headers.get("X-Amz-Invocation-Type")
            )
        except _BodyTooLarge:
            self.close_connection = True
            response = HttpResponse(413, [("x-amzn-ErrorType", "RequestEntityTooLargeException")], b"{}")
        except Exception:
            log.exception("%s %s: local Lambda API error", self.command, path)
            response = HttpResponse(500, [("x-amzn-ErrorType", "ServiceException")], b"{}")
        self._send(response)
        log.info("%s %s %d (Lambda API) %.0fms", self.command, path, response.status,
                 (time.monotonic() - started) * 1000)

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            self._discard(length)
            raise _BodyTooLarge
        return self.rfile.read(length) if length > 0 else b""

    def _discard(self, length: int) -> None:
        """Drain a refused body so the client can read the 413 instead of a reset connection."""
        if length > DRAIN_LIMIT:
            return  # not worth reading: the connection is closed after the answer
        while length > 0:
            chunk = self.rfile.read(min(length, 1 << 16))
            if not chunk:
                return
            length -= len(chunk)

    def _read_chunked(self) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)
            total += size
            if total > MAX_BODY_BYTES:
                raise _BodyTooLarge
            chunks.append(self.rfile.read(size))
            self.rfile.readline()

    def _send(self, response: HttpResponse) -> None:
        self.send_response(response.status)
        for name, value in response.headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug(format, *args)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    gateway: Gateway
    lambda_api: LambdaApi | None = None


class ApiServer:
    """The HTTP listener on 127.0.0.1:<port> (0 = any free port)."""

    def __init__(
        self, gateway: Gateway, host: str = "127.0.0.1", port: int = 3000, lambda_api: LambdaApi | None = None
    ) -> None:
        try:
            self._server = _Server((host, port), _Handler)
        except OSError as exc:
            raise OSError(f"cannot listen on {host}:{port} ({exc.strerror}); set PORT") from exc
        self._server.gateway = gateway
        self._server.lambda_api = lambda_api  # the operator's Lambda API on the same port (make replay)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name="local-apigateway",
            daemon=True,
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ApiServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()
