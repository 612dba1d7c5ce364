"""Wires the local runtime together: synth -> moto -> resources -> functions -> streams, TTL -> seeds -> HTTP
(docs/local-runtime.md). Every stack is provisioned with its nested stacks; `rt.stacks` lists them all, parents first.
The pollers and the sweeper start before the seeds load (a deployed app has its event source mappings before any data
is written, so seed writes reach consumers); `stop()` stops them first.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Self

from local.apigateway.authorizer import verify_token
from local.apigateway.gateway import Gateway, GatewayRequestHandler, LambdaApi
from local.apigateway.restapi import RestApi, Throttle, build_rest_api, throttle_from_env
from local.aws import EnvironmentPatch, MotoService, WsgiServer, client_environment, region_from_env
from local.awslambda.pool import DEFAULT_MAX_CONCURRENCY, PACKAGE_ROOT, Functions, LogSink, function_specs, stderr_sink
from local.cloudformation.resources import Clients, StackResources
from local.cloudformation.template import load_assembly, synth_cached
from local.cognito import load_keys
from local.dynamodb.ttl import TtlSweeper, sweep_seconds_from_env
from local.iam import PolicyDocument, Principal, check_mapping_role, role_of, role_policies
from local.streams import Streams, mapping_specs
from local.streams.destinations import on_failure_messages

log = logging.getLogger("local.runtime")

DEFAULT_STAGE = "dev"
# The developer's own AWS settings must never leak into the local runtime's clients.
_REMOVED_AWS_VARIABLES = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN")
_STREAMS_STOP_GRACE = 2.0  # how long `stop()` lets in-flight stream batches finish before it stops their functions


def _constant(documents: list[PolicyDocument]) -> Callable[[], Sequence[PolicyDocument]]:
    """A principal's policies as the function that answers them (a template's do not change while it runs)."""
    return lambda: documents


def stage_from_env() -> str:
    return os.environ.get("STAGE") or DEFAULT_STAGE


class Runtime:
    """A running local backend; build it with `Runtime.start`, end it with `stop()`."""

    def __init__(self, *, stage: str, assembly: Path) -> None:
        self.stage, self.assembly, self.region = stage, assembly, region_from_env()
        self.stacks: list[StackResources] = []  # every stack, nested ones included, parents first
        self.principals: dict[str, Principal] = {}  # each function's role, by its access key (local/iam.py)
        self.keys_dir: Path | None = None  # where the token keys live (None: <repo>/.local/keys)
        self.moto: MotoService | None = None
        self.functions: Functions | None = None
        self.api: RestApi | None = None
        self.streams: Streams | None = None
        self.ttl: TtlSweeper | None = None
        self._clients: Clients | None = None
        self._server: WsgiServer | None = None
        self._env_patch: EnvironmentPatch | None = None
        self._own_assembly: Path | None = None  # synthesized for this instance alone: removed by `stop()`
        self._stopped = False

    @classmethod
    def start(cls, repo: Path | None = None, *, stage: str | None = None, assembly: Path | None = None, port: int = 0,
              aws_port: int = 0, host: str = "127.0.0.1", seed: bool = True, max_concurrency: int | None = None,
              keys_dir: Path | None = None, log_sink: LogSink = stderr_sink,
              throttle: Throttle | None = None, context: Mapping[str, str] | None = None) -> Runtime:
        """Synthesize (unless `assembly` is given), provision and serve; returns once serving. Ports 0: any free one.
        `throttle` replaces the stage's throttling from the template (as LOCAL_THROTTLE_RATE / _BURST do): only for a
        workload that needs more than the stage allows on AWS. `context`: CDK context for the synth, as `cdk synth
        -c key=value` gives it (`corsOrigins`, `explorer`: README, "Deploying")."""
        repo = Path(repo or PACKAGE_ROOT).resolve()
        stage = stage or stage_from_env()
        own = None
        if assembly is None:  # a directory of its own: a second instance must not replace the code the first runs
            (repo / ".local").mkdir(exist_ok=True)
            own = Path(tempfile.mkdtemp(prefix="cdk.out-", dir=repo / ".local"))
            try:
                assembly = synth_cached(repo, own, stage, log.info, context=context)
            except BaseException:
                shutil.rmtree(own, ignore_errors=True)
                raise
        runtime = cls(stage=stage, assembly=Path(assembly).resolve())
        runtime._own_assembly = own
        runtime.keys_dir = keys_dir
        max_concurrency = max_concurrency or int(os.environ.get("LOCAL_MAX_CONCURRENCY") or DEFAULT_MAX_CONCURRENCY)
        try:
            runtime._boot(host, port, aws_port=aws_port, seed=seed, max_concurrency=max_concurrency,
                          log_sink=log_sink, throttle=throttle)
        except BaseException:
            runtime.stop()
            raise
        return runtime

    def _boot(self, host: str, port: int, *, aws_port: int, seed: bool, max_concurrency: int, log_sink: LogSink,
              throttle: Throttle | None) -> None:
        phases, mark = {}, time.monotonic()

        def phase(name: str) -> None:  # the start-up's cost, phase by phase, in one log line at the end
            nonlocal mark
            phases[name], mark = time.monotonic() - mark, time.monotonic()

        templates = load_assembly(self.assembly)
        self.moto = moto = MotoService(aws_port, host=host, region=self.region).start()
        aws_env = client_environment(moto.endpoint, self.region)
        self._env_patch = EnvironmentPatch(aws_env, remove=_REMOVED_AWS_VARIABLES)
        self.principals = moto.iam.principals  # filled below: the functions' calls are checked as their roles
        log.info("AWS endpoint %s (region %s, keys testing/testing), e.g. aws --endpoint-url %s dynamodb list-tables",
                 moto.endpoint, self.region, moto.endpoint)
        phase("aws")
        clients = self._clients = Clients(lambda service: moto.client(service, self.region, in_process=True))
        tops = [StackResources(template, clients, region=self.region) for template in templates]
        for top in tops:
            top.provision()
        phase("resources")
        self.stacks = [stack for top in tops for stack in top.walk()]
        specs = [(stack, spec) for stack in self.stacks for spec in function_specs(stack)]
        self.functions = Functions([(s.stack.name, spec) for s, spec in specs], aws_env, max_workers=max_concurrency,
                                   sink=log_sink)
        self._add_principals(specs)
        # Stream pollers and the TTL sweeper: what AWS runs beside the app, not in it.
        streams = {t.stream_arn: t for stack in self.stacks for t in stack.tables.values() if t.stream_arn}
        mappings = [m for stack in self.stacks for m in mapping_specs(stack, streams)]
        for mapping in mappings:
            principal = self.principals.get(self.functions.pool(mapping.function).spec.access_key)
            if principal is not None:
                check_mapping_role(mapping, principal)
        self.streams = Streams(mappings, clients=clients, invoke=self.functions.invoke, region=self.region)
        self.streams.start()
        if (interval := sweep_seconds_from_env(os.environ)) > 0:
            self.ttl = TtlSweeper([t for stack in self.stacks for t in stack.tables.values()], clients["dynamodb"],
                                  interval=interval)
            self.ttl.start()
        phase("functions, streams")
        if seed:
            from seeds import (
                load_all,  # imported late: seed modules may import boto3
            )

            load_all(self.seed_environment(), transport=self.moto.transport)
            phase("seeds")
        if not any(s.stack.resources_of_type("AWS::ApiGateway::RestApi") for s in self.stacks):
            log.warning("no AWS::ApiGateway::RestApi in the app: not serving HTTP")
            return
        self.api = build_rest_api(tops)
        load_keys(self.keys_dir)  # create the key pair now rather than on the first request
        functions = self.functions
        gateway = Gateway(self.api, functions.invoke, partial(verify_token, keys_dir=self.keys_dir),
                          throttle=throttle or throttle_from_env(self.api.throttle, os.environ),
                          lambda_api=LambdaApi(functions.specs, functions.invoke, functions.__contains__))
        self._server = WsgiServer(gateway, host, port, setting="PORT", handler=GatewayRequestHandler).start()
        if gateway.throttle is not None:
            origin = "the template's" if gateway.throttle == self.api.throttle else "set locally"
            log.info("stage %s: %g requests/s, burst %d (%s)", self.api.stage, gateway.throttle.rate,
                     gateway.throttle.burst, origin)
        for method in self.api.routes():
            log.debug("route %-7s %s -> %s (%s)", method.http_method, method.resource_path, method.function_label,
                     method.authorization_type)
        phase("api")
        log.info("started in %.1fs: %s", sum(phases.values()), ", ".join(f"{k} {v:.1f}s" for k, v in phases.items()))

    def _add_principals(self, specs: list[tuple[StackResources, Any]]) -> None:
        """Each function's role as the principal its AWS calls are checked as (an imported role cannot be read)."""
        for stack, spec in specs:
            role = role_of(stack.stack, spec.logical_id)
            if role is None:  # an imported role: nobody here can read its policies
                log.warning("%s: its role is not in the template; its AWS calls are not checked", spec.logical_id)
                continue
            self.principals[spec.access_key] = Principal(spec.logical_id, stack.get_att(role, "Arn"), spec.name,
                                                         _constant(role_policies(stack.stack, role, stack.resolver)))

    @property
    def url(self) -> str | None:
        return self._server.url if self._server else None

    @property
    def aws_endpoint(self) -> str:
        if self.moto is None:
            raise RuntimeError("not started")
        return self.moto.endpoint

    def invoke(self, function: str, event: Any) -> Any:
        """Invoke a function (logical id, `Stack/LogicalId`, name or ARN) like Lambda's RequestResponse invoke;
        raises `FunctionError`/`FunctionTimeout` when it fails."""
        if self.functions is None:
            raise RuntimeError("not started")
        return self.functions.invoke(function, event)

    def dlq_messages(self) -> dict[str, list[Any]]:
        """Every stream mapping's on-failure queue's messages, by queue ARN, oldest first (left in their queues)."""
        if self._clients is None:
            raise RuntimeError("not started")
        return on_failure_messages(self._clients["sqs"])

    def seed_environment(self) -> dict[str, str]:
        """All functions' resolved template variables, merged (what seed modules receive)."""
        specs = self.functions.specs() if self.functions else []
        return {key: value for spec in specs for key, value in spec.environment.items()}

    def stop(self) -> None:
        """Stop the stream pollers and the TTL sweeper, stop serving, kill every worker, stop moto, restore the
        environment. Idempotent."""
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
        if self._own_assembly is not None:
            shutil.rmtree(self._own_assembly, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

