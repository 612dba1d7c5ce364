"""One REST (v1) proxy event builder and one Lambda context, for the local gateway and the functional tests."""

from __future__ import annotations

import base64
import time
import uuid

from functions.shared.identity import user_sub
from local.awslambda.events import (
    LambdaContext,
    RequestContext,
    rest_claims,
    rest_event,
)
from local.cognito import id_token_claims
from tests.support.events import claims_for
from tests.support.events import rest_event as functional_event

CLAIMS = {"sub": str(uuid.uuid4()), "cognito:username": "alice", "cognito:groups": ["admin", "vehicle"],
          "email_verified": True, "exp": 1_900_000_000, "iat": 1_800_000_000, "token_use": "id"}


def test_event_has_the_rest_v1_proxy_shape() -> None:
    event = rest_event(
        "get", "/contacts/persons/p%C3%A9/addresses", resource="/contacts/persons/{personId}/addresses",
        path_parameters={"personId": "pé"}, query="limit=5&tag=a&tag=b&q=x%20y",
        headers=[("Host", "localhost:3000"), ("User-Agent", "curl/8"), ("X-Multi", "1"), ("X-Multi", "2")],
        body=b'{"a": 1}', claims=CLAIMS, stage="dev", api_id="api1", resource_id="res1", source_ip="10.1.2.3")
    assert event["resource"] == "/contacts/persons/{personId}/addresses"
    assert event["path"] == "/contacts/persons/p%C3%A9/addresses"
    assert event["httpMethod"] == "GET"
    assert event["pathParameters"] == {"personId": "pé"}
    assert event["queryStringParameters"] == {"limit": "5", "tag": "b", "q": "x y"}
    assert event["multiValueQueryStringParameters"] == {"limit": ["5"], "tag": ["a", "b"], "q": ["x y"]}
    assert event["headers"]["X-Multi"] == "2"
    assert event["multiValueHeaders"]["X-Multi"] == ["1", "2"]
    assert event["headers"]["X-Forwarded-For"] == "10.1.2.3"
    assert event["stageVariables"] is None
    assert event["body"] == '{"a": 1}' and event["isBase64Encoded"] is False
    ctx = event["requestContext"]
    assert ctx["resourcePath"] == event["resource"] and ctx["resourceId"] == "res1"
    assert ctx["path"] == "/dev/contacts/persons/p%C3%A9/addresses"
    assert (ctx["stage"], ctx["httpMethod"], ctx["accountId"], ctx["apiId"]) == ("dev", "GET", "123456789012", "api1")
    assert ctx["identity"]["sourceIp"] == "10.1.2.3" and ctx["identity"]["userAgent"] == "curl/8"
    assert ctx["domainName"] == "localhost:3000" and ctx["domainPrefix"] == "localhost"
    assert ctx["extendedRequestId"] and ctx["requestTime"] and isinstance(ctx["requestTimeEpoch"], int)
    uuid.UUID(ctx["requestId"])


def test_claims_are_all_strings_with_groups_comma_joined() -> None:
    event = rest_event("GET", "/contacts/persons", resource="/contacts/persons", claims=CLAIMS)
    claims = event["requestContext"]["authorizer"]["claims"]
    assert all(isinstance(v, str) for v in claims.values())
    assert claims["cognito:groups"] == "admin,vehicle"
    assert claims["email_verified"] == "true" and claims["exp"] == "1900000000"
    assert claims == rest_claims(CLAIMS)


def test_absent_parts_are_null() -> None:
    event = rest_event("GET", "/contacts/persons", resource="/contacts/persons")
    assert event["queryStringParameters"] is None and event["multiValueQueryStringParameters"] is None
    assert event["pathParameters"] is None
    assert event["body"] is None and event["isBase64Encoded"] is False
    assert "authorizer" not in event["requestContext"]


def test_non_utf8_body_is_base64() -> None:
    event = rest_event("POST", "/contacts/persons", resource="/contacts/persons", body=b"\xff\x00\xfe")
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == b"\xff\x00\xfe"


def test_a_user_has_one_sub_in_local_tokens_and_in_test_events() -> None:
    assert claims_for("alice")["sub"] == id_token_claims("alice")["sub"] == user_sub("alice")
    assert claims_for("alice")["sub"] != claims_for("bob")["sub"]
    assert claims_for("alice", ("admin", "vehicle"))["cognito:groups"] == "admin,vehicle"
    assert "cognito:groups" not in claims_for("alice")


def test_the_functional_tests_event_is_the_gateways_event() -> None:
    # Given the same request, built by the functional tests' helper and by the builder the local gateway uses
    claims = claims_for("alice", ("admin",))
    ours = functional_event("POST", "/contacts/persons/p1?x=1", resource="/contacts/persons/{personId}", body={"a": 1},
                      claims=claims)
    theirs = rest_event("POST", "/contacts/persons/p1", resource="/contacts/persons/{personId}",
                        path_parameters={"personId": "p1"}, query="x=1",
                        headers={"Content-Type": "application/json", "Host": ours["headers"]["Host"]},
                        body='{"a": 1}', claims=claims)
    # Then they differ only in per-request ids and times
    for event in (ours, theirs):
        for key in ("requestId", "extendedRequestId", "requestTime", "requestTimeEpoch"):
            event["requestContext"].pop(key)
        event["headers"].pop("X-Amzn-Trace-Id")
        event["multiValueHeaders"].pop("X-Amzn-Trace-Id")
    assert ours == theirs


def test_the_lambda_context_has_the_runtimes_attributes(monkeypatch) -> None:
    context = LambdaContext()
    assert context.function_name == "test" and context.function_version == "$LATEST"
    assert context.invoked_function_arn == "arn:aws:lambda:us-east-1:123456789012:function:test"
    assert 29_000 < context.get_remaining_time_in_millis() <= 30_000
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "orders")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
    context = LambdaContext("req-1", time.time() * 1000 + 1000, "arn:aws:lambda:us-east-1:1:function:orders:live")
    assert (context.aws_request_id, context.function_name, context.memory_limit_in_mb) == ("req-1", "orders", "256")
    assert context.invoked_function_arn.endswith(":live")
    assert context.get_remaining_time_in_millis() <= 1000
    assert RequestContext.new().request_id != RequestContext.new().request_id
