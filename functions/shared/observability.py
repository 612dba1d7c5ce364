"""One Logger, Tracer and Metrics per function process; service name from POWERTOOLS_SERVICE_NAME.

The X-Ray SDK (`aws_xray_sdk.core`, a third of a handler's import time) is imported only where Powertools would
trace: in Lambda (`LAMBDA_TASK_ROOT`), not under SAM CLI or Chalice, and without `POWERTOOLS_TRACE_DISABLED`
(the rules of Powertools' `Tracer`, docs "Tracer: Disabling tracing"). Elsewhere (tests, benchmarks, the local
runtime, which sets `POWERTOOLS_TRACE_DISABLED`) the Tracer gets a provider that records nothing, as a disabled
X-Ray recorder would, and the SDK is never loaded. On AWS, with active tracing, the Tracer is Powertools' own,
created at import (the init phase), as before.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider
from aws_lambda_powertools.shared import constants
from aws_lambda_powertools.shared.functions import strtobool
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

from functions.shared.schema import METRICS_NAMESPACE, STAGE_ENV


def tracing_disabled(environ: os._Environ[str] | dict[str, str] = os.environ) -> bool:
    """Powertools' rule (`Tracer._is_tracer_disabled`): off when asked to be, or outside Lambda, or under an
    emulator."""
    if strtobool(environ.get(constants.TRACER_DISABLED_ENV, "false")):
        return True
    in_lambda = environ.get(constants.LAMBDA_TASK_ROOT_ENV)
    emulated = environ.get(constants.SAM_LOCAL_ENV) or environ.get(constants.CHALICE_LOCAL_ENV)
    return not in_lambda or bool(emulated)


class _NoSegment(BaseSegment):
    """A subsegment that keeps nothing (what a disabled X-Ray recorder hands out)."""

    def close(self, end_time: int | None = None) -> None: ...
    def add_subsegment(self, subsegment: Any) -> None: ...
    def remove_subsegment(self, subsegment: Any) -> None: ...
    def put_annotation(self, key: str, value: Any) -> None: ...
    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None: ...
    def add_exception(self, exception: BaseException, stack: Any, remote: bool = False) -> None: ...


class NoTracing(BaseProvider):
    """The Tracer's provider where tracing is off: the decorators run, nothing is recorded or sent."""

    @contextmanager
    def in_subsegment(self, name: str | None = None, **kwargs: Any) -> Iterator[BaseSegment]:
        yield _NoSegment()

    @asynccontextmanager
    async def in_subsegment_async(self, name: str | None = None, **kwargs: Any):
        yield _NoSegment()

    def put_annotation(self, key: str, value: Any) -> None: ...
    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None: ...
    def patch(self, modules: Any) -> None: ...
    def patch_all(self) -> None: ...


logger = Logger()
tracer = Tracer(provider=NoTracing(), disabled=True) if tracing_disabled() else Tracer()
metrics = Metrics(namespace=METRICS_NAMESPACE)
if os.environ.get(STAGE_ENV):
    # Every metric under `service` and `stage`: dev and prod in one account never fire each other's alarms.
    metrics.set_default_dimensions(stage=os.environ[STAGE_ENV])


def count_for_stage(name: str, value: float = 1) -> None:
    """A count the stage's alarms read (functions/shared/schema.py STAGE_METRICS), written now: under `service` and
    `stage`, and under `stage` alone (a second dimension set of the same EMF document), which one alarm per stage
    reads whatever function wrote it."""
    emf = AmazonCloudWatchEMFProvider(namespace=METRICS_NAMESPACE)
    if stage := os.environ.get(STAGE_ENV):
        emf.add_dimension(name="stage", value=stage)
        emf.add_dimensions(stage=stage)
    emf.add_metric(name=name, unit=MetricUnit.Count, value=value)
    emf.flush_metrics()
