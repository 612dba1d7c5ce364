"""The REST API: Cognito authorizer, stage throttling, JSON access logs, JSON gateway responses, routes."""

from __future__ import annotations

import json
from dataclasses import dataclass

from aws_cdk import RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct


@dataclass(frozen=True)
class Route:
    """One method of the API. `public` routes skip the authorizer (health, docs); all others need a token."""

    method: str
    path: str
    public: bool = False


def _error_template(code: str) -> str:
    # $context.error.messageString is already a quoted JSON string.
    return json.dumps({"error": {"code": code, "message": "__MSG__"}}).replace('"__MSG__"', "$context.error.messageString")


# API Gateway's own refusals, in the same error shape as the functions' answers.
GATEWAY_RESPONSES = (
    (apigw.ResponseType.UNAUTHORIZED, "401", "UNAUTHORIZED"),
    (apigw.ResponseType.ACCESS_DENIED, "403", "FORBIDDEN"),
    # No route uses IAM auth, so a missing "authentication token" can only mean an unknown route or method.
    (apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, "404", "ROUTE_NOT_FOUND"),
    (apigw.ResponseType.THROTTLED, "429", "THROTTLED"),
    (apigw.ResponseType.REQUEST_TOO_LARGE, "413", "PAYLOAD_TOO_LARGE"),
    (apigw.ResponseType.DEFAULT_4_XX, None, "BAD_REQUEST"),
    (apigw.ResponseType.DEFAULT_5_XX, None, "GATEWAY_ERROR"),
)


class BlueprintsApi(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        stage_name: str,
        user_pool: cognito.IUserPool,
        removal_policy: RemovalPolicy,
        throttling_rate_limit: int,
        throttling_burst_limit: int,
    ):
        super().__init__(scope, construct_id)
        access_logs = logs.LogGroup(
            self, "AccessLogs", retention=logs.RetentionDays.THREE_MONTHS, removal_policy=removal_policy
        )
        self.rest_api = apigw.RestApi(
            self,
            "RestApi",
            description="Blueprints: classic DynamoDB data models as one serverless backend",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            # The role API Gateway writes CloudWatch logs with (execution and access logs alike) is an account-wide,
            # per-region setting (AWS::ApiGateway::Account). Managed here, every stage's stack would overwrite it
            # and destroying `dev` would stop API logging for `prod` in the same account: it is set once per
            # account and region instead (README, "Deploying"); without it the stage's deploy fails with
            # "CloudWatch Logs role ARN must be set in account settings to enable logging".
            cloud_watch_role=False,
            deploy_options=apigw.StageOptions(
                stage_name=stage_name,
                throttling_rate_limit=throttling_rate_limit,
                throttling_burst_limit=throttling_burst_limit,
                tracing_enabled=True,
                logging_level=apigw.MethodLoggingLevel.ERROR,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                    caller=False,
                    http_method=True,
                    ip=True,
                    protocol=True,
                    request_time=True,
                    resource_path=True,
                    response_length=True,
                    status=True,
                    user=True,
                ),
            ),
        )
        self.authorizer = apigw.CognitoUserPoolsAuthorizer(
            self, "Authorizer", cognito_user_pools=[user_pool], identity_source="method.request.header.Authorization"
        )
        for response_type, status, code in GATEWAY_RESPONSES:
            self.rest_api.add_gateway_response(
                response_type.response_type,
                type=response_type,
                status_code=status,
                templates={"application/json": _error_template(code)},
            )

    def add_routes(self, function: lambda_.IFunction, routes: list[Route]) -> list[apigw.Method]:
        integration = apigw.LambdaIntegration(function, proxy=True, allow_test_invoke=False)
        methods = []
        for route in routes:
            resource = self.rest_api.root.resource_for_path(route.path)
            if route.public:
                methods.append(
                    resource.add_method(route.method, integration, authorization_type=apigw.AuthorizationType.NONE)
                )
            else:
                methods.append(resource.add_method(
                    route.method,
                    integration,
                    authorizer=self.authorizer,
                    authorization_type=apigw.AuthorizationType.COGNITO,
                ))
        return methods
