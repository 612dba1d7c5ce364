"""Stage throttling: the token bucket on a fake clock, the limits read from the template, and the local overrides.
No servers."""

from __future__ import annotations

import copy
import json
import math

import pytest

from local.apigateway.restapi import (
    THROTTLED,
    Throttle,
    TokenBucket,
    build_rest_api,
    gateway_response,
    throttle_from_env,
)
from local.awslambda.events import RequestContext
from local.cloudformation.template import TemplateError
from tests.local.api_template import API, api_resources
from tests.local.conftest import stack_resources


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def takes(bucket: TokenBucket, count: int) -> list[bool]:
    return [bucket.take() for _ in range(count)]


# --- the bucket -------------------------------------------------------------------------------------------

def test_a_full_bucket_lets_a_burst_through_then_throttles():
    bucket = TokenBucket(Throttle(rate=50, burst=100), Clock())
    assert takes(bucket, 101) == [True] * 100 + [False]


def test_the_bucket_refills_at_the_rate():
    clock = Clock()
    bucket = TokenBucket(Throttle(rate=50, burst=100), clock)
    takes(bucket, 100)
    clock.now += 0.1  # 5 tokens
    assert takes(bucket, 6) == [True] * 5 + [False]
    clock.now += 1.0  # 50 tokens
    assert takes(bucket, 51) == [True] * 50 + [False]


def test_the_bucket_never_holds_more_than_the_burst():
    clock = Clock()
    bucket = TokenBucket(Throttle(rate=50, burst=100), clock)
    clock.now += 3600
    assert takes(bucket, 101) == [True] * 100 + [False]


def test_the_steady_rate_is_the_refill_rate():
    # Given a drained bucket, when one request comes every 10 ms (100/s) for 10 s, then about 50/s get through
    clock = Clock()
    bucket = TokenBucket(Throttle(rate=50, burst=100), clock)
    takes(bucket, 100)
    accepted = 0
    for _ in range(1000):
        clock.now += 0.01
        accepted += bucket.take()
    assert accepted == pytest.approx(500, abs=1)


def test_a_clock_going_backwards_adds_nothing():
    clock = Clock()
    bucket = TokenBucket(Throttle(rate=50, burst=1), clock)
    assert bucket.take()
    clock.now -= 10
    assert not bucket.take()


def test_burst_zero_throttles_everything():
    assert takes(TokenBucket(Throttle(rate=50, burst=0), Clock()), 3) == [False] * 3


# --- the template's limits --------------------------------------------------------------------------------

def with_method_settings(settings: list[dict]) -> dict:
    resources = copy.deepcopy(api_resources())
    resources["Stage"]["Properties"]["MethodSettings"] = settings
    return resources


def test_the_stage_default_method_throttling_comes_from_the_template():
    api = build_rest_api(stack_resources(with_method_settings([
        {"HttpMethod": "*", "ResourcePath": "/*", "LoggingLevel": "ERROR",
         "ThrottlingBurstLimit": 100, "ThrottlingRateLimit": 50},
    ])))
    assert api.throttle == Throttle(rate=50.0, burst=100)


def test_no_method_settings_no_throttling():
    assert build_rest_api(stack_resources(api_resources())).throttle is None
    logging_only = with_method_settings([{"HttpMethod": "*", "ResourcePath": "/*", "LoggingLevel": "ERROR"}])
    assert build_rest_api(stack_resources(logging_only)).throttle is None


def test_a_methods_own_throttling_comes_from_the_template_by_its_escaped_resource_path():
    api = build_rest_api(stack_resources(with_method_settings([
        {"HttpMethod": "*", "ResourcePath": "/*", "ThrottlingBurstLimit": 100, "ThrottlingRateLimit": 50},
        {"HttpMethod": "GET", "ResourcePath": "/~1contacts~1persons", "ThrottlingBurstLimit": 20,
         "ThrottlingRateLimit": 10, "LoggingLevel": "ERROR"},
    ])))
    assert api.throttle == Throttle(rate=50.0, burst=100)
    assert api.method_throttles == {("GET", "/contacts/persons"): Throttle(rate=10.0, burst=20)}


def test_a_method_setting_for_a_method_the_api_does_not_have_fails_the_start():
    with pytest.raises(TemplateError, match="methods the API does not have"):
        build_rest_api(stack_resources(with_method_settings([
            {"HttpMethod": "DELETE", "ResourcePath": "/~1contacts~1persons", "ThrottlingBurstLimit": 2,
             "ThrottlingRateLimit": 1}])))


@pytest.mark.parametrize("setting", [
    {"HttpMethod": "*", "ResourcePath": "/~1contacts/*", "ThrottlingBurstLimit": 5, "ThrottlingRateLimit": 1},
    {"HttpMethod": "GET", "ResourcePath": "/~1contacts~1persons", "ThrottlingRateLimit": 1},
    {"HttpMethod": "*", "ResourcePath": "/*", "ThrottlingRateLimit": 1},
])
def test_throttling_that_is_not_reproduced_fails_loudly(setting):
    with pytest.raises(TemplateError, match="only the stage's default throttling"):
        build_rest_api(stack_resources(with_method_settings([setting])))


def test_the_throttled_gateway_response_is_the_templates():
    resources = with_method_settings([])
    resources["Throttled"] = {
        "Type": "AWS::ApiGateway::GatewayResponse",
        "Properties": {
            "ResponseType": "THROTTLED", "RestApiId": {"Ref": API}, "StatusCode": "429",
            "ResponseTemplates": {"application/json":
                                  '{"error": {"code": "THROTTLED", "message": $context.error.messageString}}'},
            "ResponseParameters": {"gatewayresponse.header.Retry-After": "'1'"},  # as infra/constructs/rest_api.py
        },
    }
    api = build_rest_api(stack_resources(resources))
    response = gateway_response(api, THROTTLED, RequestContext.new())
    assert response.status_code == 429
    assert json.loads(response.get_data()) == {"error": {"code": "THROTTLED", "message": "Too Many Requests"}}
    assert response.headers["x-amzn-ErrorType"] == "TooManyRequestsException"
    assert response.headers["Retry-After"] == "1"


def test_api_gateways_default_throttled_response_without_a_template():
    api = build_rest_api(stack_resources(api_resources(with_gateway_responses=False)))
    response = gateway_response(api, THROTTLED, RequestContext.new())
    assert (response.status_code, json.loads(response.get_data())) == (429, {"message": "Too Many Requests"})


# --- raising it locally -----------------------------------------------------------------------------------

DEV = Throttle(rate=50, burst=100)


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, DEV),
        ({"LOCAL_THROTTLE_RATE": ""}, DEV),
        ({"LOCAL_THROTTLE_RATE": "500"}, Throttle(rate=500, burst=100)),
        ({"LOCAL_THROTTLE_BURST": "1000"}, Throttle(rate=50, burst=1000)),
        ({"LOCAL_THROTTLE_RATE": "500", "LOCAL_THROTTLE_BURST": "1000"}, Throttle(rate=500, burst=1000)),
    ],
)
def test_environment_overrides_each_limit(environ, expected):
    assert throttle_from_env(DEV, environ) == expected


def test_inf_lifts_a_limit():
    lifted = throttle_from_env(DEV, {"LOCAL_THROTTLE_RATE": "inf", "LOCAL_THROTTLE_BURST": "inf"})
    assert math.isinf(lifted.rate) and lifted.burst >= 2**62
    assert takes(TokenBucket(lifted, Clock()), 10_000) == [True] * 10_000


def test_without_template_throttling_the_environment_must_give_a_burst():
    assert throttle_from_env(None, {}) is None
    assert throttle_from_env(None, {"LOCAL_THROTTLE_RATE": "5", "LOCAL_THROTTLE_BURST": "10"}) == Throttle(5, 10)
    with pytest.raises(ValueError, match="LOCAL_THROTTLE_BURST"):
        throttle_from_env(None, {"LOCAL_THROTTLE_RATE": "5"})
