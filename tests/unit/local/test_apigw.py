"""Routes, gateway responses, proxy events and proxy responses built from a REST API template."""

from __future__ import annotations

import base64
import json
import uuid

import pytest

from local.apigw import (
    DEFAULT_5XX,
    MISSING_AUTHENTICATION_TOKEN,
    REQUEST_TOO_LARGE,
    UNAUTHORIZED,
    RestApi,
    build_rest_api,
    gateway_response,
    render_template,
)
from local.proxy import (
    HttpRequest,
    MalformedResponse,
    RequestContext,
    build_event,
    proxy_response,
    stringify_claims,
)
from local.template import TemplateError
from tests.unit.local.api_template import API, api_resources
from tests.unit.local.conftest import stack_resources


@pytest.fixture(scope="module")
def api() -> RestApi:
    return build_rest_api(stack_resources(api_resources()))


@pytest.fixture(scope="module")
def bare_api() -> RestApi:
    return build_rest_api(stack_resources(api_resources(with_gateway_responses=False)))


def request(
    method: str = "GET",
    path: str = "/",
    query: str = "",
    headers: list[tuple[str, str]] | None = None,
    body: bytes = b"",
) -> HttpRequest:
    return HttpRequest(method, path, query, headers or [("Host", "127.0.0.1:3000")], body)


# ---------------------------------------------------------------------------------- routing


def test_routes_come_from_the_template(api: RestApi) -> None:
    routes = {(m.http_method, m.resource_path): m for m in api.routes()}
    assert set(routes) == {
        ("GET", "/"),
        ("ANY", "/docs/{proxy+}"),
        ("GET", "/contacts/persons"),
        ("POST", "/contacts/persons"),
        ("OPTIONS", "/contacts/persons"),
        ("GET", "/contacts/persons/search"),
        ("GET", "/contacts/persons/{personId}"),
        ("GET", "/contacts/persons/{personId}/addresses"),
    }
    person = routes[("GET", "/contacts/persons/{personId}")]
    assert person.function == "ContactsFn"
    assert person.authorization_type == "COGNITO_USER_POOLS"
    assert person.authorizer is not None and person.authorizer.header == "Authorization"
    assert routes[("GET", "/")].authorization_type == "NONE"
    assert api.stage == "dev"


@pytest.mark.parametrize(
    ("method", "path", "resource", "params"),
    [
        ("GET", "/", "/", {}),
        ("GET", "/contacts/persons", "/contacts/persons", {}),
        ("GET", "/contacts/persons/", "/contacts/persons", {}),
        ("GET", "/contacts/persons/search", "/contacts/persons/search", {}),
        ("GET", "/contacts/persons/p1", "/contacts/persons/{personId}", {"personId": "p1"}),
        (
            "GET",
            "/contacts/persons/a%20b%2Fc",
            "/contacts/persons/{personId}",
            {"personId": "a b/c"},
        ),
        (
            "GET",
            "/contacts/persons/p1/addresses",
            "/contacts/persons/{personId}/addresses",
            {"personId": "p1"},
        ),
        ("DELETE", "/docs/a/b/c.json", "/docs/{proxy+}", {"proxy": "a/b/c.json"}),
        ("get", "/docs/x", "/docs/{proxy+}", {"proxy": "x"}),
    ],
)
def test_matching(api: RestApi, method: str, path: str, resource: str, params: dict) -> None:
    match = api.match(method, path)
    assert match is not None
    assert match.method.resource_path == resource
    assert dict(match.path_parameters) == params


def test_literal_part_beats_param_and_search_is_not_a_person_id(api: RestApi) -> None:
    match = api.match("GET", "/contacts/persons/search")
    assert match is not None and match.path_parameters == {}


def test_param_is_used_when_the_literal_branch_dead_ends(api: RestApi) -> None:
    # "search" has no "addresses" child, so API Gateway's tree walk falls back to {personId}.
    match = api.match("GET", "/contacts/persons/search/addresses")
    assert match is not None
    assert match.path_parameters == {"personId": "search"}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/nope"),
        ("GET", "/contacts"),  # a resource without methods
        ("DELETE", "/contacts/persons"),  # method not defined, no ANY
        ("GET", "/docs"),  # {proxy+} needs at least one segment
        ("GET", "/contacts/persons//addresses"),  # empty {personId}
    ],
)
def test_unknown_route_or_method_does_not_match(api: RestApi, method: str, path: str) -> None:
    assert api.match(method, path) is None


def test_stage_prefix_is_optional(api: RestApi) -> None:
    assert api.strip_stage("/dev/contacts/persons") == "/contacts/persons"
    assert api.strip_stage("/dev") == "/"
    assert api.strip_stage("/contacts/persons") == "/contacts/persons"
    assert api.strip_stage("/development/x") == "/development/x"


def test_cors_preflight_mock_is_served_statically(api: RestApi) -> None:
    match = api.match("OPTIONS", "/contacts/persons")
    assert match is not None and match.method.mock is not None
    assert match.method.mock.status == 204
    assert match.method.mock.headers == {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "GET,POST",
    }


def test_method_on_unknown_resource_is_a_template_error() -> None:
    resources = api_resources()
    resources["Broken"] = {
        "Type": "AWS::ApiGateway::Method",
        "Properties": {
            "HttpMethod": "GET",
            "ResourceId": {"Ref": "Nowhere"},
            "RestApiId": {"Ref": API},
            "Integration": {"Type": "AWS_PROXY", "Uri": "x"},
        },
    }
    with pytest.raises(TemplateError, match=r"Broken\.Properties\.ResourceId"):
        build_rest_api(stack_resources(resources))


# ------------------------------------------------------------------------- gateway responses


def test_render_template_supports_context_variables() -> None:
    variables = {"error.message": "No", "error.messageString": '"No"', "requestId": "r-1"}
    assert (
        render_template(
            '{"m": $context.error.messageString, "raw": "$context.error.message.", '
            '"id": "${context.requestId}", "q": "$!context.unknown"}',
            variables,
        )
        == '{"m": "No", "raw": "No.", "id": "r-1", "q": ""}'
    )


def test_custom_gateway_response_status_template_and_headers(api: RestApi) -> None:
    context = RequestContext.new()
    req = request(headers=[("X-Request", "abc")])
    response = gateway_response(api, MISSING_AUTHENTICATION_TOKEN, context, req)
    assert response.status == 404
    assert json.loads(response.body) == {
        "error": {
            "code": "ROUTE_NOT_FOUND",
            "message": "Missing Authentication Token",
            "type": "MISSING_AUTHENTICATION_TOKEN",
            "id": context.request_id,
        }
    }
    headers = dict(response.headers)
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert headers["X-Echo"] == "abc"
    assert headers["x-amzn-ErrorType"] == "MissingAuthenticationTokenException"


def test_message_string_is_a_json_literal_even_with_quotes(api: RestApi) -> None:
    response = gateway_response(
        api, UNAUTHORIZED, RequestContext.new(), request(), message='say "hi"\n'
    )
    assert json.loads(response.body)["error"]["message"] == 'say "hi"\n'


def test_type_without_own_response_falls_back_to_default_4xx_or_5xx(api: RestApi) -> None:
    too_large = gateway_response(api, REQUEST_TOO_LARGE, RequestContext.new(), request())
    assert too_large.status == 413  # DEFAULT_4XX has no status of its own
    assert json.loads(too_large.body)["error"]["code"] == "BAD_REQUEST"
    assert json.loads(too_large.body)["error"]["type"] == "REQUEST_TOO_LARGE"
    failure = gateway_response(api, DEFAULT_5XX, RequestContext.new(), request(), status=502)
    assert failure.status == 502
    assert json.loads(failure.body)["error"] == {
        "code": "GATEWAY_ERROR",
        "message": "Internal server error",
        "type": "DEFAULT_5XX",
        "id": json.loads(failure.body)["error"]["id"],
    }


@pytest.mark.parametrize(
    ("kind", "status", "body"),
    [
        (MISSING_AUTHENTICATION_TOKEN, 403, {"message": "Missing Authentication Token"}),
        (UNAUTHORIZED, 401, {"message": "Unauthorized"}),
        (REQUEST_TOO_LARGE, 413, {"message": "Request Too Large"}),
        (DEFAULT_5XX, 502, {"message": "Internal server error"}),
    ],
)
def test_api_gateway_defaults_without_gateway_responses(
    bare_api: RestApi, kind: str, status: int, body: dict
) -> None:
    response = gateway_response(bare_api, kind, RequestContext.new(), request())
    assert response.status == status
    assert json.loads(response.body) == body
    assert ("Content-Type", "application/json") in response.headers


# ------------------------------------------------------------------------------------ events


CLAIMS = {
    "sub": str(uuid.uuid4()),
    "cognito:username": "alice",
    "cognito:groups": ["admin", "vehicle"],
    "email_verified": True,
    "exp": 1_900_000_000,
    "iat": 1_800_000_000,
    "token_use": "id",
}


def _event(api: RestApi, req: HttpRequest, claims: dict | None = None) -> dict:
    match = api.match(req.method, api.strip_stage(req.raw_path))
    assert match is not None
    return build_event(api, match, req, RequestContext.new(), claims)


def test_event_has_the_rest_v1_proxy_shape(api: RestApi) -> None:
    req = HttpRequest(
        "GET",
        "/dev/contacts/persons/p%C3%A9/addresses",
        "limit=5&tag=a&tag=b&q=x%20y",
        [("Host", "localhost:3000"), ("User-Agent", "curl/8"), ("X-Multi", "1"), ("X-Multi", "2")],
        b'{"a": 1}',
        source_ip="10.1.2.3",
    )
    event = _event(api, req, CLAIMS)
    assert event["resource"] == "/contacts/persons/{personId}/addresses"
    assert event["path"] == "/contacts/persons/p%C3%A9/addresses"
    assert event["httpMethod"] == "GET"
    assert event["pathParameters"] == {"personId": "pé"}
    assert event["queryStringParameters"] == {"limit": "5", "tag": "b", "q": "x y"}
    assert event["multiValueQueryStringParameters"] == {
        "limit": ["5"],
        "tag": ["a", "b"],
        "q": ["x y"],
    }
    assert event["headers"]["X-Multi"] == "2"
    assert event["multiValueHeaders"]["X-Multi"] == ["1", "2"]
    assert event["headers"]["X-Forwarded-For"] == "10.1.2.3"
    assert event["stageVariables"] is None
    assert event["body"] == '{"a": 1}' and event["isBase64Encoded"] is False
    ctx = event["requestContext"]
    assert ctx["resourcePath"] == event["resource"]
    assert ctx["path"] == "/dev/contacts/persons/p%C3%A9/addresses"
    assert ctx["stage"] == "dev"
    assert ctx["httpMethod"] == "GET"
    assert ctx["accountId"] == "123456789012"
    assert ctx["apiId"] == api.api_id
    assert ctx["identity"]["sourceIp"] == "10.1.2.3"
    assert ctx["identity"]["userAgent"] == "curl/8"
    assert ctx["domainName"] == "localhost:3000" and ctx["domainPrefix"] == "localhost"
    assert ctx["resourceId"] and ctx["extendedRequestId"] and ctx["requestTime"]
    assert isinstance(ctx["requestTimeEpoch"], int)
    uuid.UUID(ctx["requestId"])


def test_claims_are_all_strings_with_groups_comma_joined(api: RestApi) -> None:
    event = _event(api, request(path="/contacts/persons"), CLAIMS)
    claims = event["requestContext"]["authorizer"]["claims"]
    assert all(isinstance(v, str) for v in claims.values())
    assert claims["cognito:groups"] == "admin,vehicle"
    assert claims["email_verified"] == "true"
    assert claims["exp"] == "1900000000"
    assert claims == stringify_claims(CLAIMS)


def test_absent_parts_are_null(api: RestApi) -> None:
    event = _event(api, request(path="/contacts/persons"))
    assert event["queryStringParameters"] is None
    assert event["multiValueQueryStringParameters"] is None
    assert event["pathParameters"] is None
    assert event["body"] is None and event["isBase64Encoded"] is False
    assert "authorizer" not in event["requestContext"]


def test_non_utf8_body_is_base64(api: RestApi) -> None:
    event = _event(api, request("POST", "/contacts/persons", body=b"\xff\x00\xfe"))
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == b"\xff\x00\xfe"


# --------------------------------------------------------------------------------- responses


def test_proxy_response_merges_headers_and_defaults_content_type() -> None:
    context = RequestContext.new()
    response = proxy_response(
        {
            "statusCode": 201,
            "headers": {"X-One": "1", "Set-Cookie": "ignored-when-multi"},
            "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]},
            "body": "{}",
        },
        context,
    )
    assert response.status == 201
    assert response.body == b"{}"
    assert [v for k, v in response.headers if k == "Set-Cookie"] == ["a=1", "b=2"]
    assert ("X-One", "1") in response.headers
    assert ("Content-Type", "application/json") in response.headers
    assert ("x-amzn-RequestId", context.request_id) in response.headers


def test_proxy_response_decodes_base64_bodies() -> None:
    response = proxy_response(
        {
            "statusCode": 200,
            "headers": {"Content-Type": "image/png"},
            "body": base64.b64encode(b"\x89PNG").decode(),
            "isBase64Encoded": True,
        },
        RequestContext.new(),
    )
    assert response.body == b"\x89PNG"
    assert [v for k, v in response.headers if k == "Content-Type"] == ["image/png"]


@pytest.mark.parametrize(
    "result",
    [
        None,
        "hello",
        {"body": "{}"},
        {"statusCode": "abc"},
        {"statusCode": 200, "body": {"not": "a string"}},
        {"statusCode": 200, "headers": ["x"]},
        {"statusCode": 200, "multiValueHeaders": {"X": "not-a-list"}},
        {"statusCode": 200, "body": "***", "isBase64Encoded": True},
    ],
)
def test_malformed_proxy_responses_are_rejected(result: object) -> None:
    with pytest.raises(MalformedResponse):
        proxy_response(result, RequestContext.new())
