"""The local AWS endpoint (moto server) and the settings every client needs to talk to it.

Why one place: the runtime, the seeds and every Lambda worker must reach the same moto server with
the same fake credentials and region, and with `AWS_ACCOUNT_ID_ENDPOINT_MODE=disabled` so that
botocore does not send DynamoDB Streams calls to an account-specific host moto cannot route
(PITFALLS 1).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config

from local.template import ACCOUNT_ID

if TYPE_CHECKING:
    from local.iam import IamEnforcement

DEFAULT_REGION = "us-east-1"
DEFAULT_AWS_PORT = 8000
FAKE_ACCESS_KEY = "testing"
FAKE_SECRET_KEY = "testing"

log = logging.getLogger("local.aws")


def region_from_env(environ: Mapping[str, str] = os.environ) -> str:
    return environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION") or DEFAULT_REGION


def client_environment(endpoint: str, region: str) -> dict[str, str]:
    """Environment variables that point any boto3 client at the local endpoint."""
    return {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        "AWS_ACCESS_KEY_ID": FAKE_ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": FAKE_SECRET_KEY,
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
    }


class EnvironmentPatch:
    """Temporarily sets variables in this process's `os.environ` (undone by `restore`).

    The runtime's own boto3 users (seeds) read their endpoint from the environment, exactly like
    the functions do; restoring keeps tests that start and stop a runtime from leaking settings.
    """

    def __init__(self, values: Mapping[str, str], remove: tuple[str, ...] = ()) -> None:
        keys = set(values) | set(remove)
        self._saved = {key: os.environ.get(key) for key in keys}
        for key in remove:
            os.environ.pop(key, None)
        os.environ.update(values)

    def restore(self) -> None:
        for key, value in self._saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class MotoService:
    """moto's threaded server on 127.0.0.1: DynamoDB (+ Streams), Secrets Manager, SQS, ..."""

    def __init__(
        self, port: int = DEFAULT_AWS_PORT, host: str = "127.0.0.1", region: str = DEFAULT_REGION
    ) -> None:
        from local.iam import IamEnforcement

        self.host = host
        self.requested_port = port
        self._server: Any = None
        self.port = 0
        # Calls signed with a function's access key are authorized as its role; register principals here.
        self.iam = IamEnforcement(region=region)

    @property
    def endpoint(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> MotoService:
        from local import moto_fidelity

        _check_port_free(self.host, self.requested_port, "LOCAL_AWS_PORT")
        moto_fidelity.apply()  # the server runs in this process: its streams behave like DynamoDB's
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per AWS call otherwise
        self._server = _serialized_dynamodb_server(self.iam)(
            ip_address=self.host, port=self.requested_port, verbose=False
        )
        self._server.start()
        self.port = self._server.get_host_and_port()[1]
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def client(self, service: str, region: str) -> Any:
        """A boto3 client for this endpoint, independent of the process environment."""
        return boto3.session.Session().client(
            service,
            endpoint_url=self.endpoint,
            region_name=region,
            aws_access_key_id=FAKE_ACCESS_KEY,
            aws_secret_access_key=FAKE_SECRET_KEY,
            config=Config(account_id_endpoint_mode="disabled", retries={"max_attempts": 2}),
        )


class SerializedDynamoDB:
    """WSGI middleware: one DynamoDB (or Streams) request at a time.

    moto's backend has no locks: two TransactWriteItems on one item, served by two threads, can both pass
    their conditions and both apply (measured: 5 of 9 concurrent bookings of a 3-bay slot succeeded). DynamoDB
    applies each write and transaction atomically, so the local endpoint serializes DynamoDB requests to keep
    that guarantee; other services stay concurrent.
    """

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self._app = app
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not environ.get("HTTP_X_AMZ_TARGET", "").startswith("DynamoDB"):
            return self._app(environ, start_response)
        with self._lock:
            return list(self._app(environ, start_response))  # the body is built under the lock too


def _serialized_dynamodb_server(iam: IamEnforcement) -> type:
    """moto's ThreadedMotoServer with IAM enforcement and SerializedDynamoDB around its app (imported late: moto
    is heavy). A denied call never reaches moto, nor the lock."""
    from moto.moto_server.threaded_moto_server import ThreadedMotoServer
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    class Server(ThreadedMotoServer):
        def _server_entry(self) -> None:  # moto's own, with the app wrapped
            app = iam.around(SerializedDynamoDB(DomainDispatcherApplication(create_backend_app)))
            self._server = make_server(
                self._ip_address, self._port, app, True, request_handler=MotoRequestHandler
            )
            self._server_ready_event.set()
            self._server.serve_forever()

    return Server


def _check_port_free(host: str, port: int, env_name: str) -> None:
    """Fail early and clearly: moto's server thread would otherwise die silently on a busy port."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise OSError(
                f"port {port} on {host} is in use ({exc.strerror}); set {env_name} to another port"
            ) from exc


__all__ = [
    "ACCOUNT_ID",
    "DEFAULT_AWS_PORT",
    "DEFAULT_REGION",
    "EnvironmentPatch",
    "MotoService",
    "client_environment",
    "region_from_env",
]
