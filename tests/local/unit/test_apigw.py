"""Routes and gateway responses built from a REST API template, including methods declared in nested stacks."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.apigateway.restapi import (
    DEFAULT_5XX,
    MISSING_AUTHENTICATION_TOKEN,
    REQUEST_TOO_LARGE,
    UNAUTHORIZED,
    RestApi,
    build_rest_api,
    gateway_response,
)
from local.awslambda.events import RequestContext
from local.cloudformation.resources import Clients, StackResources
from local.cloudformation.template import StackTemplate, TemplateError
from tests.local.api_template import API, ROOT, api_resources
from tests.local.conftest import no_clients, stack_of, stack_resources


@pytest.fixture(scope="module")
def api() -> RestApi:
    return build_rest_api(stack_resources(api_resources()))


@pytest.fixture(scope="module")
def bare_api() -> RestApi:
    return build_rest_api(stack_resources(api_resources(with_gateway_responses=False)))


def test_routes_come_from_the_template(api: RestApi) -> None:
    routes = {(m.http_method, m.resource_path): m for m in api.routes()}
    assert set(routes) == {
        ("GET", "/"), ("ANY", "/docs"), ("GET", "/contacts/persons"), ("POST", "/contacts/persons"),
        ("GET", "/contacts/persons/search"), ("GET", "/contacts/persons/{personId}"),
        ("GET", "/contacts/persons/{personId}/addresses"),
    }
    person = routes[("GET", "/contacts/persons/{personId}")]
    assert person.function == "Test-dev/ContactsFn" and person.function_label == "ContactsFn"
    assert person.authorization_type == "COGNITO_USER_POOLS"
    assert person.token_header == "Authorization"
    assert routes[("GET", "/")].authorization_type == "NONE"
    assert api.stage == "dev"


@pytest.mark.parametrize(("method", "path", "resource", "params"), [
    ("GET", "/", "/", {}),
    ("GET", "/contacts/persons", "/contacts/persons", {}),
    ("GET", "/contacts/persons/", "/contacts/persons", {}),
    ("GET", "/contacts/persons/search", "/contacts/persons/search", {}),
    ("GET", "/contacts/persons/p1", "/contacts/persons/{personId}", {"personId": "p1"}),
    ("GET", "/contacts/persons/a%20b%2Fc", "/contacts/persons/{personId}", {"personId": "a b/c"}),
    ("GET", "/contacts/persons/p1/addresses", "/contacts/persons/{personId}/addresses", {"personId": "p1"}),
    ("DELETE", "/docs", "/docs", {}),
    ("get", "/docs", "/docs", {}),
])
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


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/nope"),
    ("GET", "/contacts"),  # a resource without methods
    ("DELETE", "/contacts/persons"),  # method not defined, no ANY
    ("GET", "/docs/x"),  # no child resource
    ("GET", "/contacts/persons//addresses"),  # empty {personId}
])
def test_unknown_route_or_method_does_not_match(api: RestApi, method: str, path: str) -> None:
    assert api.match(method, path) is None


def test_stage_prefix_is_optional(api: RestApi) -> None:
    assert api.strip_stage("/dev/contacts/persons") == "/contacts/persons"
    assert api.strip_stage("/dev") == "/"
    assert api.strip_stage("/contacts/persons") == "/contacts/persons"
    assert api.strip_stage("/development/x") == "/development/x"


def _method(resource: Any, integration: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"Type": "AWS::ApiGateway::Method", "Properties": {
        "HttpMethod": "GET", "ResourceId": resource, "RestApiId": {"Ref": API}, "Integration": integration, **extra}}


PROXY = {"Type": "AWS_PROXY", "Uri": {"Fn::Join": ["", ["arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/",
                                                       {"Fn::GetAtt": ["ContactsFn", "Arn"]}, "/invocations"]]}}


@pytest.mark.parametrize(("name", "resource", "message"), [
    ("Broken", _method({"Ref": "Nowhere"}, PROXY), r"Broken\.Properties\.ResourceId"),
    ("Http", _method(ROOT, {"Type": "HTTP_PROXY", "Uri": "https://example.com"}), "only AWS_PROXY integrations"),
    ("Mock", _method(ROOT, {"Type": "MOCK"}), "a MOCK integration needs one default integration response"),
    ("MockVtl", _method(ROOT, {"Type": "MOCK", "IntegrationResponses": [{"StatusCode": "200", "ResponseTemplates": {
        "application/json": "#foreach($h in $input.params().header.keySet())$h#end"}}]}), "is not reproduced locally"),
    ("Iam", _method(ROOT, PROXY, AuthorizationType="AWS_IAM"), "authorization AWS_IAM is not supported"),
    ("Greedy", {"Type": "AWS::ApiGateway::Resource",
                "Properties": {"ParentId": ROOT, "PathPart": "{proxy+}", "RestApiId": {"Ref": API}}},
     "greedy path parameters"),
])
def test_what_is_not_emulated_fails_loudly(name: str, resource: dict[str, Any], message: str) -> None:
    with pytest.raises(TemplateError, match=message):
        build_rest_api(stack_resources({**api_resources(), name: resource}))


def test_methods_of_a_nested_stack_attach_to_the_parents_api_through_parameters() -> None:
    # Given a parent with the RestApi and authorizer, and a nested stack whose resources and methods reach them
    # only through the parameters its parent passes (as CDK synthesizes a NestedStack)
    parent = {k: v for k, v in api_resources().items() if not k.startswith(("Persons", "Person", "Search",
                                                                           "Addresses", "Contacts"))}
    nested = {
        "Fn": {"Type": "AWS::Lambda::Function", "Properties": {}},
        "Items": {"Type": "AWS::ApiGateway::Resource", "Properties": {
            "ParentId": {"Ref": "RootId"}, "PathPart": "items", "RestApiId": {"Ref": "ApiId"}}},
        "ItemId": {"Type": "AWS::ApiGateway::Resource", "Properties": {
            "ParentId": {"Ref": "Items"}, "PathPart": "{itemId}", "RestApiId": {"Ref": "ApiId"}}},
        "ItemGet": {"Type": "AWS::ApiGateway::Method", "Properties": {
            "HttpMethod": "GET", "ResourceId": {"Ref": "ItemId"}, "RestApiId": {"Ref": "ApiId"},
            "AuthorizationType": "COGNITO_USER_POOLS", "AuthorizerId": {"Ref": "AuthorizerId"},
            "Integration": {"Type": "AWS_PROXY", "Uri": {"Fn::Sub": "arn:aws:apigateway:${AWS::Region}:lambda:path/"
                                                                    "2015-03-31/functions/${Fn.Arn}/invocations"}}}},
    }
    parent["Domain"] = {"Type": "AWS::CloudFormation::Stack", "Properties": {"Parameters": {
        "ApiId": {"Ref": API}, "RootId": {"Fn::GetAtt": [API, "RootResourceId"]},
        "AuthorizerId": {"Ref": "Authorizer"}}}}
    child = StackTemplate("Test-dev-Domain", {"Parameters": {n: {"Type": "String"} for n in ("ApiId", "RootId",
                                                                                              "AuthorizerId")},
                                              "Resources": nested}, stack_of({}).assembly_dir)
    top = StackTemplate("Test-dev", {"Resources": parent}, child.assembly_dir, {"Domain": child})
    resources = StackResources(top, Clients(no_clients), region="us-east-1")
    resources.provision()
    # When the API is built from the parent
    api = build_rest_api(resources)
    # Then the nested method is routed, authorized by the parent's authorizer, and runs the nested function
    match = api.match("GET", "/items/i-1")
    assert match is not None and match.path_parameters == {"itemId": "i-1"}
    assert match.method.function == "Test-dev-Domain/Fn"
    assert (match.method.authorization_type, match.method.token_header) == ("COGNITO_USER_POOLS", "Authorization")
    assert api.match("GET", "/") is not None  # the parent's own methods stay


def test_custom_gateway_response_status_template_and_headers(api: RestApi) -> None:
    context = RequestContext.new()
    response = gateway_response(api, MISSING_AUTHENTICATION_TOKEN, context)
    assert response.status_code == 404
    assert json.loads(response.get_data()) == {"error": {
        "code": "ROUTE_NOT_FOUND", "message": "Missing Authentication Token", "type": "MISSING_AUTHENTICATION_TOKEN",
        "id": context.request_id}}
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert response.headers["x-amzn-ErrorType"] == "MissingAuthenticationTokenException"
    assert response.headers["x-amzn-RequestId"] == context.request_id


def test_the_stacks_route_not_found_template_names_the_method_and_path(api: RestApi) -> None:
    # The stack's own template text (infra/constructs/rest_api.py), rendered as API Gateway substitutes $context
    # variables: $context.path is the request path with the stage
    from dataclasses import replace

    from infra.constructs.rest_api import _error_template

    template = {"application/json": _error_template("ROUTE_NOT_FOUND")}
    custom = {MISSING_AUTHENTICATION_TOKEN: {"StatusCode": "404", "ResponseParameters": None,
                                             "ResponseTemplates": template}}
    response = gateway_response(replace(api, gateway_responses=custom), MISSING_AUTHENTICATION_TOKEN,
                                RequestContext.new(), http_method="DELETE", path="/contacts/persons")
    assert response.status_code == 404
    assert json.loads(response.get_data()) == {"error": {
        "code": "ROUTE_NOT_FOUND", "message": f"no route matches DELETE /{api.stage}/contacts/persons"}}


def test_type_without_own_response_falls_back_to_default_4xx_or_5xx(api: RestApi) -> None:
    too_large = gateway_response(api, REQUEST_TOO_LARGE, RequestContext.new())
    assert too_large.status_code == 413  # DEFAULT_4XX has no status of its own
    assert json.loads(too_large.get_data())["error"]["code"] == "BAD_REQUEST"
    assert json.loads(too_large.get_data())["error"]["type"] == "REQUEST_TOO_LARGE"
    failure = gateway_response(api, DEFAULT_5XX, RequestContext.new(), status=502)
    assert failure.status_code == 502
    error = json.loads(failure.get_data())["error"]
    assert error == {"code": "GATEWAY_ERROR", "message": "Internal server error", "type": "DEFAULT_5XX",
                     "id": error["id"]}


@pytest.mark.parametrize(("kind", "status", "body"), [
    (MISSING_AUTHENTICATION_TOKEN, 403, {"message": "Missing Authentication Token"}),
    (UNAUTHORIZED, 401, {"message": "Unauthorized"}),
    (REQUEST_TOO_LARGE, 413, {"message": "Request Too Large"}),
    (DEFAULT_5XX, 502, {"message": "Internal server error"}),
])
def test_api_gateway_defaults_without_gateway_responses(bare_api: RestApi, kind: str, status: int, body: dict) -> None:
    response = gateway_response(bare_api, kind, RequestContext.new())
    assert response.status_code == status
    assert json.loads(response.get_data()) == body
    assert response.headers["Content-Type"] == "application/json"
