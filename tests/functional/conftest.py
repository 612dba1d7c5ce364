"""Handlers → service → repository on moto, with tables built from the same TableSpec as the CDK's."""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import boto3
import pytest
from moto import mock_aws

from functions.shared import container, ddb, idempotency
from functions.shared.idempotency import IDEMPOTENCY_TABLE
from functions.shared.settings import settings
from functions.shared.table_spec import TableSpec
from local.awslambda.events import (
    LambdaContext,  # the worker's: one Lambda context for the runtime and the tests
)
from local.cloudformation.template import StackTemplate, load_assembly
from tests.support import iam
from tests.support.events import claims_for, rest_event
from tests.support.whole_suite import RECORDER, Answer


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


@pytest.fixture(scope="session")
def function_roles(tmp_path_factory) -> dict[str, iam.FunctionRole]:
    """Each function's role as the synthesized dev template defines it, by handler (one synth per run). What their
    calls use is recorded for test_grants.py (tests/support/whole_suite.py)."""
    assembly = os.environ.get("FUNCTIONAL_ASSEMBLY")  # an assembly synthesized already (`python -m local synth`)
    if assembly:
        (stack,) = load_assembly(Path(assembly))
    else:
        stack = _dev_stack_once_per_run(tmp_path_factory)
    roles = iam.function_roles(stack)
    RECORDER.watch(roles)
    return roles


def _dev_stack_once_per_run(tmp_path_factory) -> StackTemplate:
    """The dev stage, synthesized once per run: the xdist workers of a run share their base temporary directory's
    parent; the first to get there synthesizes under a lock, the others wait and read what it wrote."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    outdir, done = shared / "cdk-functional", shared / "cdk-functional.done"
    with open(shared / "cdk-functional.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            iam.synth_dev(outdir)
            done.touch()
    (stack,) = load_assembly(outdir)
    return stack


@pytest.fixture(autouse=True)
def enforce_iam(function_roles, monkeypatch) -> None:
    """Every handler runs under its function's role: a call the template does not grant is AccessDenied."""
    iam.enforce(function_roles, monkeypatch)


_SANDBOX_STATE = ("metric_set", "dimension_set", "dimension_sets", "metadata_set")


@pytest.fixture(scope="session", autouse=True)
def metrics_per_sandbox() -> Iterator[None]:
    """Each concurrent invocation keeps its own Powertools metrics buffer, as each runs in its own Lambda sandbox.
    A test that calls handlers from threads (concurrency tests) shares one process, so the module-level `metrics`
    would be one buffer written by every thread: Powertools serializes it at 100 values while another thread adds a
    name ("dictionary changed size during iteration"). Off the main thread, the provider's buffers are the thread's."""
    from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

    sandboxes = threading.local()

    def buffer(name: str) -> property:
        def get(provider: AmazonCloudWatchEMFProvider) -> Any:
            if threading.current_thread() is threading.main_thread():
                return provider.__dict__[name]
            state = sandboxes.__dict__.setdefault(id(provider), {})
            if not state:  # a new sandbox: empty buffers, the provider's default dimensions
                state.update(metric_set={}, dimension_set=dict(provider.default_dimensions), dimension_sets=[],
                             metadata_set={})
            return state[name]

        def set_(provider: AmazonCloudWatchEMFProvider, value: Any) -> None:
            provider.__dict__[name] = value  # set in __init__, on the thread that builds the provider

        return property(get, set_)

    with pytest.MonkeyPatch.context() as patch:
        for name in _SANDBOX_STATE:
            patch.setattr(AmazonCloudWatchEMFProvider, name, buffer(name), raising=False)
        yield


def fresh_containers() -> None:
    """Forget what a Lambda container keeps between invocations (clients, settings, services, the cursor key): every
    `per_container` factory (functions/shared/container.py), as a new execution environment would."""
    container.reset()
    idempotency.reset()


@pytest.fixture
def aws(monkeypatch) -> Iterator[None]:
    with mock_aws():
        fresh_containers()
        secret = boto3.client("secretsmanager").create_secret(Name="cursor", SecretString="k" * 48)
        monkeypatch.setenv("CURSOR_SECRET_ARN", secret["ARN"])
        make_table(IDEMPOTENCY_TABLE, monkeypatch)
        yield
        fresh_containers()
        _clear_powertools_secret_cache()


def _clear_powertools_secret_cache() -> None:
    from aws_lambda_powertools.utilities import parameters

    parameters.base.DEFAULT_PROVIDERS.clear()


def make_table(spec: TableSpec, monkeypatch) -> str:
    name = f"test-{spec.construct_id}"
    boto3.client("dynamodb").create_table(**spec.create_table_kwargs(name))
    monkeypatch.setenv(spec.env_var, name)
    settings.cache_clear()
    return name


@dataclass
class Calls:
    """Every DynamoDB call made through the shared resource: (operation, request params, parsed response)."""

    recorded: list[tuple[str, dict, dict]] = field(default_factory=list)

    def names(self) -> list[str]:
        return [name for name, _, _ in self.recorded]

    def of(self, operation: str) -> list[tuple[dict, dict]]:
        return [(params, response) for name, params, response in self.recorded if name == operation]

    def clear(self) -> None:
        self.recorded.clear()


@contextmanager
def recording() -> Iterator[Calls]:
    calls = Calls()
    events = ddb.resource().meta.client.meta.events

    def before(params, model, context, **kwargs):
        context["params"] = dict(params)

    def after(http_response, parsed, model, **kwargs):
        calls.recorded.append((model.name, kwargs.get("context", {}).get("params", {}), parsed))

    events.register("before-parameter-build.dynamodb", before)
    events.register("after-call.dynamodb", after)
    try:
        yield calls
    finally:
        events.unregister("before-parameter-build.dynamodb", before)
        events.unregister("after-call.dynamodb", after)


@pytest.fixture
def calls(aws) -> Iterator[Calls]:
    """Every DynamoDB call made through the shared resource during the test (after its fixtures)."""
    with recording() as recorded:
        yield recorded


def server_timing(reply: Reply) -> dict[str, dict[str, float]]:
    """`Server-Timing` as {metric: {param: value}}, `desc="a=1 b=2"` spread into its pairs."""
    parsed: dict[str, dict[str, float]] = {}
    for entry in reply.headers["Server-Timing"].split(", "):
        name, *params = entry.split(";")
        values: dict[str, float] = {}
        for param in params:
            key, _, value = param.partition("=")
            if key == "desc":
                values.update({k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", value)})
            else:
                values[key] = float(value)
        parsed[name] = values
    return parsed


def _error_code(body: Any) -> str | None:
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


class Client:
    """Calls a domain's lambda_handler the way API Gateway would, as a given user."""

    def __init__(self, handler: Callable[[dict, Any], dict], routes: list[str], domain: str = "platform"):
        self._handler = handler
        self._routes = routes
        self._domain = domain  # whose routes: the DynamoDB calls they make are noted against them (RECORDER)

    @classmethod
    def of(cls, api: ModuleType) -> Client:
        """A client of a domain's api module: its `lambda_handler`, matched to the paths its router serves."""
        return cls(api.lambda_handler, api.router.routes.paths, api.__name__.split(".")[1])

    def call(self, method: str, url: str, *, body: Any = None, raw_body: str | None = None,
             user: str | None = "alice", groups: tuple[str, ...] = (),
             headers: dict[str, str] | None = None) -> Reply:
        path = url.split("?", 1)[0]
        resource = self._resource_for(path)
        claims = None if user is None else claims_for(user, groups)
        event = rest_event(method, url, resource=resource, body=body, raw_body=raw_body, claims=claims)
        for name, value in (headers or {}).items():
            event["headers"][name] = value
            event["multiValueHeaders"][name] = [value]
        with RECORDER.serving(self._domain, method.upper(), resource):
            response = self._handler(event, LambdaContext())
        raw = response.get("body")
        try:
            parsed = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            parsed = raw
        # Powertools answers a REST (v1) event with multiValueHeaders; API Gateway merges both maps
        multi = {name: ", ".join(values) for name, values in (response.get("multiValueHeaders") or {}).items()}
        reply = Reply(response["statusCode"], parsed, {**multi, **(response.get("headers") or {})})
        # every answer carries its DynamoDB bill (functions/shared/cost.py; test_cost_header.py checks the figures)
        assert reply.headers.get("Server-Timing", "").startswith("ddb;dur="), (method, url, reply.headers)
        # what test_openapi_responses.py compares with /docs, once every functional test ran
        RECORDER.answers.append(Answer(method.upper(), resource, reply.status, _error_code(reply.body)))
        return reply

    def _resource_for(self, path: str) -> str:
        import re

        for resource in sorted(self._routes, key=lambda r: r.count("{")):
            if re.match("^" + re.sub(r"{\w+}", "[^/]+", resource) + "$", path):
                return resource
        return path


def ok(reply: Reply, status: int = 200) -> Any:
    """The body of an answer that must have `status`."""
    assert reply.status == status, reply.body
    return reply.body


def error(reply: Reply) -> tuple[int, str]:
    """An error answer as (status, error code)."""
    return reply.status, error_code(reply)


def error_code(reply: Reply) -> str:
    """An error answer's code alone."""
    return reply.body["error"]["code"]


@contextmanager
def fresh_service(*apis: ModuleType) -> Iterator[None]:
    """Each api module's cached service built anew for the test (from the tables it made) and forgotten after it."""
    for api in apis:
        api.service.cache_clear()
    try:
        yield
    finally:
        for api in apis:
            api.service.cache_clear()


def fresh_tables(api: ModuleType, *specs: TableSpec, name: str = "tables",
                 make: Callable[[pytest.MonkeyPatch], Any] | None = None) -> Any:
    """A domain's tables fixture, named `name`: it makes `specs`' tables on moto (or calls `make`, which makes them
    itself) with the api module's service built anew for them, and gives one spec's table name, {env var: table name}
    for several, or what `make` returns."""

    def make_specs(monkeypatch: pytest.MonkeyPatch) -> Any:
        names = {spec.env_var: make_table(spec, monkeypatch) for spec in specs}
        return names if len(specs) > 1 else names[specs[0].env_var]

    @pytest.fixture(name=name)
    def fixture(aws, monkeypatch) -> Iterator[Any]:
        with fresh_service(api):
            yield (make or make_specs)(monkeypatch)

    return fixture


def client_for(api: ModuleType, tables: str = "tables") -> Any:
    """A domain's `client` fixture: `Client.of(api)`, once the fixture named `tables` has made its tables."""

    @pytest.fixture(name="client")
    def fixture(request) -> Client:
        request.getfixturevalue(tables)
        return Client.of(api)

    return fixture


@pytest.fixture
def atomic_dynamodb(monkeypatch) -> None:
    """One moto request at a time, as `SerializedDynamoDB` serves the local runtime (local/aws.py): DynamoDB applies
    each request, a transaction included, atomically; moto's in-process backend has no locks (a TransactWriteItems
    checks and writes action by action, and restores whole tables when it fails). Without this, a concurrency test
    would test moto. Only single requests are atomic: a read-then-write across two requests can still race."""
    from moto.core.botocore_stubber import BotocoreStubber

    lock = threading.Lock()
    original = BotocoreStubber.__call__

    def serialized(self, event_name, request, **kwargs):
        with lock:
            return original(self, event_name, request, **kwargs)

    monkeypatch.setattr(BotocoreStubber, "__call__", serialized)

