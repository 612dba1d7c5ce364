"""Lambda functions from the template, each run by a pool of worker processes: one process per execution
environment (its own imports, environment and code package; cold start once, then reused; a timeout or a crash costs
the environment). A worker that died while idle (killed, out of memory) is replaced before it is handed a request, as
Lambda starts a new execution environment: a crash costs only the invocations in flight. Pools are thread-safe: the
gateway and the stream pollers invoke concurrently.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from local.awslambda import worker as worker_module
from local.cloudformation.resources import FUNCTION_TYPE, StackResources
from local.iam import access_key_for

log = logging.getLogger("local.awslambda.pool")

DEFAULT_TIMEOUT = 3.0  # seconds, CloudFormation's default
DEFAULT_MEMORY = 128
DEFAULT_MAX_CONCURRENCY = 4
INIT_TIMEOUT = 30.0  # generous: Lambda allows 10 s, a cold laptop importing pydantic may need more
MAX_REQUEST_BYTES = 6 * 1024 * 1024  # Lambda's synchronous request payload limit
PASSED_THROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT")
PACKAGE_ROOT = Path(worker_module.__file__).resolve().parents[2]  # the directory holding `local/`

LogSink = Callable[[str], None]


def stderr_sink(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class FunctionError(Exception):
    """The invocation failed the way Lambda reports it (handler exception, timeout, crash)."""

    def __init__(self, function: str, error_type: str, message: str, trace: str = "") -> None:
        super().__init__(f"{function}: {error_type}: {message}")
        self.function, self.error_type, self.message, self.trace = function, error_type, message, trace


class FunctionTimeout(FunctionError):
    """The invocation exceeded the function's Timeout; its worker was killed."""


@dataclass(frozen=True)
class FunctionSpec:
    """What is needed to run one `AWS::Lambda::Function` locally."""
    logical_id: str
    name: str
    arn: str
    handler: str
    runtime: str
    code_dir: Path | None
    environment: Mapping[str, str] = field(default_factory=dict)  # resolved template variables
    timeout: float = DEFAULT_TIMEOUT
    memory: int = DEFAULT_MEMORY
    log_group: str = ""
    log_format: str | None = None  # LoggingConfig.LogFormat ("JSON" or "Text")
    access_key: str = ""  # signs the function's AWS calls: the local endpoint authorizes them as its role

    def check_runnable(self) -> None:
        if self.code_dir is None or not self.code_dir.is_dir():
            raise FunctionError(self.logical_id, "Runtime.NoCode",
                                f"no staged code directory for {self.logical_id} (got {self.code_dir})")


def function_specs(resources: StackResources) -> list[FunctionSpec]:
    """Every `AWS::Lambda::Function` of one stack, with its environment resolved. Layers are not read: the venv's
    Powertools and pydantic stand in for the AWS-managed layer."""
    stack, specs = resources.stack, []
    for logical_id, resource in stack.resources_of_type(FUNCTION_TYPE).items():
        props = resource.get("Properties", {})
        where = f"{stack.name}/{logical_id}.Properties"
        variables = (props.get("Environment") or {}).get("Variables") or {}
        name = resources.ref(logical_id)
        logging_config = resources.resolver.resolve(props.get("LoggingConfig") or {}, where)
        specs.append(FunctionSpec(
            logical_id=logical_id, name=name, arn=resources.get_att(logical_id, "Arn"),
            handler=str(props.get("Handler", "")), runtime=str(props.get("Runtime", "")),
            code_dir=stack.asset_dir(logical_id),
            environment={k: resources.resolver.resolve_string(v, f"{where}.Environment.Variables.{k}")
                         for k, v in variables.items()},
            timeout=float(props.get("Timeout", DEFAULT_TIMEOUT)), memory=int(props.get("MemorySize", DEFAULT_MEMORY)),
            log_group=logging_config.get("LogGroup") or f"/aws/lambda/{name}",
            log_format=logging_config.get("LogFormat"),
            access_key=access_key_for(stack.name, logical_id)))
    return specs


def worker_environment(spec: FunctionSpec, aws_env: Mapping[str, str],
                       parent: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The worker's whole environment: nothing from the developer's shell beyond basics."""
    env = {k: v for k, v in parent.items() if k in PASSED_THROUGH or (k.startswith("PYTHON") and k != "PYTHONPATH")}
    env.update(spec.environment)
    region = aws_env.get("AWS_REGION", "us-east-1")
    env.update({
        "AWS_LAMBDA_FUNCTION_NAME": spec.name, "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory), "AWS_LAMBDA_LOG_GROUP_NAME": spec.log_group,
        "AWS_EXECUTION_ENV": f"AWS_Lambda_{spec.runtime}", "AWS_REGION": region, "AWS_DEFAULT_REGION": region,
        "_HANDLER": spec.handler, "LAMBDA_TASK_ROOT": str(spec.code_dir), "TZ": ":UTC",
    })
    if spec.log_format:  # what Lambda sets for advanced logging controls
        env["AWS_LAMBDA_LOG_FORMAT"] = spec.log_format
    env.update(aws_env)
    if spec.access_key:  # its calls are authorized as its role (local/iam.py), not as the runtime's admin
        env["AWS_ACCESS_KEY_ID"] = spec.access_key
    env["POWERTOOLS_TRACE_DISABLED"] = "true"  # no X-Ray daemon locally
    return env


class Worker:
    """One worker process = one execution environment; one invocation at a time."""

    def __init__(self, spec: FunctionSpec, env: Mapping[str, str], sink: LogSink) -> None:
        self.spec, self._sink = spec, sink
        self._lines: queue.Queue[str | None] = queue.Queue()
        stream = f"{time.strftime('%Y/%m/%d', time.gmtime())}/[$LATEST]{uuid.uuid4().hex}"
        child_env = {**env, "AWS_LAMBDA_LOG_STREAM_NAME": stream, "PYTHONPATH": str(PACKAGE_ROOT),
                     worker_module.ROOT_ENV: str(PACKAGE_ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "local.awslambda.worker"], cwd=spec.code_dir, env=child_env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)  # its own process group: a kill takes the handler's children
        if self.process.stdout is None or self.process.stderr is None:  # both PIPE above: never, but typed Optional
            raise RuntimeError("the worker process has no stdout or stderr pipe")
        for target, stream_ in ((self._read_protocol, self.process.stdout), (self._forward_logs, self.process.stderr)):
            threading.Thread(target=target, args=(stream_,), daemon=True).start()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self, timeout: float) -> None:
        message = self._receive(timeout, "init")
        if not message.get("ready"):
            raise FunctionError(self.spec.logical_id, "Runtime.InvalidResponse", repr(message))

    def invoke(self, event: Any, request_id: str, timeout: float) -> Any:
        request = json.dumps({"event": event, "requestId": request_id, "invokedFunctionArn": self.spec.arn,
                              "deadlineMs": time.time() * 1000 + timeout * 1000})
        if len(request) > MAX_REQUEST_BYTES:
            raise FunctionError(self.spec.logical_id, "RequestEntityTooLargeException",
                                f"Request must be smaller than {MAX_REQUEST_BYTES} bytes for the Invoke operation")
        if self.process.stdin is None:  # PIPE when started: never, but typed Optional
            raise RuntimeError("the worker process has no stdin pipe")
        try:
            self.process.stdin.write(request.encode() + b"\n")
            self.process.stdin.flush()
        except OSError as exc:
            self.kill()
            raise FunctionError(self.spec.logical_id, "Runtime.ExitError", str(exc)) from exc
        return self._receive(timeout, "invoke").get("result")

    def kill(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    def _receive(self, timeout: float, phase: str) -> dict[str, Any]:
        function = self.spec.logical_id
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            what = "Task timed out" if phase == "invoke" else "Init timed out"
            raise FunctionTimeout(function, "Sandbox.Timedout", f"{what} after {timeout:.2f} seconds") from None
        if line is None:
            code = self.process.wait()
            raise FunctionError(function, "Runtime.ExitError", f"RequestId: worker exited during {phase} with exit "
                                f"code {code}")
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            message = None
        if not isinstance(message, dict):
            self.kill()
            raise FunctionError(function, "Runtime.InvalidResponse", line)
        if "error" in message:  # the handler raised (the environment lives on), or the import failed (it exits)
            error = message["error"]
            raise FunctionError(function, str(error.get("type")), str(error.get("message")), str(error.get("trace")))
        return message

    def _read_protocol(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._lines.put(None)

    def _forward_logs(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._sink(f"[{self.spec.logical_id}] " + raw.decode("utf-8", "replace").rstrip("\n"))


class FunctionPool:
    """Up to `max_workers` environments for one function: an invocation takes a slot, then an idle or a new worker."""

    def __init__(self, spec: FunctionSpec, env: Mapping[str, str], *, max_workers: int = DEFAULT_MAX_CONCURRENCY,
                 sink: LogSink = stderr_sink, init_timeout: float = INIT_TIMEOUT) -> None:
        self.spec, self._env, self._sink, self._init_timeout = spec, dict(env), sink, init_timeout
        self._slots = threading.BoundedSemaphore(max(1, max_workers))
        self._lock = threading.Lock()
        self._idle: list[Worker] = []
        self._workers: set[Worker] = set()
        self._closed = False

    @property
    def size(self) -> int:
        return len(self._workers)

    @property
    def worker_pids(self) -> list[int]:
        with self._lock:
            return [worker.process.pid for worker in self._workers]

    def invoke(self, event: Any, request_id: str | None = None) -> Any:
        """Run one invocation; raises `FunctionError` (or `FunctionTimeout`) like Lambda fails."""
        self.spec.check_runnable()
        with self._slots:
            worker = self._take()
            try:
                return worker.invoke(event, request_id or str(uuid.uuid4()), self.spec.timeout)
            finally:  # a handler exception leaves the environment alive; a timeout or a crash does not
                with self._lock:
                    keep = worker.alive and not self._closed
                    if keep:
                        self._idle.append(worker)
                    else:
                        self._workers.discard(worker)
                if not keep:
                    worker.kill()

    def close(self) -> None:
        with self._lock:
            self._closed, workers = True, list(self._workers)
            self._idle.clear()
        for worker in workers:
            worker.kill()

    def _take(self) -> Worker:
        stopping = FunctionError(self.spec.logical_id, "Runtime.Shutdown", "runtime stopping")
        warm: Worker | None = None
        dead: list[Worker] = []
        with self._lock:
            if self._closed:
                raise stopping
            while self._idle and warm is None:
                idle = self._idle.pop()
                if idle.alive:
                    warm = idle
                else:
                    self._workers.discard(idle)
                    dead.append(idle)
        for idle in dead:  # died between two invocations: reaped here, and never handed a request
            idle.kill()
            log.warning("%s: an idle worker had exited (code %s): replaced", self.spec.logical_id,
                        idle.process.returncode)
        if warm is not None:
            return warm
        started, worker = time.monotonic(), Worker(self.spec, self._env, self._sink)
        with self._lock:
            self._workers.add(worker)
            closed = self._closed
        try:
            if closed:  # closed while spawning: leave no orphan behind
                raise stopping
            worker.wait_ready(self._init_timeout)
        except BaseException:
            worker.kill()
            with self._lock:
                self._workers.discard(worker)
            raise
        log.info("%s: cold start in %.0f ms", self.spec.logical_id, (time.monotonic() - started) * 1000)
        return worker


class Functions:
    """All functions of the app, invocable by `Stack/LogicalId`, or by logical id, name or ARN when unambiguous."""

    def __init__(self, specs: Iterable[tuple[str, FunctionSpec]], aws_env: Mapping[str, str], *,
                 max_workers: int = DEFAULT_MAX_CONCURRENCY, sink: LogSink = stderr_sink) -> None:
        self._pools = {f"{stack}/{spec.logical_id}": FunctionPool(spec, worker_environment(spec, aws_env),
                                                                  max_workers=max_workers, sink=sink)
                       for stack, spec in specs}
        aliases = [(alias, key) for key, pool in self._pools.items()
                   for alias in (pool.spec.logical_id, pool.spec.name, pool.spec.arn)]
        counts = Counter(alias for alias, _ in aliases)  # an alias of two functions: only `Stack/LogicalId` works
        self._aliases = {alias: key for alias, key in aliases if counts[alias] == 1}

    def __contains__(self, function: str) -> bool:
        return function in self._pools or function in self._aliases

    def pool(self, function: str) -> FunctionPool:
        key = function if function in self._pools else self._aliases.get(function)
        if key is None:
            raise KeyError(f"no function {function!r} (known: {', '.join(sorted(self._pools))})")
        return self._pools[key]

    def specs(self) -> list[FunctionSpec]:
        return [pool.spec for pool in self._pools.values()]

    def invoke(self, function: str, event: Any, request_id: str | None = None) -> Any:
        return self.pool(function).invoke(event, request_id)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
