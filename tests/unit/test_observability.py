"""The Tracer loads the X-Ray SDK only where Powertools would trace
(docs/adr/0068-xray-sdk-only-where-powertools-traces.md)."""

import itertools

import pytest
from aws_lambda_powertools import Tracer

from functions.shared.observability import NoTracing, tracing_disabled

VARIABLES = ("POWERTOOLS_TRACE_DISABLED", "LAMBDA_TASK_ROOT", "AWS_SAM_LOCAL", "AWS_CHALICE_CLI_MODE")
VALUES = (None, "true", "false")


@pytest.mark.parametrize("values", list(itertools.product(VALUES, repeat=len(VARIABLES))))
def test_tracing_disabled_follows_powertools_rule(values, monkeypatch):
    environ = {name: value for name, value in zip(VARIABLES, values) if value is not None}
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert tracing_disabled(environ) == bool(Tracer._is_tracer_disabled())


def test_in_lambda_with_tracing_on_it_is_traced():
    assert tracing_disabled({"LAMBDA_TASK_ROOT": "/var/task"}) is False


def test_disabled_provider_runs_the_handler_and_records_nothing():
    tracer = Tracer(provider=NoTracing(), disabled=True, service="t")

    @tracer.capture_lambda_handler(capture_response=False)
    def handler(event, context):
        return {"ok": event["n"]}

    @tracer.capture_method
    def method():
        raise ValueError("boom")

    assert handler({"n": 1}, None) == {"ok": 1}
    with pytest.raises(ValueError):
        method()
