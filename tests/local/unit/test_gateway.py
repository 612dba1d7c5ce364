"""The gateway's request path (throttling, authorizer, integration, error mapping, Lambda API routes) as a WSGI app,
driven by werkzeug's test client: no socket, no server."""

from __future__ import annotations

import base64
import copy
import gzip
import json
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from werkzeug.test import Client

from local.apigateway.authorizer import InvalidToken
from local.apigateway.gateway import Gateway, LambdaApi, MalformedResponse, proxy_response
from local.apigateway.restapi import MAX_BODY_BYTES, Throttle, build_rest_api
from local.awslambda.events import RequestContext
from local.awslambda.pool import FunctionError, FunctionSpec, FunctionTimeout
from tests.local.api_template import API, api_resources
from tests.local.conftest import stack_resources

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
    if not token:
        raise InvalidToken("no ID token", "missing")
    if token != GOOD_TOKEN:
        raise InvalidToken("bad signature")
    return CLAIMS


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def functions() -> FakeFunctions:
    return FakeFunctions()


def client(functions: FakeFunctions, *, gateway_responses: bool = True, **options: Any) -> Client:
    api = build_rest_api(stack_resources(api_resources(with_gateway_responses=gateway_responses)))
    return Client(Gateway(api, functions, verify, **options))


def test_authorized_request_reaches_the_function_with_claims(functions: FakeFunctions) -> None:
    response = client(functions).post("/dev/contacts/persons?x=1&x=2", data=b'{"firstName": "Ann"}',
                                      headers={"authorization": f"Bearer {GOOD_TOKEN}",
                                               "Content-Type": "application/json"})
    assert (response.status_code, response.json) == (200, {"ok": True})
    ((name, event, request_id),) = functions.calls
    assert name == "Test-dev/ContactsFn"
    assert event["httpMethod"] == "POST" and event["path"] == "/contacts/persons"
    assert event["requestContext"]["path"] == "/dev/contacts/persons"
    assert event["body"] == '{"firstName": "Ann"}'
    assert event["multiValueQueryStringParameters"] == {"x": ["1", "2"]}
    assert event["headers"]["Content-Type"] == "application/json"
    assert event["requestContext"]["authorizer"]["claims"]["cognito:groups"] == "admin"
    assert event["requestContext"]["requestId"] == request_id == response.headers["x-amzn-RequestId"]


def test_path_parameters_and_a_bare_token_without_bearer(functions: FakeFunctions) -> None:
    response = client(functions).get("/contacts/persons/p1", headers={"Authorization": GOOD_TOKEN})
    assert response.status_code == 200
    assert functions.calls[0][1]["pathParameters"] == {"personId": "p1"}


@pytest.mark.parametrize(("headers", "why", "challenge"), [
    ({}, "no ID token", 'Bearer realm="blueprints"'),
    ({"Authorization": ""}, "no ID token", 'Bearer realm="blueprints"'),
    # the header stripped is the word Bearer alone: taken as the token, as API Gateway takes it
    ({"Authorization": "Bearer "}, "bad signature",
     'Bearer realm="blueprints", error="invalid_token", error_description="bad signature"'),
    ({"Authorization": "Bearer nope"}, "bad signature",
     'Bearer realm="blueprints", error="invalid_token", error_description="bad signature"'),
])
def test_missing_or_invalid_token_is_401_saying_why_and_the_function_is_not_called(
        functions: FakeFunctions, headers: dict[str, str], why: str, challenge: str) -> None:
    response = client(functions).get("/contacts/persons", headers=headers)
    assert response.status_code == 401
    # The template's message with the reason where API Gateway puts "Unauthorized" ($context.error.message), and an
    # RFC 6750 challenge: without a token no error code, with a bad one invalid_token and why
    assert response.json["error"] == {"code": "UNAUTHORIZED", "message": why, "type": "UNAUTHORIZED",
                                      "id": response.headers["x-amzn-RequestId"]}
    assert response.headers["WWW-Authenticate"] == challenge
    assert functions.calls == []


def test_public_route_needs_no_token(functions: FakeFunctions) -> None:
    assert client(functions).get("/docs").status_code == 200
    assert "authorizer" not in functions.calls[0][1]["requestContext"]


def test_unknown_route_is_missing_authentication_token(functions: FakeFunctions) -> None:
    custom = client(functions).get("/nope")
    assert custom.status_code == 404  # the template's GatewayResponse overrides API Gateway's 403
    assert custom.json["error"]["code"] == "ROUTE_NOT_FOUND"
    default = client(functions, gateway_responses=False).get("/nope")
    assert (default.status_code, default.json) == (403, {"message": "Missing Authentication Token"})
    assert functions.calls == []


@pytest.mark.parametrize("failure", [
    FunctionError("ContactsFn", "ValueError", "boom", "Traceback: line 7"),
    FunctionTimeout("ContactsFn", "Sandbox.Timedout", "Task timed out after 3.00 seconds"),
    {"statusCode": 200, "body": {"not": "a string"}},
    "not a proxy response",
])
def test_function_failures_are_502_internal_server_error(functions: FakeFunctions, failure: Any,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    functions.result = failure
    response = client(functions, gateway_responses=False).get("/contacts/persons", headers={"Authorization": GOOD_TOKEN})
    assert (response.status_code, response.json) == (502, {"message": "Internal server error"})
    assert any("ContactsFn" in record.getMessage() for record in caplog.records)
    custom = client(functions).get("/contacts/persons", headers={"Authorization": GOOD_TOKEN})
    assert (custom.status_code, custom.json["error"]["code"]) == (502, "GATEWAY_ERROR")
    if isinstance(failure, FunctionError) and not isinstance(failure, FunctionTimeout):
        assert "Traceback: line 7" in caplog.text


def test_one_log_line_per_request(functions: FakeFunctions, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="local.apigateway")
    client(functions).get("/docs")
    (line,) = [r.getMessage() for r in caplog.records if r.name == "local.apigateway"]
    assert line.startswith("GET /docs 200 DocsFn ") and line.endswith("ms")


def test_body_over_10_mb_is_413(functions: FakeFunctions) -> None:
    response = client(functions, gateway_responses=False).post("/docs", data=b"x" * (MAX_BODY_BYTES + 1))
    assert (response.status_code, response.json) == (413, {"message": "Request Too Large"})
    assert functions.calls == []


def throttled(functions: FakeFunctions, clock: Clock, *, rate: float = 1, burst: int = 2,
              throttle: Throttle | None = None) -> Client:
    """A gateway whose template throttles the stage (MethodSettings */*) and answers THROTTLED with its own body."""
    resources = copy.deepcopy(api_resources())
    resources["Stage"]["Properties"]["MethodSettings"] = [
        {"HttpMethod": "*", "ResourcePath": "/*", "ThrottlingRateLimit": rate, "ThrottlingBurstLimit": burst}]
    resources["Throttled"] = {"Type": "AWS::ApiGateway::GatewayResponse", "Properties": {
        "ResponseType": "THROTTLED", "RestApiId": {"Ref": API}, "StatusCode": "429",
        "ResponseTemplates": {"application/json": '{"error": {"code": "THROTTLED", "message": '
                                                  '$context.error.messageString}}'}}}
    return Client(Gateway(build_rest_api(stack_resources(resources)), functions, verify, throttle=throttle, clock=clock))


def test_over_the_stage_limit_the_gateway_answers_throttled_without_calling_the_function(
        functions: FakeFunctions) -> None:
    clock = Clock()
    gateway = throttled(functions, clock, rate=1, burst=2)
    assert [gateway.get("/docs").status_code for _ in range(3)] == [200, 200, 429]
    assert len(functions.calls) == 2
    response = gateway.get("/docs")
    assert response.json == {"error": {"code": "THROTTLED", "message": "Too Many Requests"}}
    assert response.headers["x-amzn-ErrorType"] == "TooManyRequestsException"
    clock.now += 1.0  # one token back
    assert gateway.get("/docs").status_code == 200


def test_a_local_throttle_replaces_the_templates(functions: FakeFunctions) -> None:
    gateway = throttled(functions, Clock(), rate=1, burst=2, throttle=Throttle(rate=1, burst=5))
    assert [gateway.get("/docs").status_code for _ in range(6)] == [200] * 5 + [429]


def test_a_method_with_its_own_throttling_has_its_own_bucket(functions: FakeFunctions) -> None:
    # Given a stage of 1/s, burst 2, and GET /docs's own setting of 1/s, burst 3 (as the public routes get theirs)
    resources = copy.deepcopy(api_resources())
    resources["Stage"]["Properties"]["MethodSettings"] = [
        {"HttpMethod": "*", "ResourcePath": "/*", "ThrottlingRateLimit": 1, "ThrottlingBurstLimit": 2},
        {"HttpMethod": "GET", "ResourcePath": "/~1docs", "ThrottlingRateLimit": 1, "ThrottlingBurstLimit": 3}]
    gateway = Client(Gateway(build_rest_api(stack_resources(resources)), functions, verify, clock=Clock()))
    # Then /docs spends its own three tokens, and the rest of the stage still has its two
    assert [gateway.get("/docs").status_code for _ in range(4)] == [200, 200, 200, 429]
    auth = {"Authorization": f"Bearer {GOOD_TOKEN}"}
    assert [gateway.get("/contacts/persons", headers=auth).status_code for _ in range(3)] == [200, 200, 429]


def test_a_local_throttle_replaces_the_methods_own_too(functions: FakeFunctions) -> None:
    resources = copy.deepcopy(api_resources())
    resources["Stage"]["Properties"]["MethodSettings"] = [
        {"HttpMethod": "GET", "ResourcePath": "/~1docs", "ThrottlingRateLimit": 1, "ThrottlingBurstLimit": 1}]
    gateway = Client(Gateway(build_rest_api(stack_resources(resources)), functions, verify, clock=Clock(),
                             throttle=Throttle(rate=1, burst=3)))
    assert [gateway.get("/docs").status_code for _ in range(4)] == [200, 200, 200, 429]


# --- payload compression (the RestApi's MinimumCompressionSize) ------------------------------------------------

def compressing(functions: FakeFunctions, minimum: int | None) -> Client:
    resources = copy.deepcopy(api_resources())
    if minimum is not None:
        resources[API]["Properties"]["MinimumCompressionSize"] = minimum
    return Client(Gateway(build_rest_api(stack_resources(resources)), functions, verify))


@pytest.mark.parametrize(("accept", "size", "encoding"), [
    ("gzip, deflate, br, zstd", 1024, "gzip"),  # Chromium's
    ("br, deflate", 5000, "deflate"),  # the first supported of the highest priority
    ("deflate;q=0.5, gzip;q=0.8", 5000, "gzip"),
    ("gzip;q=0, deflate", 1024, "deflate"),
    ("br;q=1.0, gzip;q=0.8", 5000, None),  # the highest priority is one API Gateway does not support
    ("identity, gzip;q=0.5", 5000, None),
    ("gzip", 1023, None),  # under the threshold
    ("*", 5000, None),  # no explicit coding
    (None, 5000, None),
])
def test_an_answer_at_or_over_the_threshold_is_compressed_as_the_client_accepts(
        functions: FakeFunctions, accept: str | None, size: int, encoding: str | None) -> None:
    body = "x" * size
    functions.result = {"statusCode": 200, "headers": {"Content-Type": "text/plain"}, "body": body}
    headers = {"Accept-Encoding": accept} if accept else {}
    response = compressing(functions, 1024).get("/docs", headers=headers)
    assert response.headers.get("Content-Encoding") == encoding
    raw = response.get_data()
    decoded = {"gzip": lambda b: gzip.decompress(b), "deflate": zlib.decompress, None: lambda b: b}[encoding](raw)
    assert decoded.decode() == body and (encoding is None or len(raw) < size / 10)


def test_a_large_answer_sent_again_reuses_its_encoding(functions: FakeFunctions) -> None:
    from local.apigateway import gateway

    body = "".join(f"{i:x}" for i in range(80_000)).encode()  # over REUSED_ENCODING_BYTES, compressible
    assert len(body) >= gateway.REUSED_ENCODING_BYTES
    functions.result = {"statusCode": 200, "body": body.decode()}
    client = compressing(functions, 1024)
    gateway.encoded.cache_clear()
    first, again = (client.get("/docs", headers={"Accept-Encoding": "gzip"}).get_data() for _ in range(2))
    assert first == again and gzip.decompress(again) == body
    assert gateway.encoded.cache_info().hits == 1  # encoded once


def test_without_a_minimum_compression_size_nothing_is_compressed(functions: FakeFunctions) -> None:
    functions.result = {"statusCode": 200, "body": "x" * 100_000}
    response = compressing(functions, None).get("/docs", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in response.headers and len(response.get_data()) == 100_000


def test_an_answer_the_function_encoded_is_left_as_it_is(functions: FakeFunctions) -> None:
    packed = base64.b64encode(gzip.compress(b"y" * 5000)).decode()
    functions.result = {"statusCode": 200, "headers": {"Content-Encoding": "gzip"}, "body": packed,
                        "isBase64Encoded": True}
    response = compressing(functions, 0).get("/docs", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(response.get_data()) == b"y" * 5000


# --- CORS: the preflight's MOCK integration and the gateway responses' headers --------------------------------

ALLOWED = ("https://a.example", "https://b.example")
# What CDK's addCorsPreflight writes for two origins (aws-apigateway resource.ts): the first origin static, the
# others chosen by the response template.
PREFLIGHT_TEMPLATE = "\n".join([
    '#set($origin = $input.params().header.get("Origin"))', '#if($origin == "")',
    '  #set($origin = $input.params().header.get("origin"))', "#end",
    f'#if($origin == "{ALLOWED[1]}")', "  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)",
    "#end"])


def cors_resources() -> dict[str, Any]:
    resources = copy.deepcopy(api_resources())
    resources["PersonsOptions"] = {"Type": "AWS::ApiGateway::Method", "Properties": {
        "HttpMethod": "OPTIONS", "ResourceId": {"Ref": "Persons"}, "RestApiId": {"Ref": API},
        "AuthorizationType": "NONE", "Integration": {
            "Type": "MOCK", "RequestTemplates": {"application/json": "{ statusCode: 200 }"},
            "IntegrationResponses": [{"StatusCode": "204", "ResponseParameters": {
                "method.response.header.Access-Control-Allow-Headers": "'Authorization,Content-Type'",
                "method.response.header.Access-Control-Allow-Origin": f"'{ALLOWED[0]}'",
                "method.response.header.Vary": "'Origin'",
                "method.response.header.Access-Control-Allow-Methods": "'OPTIONS,GET,POST'",
                "method.response.header.Access-Control-Max-Age": "'600'"},
                "ResponseTemplates": {"application/json": PREFLIGHT_TEMPLATE}}]}}}
    resources["Unauthorized"]["Properties"]["ResponseParameters"] = {
        "gatewayresponse.header.Access-Control-Allow-Origin": "method.request.header.Origin",
        "gatewayresponse.header.Vary": "'Origin'"}
    return resources


def with_cors(functions: FakeFunctions) -> Client:
    return Client(Gateway(build_rest_api(stack_resources(cors_resources())), functions, verify))


@pytest.mark.parametrize(("origin", "allowed"), [
    (ALLOWED[0], ALLOWED[0]), (ALLOWED[1], ALLOWED[1]),
    ("https://evil.example", ALLOWED[0]),  # not its own origin: the browser refuses the call
])
def test_a_preflight_is_answered_by_the_mock_integration_without_a_function_or_a_token(
        functions: FakeFunctions, origin: str, allowed: str) -> None:
    response = with_cors(functions).options("/dev/contacts/persons", headers={
        "Origin": origin, "Access-Control-Request-Method": "POST"})
    assert (response.status_code, response.get_data()) == (204, b"")
    assert response.headers["Access-Control-Allow-Origin"] == allowed
    assert response.headers["Access-Control-Allow-Methods"] == "OPTIONS,GET,POST"
    assert (response.headers["Vary"], response.headers["Access-Control-Max-Age"]) == ("Origin", "600")
    assert functions.calls == []


def test_a_mock_method_with_an_authorizer_answers_only_an_authorized_call(functions: FakeFunctions) -> None:
    # Given: a MOCK method behind the Cognito authorizer (CDK's preflights use none; API Gateway runs the authorizer
    # before any integration, MOCK included)
    resources = cors_resources()
    resources["PersonsOptions"]["Properties"]["AuthorizationType"] = "COGNITO_USER_POOLS"
    gateway = Client(Gateway(build_rest_api(stack_resources(resources)), functions, verify))
    # When / Then: without a token the authorizer refuses; with one the MOCK answers, and no function runs
    refused = gateway.options("/contacts/persons", headers={"Origin": ALLOWED[0]})
    assert refused.status_code == 401 and "WWW-Authenticate" in refused.headers
    answered = gateway.options("/contacts/persons", headers={"Authorization": f"Bearer {GOOD_TOKEN}"})
    assert (answered.status_code, answered.headers["Access-Control-Allow-Origin"]) == (204, ALLOWED[0])
    assert functions.calls == []


def test_a_gateway_response_echoes_the_origin_it_maps_and_omits_it_without_one(functions: FakeFunctions) -> None:
    refused = with_cors(functions).get("/contacts/persons", headers={"Origin": ALLOWED[1]})
    assert refused.status_code == 401 and refused.headers["Access-Control-Allow-Origin"] == ALLOWED[1]
    assert refused.headers["Vary"] == "Origin"
    assert "Access-Control-Allow-Origin" not in with_cors(functions).get("/contacts/persons").headers


def test_proxy_response_merges_headers_and_defaults_content_type() -> None:
    context = RequestContext.new()
    response = proxy_response({"statusCode": 201, "headers": {"X-One": "1", "Set-Cookie": "ignored-when-multi"},
                               "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]}, "body": "{}"}, context)
    assert (response.status_code, response.get_data()) == (201, b"{}")
    assert response.headers.getlist("Set-Cookie") == ["a=1", "b=2"]
    assert response.headers["X-One"] == "1" and response.headers["Content-Type"] == "application/json"
    assert response.headers["x-amzn-RequestId"] == context.request_id


def test_proxy_response_decodes_base64_bodies() -> None:
    response = proxy_response({"statusCode": 200, "headers": {"Content-Type": "image/png"},
                               "body": base64.b64encode(b"\x89PNG").decode(), "isBase64Encoded": True},
                              RequestContext.new())
    assert response.get_data() == b"\x89PNG"
    assert response.headers.getlist("Content-Type") == ["image/png"]


@pytest.mark.parametrize("result", [
    None, "hello", {"body": "{}"}, {"statusCode": "abc"}, {"statusCode": 200, "body": {"not": "a string"}},
    {"statusCode": 200, "headers": ["x"]}, {"statusCode": 200, "multiValueHeaders": {"X": "not-a-list"}},
    {"statusCode": 200, "body": "***", "isBase64Encoded": True},
])
def test_malformed_proxy_responses_are_rejected(result: object) -> None:
    with pytest.raises(MalformedResponse):
        proxy_response(result, RequestContext.new())


ARN = "arn:aws:lambda:us-east-1:123456789012:function:App-dev-Consumer-abc"
SPEC = FunctionSpec(logical_id="Consumer", name="App-dev-Consumer-abc", arn=ARN, handler="functions.x.lambda_handler",
                    runtime="python3.13", code_dir=Path("."), environment={"PARKED_RECORDS_TABLE_NAME": "parked"},
                    timeout=30.0)


def lambda_client(functions: FakeFunctions) -> Client:
    api = build_rest_api(stack_resources(api_resources()))
    lambda_api = LambdaApi(lambda: [SPEC], functions, {SPEC.name, SPEC.arn, SPEC.logical_id}.__contains__)
    return Client(Gateway(api, functions, verify, throttle=Throttle(rate=0, burst=0), lambda_api=lambda_api))


def test_the_lambda_api_lists_functions_and_invokes_them_past_the_gateways_throttling(functions: FakeFunctions) -> None:
    gateway = lambda_client(functions)
    (listed,) = gateway.get("/2015-03-31/functions/").json["Functions"]
    assert (listed["FunctionName"], listed["FunctionArn"], listed["Timeout"]) == (SPEC.name, ARN, 30)
    assert listed["Environment"] == {"Variables": {"PARKED_RECORDS_TABLE_NAME": "parked"}}
    functions.result = {"echo": 1}
    response = gateway.post(f"/2015-03-31/functions/{ARN}:$LATEST/invocations", data=json.dumps({"replay": {}}))
    assert (response.status_code, response.json) == (200, {"echo": 1})
    assert functions.calls[-1][:2] == (ARN, {"replay": {}})


def test_the_lambda_api_answers_errors_as_lambda_does(functions: FakeFunctions) -> None:
    gateway = lambda_client(functions)
    functions.result = FunctionError("Consumer", "RuntimeError", "it broke", "Traceback ...\n  line 1\n")
    failed = gateway.post(f"/2015-03-31/functions/{SPEC.name}/invocations", data=b"{}")
    assert (failed.status_code, failed.headers["X-Amz-Function-Error"]) == (200, "Unhandled")
    assert failed.json == {"errorMessage": "it broke", "errorType": "RuntimeError",
                           "stackTrace": ["Traceback ...", "  line 1"]}
    missing = gateway.post("/2015-03-31/functions/Nope/invocations", data=b"{}")
    assert (missing.status_code, missing.headers["x-amzn-ErrorType"]) == (404, "ResourceNotFoundException")
    event = gateway.post(f"/2015-03-31/functions/{SPEC.name}/invocations", data=b"{}",
                         headers={"X-Amz-Invocation-Type": "Event"})
    assert event.status_code == 400
