"""One Lambda execution environment, run as `python -m local.awslambda.worker` (by module path, with the repository on
PYTHONPATH only to find it) in the function's staged asset directory: imports the handler once, then serves
invocations, one JSON object per line:
  worker -> runtime, after init: {"ready": true} or {"error": {...}} (then exits)
  runtime -> worker: {"event", "requestId", "deadlineMs", "invokedFunctionArn"}; worker -> runtime: {"result"} or
  {"error": {"type", "message", "trace"}}
The protocol keeps private copies of stdin/stdout and fd 1 goes to stderr, so prints and Powertools' logs reach the
log stream, as in Lambda. Standard library only; the handler sees its staged code and the site-packages standing in for
the Lambda runtime and the Powertools layer, not the repository.
"""

from __future__ import annotations

import decimal
import importlib
import json
import os
import sys
import traceback
from typing import Any, TextIO

from local.awslambda.events import LambdaContext

MAX_RESPONSE_BYTES = 6 * 1024 * 1024  # Lambda's synchronous response payload limit
ROOT_ENV = "_LOCAL_RUNTIME_ROOT"


def _error(kind: str, message: str, exc: BaseException | None = None) -> dict[str, Any]:
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) if exc else ""
    return {"error": {"type": kind, "message": message, "trace": trace}}


def _lambda_json(value: Any) -> Any:
    """Like the Lambda runtime's marshaller: Decimals (from DynamoDB) become numbers."""
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _send(out: TextIO, message: dict[str, Any]) -> None:
    try:
        line = json.dumps(message, default=_lambda_json)
    except (TypeError, ValueError) as exc:
        line = json.dumps(_error("Runtime.MarshalError", f"Unable to marshal response: {exc}"))
    if len(line) > MAX_RESPONSE_BYTES and "result" in message:
        line = json.dumps(_error("Function.ResponseSizeTooLarge", f"Response payload size ({len(line)} bytes) exceeded "
                                 f"maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."))
    out.write(line + "\n")
    out.flush()


def main() -> int:
    # The protocol keeps the real stdin/stdout; the handler gets /dev/null and stderr.
    sys.stdout.flush()
    protocol_in, protocol_out = os.fdopen(os.dup(0), "r", encoding="utf-8"), os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)  # noqa: SIM115
    # Only the staged asset may provide the function's own packages (PYTHONPATH was only there to find this module).
    task_root, root = os.environ.get("LAMBDA_TASK_ROOT") or os.getcwd(), os.environ.pop(ROOT_ENV, "")
    os.environ.pop("PYTHONPATH", None)
    blocked = {os.path.realpath(p) for p in (root, os.getcwd(), task_root) if p}
    sys.path[:] = [task_root, *(p for p in sys.path if p and os.path.realpath(p) not in blocked)]
    module_name, _, function_name = os.environ["_HANDLER"].rpartition(".")
    try:
        handler = getattr(importlib.import_module(module_name.replace("/", ".")), function_name)
    except Exception as exc:  # noqa: BLE001 - as Lambda reports a missing module, a broken import or handler
        message = _error("Runtime.ImportModuleError", f"Unable to import module '{module_name}': {exc}", exc)
        sys.stderr.write(message["error"]["trace"])
        _send(protocol_out, message)
        return 1
    _send(protocol_out, {"ready": True})
    for line in protocol_in:
        if not line.strip():
            continue
        request = json.loads(line)
        context = LambdaContext(request["requestId"], request["deadlineMs"], request.get("invokedFunctionArn"))
        try:
            response: dict[str, Any] = {"result": handler(request["event"], context)}
        except Exception as exc:  # noqa: BLE001 - the handler's error is the invocation's result
            response = _error(type(exc).__name__, str(exc), exc)
        sys.stdout.flush()
        sys.stderr.flush()
        _send(protocol_out, response)
    return 0


if __name__ == "__main__":
    sys.exit(main())
