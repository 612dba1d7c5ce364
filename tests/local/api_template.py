"""A hand-written REST API template shaped like CDK's output (RestApi, Resources, Methods, GatewayResponses)."""

from __future__ import annotations

from typing import Any

API = "Api1234"
ROOT = {"Fn::GetAtt": [API, "RootResourceId"]}


def _uri(function: str) -> dict[str, Any]:
    return {
        "Fn::Join": [
            "",
            [
                "arn:",
                {"Ref": "AWS::Partition"},
                ":apigateway:",
                {"Ref": "AWS::Region"},
                ":lambda:path/2015-03-31/functions/",
                {"Fn::GetAtt": [function, "Arn"]},
                "/invocations",
            ],
        ]
    }


def _resource(parent: Any, part: str) -> dict[str, Any]:
    return {
        "Type": "AWS::ApiGateway::Resource",
        "Properties": {"ParentId": parent, "PathPart": part, "RestApiId": {"Ref": API}},
    }


def _method(resource: Any, verb: str, function: str = "ContactsFn", *, auth: bool = True) -> dict[str, Any]:
    props: dict[str, Any] = {
        "HttpMethod": verb,
        "ResourceId": resource,
        "RestApiId": {"Ref": API},
        "AuthorizationType": "COGNITO_USER_POOLS" if auth else "NONE",
        "Integration": {
            "IntegrationHttpMethod": "POST",
            "Type": "AWS_PROXY",
            "Uri": _uri(function),
        },
    }
    if auth:
        props["AuthorizerId"] = {"Ref": "Authorizer"}
    return {"Type": "AWS::ApiGateway::Method", "Properties": props}


TEMPLATE = (
    '{"error": {"code": "CODE", "message": $context.error.messageString, '
    '"type": "$context.error.responseType", "id": "$context.requestId"}}'
)


def _gateway_response(kind: str, status: str | None, code: str) -> dict[str, Any]:
    props: dict[str, Any] = {
        "ResponseType": kind,
        "RestApiId": {"Ref": API},
        "ResponseTemplates": {"application/json": TEMPLATE.replace("CODE", code)},
        "ResponseParameters": {
            "gatewayresponse.header.Access-Control-Allow-Origin": "'*'",
        },
    }
    if status:
        props["StatusCode"] = status
    return {"Type": "AWS::ApiGateway::GatewayResponse", "Properties": props}


def api_resources(*, with_gateway_responses: bool = True) -> dict[str, Any]:
    resources: dict[str, Any] = {
        API: {"Type": "AWS::ApiGateway::RestApi", "Properties": {"Name": "Api"}},
        "Deployment": {
            "Type": "AWS::ApiGateway::Deployment",
            "Properties": {"RestApiId": {"Ref": API}},
        },
        "Stage": {
            "Type": "AWS::ApiGateway::Stage",
            "Properties": {
                "RestApiId": {"Ref": API},
                "DeploymentId": {"Ref": "Deployment"},
                "StageName": "dev",
            },
        },
        "UserPool": {"Type": "AWS::Cognito::UserPool", "Properties": {}},
        "Authorizer": {
            "Type": "AWS::ApiGateway::Authorizer",
            "Properties": {
                "Type": "COGNITO_USER_POOLS",
                "IdentitySource": "method.request.header.Authorization",
                "ProviderARNs": [{"Fn::GetAtt": ["UserPool", "Arn"]}],
                "RestApiId": {"Ref": API},
            },
        },
        "ContactsFn": {"Type": "AWS::Lambda::Function", "Properties": {}},
        "DocsFn": {"Type": "AWS::Lambda::Function", "Properties": {}},
        # Declared children-first on purpose: the tree must not depend on template order.
        "PersonAddresses": _resource({"Ref": "PersonId"}, "addresses"),
        "PersonId": _resource({"Ref": "Persons"}, "{personId}"),
        "PersonsSearch": _resource({"Ref": "Persons"}, "search"),
        "Persons": _resource({"Ref": "Contacts"}, "persons"),
        "Contacts": _resource(ROOT, "contacts"),
        "Docs": _resource(ROOT, "docs"),
        "RootGet": _method(ROOT, "GET", "DocsFn", auth=False),
        "PersonsGet": _method({"Ref": "Persons"}, "GET"),
        "PersonsPost": _method({"Ref": "Persons"}, "POST"),
        "PersonGet": _method({"Ref": "PersonId"}, "GET"),
        "SearchGet": _method({"Ref": "PersonsSearch"}, "GET"),
        "AddressesGet": _method({"Ref": "PersonAddresses"}, "GET"),
        "DocsAny": _method({"Ref": "Docs"}, "ANY", "DocsFn", auth=False),
    }
    if with_gateway_responses:
        resources["Unauthorized"] = _gateway_response("UNAUTHORIZED", "401", "UNAUTHORIZED")
        resources["NotFound"] = _gateway_response(
            "MISSING_AUTHENTICATION_TOKEN", "404", "ROUTE_NOT_FOUND"
        )
        resources["Default4xx"] = _gateway_response("DEFAULT_4XX", None, "BAD_REQUEST")
        resources["Default5xx"] = _gateway_response("DEFAULT_5XX", None, "GATEWAY_ERROR")
    return resources
