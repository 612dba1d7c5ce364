"""Worker processes: the stdin/stdout protocol, isolation, timeouts, crashes and the pool."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from local.awslambda.pool import (
    PACKAGE_ROOT,
    FunctionError,
    FunctionPool,
    FunctionSpec,
    FunctionTimeout,
    worker_environment,
)
from tests.support.waiting import eventually

HANDLER = """
import decimal
import os
import sys
import time

import functions

IMPORTS = {"count": 0}
IMPORTS["count"] += 1
print("import-time print goes to the logs")


def handler(event, context):
    print("handler print goes to the logs, not the protocol")
    sys.stdout.write('{"result": "forged"}\\n')
    action = event.get("action")
    if action == "echo":
        return {"event": event, "imports": IMPORTS["count"], "pid": os.getpid()}
    if action == "raise":
        raise ValueError("boom")
    if action == "sleep":
        time.sleep(event["seconds"])  # the fake function's own work: a slow invocation is what the test is about
        return {"pid": os.getpid()}
    if action == "exit":
        os._exit(3)
    if action == "stdin":
        return sys.stdin.read()
    if action == "context":
        return {
            "function_name": context.function_name,
            "function_version": context.function_version,
            "invoked_function_arn": context.invoked_function_arn,
            "memory_limit_in_mb": context.memory_limit_in_mb,
            "aws_request_id": context.aws_request_id,
            "log_group_name": context.log_group_name,
            "log_stream_name": context.log_stream_name,
            "remaining": context.get_remaining_time_in_millis(),
        }
    if action == "env":
        return {key: os.environ.get(key) for key in event["keys"]}
    if action == "imports":
        return {"functions": functions.__file__, "path": sys.path, "cwd": os.getcwd()}
    if action == "decimal":
        return {"int": decimal.Decimal("2"), "float": decimal.Decimal("1.5")}
    if action == "unserializable":
        return {"x": object()}
    return None
"""

AWS_ENV = {
    "AWS_ENDPOINT_URL": "http://127.0.0.1:1",
    "AWS_REGION": "us-east-1",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled",
}


def spec_for(
    asset: Path, *, timeout: float = 5.0, handler: str = "functions.fake.handler"
) -> FunctionSpec:
    return FunctionSpec(
        logical_id="FakeFn",
        name="Test-dev-FakeFn-abcdef",
        arn="arn:aws:lambda:us-east-1:123456789012:function:Test-dev-FakeFn-abcdef",
        handler=handler,
        runtime="python3.13",
        code_dir=asset,
        environment={"TABLE_NAME": "Test-dev-Table-xyzabc", "POWERTOOLS_SERVICE_NAME": "fake"},
        timeout=timeout,
        memory=256,
        log_group="/aws/lambda/Test-dev-FakeFn-abcdef",
    )


class Logs:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)

    def wait_for(self, text: str, timeout: float = 5.0) -> list[str]:
        def logged() -> list[str]:
            found = [line for line in self.lines if text in line]
            assert found, f"{text!r} never logged; got {self.lines}"
            return found

        return eventually(logged, timeout=timeout, interval=0.02)


@pytest.fixture
def logs() -> Logs:
    return Logs()


@pytest.fixture
def make_pool(
    make_asset: Callable[..., Path], logs: Logs, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., FunctionPool]]:
    monkeypatch.setenv("ONLY_ON_THE_DEVELOPERS_MACHINE", "secret")
    pools: list[FunctionPool] = []
    asset = make_asset(HANDLER)

    def make(max_workers: int = 2, **spec_args: Any) -> FunctionPool:
        spec = spec_for(asset, **spec_args)
        pool = FunctionPool(
            spec, worker_environment(spec, AWS_ENV), max_workers=max_workers, sink=logs
        )
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()


def test_invocations_reuse_one_warm_worker(make_pool: Callable[..., FunctionPool]) -> None:
    pool = make_pool()
    first = pool.invoke({"action": "echo", "n": 1})
    second = pool.invoke({"action": "echo", "n": 2})
    assert first["event"] == {"action": "echo", "n": 1}
    assert second["event"]["n"] == 2
    assert first["pid"] == second["pid"]
    assert second["imports"] == 1  # imported once per worker (cold start), not per invocation
    assert pool.size == 1


def test_handler_prints_go_to_the_logs_not_the_protocol(
    make_pool: Callable[..., FunctionPool], logs: Logs
) -> None:
    result = make_pool().invoke({"action": "echo"})
    assert result["event"] == {"action": "echo"}  # not the forged {"result": "forged"} line
    assert logs.wait_for("[FakeFn] handler print goes to the logs")
    assert logs.wait_for("[FakeFn] import-time print goes to the logs")
    assert logs.wait_for('[FakeFn] {"result": "forged"}')


def test_handler_stdin_is_empty_and_does_not_eat_requests(
    make_pool: Callable[..., FunctionPool],
) -> None:
    pool = make_pool()
    assert pool.invoke({"action": "stdin"}) == ""
    assert pool.invoke({"action": "echo"})["event"] == {"action": "echo"}


def test_exception_becomes_a_function_error_and_the_worker_survives(
    make_pool: Callable[..., FunctionPool],
) -> None:
    pool = make_pool()
    pid = pool.invoke({"action": "echo"})["pid"]
    with pytest.raises(FunctionError) as info:
        pool.invoke({"action": "raise"})
    assert info.value.error_type == "ValueError"
    assert info.value.message == "boom"
    assert "Traceback" in info.value.trace and "fake.py" in info.value.trace
    assert not isinstance(info.value, FunctionTimeout)
    assert pool.invoke({"action": "echo"})["pid"] == pid  # same environment, like Lambda


def test_timeout_kills_the_worker_and_the_next_invocation_gets_a_new_one(
    make_pool: Callable[..., FunctionPool],
) -> None:
    pool = make_pool(timeout=0.5)
    pid = pool.invoke({"action": "echo"})["pid"]
    started = time.monotonic()
    with pytest.raises(FunctionTimeout, match=r"Task timed out after 0\.50 seconds"):
        pool.invoke({"action": "sleep", "seconds": 30})
    assert time.monotonic() - started < 5
    assert pool.size == 0
    after = pool.invoke({"action": "echo"})
    assert after["pid"] != pid and after["imports"] == 1


def test_crashed_worker_is_replaced(make_pool: Callable[..., FunctionPool]) -> None:
    pool = make_pool()
    pid = pool.invoke({"action": "echo"})["pid"]
    with pytest.raises(FunctionError) as info:
        pool.invoke({"action": "exit"})
    assert info.value.error_type == "Runtime.ExitError"
    assert "exit code 3" in info.value.message
    assert pool.invoke({"action": "echo"})["pid"] != pid


def test_a_worker_killed_while_idle_is_replaced_before_it_is_handed_a_request(
    make_pool: Callable[..., FunctionPool],
) -> None:
    pool = make_pool()
    pid = pool.invoke({"action": "echo"})["pid"]
    os.kill(pid, signal.SIGKILL)  # between two invocations: killed, out of memory...
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead, and left for the pool to reap
    after = pool.invoke({"action": "echo", "n": 2})
    assert after["event"]["n"] == 2
    assert after["pid"] != pid and after["imports"] == 1  # a new environment, cold-started
    assert pool.worker_pids == [after["pid"]]


def test_import_error_fails_the_invocation(make_pool: Callable[..., FunctionPool]) -> None:
    pool = make_pool(handler="functions.missing.handler")
    with pytest.raises(FunctionError) as info:
        pool.invoke({})
    assert info.value.error_type == "Runtime.ImportModuleError"
    assert "functions.missing" in info.value.message
    assert pool.size == 0


def test_context_is_lambda_like(make_pool: Callable[..., FunctionPool]) -> None:
    context = make_pool(timeout=3).invoke({"action": "context"}, request_id="req-123")
    assert context["function_name"] == "Test-dev-FakeFn-abcdef"
    assert context["function_version"] == "$LATEST"
    assert context["invoked_function_arn"].endswith(":function:Test-dev-FakeFn-abcdef")
    assert context["memory_limit_in_mb"] == "256"
    assert context["aws_request_id"] == "req-123"
    assert context["log_group_name"] == "/aws/lambda/Test-dev-FakeFn-abcdef"
    assert "[$LATEST]" in context["log_stream_name"]
    assert 0 < context["remaining"] <= 3000


def test_environment_is_lambda_like_and_not_the_developers_shell(
    make_pool: Callable[..., FunctionPool],
) -> None:
    keys = [
        "TABLE_NAME",
        "AWS_LAMBDA_FUNCTION_NAME",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
        "AWS_REGION",
        "_HANDLER",
        "LAMBDA_TASK_ROOT",
        "AWS_ENDPOINT_URL",
        "AWS_ACCOUNT_ID_ENDPOINT_MODE",
        "POWERTOOLS_TRACE_DISABLED",
        "POWERTOOLS_DEV",
        "ONLY_ON_THE_DEVELOPERS_MACHINE",
        "PYTHONPATH",
        "PATH",
    ]
    pool = make_pool()
    env = pool.invoke({"action": "env", "keys": keys})
    assert env["TABLE_NAME"] == "Test-dev-Table-xyzabc"
    assert env["AWS_LAMBDA_FUNCTION_NAME"] == "Test-dev-FakeFn-abcdef"
    assert env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"] == "256"
    assert env["AWS_REGION"] == "us-east-1"
    assert env["_HANDLER"] == "functions.fake.handler"
    assert env["LAMBDA_TASK_ROOT"] == str(pool.spec.code_dir)
    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:1"
    assert env["AWS_ACCOUNT_ID_ENDPOINT_MODE"] == "disabled"
    assert env["POWERTOOLS_TRACE_DISABLED"] == "true"
    assert env["POWERTOOLS_DEV"] is None
    assert env["ONLY_ON_THE_DEVELOPERS_MACHINE"] is None
    assert env["PYTHONPATH"] is None
    assert env["PATH"]


def test_only_the_staged_asset_provides_the_functions_package(
    make_pool: Callable[..., FunctionPool],
) -> None:
    pool = make_pool()
    found = pool.invoke({"action": "imports"})
    asset = str(pool.spec.code_dir)
    assert found["functions"].startswith(asset)
    assert found["path"][0] == asset
    assert found["cwd"] == asset
    assert str(PACKAGE_ROOT) not in found["path"]


def test_results_are_marshalled_like_lambda(make_pool: Callable[..., FunctionPool]) -> None:
    pool = make_pool()
    assert pool.invoke({"action": "decimal"}) == {"int": 2, "float": 1.5}
    with pytest.raises(FunctionError) as info:
        pool.invoke({"action": "unserializable"})
    assert info.value.error_type == "Runtime.MarshalError"


def test_pool_runs_concurrent_invocations_up_to_its_limit(
    make_pool: Callable[..., FunctionPool],
) -> None:
    pool = make_pool(max_workers=2)
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as executor:
        futures = [
            executor.submit(pool.invoke, {"action": "sleep", "seconds": 0.4}) for _ in range(3)
        ]
        pids = {future.result(timeout=30)["pid"] for future in futures}
    assert len(pids) == 2
    assert pool.size == 2


def test_close_kills_every_worker(make_pool: Callable[..., FunctionPool]) -> None:
    pool = make_pool()
    pid = pool.invoke({"action": "echo"})["pid"]
    pool.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(FunctionError, match="stopping"):
        pool.invoke({"action": "echo"})
