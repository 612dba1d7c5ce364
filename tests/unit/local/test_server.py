"""The gateway's request path (authorizer, integration, error mapping) and its HTTP server."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import requests

from local.apigw import MAX_BODY_BYTES, RestApi, Throttle, build_rest_api
from local.auth import InvalidToken
from local.functions import FunctionError, FunctionTimeout
from local.proxy import HttpRequest
from local.server import ApiServer, Gateway
from tests.unit.local.api_template import API, api_resources
from tests.unit.local.conftest import stack_resources

GOOD_TOKEN = "good-token"
CLAIMS = {"sub": "s-1", "cognito:username": "alice", "cognito:groups": ["admin"], "exp": 2}


class FakeFunctions:
    """Records invocations; answers with whatever `result` is (or raises it)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any], str]] = []
        self.result: Any = {"statusCode": 200, "body": '{"ok": true}'}

    def __call__(self, function: str, event: dict[str, Any], request_id: str) -> Any:
        self.calls.append((function, event, request_id))
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def verify(token: str) -> Mapping[str, Any]:
    if token != GOOD_TOKEN:
        raise InvalidToken("bad signature")
    return CLAIMS


@pytest.fixture
def functions() -> FakeFunctions:
    return FakeFunctions()


def make_gateway(functions: FakeFunctions, *, gateway_responses: bool = True) -> Gateway:
    api: RestApi = build_rest_api(
        stack_resources(api_resources(with_gateway_responses=gateway_responses))
    )
    return Gateway(api, functions, verify)


def get(path: str, headers: list[tuple[str, str]] | None = None, body: bytes = b"") -> HttpRequest:
    return HttpRequest("GET", path, "", headers or [], body)


def test_authorized_request_reaches_the_function_with_claims(functions: FakeFunctions) -> None:
    gateway = make_gateway(functions)
    response, function = gateway.handle(
        get("/dev/contacts/persons/p1", [("authorization", f"Bearer {GOOD_TOKEN}")])
    )
    assert (response.status, json.loads(response.body), function) == (
        200,
        {"ok": True},
        "ContactsFn",
    )
    ((name, event, request_id),) = functions.calls
    assert name == "ContactsFn"
    assert event["pathParameters"] == {"personId": "p1"}
    assert event["requestContext"]["authorizer"]["claims"]["cognito:groups"] == "admin"
    assert event["requestContext"]["requestId"] == request_id
    assert dict(response.headers)["x-amzn-RequestId"] == request_id


def test_bare_token_without_bearer_is_accepted(functions: FakeFunctions) -> None:
    response, _ = make_gateway(functions).handle(
        get("/contacts/persons", [("Authorization", GOOD_TOKEN)])
    )
    assert response.status == 200


@pytest.mark.parametrize(
    "headers",
    [
        [],
        [("Authorization", "")],
        [("Authorization", "Bearer ")],
        [("Authorization", "Bearer nope")],
    ],
)
def test_missing_or_invalid_token_is_401_and_the_function_is_not_called(
    functions: FakeFunctions, headers: list[tuple[str, str]]
) -> None:
    response, function = make_gateway(functions).handle(get("/contacts/persons", headers))
    assert response.status == 401
    assert json.loads(response.body)["error"]["code"] == "UNAUTHORIZED"
    assert json.loads(response.body)["error"]["message"] == "Unauthorized"
    assert function is None and functions.calls == []


def test_public_route_needs_no_token(functions: FakeFunctions) -> None:
    response, function = make_gateway(functions).handle(get("/docs/index.html"))
    assert response.status == 200 and function == "DocsFn"
    assert "authorizer" not in functions.calls[0][1]["requestContext"]


def test_unknown_route_is_missing_authentication_token(functions: FakeFunctions) -> None:
    custom, _ = make_gateway(functions).handle(get("/nope"))
    assert custom.status == 404  # the template's GatewayResponse overrides API Gateway's 403
    assert json.loads(custom.body)["error"]["code"] == "ROUTE_NOT_FOUND"
    default, _ = make_gateway(functions, gateway_responses=False).handle(get("/nope"))
    assert default.status == 403
    assert json.loads(default.body) == {"message": "Missing Authentication Token"}
    assert functions.calls == []


@pytest.mark.parametrize(
    "failure",
    [
        FunctionError("ContactsFn", "ValueError", "boom", "Traceback..."),
        FunctionTimeout("ContactsFn", "Sandbox.Timedout", "Task timed out after 3.00 seconds"),
        {"statusCode": 200, "body": {"not": "a string"}},
        "not a proxy response",
    ],
)
def test_function_failures_are_502_internal_server_error(
    functions: FakeFunctions, failure: Any, caplog: pytest.LogCaptureFixture
) -> None:
    functions.result = failure
    gateway = make_gateway(functions, gateway_responses=False)
    response, function = gateway.handle(get("/contacts/persons", [("Authorization", GOOD_TOKEN)]))
    assert response.status == 502
    assert json.loads(response.body) == {"message": "Internal server error"}
    assert function == "ContactsFn"
    assert any("ContactsFn" in record.getMessage() for record in caplog.records)
    custom, _ = make_gateway(functions).handle(
        get("/contacts/persons", [("Authorization", GOOD_TOKEN)])
    )
    assert custom.status == 502
    assert json.loads(custom.body)["error"]["code"] == "GATEWAY_ERROR"


def test_function_error_trace_is_logged(
    functions: FakeFunctions, caplog: pytest.LogCaptureFixture
) -> None:
    functions.result = FunctionError("ContactsFn", "KeyError", "'x'", "Traceback: line 7")
    make_gateway(functions).handle(get("/contacts/persons", [("Authorization", GOOD_TOKEN)]))
    assert "Traceback: line 7" in caplog.text and "KeyError" in caplog.text


def test_body_over_10_mb_is_413(functions: FakeFunctions) -> None:
    response, _ = make_gateway(functions, gateway_responses=False).handle(
        HttpRequest("POST", "/docs/x", "", [], b"x" * (MAX_BODY_BYTES + 1))
    )
    assert response.status == 413
    assert functions.calls == []


def test_cors_preflight_is_answered_without_a_function(functions: FakeFunctions) -> None:
    response, function = make_gateway(functions).handle(
        HttpRequest("OPTIONS", "/contacts/persons", "", [], b"")
    )
    assert response.status == 204 and function is None
    assert dict(response.headers)["Access-Control-Allow-Origin"] == "*"


@pytest.fixture
def server(functions: FakeFunctions) -> Iterator[ApiServer]:
    api_server = ApiServer(make_gateway(functions), port=0).start()
    yield api_server
    api_server.stop()


def test_http_server_round_trip(server: ApiServer, functions: FakeFunctions) -> None:
    functions.result = {
        "statusCode": 201,
        "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]},
        "headers": {"Content-Type": "application/json"},
        "body": '{"created": true}',
    }
    response = requests.post(
        f"{server.url}/dev/contacts/persons?x=1&x=2",
        headers={"Authorization": f"Bearer {GOOD_TOKEN}", "Content-Type": "application/json"},
        data=b'{"firstName": "Ann"}',
        timeout=10,
    )
    assert response.status_code == 201
    assert response.json() == {"created": True}
    assert response.raw.headers.getlist("Set-Cookie") == ["a=1", "b=2"]
    event = functions.calls[0][1]
    assert event["httpMethod"] == "POST"
    assert event["path"] == "/contacts/persons"
    assert event["requestContext"]["path"] == "/dev/contacts/persons"
    assert event["body"] == '{"firstName": "Ann"}'
    assert event["multiValueQueryStringParameters"] == {"x": ["1", "2"]}
    assert event["headers"]["Content-Type"] == "application/json"


def test_http_server_chunked_body_and_unknown_route(
    server: ApiServer, functions: FakeFunctions
) -> None:
    chunks = iter([b'{"a":', b" 1}"])
    response = requests.put(f"{server.url}/docs/upload", data=chunks, timeout=10)
    assert response.status_code == 200
    assert functions.calls[0][1]["body"] == '{"a": 1}'
    missing = requests.get(f"{server.url}/nothing/here", timeout=10)
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "ROUTE_NOT_FOUND"


def test_http_server_answers_413_to_an_oversized_body(server: ApiServer) -> None:
    response = requests.post(
        f"{server.url}/docs/upload", data=b"x" * (MAX_BODY_BYTES + 10), timeout=30
    )
    assert response.status_code == 413


# --- stage throttling ---------------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def throttled_gateway(
    functions: FakeFunctions, clock: Clock, *, rate: float = 1, burst: int = 2, throttle: Throttle | None = None
) -> Gateway:
    """A gateway whose template throttles the stage (MethodSettings */*) and answers THROTTLED with its own body."""
    resources = copy.deepcopy(api_resources())
    resources["Stage"]["Properties"]["MethodSettings"] = [
        {"HttpMethod": "*", "ResourcePath": "/*", "ThrottlingRateLimit": rate, "ThrottlingBurstLimit": burst}
    ]
    resources["Throttled"] = {
        "Type": "AWS::ApiGateway::GatewayResponse",
        "Properties": {
            "ResponseType": "THROTTLED",
            "RestApiId": {"Ref": API},
            "StatusCode": "429",
            "ResponseTemplates": {
                "application/json": '{"error": {"code": "THROTTLED", "message": $context.error.messageString}}'
            },
        },
    }
    return Gateway(build_rest_api(stack_resources(resources)), functions, verify, throttle=throttle, clock=clock)


def test_over_the_stage_limit_the_gateway_answers_throttled_without_calling_the_function(
    functions: FakeFunctions,
) -> None:
    clock = Clock()
    gateway = throttled_gateway(functions, clock, rate=1, burst=2)
    statuses = [gateway.handle(get("/docs/x"))[0].status for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert len(functions.calls) == 2
    response, function = gateway.handle(get("/docs/x"))
    assert json.loads(response.body) == {"error": {"code": "THROTTLED", "message": "Too Many Requests"}}
    assert function is None
    clock.now += 1.0  # one token back
    assert gateway.handle(get("/docs/x"))[0].status == 200


def test_a_local_throttle_replaces_the_templates(functions: FakeFunctions) -> None:
    gateway = throttled_gateway(functions, Clock(), rate=1, burst=2, throttle=Throttle(rate=1, burst=5))
    assert [gateway.handle(get("/docs/x"))[0].status for _ in range(6)] == [200] * 5 + [429]


def test_http_server_answers_429_with_the_gateway_response_over_the_limit(functions: FakeFunctions) -> None:
    api_server = ApiServer(throttled_gateway(functions, Clock(), rate=0.001, burst=1), port=0).start()
    try:
        assert requests.get(f"{api_server.url}/docs/x", timeout=10).status_code == 200
        response = requests.get(f"{api_server.url}/docs/x", timeout=10)
    finally:
        api_server.stop()
    assert response.status_code == 429
    assert response.json() == {"error": {"code": "THROTTLED", "message": "Too Many Requests"}}
    assert response.headers["x-amzn-ErrorType"] == "TooManyRequestsException"
    assert len(functions.calls) == 1
