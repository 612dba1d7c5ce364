"""The two Lambda API operations an operator's tools need, served on the runtime's HTTP port.

Why: `make replay` invokes each stream consumer with `{"replay": {...}}` (functions/shared/parked.py) through a
plain boto3 `lambda` client, so the same command works on AWS with real credentials; locally the client's
`endpoint_url` is the runtime (http://127.0.0.1:PORT). moto cannot run a function without Docker (PITFALLS 2),
so the runtime answers these itself, with the functions it runs:

- ListFunctions: `GET /2015-03-31/functions/` — name, ARN, handler, runtime, timeout, memory, environment;
- Invoke: `POST /2015-03-31/functions/{FunctionName}/invocations` (RequestResponse only): the function's worker
  runs the payload as Lambda would; a function error is a 200 with `X-Amz-Function-Error: Unhandled` and the
  error document, as Lambda answers; an unknown function a 404 ResourceNotFoundException.

The gateway's routes never start with `/2015-03-31/`, and these requests skip its authorizer and throttling: like
the moto endpoint, this is the local AWS, reached only from 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import unquote

from local.functions import FunctionError, FunctionSpec
from local.proxy import HttpResponse

log = logging.getLogger("local.lambda")

PREFIX = "/2015-03-31/functions"
_JSON = ("Content-Type", "application/json")

Invoke = Callable[[str, Any, str], Any]  # (function name, logical id or ARN; event; request id) -> result


class LambdaApi:
    """ListFunctions and Invoke over the runtime's functions (`specs` to list, `invoke` to run, `known` to check)."""

    def __init__(self, specs: Callable[[], Iterable[FunctionSpec]], invoke: Invoke,
                 known: Callable[[str], bool]) -> None:
        self._specs = specs
        self._invoke = invoke
        self._known = known

    @staticmethod
    def serves(path: str) -> bool:
        return path == PREFIX or path.startswith(PREFIX + "/")

    def handle(self, method: str, path: str, body: bytes, invocation_type: str | None = None) -> HttpResponse:
        rest = path[len(PREFIX):].strip("/")
        if method == "GET" and rest == "":
            return self._list()
        parts = rest.split("/")
        if method == "POST" and len(parts) == 2 and parts[1] == "invocations":
            return self._run(unquote(parts[0]), body, invocation_type or "RequestResponse")
        return _error(404, "ResourceNotFoundException", f"no such Lambda API operation: {method} {path}")

    def _list(self) -> HttpResponse:
        functions = [
            {
                "FunctionName": spec.name,
                "FunctionArn": spec.arn,
                "Runtime": spec.runtime,
                "Handler": spec.handler,
                "Timeout": int(spec.timeout),
                "MemorySize": spec.memory,
                "Environment": {"Variables": dict(spec.environment)},
            }
            for spec in self._specs()
        ]
        return HttpResponse(200, [_JSON], json.dumps({"Functions": functions}).encode())

    def _run(self, name: str, body: bytes, invocation_type: str) -> HttpResponse:
        function = _unqualified(name)
        if not self._known(function):
            return _error(404, "ResourceNotFoundException", f"Function not found: {name}")
        if invocation_type != "RequestResponse":
            return _error(400, "InvalidParameterValueException",
                          f"InvocationType {invocation_type} is not served locally (RequestResponse only)")
        try:
            event = json.loads(body) if body.strip() else {}
        except json.JSONDecodeError as exc:
            return _error(400, "InvalidRequestContentException", f"Could not parse request body into json: {exc}")
        request_id = str(uuid.uuid4())
        headers = [_JSON, ("X-Amz-Executed-Version", "$LATEST"), ("X-Amzn-RequestId", request_id)]
        try:
            result = self._invoke(function, event, request_id)
        except FunctionError as exc:
            log.warning("invoke %s: %s: %s", function, exc.error_type, exc.message)
            document = {"errorMessage": exc.message, "errorType": exc.error_type,
                        "stackTrace": exc.trace.splitlines()}
            return HttpResponse(200, [*headers, ("X-Amz-Function-Error", "Unhandled")], json.dumps(document).encode())
        log.info("invoke %s: ok", function)
        return HttpResponse(200, headers, json.dumps(result).encode())


def _unqualified(name: str) -> str:
    """A name or ARN without a version or alias qualifier (`:$LATEST`): the runtime runs $LATEST only."""
    if name.startswith("arn:"):
        return ":".join(name.split(":")[:7])
    return name.split(":", 1)[0]


def _error(status: int, code: str, message: str) -> HttpResponse:
    body = json.dumps({"Type": "User", "message": message}).encode()
    return HttpResponse(status, [_JSON, ("x-amzn-ErrorType", code)], body)


__all__ = ["PREFIX", "LambdaApi"]
