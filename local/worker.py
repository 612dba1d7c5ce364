"""One Lambda execution environment: imports a handler once, then serves invocations.

Run as `python -m local.worker` with cwd = the function's staged asset directory. Protocol, one
JSON object per line:
  worker -> runtime, once after init:  {"ready": true}  or  {"error": {...}} (then exits)
  runtime -> worker, per invocation:   {"event": ..., "requestId": "...", "deadlineMs": 1.7e12,
                                        "invokedFunctionArn": "..."}
  worker -> runtime, per invocation:   {"result": ...}  or  {"error": {"type", "message", "trace"}}

Why the fd juggling: the protocol keeps private duplicates of the original stdin/stdout, and fd 1
is pointed at stderr, so a handler's `print` or Powertools' JSON logs (which go to stdout) end up
in the log stream, as in Lambda, instead of corrupting the protocol. Only the standard library is
used here and the repository root is removed from `sys.path`, so the handler sees only its staged
code plus the site-packages that stand in for the Lambda runtime and layer.
"""

from __future__ import annotations

import decimal
import importlib
import json
import os
import sys
import time
import traceback
from typing import Any, TextIO

MAX_RESPONSE_BYTES = 6 * 1024 * 1024  # Lambda's synchronous response payload limit
ROOT_ENV = "_LOCAL_RUNTIME_ROOT"
LAYERS_ENV = "_LOCAL_LAYER_PATHS"


class LambdaContext:
    """The attributes and method of the Lambda Python runtime's context object."""

    def __init__(self, request_id: str, deadline_ms: float, invoked_function_arn: str) -> None:
        self.aws_request_id = request_id
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = invoked_function_arn
        # The real runtime reads this straight from the environment, so it is a string there too.
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.identity = None
        self.client_context = None
        self.tenant_id = None
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int(self._deadline_ms - time.time() * 1000))


def _error(kind: str, message: str, trace: str = "") -> dict[str, Any]:
    return {"error": {"type": kind, "message": message, "trace": trace}}


def _exception_error(exc: BaseException) -> dict[str, Any]:
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return _error(type(exc).__name__, str(exc), trace)


def _lambda_json(value: Any) -> Any:
    """Like the Lambda runtime's marshaller: Decimals (from DynamoDB) become numbers."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _isolate_streams() -> tuple[TextIO, TextIO]:
    """Keep the real stdin/stdout for the protocol; give the handler stderr and /dev/null."""
    sys.stdout.flush()
    protocol_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
    return protocol_in, protocol_out


def _isolate_imports(task_root: str) -> None:
    """Only the staged asset (and layers) may provide the function's own packages."""
    root = os.environ.pop(ROOT_ENV, "")
    os.environ.pop("PYTHONPATH", None)  # was only there to find this module
    layers = [p for p in os.environ.pop(LAYERS_ENV, "").split(os.pathsep) if p]
    blocked = {os.path.realpath(p) for p in (root, os.getcwd(), task_root) if p}
    kept = [p for p in sys.path if p and os.path.realpath(p) not in blocked]
    sys.path[:] = [task_root, *layers, *kept]


def _load_handler(spec: str) -> Any:
    module_name, _, function_name = spec.rpartition(".")
    if not module_name:
        raise ValueError(
            f"Bad handler '{spec}': not enough values to unpack (expected module.function)"
        )
    module = importlib.import_module(module_name.replace("/", "."))
    handler = getattr(module, function_name, None)
    if handler is None:
        raise AttributeError(f"Handler '{function_name}' missing on module '{module_name}'")
    return handler


def _send(out: TextIO, message: dict[str, Any]) -> None:
    try:
        line = json.dumps(message, default=_lambda_json)
    except (TypeError, ValueError) as exc:
        line = json.dumps(_error("Runtime.MarshalError", f"Unable to marshal response: {exc}"))
    if len(line) > MAX_RESPONSE_BYTES and "result" in message:
        line = json.dumps(
            _error(
                "Function.ResponseSizeTooLarge",
                f"Response payload size ({len(line)} bytes) exceeded maximum allowed payload size "
                f"({MAX_RESPONSE_BYTES} bytes).",
            )
        )
    out.write(line + "\n")
    out.flush()


def main() -> int:
    protocol_in, protocol_out = _isolate_streams()
    task_root = os.environ.get("LAMBDA_TASK_ROOT") or os.getcwd()
    _isolate_imports(task_root)
    try:
        handler = _load_handler(os.environ["_HANDLER"])
    except Exception as exc:
        message = _exception_error(exc)
        message["error"]["type"] = "Runtime.ImportModuleError"
        sys.stderr.write(message["error"]["trace"])
        _send(protocol_out, message)
        return 1
    _send(protocol_out, {"ready": True})

    for line in protocol_in:
        if not line.strip():
            continue
        request = json.loads(line)
        context = LambdaContext(
            request["requestId"], request["deadlineMs"], request.get("invokedFunctionArn", "")
        )
        try:
            response: dict[str, Any] = {"result": handler(request["event"], context)}
        except Exception as exc:
            response = _exception_error(exc)
        sys.stdout.flush()
        sys.stderr.flush()
        _send(protocol_out, response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
