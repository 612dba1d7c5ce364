"""Wires the local runtime together: synth -> moto -> resources -> functions -> seeds -> HTTP.

`Runtime.start(...)` is what `python -m local run` calls and what tests use:

    with Runtime.start(assembly=path, port=0, aws_port=0) as rt:
        requests.get(rt.url + "/contacts/persons", headers=...)
        rt.invoke("ContactsApiFunction1234", event)

Background emulation starts once resources and functions exist, before the seeds load (a deployed
app has its event source mappings before any data is written, so seed writes reach consumers):
`rt.streams` (`local/streams.py`) polls every table stream with an `AWS::Lambda::EventSourceMapping`
and invokes the consumer's workers; `rt.ttl` (`local/ttl.py`) deletes expired items. `stop()` stops
both first, before the functions, servers and moto they use.

    rt.streams.wait_idle(timeout=5.0)   # every write so far has reached its consumers
    rt.dlq_messages()                   # failure records in the mappings' on-failure queues
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Any

from local.apigw import RestApi, Throttle, build_rest_api, throttle_from_env
from local.auth import load_keys, verify_token
from local.aws import EnvironmentPatch, MotoService, client_environment, region_from_env
from local.dlq import on_failure_messages
from local.functions import (
    DEFAULT_MAX_CONCURRENCY,
    PACKAGE_ROOT,
    Functions,
    FunctionSpec,
    LogSink,
    function_specs,
    stderr_sink,
    validate,
)
from local.iam import Principal, check_mapping_role, role_of, role_policies
from local.lambda_api import LambdaApi
from local.resources import Clients, StackResources, TableInfo
from local.server import ApiServer, Gateway
from local.streams import MappingSpec, Streams, mapping_specs
from local.template import StackTemplate, TemplateError, load_assembly, synth
from local.ttl import ServiceDeletes, TtlSweeper, sweep_seconds_from_env

log = logging.getLogger("local.runtime")

DEFAULT_STAGE = "dev"
DEFAULT_PORT = 3000
# The developer's own AWS settings must never leak into the local runtime's clients.
_REMOVED_AWS_VARIABLES = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN")
# How long `stop()` lets in-flight stream batches finish before it stops the functions under them.
_STREAMS_STOP_GRACE = 2.0


def stage_from_env() -> str:
    return os.environ.get("STAGE") or DEFAULT_STAGE


def max_concurrency_from_env() -> int:
    return int(os.environ.get("LOCAL_MAX_CONCURRENCY") or DEFAULT_MAX_CONCURRENCY)


class Runtime:
    """A running local backend; build it with `Runtime.start`, end it with `stop()`."""

    def __init__(self, *, stage: str, assembly: Path) -> None:
        self.stage = stage
        self.assembly = assembly
        self.region = region_from_env()
        self.moto: MotoService | None = None
        self.stacks: list[StackResources] = []
        self.functions: Functions | None = None
        self.principals: dict[str, Principal] = {}  # each function's role, by its access key (local/iam.py)
        self.api: RestApi | None = None
        self.streams: Streams | None = None
        self.ttl: TtlSweeper | None = None
        self.keys_dir: Path | None = None  # where the token keys live (None: <repo>/.local/keys)
        self._clients: Clients | None = None
        self._server: ApiServer | None = None
        self._env_patch: EnvironmentPatch | None = None
        self._stopped = False

    # construction -----------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        repo: Path | None = None,
        *,
        stage: str | None = None,
        assembly: Path | None = None,
        port: int = 0,
        aws_port: int = 0,
        host: str = "127.0.0.1",
        seed: bool = True,
        max_concurrency: int | None = None,
        keys_dir: Path | None = None,
        api: str | None = None,
        log_sink: LogSink = stderr_sink,
        throttle: Throttle | None = None,
    ) -> Runtime:
        """Synthesize (unless `assembly` is given), provision and serve; returns once serving.

        `port`/`aws_port` 0 pick free ports (tests); the CLI passes 3000/8000 (or PORT and
        LOCAL_AWS_PORT). `throttle` replaces the stage's throttling from the template, as LOCAL_THROTTLE_RATE /
        LOCAL_THROTTLE_BURST do: only for a workload that needs more than the stage allows on AWS.
        """
        repo = Path(repo or PACKAGE_ROOT).resolve()
        stage = stage or stage_from_env()
        if assembly is None:
            assembly = synth(repo, repo / ".local" / "cdk.out", stage, log.info)
        runtime = cls(stage=stage, assembly=Path(assembly).resolve())
        runtime.keys_dir = keys_dir
        try:
            runtime._boot(
                host=host,
                port=port,
                aws_port=aws_port,
                seed=seed,
                max_concurrency=max_concurrency or max_concurrency_from_env(),
                keys_dir=keys_dir,
                api=api,
                log_sink=log_sink,
                throttle=throttle,
            )
        except BaseException:
            runtime.stop()
            raise
        return runtime

    def _boot(
        self,
        *,
        host: str,
        port: int,
        aws_port: int,
        seed: bool,
        max_concurrency: int,
        keys_dir: Path | None,
        api: str | None,
        log_sink: LogSink,
        throttle: Throttle | None = None,
    ) -> None:
        templates = load_assembly(self.assembly)
        self.moto = MotoService(aws_port, host=host, region=self.region).start()
        aws_env = client_environment(self.moto.endpoint, self.region)
        self._env_patch = EnvironmentPatch(aws_env, remove=_REMOVED_AWS_VARIABLES)
        log.info(
            "AWS endpoint %s (region %s, keys testing/testing), e.g. "
            "aws --endpoint-url %s dynamodb list-tables",
            self.moto.endpoint,
            self.region,
            self.moto.endpoint,
        )
        moto = self.moto
        clients = self._clients = Clients(lambda service: moto.client(service, self.region))
        self.stacks = _provision(templates, clients, self.region)

        specs_by_stack = [(r, function_specs(r)) for r in self.stacks]
        specs = [(r.stack.name, spec) for r, stack_specs in specs_by_stack for spec in stack_specs]
        for problem in validate(spec for _, spec in specs):
            log.warning("function will fail when invoked: %s", problem)
        self.functions = Functions(specs, aws_env, max_workers=max_concurrency, sink=log_sink)
        self.principals = _principals(specs_by_stack)
        self.moto.iam.principals.update(self.principals)
        self._start_background(clients)

        if seed:
            from local.seeds import load_all  # imported late: seed modules may import boto3

            load_all(self.seed_environment())

        api_stack = next(
            (r for r in self.stacks if r.stack.resources_of_type("AWS::ApiGateway::RestApi")), None
        )
        if api_stack is None:
            log.warning("no AWS::ApiGateway::RestApi in the app: not serving HTTP")
            return
        self.api = build_rest_api(api_stack, api)
        functions = self.functions
        stack_name = api_stack.stack.name

        def invoke(function: str, event: dict[str, Any], request_id: str) -> Any:
            return functions.invoke(f"{stack_name}/{function}", event, request_id)

        load_keys(keys_dir)  # create the key pair now rather than on the first request
        verify: Callable[[str], Any] = partial(verify_token, keys_dir=keys_dir)
        throttle = throttle or throttle_from_env(self.api.throttle, os.environ)
        gateway = Gateway(self.api, invoke, verify, throttle=throttle)
        # The same port answers the Lambda API's ListFunctions and Invoke (`make replay`, local/lambda_api.py).
        lambda_api = LambdaApi(functions.specs, functions.invoke, functions.__contains__)
        self._server = ApiServer(gateway, host, port, lambda_api=lambda_api).start()
        if gateway.throttle is not None:
            origin = "the template's" if gateway.throttle == self.api.throttle else "set locally"
            log.info("stage %s: %g requests/s, burst %d (%s)", self.api.stage, gateway.throttle.rate,
                     gateway.throttle.burst, origin)
        for method in self.api.routes():
            target = method.function or "MOCK"
            log.info(
                "route %-7s %s -> %s (%s)",
                method.http_method,
                method.resource_path,
                target,
                method.authorization_type,
            )

    def _start_background(self, clients: Clients) -> None:
        """Stream pollers and the TTL sweeper: what AWS runs beside the app, not in it."""
        assert self.functions is not None
        deletes = ServiceDeletes()
        mappings = _stream_mappings(self.stacks, self.functions)
        for mapping in mappings:
            principal = self.principals.get(self.functions.pool(mapping.function).spec.access_key)
            if principal is not None:
                check_mapping_role(mapping, principal)
        self.streams = Streams(
            mappings,
            clients=clients,
            invoke=self.functions.invoke,
            region=self.region,
            identity=deletes.identity,
        )
        self.streams.start()
        tables = [table for stack in self.stacks for table in stack.tables.values()]
        interval = sweep_seconds_from_env(os.environ)
        if interval > 0:
            self.ttl = TtlSweeper(tables, clients["dynamodb"], deletes=deletes, interval=interval)
            self.ttl.start()

    # public API -------------------------------------------------------------------------------

    @property
    def url(self) -> str | None:
        return self._server.url if self._server else None

    @property
    def aws_endpoint(self) -> str:
        if self.moto is None:
            raise RuntimeError("runtime not started")
        return self.moto.endpoint

    def invoke(self, function: str, event: Any) -> Any:
        """Invoke a function (logical id, `Stack/LogicalId` or physical name) like Lambda's
        RequestResponse invoke; raises `FunctionError`/`FunctionTimeout` when it fails."""
        if self.functions is None:
            raise RuntimeError("runtime not started")
        return self.functions.invoke(function, event)

    def dlq_messages(self) -> dict[str, list[Any]]:
        """Messages of every stream mapping's on-failure queue, by queue ARN, oldest first.

        They stay in their queues (what `python -m local dlq` prints, from another process).
        """
        if self._clients is None:
            raise RuntimeError("runtime not started")
        return on_failure_messages(self._clients["sqs"])

    def seed_environment(self) -> dict[str, str]:
        """All functions' resolved template variables, merged (what seed modules receive)."""
        merged: dict[str, str] = {}
        for spec in self.functions.specs() if self.functions else []:
            for key, value in spec.environment.items():
                if key in merged and merged[key] != value:
                    log.debug("seed env: %s differs between functions; using %r", key, value)
                merged[key] = value
        return merged

    def stop(self) -> None:
        """Stop the stream pollers and the TTL sweeper, stop serving, kill every worker, stop
        moto, restore the environment. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        streams_stopped = self.streams.stop(_STREAMS_STOP_GRACE) if self.streams else True
        if self.ttl is not None:
            self.ttl.stop()
        if self._server is not None:
            self._server.stop()
        if self.functions is not None:
            self.functions.close()
        if not streams_stopped and self.streams is not None:
            self.streams.stop()  # their workers are gone: the last in-flight batches end now
        if self.moto is not None:
            self.moto.stop()
        if self._env_patch is not None:
            self._env_patch.restore()

    def __enter__(self) -> Runtime:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _provision(
    templates: list[StackTemplate], clients: Clients, region: str
) -> list[StackResources]:
    """Create each stack's resources, dependencies first, passing exports along."""
    exports: dict[str, Any] = {}
    provisioned = []
    for template in templates:
        resources = StackResources(template, clients, region=region, exports=exports)
        resources.provision()
        for name, output in (template.template.get("Outputs") or {}).items():
            export = output.get("Export")
            if export:
                where = f"{template.name}/Outputs.{name}"
                export_name = resources.resolver.resolve_string(export.get("Name"), where)
                exports[export_name] = resources.resolver.resolve(output.get("Value"), where)
        provisioned.append(resources)
    return provisioned


def _principals(specs_by_stack: list[tuple[StackResources, list[FunctionSpec]]]) -> dict[str, Principal]:
    """Each function's role, by the access key its worker signs with (local/iam.py).

    A function whose role is not a resource of its stack (an imported role ARN) has policies nobody here can read:
    its calls are not checked, and the start says so.
    """
    principals = {}
    for resources, specs in specs_by_stack:
        for spec in specs:
            role = role_of(resources.stack, spec.logical_id)
            if role is None:
                log.warning("%s: its role is not in the template; its AWS calls are not checked", spec.logical_id)
                continue
            documents = role_policies(resources.stack, role, resources.resolver)
            principals[spec.access_key] = Principal(
                function=spec.logical_id,
                role_arn=resources.get_att(role, "Arn"),
                session=spec.name,
                policies=lambda documents=documents: documents,
            )
    return principals


def _stream_mappings(stacks: list[StackResources], functions: Functions) -> list[MappingSpec]:
    """Every stack's mappings on a table stream of the app whose consumer is a known function."""
    streams: dict[str, TableInfo] = {
        table.stream_arn: table
        for stack in stacks
        for table in stack.tables.values()
        if table.stream_arn
    }
    mappings = []
    for stack in stacks:
        for spec in mapping_specs(stack, streams):
            if spec.function in functions:
                mappings.append(spec)
            else:
                log.warning("%s: consumer %s is not a function of the app", spec.id, spec.function)
    return mappings


__all__ = ["Runtime", "TemplateError"]
