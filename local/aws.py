"""The local AWS endpoint (moto's WSGI app, served by werkzeug) and the settings every client needs to reach it:
the same fake credentials and region for the runtime, the seeds and every worker, and
`AWS_ACCOUNT_ID_ENDPOINT_MODE=disabled`, without which botocore sends DynamoDB Streams calls that carry a StreamArn
to an account-based host (`<account>.streams-ddb.<region>.amazonaws.com`) that moto cannot route.
"""

from __future__ import annotations

import io
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Self
from urllib.parse import urlsplit

import boto3
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.compat import HTTPHeaders
from botocore.config import Config

from local.iam import IamEnforcement

log = logging.getLogger("local.aws")

DEFAULT_REGION = "us-east-1"
FAKE_ACCESS_KEY = FAKE_SECRET_KEY = "testing"  # noqa: S105  moto's fake credentials, never an AWS account's

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def region_from_env(environ: Mapping[str, str] = os.environ) -> str:
    return environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION


def client_environment(endpoint: str, region: str) -> dict[str, str]:
    """Environment variables that point any boto3 client at the local endpoint."""
    return {"AWS_ENDPOINT_URL": endpoint, "AWS_REGION": region, "AWS_DEFAULT_REGION": region,
            "AWS_ACCESS_KEY_ID": FAKE_ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": FAKE_SECRET_KEY,
            "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled"}


def local_client(service: str, endpoint: str, region: str, *, attempts: int = 2, read_timeout: int = 60) -> Any:
    """A boto3 client for a local endpoint with the fake credentials, independent of the process environment."""
    config = Config(account_id_endpoint_mode="disabled", read_timeout=read_timeout, retries={"max_attempts": attempts})
    # boto3's stubs declare client() once per service name (a Literal); this one is data (the runtime's Clients)
    return boto3.session.Session().client(  # type: ignore[call-overload]
        service, endpoint_url=endpoint, region_name=region, config=config, aws_access_key_id=FAKE_ACCESS_KEY,
        aws_secret_access_key=FAKE_SECRET_KEY)


class InProcessTransport:
    """Hands a client's signed request straight to the endpoint's WSGI app, in this process: the same app, layers and
    headers as over HTTP (IAM checks the signature's access key, DynamoDB is served one request at a time), without a
    socket, a server thread and a connection per request, which werkzeug's server closes after every answer. For the
    runtime's own clients (provisioning, stream pollers, TTL sweeper, seeds), which live in the endpoint's process;
    the functions run in worker processes and call it over HTTP. `attach` it to a client; `detach` undoes it. The
    client's timeouts do not apply: a call takes as long as the app does (a request waits for the DynamoDB lock).
    An app that raises is answered 500, as werkzeug's server answers it."""

    def __init__(self, app: WsgiApp) -> None:
        self._app = app

    def attach(self, client: Any) -> Any:
        client.meta.events.register_first("before-send", self._send, unique_id=f"in-process-{id(self)}")
        return client

    def detach(self, client: Any) -> None:
        client.meta.events.unregister("before-send", unique_id=f"in-process-{id(self)}")

    def _send(self, request: AWSPreparedRequest, **_: Any) -> AWSResponse:
        from werkzeug.datastructures import Headers
        from werkzeug.test import EnvironBuilder, run_wsgi_app

        url = urlsplit(request.url)
        body = request.body
        if body is not None and not isinstance(body, str | bytes | bytearray):
            body = body.read()  # a file-like body
        data = bytes(body) if isinstance(body, bytearray) else body
        headers = Headers({k: v.decode("latin-1") if isinstance(v, bytes) else v for k, v in request.headers.items()})
        builder = EnvironBuilder(method=request.method, base_url=f"{url.scheme}://{url.netloc}", path=url.path or "/",
                                 query_string=url.query, headers=headers, data=data or b"")
        try:
            app_iter, status, response_headers = run_wsgi_app(self._app, builder.get_environ())
            try:
                content = b"".join(app_iter)
            finally:
                getattr(app_iter, "close", lambda: None)()
        except Exception:  # what werkzeug's server answers for an app that raises: a 500, which botocore retries
            log.exception("in-process %s %s failed", request.method, request.url)
            return AWSResponse(request.url, 500, HTTPHeaders.from_dict({"Content-Type": "application/x-amz-json-1.0"}),
                               _Body(b'{"__type": "InternalFailure", "message": "the local endpoint failed"}'))
        finally:
            builder.close()
        # one value per name, as urllib3 joins them (werkzeug's Headers iterates (name, value) pairs)
        joined = {name: ", ".join(response_headers.getlist(name)) for name, _ in response_headers}
        return AWSResponse(request.url, int(status.split(" ", 1)[0]), HTTPHeaders.from_dict(joined), _Body(content))


class _Body(io.BytesIO):
    """A response body as botocore reads one (`AWSResponse.raw.stream()`)."""

    def stream(self, **_: Any) -> Iterator[bytes]:
        while chunk := self.read(65536):
            yield chunk


class EnvironmentPatch:
    """Sets variables in this process's `os.environ` until `restore()`: the seeds read their endpoint from the
    environment like the functions do, and tests that start and stop runtimes must not leak settings."""

    def __init__(self, values: Mapping[str, str], remove: tuple[str, ...] = ()) -> None:
        self._saved = {key: os.environ.get(key) for key in set(values) | set(remove)}
        for key in remove:
            os.environ.pop(key, None)
        os.environ.update(values)

    def restore(self) -> None:
        for key, value in self._saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class WsgiServer:
    """A WSGI app served by werkzeug's threaded server on `host:port` (0: any free port), in a daemon thread."""

    def __init__(self, app: WsgiApp, host: str, port: int, *, setting: str, handler: type | None = None) -> None:
        from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler, make_server

        class Quiet(handler or WSGIRequestHandler):  # type: ignore[misc]  # a base chosen at run time
            def log_request(self, *args: Any) -> None:  # the gateway logs its own line per request
                pass

        try:
            self._server = make_server(host, port, app, threaded=True, request_handler=Quiet)
        except SystemExit as exc:  # werkzeug reports a busy port on stderr, then exits
            raise OSError(f"cannot listen on {host}:{port}; set {setting} to another port") from exc
        if isinstance(self._server, ThreadedWSGIServer):  # what threaded=True makes
            self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True,
                                        name=f"wsgi-{setting}")

    @property
    def url(self) -> str:
        return "http://{}:{}".format(*self._server.server_address[:2])

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()


class MotoService(WsgiServer):
    """moto's app (DynamoDB and its Streams, Secrets Manager, SQS...), behind IAM enforcement (register each
    function's principal in `iam.principals`) and one DynamoDB request at a time."""

    def __init__(self, port: int = 8000, host: str = "127.0.0.1", region: str = DEFAULT_REGION) -> None:
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )

        from local.dynamodb import fidelity as moto_fidelity

        moto_fidelity.apply()  # the server runs in this process: its streams behave like DynamoDB's
        self._serialized = SerializedDynamoDB(DomainDispatcherApplication(create_backend_app))
        self.iam = IamEnforcement(self._serialized, region=region)
        self.transport = InProcessTransport(self.iam)
        super().__init__(self.iam, host, port, setting="LOCAL_AWS_PORT", handler=MotoRequestHandler)

    @property
    def endpoint(self) -> str:
        return self.url

    @property
    def dynamodb_exclusive(self) -> threading.Lock:
        """Hold it while this process writes to moto's DynamoDB backend directly (a bulk loader): no DynamoDB request is
        served meanwhile, as none is while another one runs (`SerializedDynamoDB`)."""
        return self._serialized.lock

    def client(self, service: str, region: str, *, in_process: bool = False) -> Any:
        """A client of this endpoint; `in_process`: its requests skip HTTP (`InProcessTransport`), for this process's
        own calls."""
        client = local_client(service, self.url, region)
        return self.transport.attach(client) if in_process else client


class SerializedDynamoDB:
    """WSGI middleware: one DynamoDB (or Streams) request at a time, other services concurrent. moto's backend has no
    locks: two TransactWriteItems on one item, served by two threads, could both pass their conditions and apply (5 of
    9 concurrent bookings of a 3-bay slot did); DynamoDB applies each write and transaction atomically."""

    def __init__(self, app: WsgiApp) -> None:
        self._app = app
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB"):
            return self._app(environ, start_response)
        with self.lock:
            return list(self._app(environ, start_response))  # the body is built under the lock too
