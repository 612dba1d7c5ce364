"""Lambda functions from the template, each run by a small pool of worker processes.

Why processes: a Lambda function runs in its own execution environment with its own imports,
environment variables and code package; a worker process per environment reproduces that
(cold start once, reuse afterwards, a timeout or crash costs the environment). Pools are
thread-safe, so the HTTP server and future stream pollers can invoke concurrently.
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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from local import worker as worker_module
from local.iam import access_key_for
from local.resources import FUNCTION_TYPE, StackResources
from local.template import TemplateError

log = logging.getLogger("local.functions")

DEFAULT_TIMEOUT = 3.0  # seconds, CloudFormation's default
DEFAULT_MEMORY = 128
DEFAULT_MAX_CONCURRENCY = 4
INIT_TIMEOUT = 30.0  # generous: Lambda allows 10 s, a cold laptop importing pydantic may need more
MAX_REQUEST_BYTES = 6 * 1024 * 1024  # Lambda's synchronous request payload limit
PASSED_THROUGH = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT")
PACKAGE_ROOT = Path(worker_module.__file__).resolve().parent.parent  # directory holding `local/`

LogSink = Callable[[str], None]


def stderr_sink(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class FunctionError(Exception):
    """The invocation failed the way Lambda reports it (handler exception, timeout, crash)."""

    def __init__(self, function: str, error_type: str, message: str, trace: str = "") -> None:
        super().__init__(f"{function}: {error_type}: {message}")
        self.function = function
        self.error_type = error_type
        self.message = message
        self.trace = trace


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
    layer_dirs: tuple[Path, ...] = ()
    log_group: str = ""
    log_format: str | None = None  # LoggingConfig.LogFormat ("JSON" or "Text")
    log_level: str | None = None  # LoggingConfig.ApplicationLogLevel
    access_key: str = ""  # signs the function's AWS calls: the local endpoint authorizes them as its role

    def check_runnable(self) -> None:
        if not self.runtime.startswith("python"):
            raise FunctionError(self.logical_id, "Runtime.Unsupported", f"runtime {self.runtime}")
        if self.code_dir is None or not self.code_dir.is_dir():
            raise FunctionError(
                self.logical_id,
                "Runtime.NoCode",
                f"no staged code directory for {self.logical_id} (got {self.code_dir})",
            )


def function_specs(resources: StackResources) -> list[FunctionSpec]:
    """Every `AWS::Lambda::Function` of a stack, with its environment resolved."""
    stack = resources.stack
    specs = []
    for logical_id, resource in stack.resources_of_type(FUNCTION_TYPE).items():
        props = resource.get("Properties", {})
        where = f"{stack.name}/{logical_id}.Properties"
        variables = (props.get("Environment") or {}).get("Variables") or {}
        environment = {
            key: resources.resolver.resolve_string(value, f"{where}.Environment.Variables.{key}")
            for key, value in variables.items()
        }
        name = resources.ref(logical_id)
        logging_config = resources.resolver.resolve(props.get("LoggingConfig") or {}, where)
        specs.append(
            FunctionSpec(
                logical_id=logical_id,
                name=name,
                arn=resources.get_att(logical_id, "Arn"),
                handler=str(props.get("Handler", "")),
                runtime=str(props.get("Runtime", "")),
                code_dir=stack.asset_dir(logical_id, props.get("Code")),
                environment=environment,
                timeout=float(props.get("Timeout", DEFAULT_TIMEOUT)),
                memory=int(props.get("MemorySize", DEFAULT_MEMORY)),
                layer_dirs=_local_layer_dirs(resources, props.get("Layers") or []),
                log_group=logging_config.get("LogGroup") or f"/aws/lambda/{name}",
                log_format=logging_config.get("LogFormat"),
                log_level=logging_config.get("ApplicationLogLevel"),
                access_key=access_key_for(stack.name, logical_id),
            )
        )
    return specs


def _local_layer_dirs(resources: StackResources, layers: Iterable[Any]) -> tuple[Path, ...]:
    """Layers built from local assets are put on sys.path like /opt/python; managed ones
    (Powertools) are stood in for by the project venv."""
    dirs = []
    for layer in layers:
        if isinstance(layer, Mapping) and isinstance(layer.get("Ref"), str):
            logical_id = layer["Ref"]
            resource = resources.stack.resources.get(logical_id, {})
            if resource.get("Type") == "AWS::Lambda::LayerVersion":
                content = resource.get("Properties", {}).get("Content")
                asset = resources.stack.asset_dir(logical_id, content)
                if asset is not None:
                    dirs.append(asset / "python")
    return tuple(dirs)


def worker_environment(
    spec: FunctionSpec, aws_env: Mapping[str, str], parent: Mapping[str, str] = os.environ
) -> dict[str, str]:
    """The worker's whole environment: nothing from the developer's shell beyond basics."""
    env = {key: value for key, value in parent.items() if key in PASSED_THROUGH}
    env.update({k: v for k, v in parent.items() if k.startswith("PYTHON") and k != "PYTHONPATH"})
    env.update(spec.environment)
    region = aws_env.get("AWS_REGION", "us-east-1")
    env.update(
        {
            "AWS_LAMBDA_FUNCTION_NAME": spec.name,
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory),
            "AWS_LAMBDA_LOG_GROUP_NAME": spec.log_group,
            "AWS_EXECUTION_ENV": f"AWS_Lambda_{spec.runtime}",
            "AWS_REGION": region,
            "AWS_DEFAULT_REGION": region,
            "_HANDLER": spec.handler,
            "LAMBDA_TASK_ROOT": str(spec.code_dir),
            "TZ": ":UTC",
        }
    )
    if spec.log_format:  # what Lambda sets for advanced logging controls
        env["AWS_LAMBDA_LOG_FORMAT"] = spec.log_format
    if spec.log_level:
        env["AWS_LAMBDA_LOG_LEVEL"] = spec.log_level
    env.update(aws_env)
    if spec.access_key:  # its calls are authorized as its role (local/iam.py), not as the runtime's admin
        env["AWS_ACCESS_KEY_ID"] = spec.access_key
    env["POWERTOOLS_TRACE_DISABLED"] = "true"  # no X-Ray daemon locally
    return env


class Worker:
    """One worker process = one execution environment; one invocation at a time."""

    def __init__(self, spec: FunctionSpec, env: Mapping[str, str], sink: LogSink) -> None:
        self.spec = spec
        self._sink = sink
        self._lines: queue.Queue[str | None] = queue.Queue()
        stream = f"{time.strftime('%Y/%m/%d', time.gmtime())}/[$LATEST]{uuid.uuid4().hex}"
        child_env = dict(env)
        child_env.update(
            {
                "AWS_LAMBDA_LOG_STREAM_NAME": stream,
                "PYTHONPATH": str(PACKAGE_ROOT),
                worker_module.ROOT_ENV: str(PACKAGE_ROOT),
                worker_module.LAYERS_ENV: os.pathsep.join(str(d) for d in spec.layer_dirs),
            }
        )
        self.process = subprocess.Popen(
            [sys.executable, "-m", "local.worker"],
            cwd=spec.code_dir,
            env=child_env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a kill takes the handler's children
        )
        assert self.process.stdout and self.process.stderr
        self._threads = [
            threading.Thread(target=self._read_protocol, args=(self.process.stdout,), daemon=True),
            threading.Thread(target=self._forward_logs, args=(self.process.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def wait_ready(self, timeout: float) -> None:
        message = self._receive(timeout, "init")
        if "error" in message:
            self.kill()
            raise self._function_error(message["error"])
        if not message.get("ready"):
            self.kill()
            raise FunctionError(self.spec.logical_id, "Runtime.InvalidResponse", repr(message))

    def invoke(self, event: Any, request_id: str, timeout: float) -> Any:
        deadline_ms = time.time() * 1000 + timeout * 1000
        request = json.dumps(
            {
                "event": event,
                "requestId": request_id,
                "deadlineMs": deadline_ms,
                "invokedFunctionArn": self.spec.arn,
            }
        )
        if len(request) > MAX_REQUEST_BYTES:
            raise FunctionError(
                self.spec.logical_id,
                "RequestEntityTooLargeException",
                f"Request must be smaller than {MAX_REQUEST_BYTES} bytes for the Invoke operation",
            )
        assert self.process.stdin
        try:
            self.process.stdin.write(request.encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            self.kill()
            raise FunctionError(self.spec.logical_id, "Runtime.ExitError", str(exc)) from exc
        message = self._receive(timeout, "invoke")
        if "error" in message:
            raise self._function_error(message["error"])
        return message.get("result")

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
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            what = "Task timed out" if phase == "invoke" else "Init timed out"
            raise FunctionTimeout(
                self.spec.logical_id, "Sandbox.Timedout", f"{what} after {timeout:.2f} seconds"
            ) from None
        if line is None:
            code = self.process.wait()
            raise FunctionError(
                self.spec.logical_id,
                "Runtime.ExitError",
                f"RequestId: worker exited during {phase} with exit code {code}",
            )
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            self.kill()
            raise FunctionError(self.spec.logical_id, "Runtime.InvalidResponse", line) from exc
        if not isinstance(message, dict):
            self.kill()
            raise FunctionError(self.spec.logical_id, "Runtime.InvalidResponse", line)
        return message

    def _function_error(self, error: Mapping[str, Any]) -> FunctionError:
        return FunctionError(
            self.spec.logical_id,
            str(error.get("type", "Error")),
            str(error.get("message", "")),
            str(error.get("trace", "")),
        )

    def _read_protocol(self, stream: IO[bytes]) -> None:
        for raw in stream:
            self._lines.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._lines.put(None)

    def _forward_logs(self, stream: IO[bytes]) -> None:
        prefix = f"[{self.spec.logical_id}] "
        for raw in stream:
            self._sink(prefix + raw.decode("utf-8", "replace").rstrip("\n"))


class FunctionPool:
    """Up to `max_workers` environments for one function, spawned on demand and reused."""

    def __init__(
        self,
        spec: FunctionSpec,
        env: Mapping[str, str],
        *,
        max_workers: int = DEFAULT_MAX_CONCURRENCY,
        sink: LogSink = stderr_sink,
        init_timeout: float = INIT_TIMEOUT,
    ) -> None:
        self.spec = spec
        self._env = dict(env)
        self._max = max(1, max_workers)
        self._sink = sink
        self._init_timeout = init_timeout
        self._idle: list[Worker] = []
        self._all: set[Worker] = set()
        self._reserved = 0  # workers alive or being started
        self._cond = threading.Condition()
        self._closed = False

    @property
    def size(self) -> int:
        with self._cond:
            return len(self._all)

    @property
    def worker_pids(self) -> list[int]:
        with self._cond:
            return [worker.process.pid for worker in self._all]

    def invoke(self, event: Any, request_id: str | None = None) -> Any:
        """Run one invocation; raises `FunctionError` (or `FunctionTimeout`) like Lambda fails."""
        self.spec.check_runnable()
        worker = self._acquire()
        healthy = False
        try:
            result = worker.invoke(event, request_id or str(uuid.uuid4()), self.spec.timeout)
            healthy = True
            return result
        except FunctionTimeout:
            raise
        except FunctionError:
            healthy = worker.alive  # a handler exception leaves the environment usable
            raise
        finally:
            self._release(worker, healthy)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            workers = list(self._all)
            self._idle.clear()
            self._cond.notify_all()
        for worker in workers:
            worker.kill()

    def _acquire(self) -> Worker:
        with self._cond:
            while True:
                if self._closed:
                    raise FunctionError(
                        self.spec.logical_id, "Runtime.Shutdown", "runtime stopping"
                    )
                if self._idle:
                    return self._idle.pop()
                if self._reserved < self._max:
                    self._reserved += 1
                    break
                self._cond.wait()
        started = time.monotonic()
        worker: Worker | None = None
        try:
            worker = Worker(self.spec, self._env, self._sink)
            with self._cond:
                self._all.add(worker)
                if self._closed:  # closed while spawning: do not leave an orphan behind
                    raise FunctionError(
                        self.spec.logical_id, "Runtime.Shutdown", "runtime stopping"
                    )
            worker.wait_ready(self._init_timeout)
        except BaseException:
            if worker is not None:
                worker.kill()
            with self._cond:
                self._reserved -= 1
                self._all.discard(worker)  # type: ignore[arg-type]
                self._cond.notify()
            raise
        log.info(
            "%s: cold start in %.0f ms", self.spec.logical_id, (time.monotonic() - started) * 1000
        )
        return worker

    def _release(self, worker: Worker, healthy: bool) -> None:
        with self._cond:
            if healthy and worker.alive and not self._closed:
                self._idle.append(worker)
            else:
                self._all.discard(worker)
                self._reserved -= 1
            self._cond.notify()
        if not healthy:
            worker.kill()


class Functions:
    """All functions of the app, invocable by logical id (or `Stack/LogicalId`, or name)."""

    def __init__(
        self,
        specs: Iterable[tuple[str, FunctionSpec]],
        aws_env: Mapping[str, str],
        *,
        max_workers: int = DEFAULT_MAX_CONCURRENCY,
        sink: LogSink = stderr_sink,
    ) -> None:
        self._pools: dict[str, FunctionPool] = {}
        self._aliases: dict[str, str] = {}
        duplicates: set[str] = set()
        for stack_name, spec in specs:
            key = f"{stack_name}/{spec.logical_id}"
            env = worker_environment(spec, aws_env)
            self._pools[key] = FunctionPool(spec, env, max_workers=max_workers, sink=sink)
            for alias in (spec.logical_id, spec.name, spec.arn):
                if alias in self._aliases:
                    duplicates.add(alias)
                self._aliases[alias] = key
        for alias in duplicates:  # ambiguous across stacks: only `Stack/LogicalId` works
            del self._aliases[alias]

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


def validate(specs: Iterable[FunctionSpec]) -> list[str]:
    """Problems worth a warning at startup (the function fails only when invoked)."""
    problems = []
    for spec in specs:
        try:
            spec.check_runnable()
        except FunctionError as exc:
            problems.append(f"{spec.logical_id}: {exc.message}")
    return problems


__all__ = [
    "FunctionError",
    "FunctionPool",
    "FunctionSpec",
    "FunctionTimeout",
    "Functions",
    "TemplateError",
    "Worker",
    "function_specs",
    "validate",
    "worker_environment",
]
