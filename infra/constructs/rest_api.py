"""The REST API: Cognito authorizer, stage throttling, JSON access logs, JSON gateway responses, routes.

The RestApi, its authorizer, gateway responses, Deployment and Stage live in the parent stack; each domain's
resources and methods live in the domain's nested stack (PITFALLS 18: ~3 resources a route, 500 a stack).
They are built on the parent's `RestApi` object, each in the domain's scope, rather than on an imported
`RestApi.from_rest_api_attributes`: a method on the real RestApi registers with it, so CDK keeps doing what it
does for a single-stack API — the Deployment's logical id hashes every method, resource and the authorizer (a
changed route gets a new deployment, not a stale stage), the Deployment depends on them (CDK turns that into a
dependency on each nested stack), and the RestApi's "must contain methods" validation holds without a
placeholder method. CDK passes the ids the nested stacks need (API, root resource, authorizer) as parameters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

# The id of a function's one permission for API Gateway (a child of the function, beside it in its nested stack).
INVOKE_PERMISSION_ID = "ApiInvokePermission"


@dataclass(frozen=True)
class Route:
    """One method of the API. `public` routes skip the authorizer (health, docs); all others need a token.

    `paged` routes answer with a page and a signed cursor (functions/shared/pagination.py): a domain with one gets
    the cursor-signing secret.
    """

    method: str
    path: str
    public: bool = False
    paged: bool = False


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
# A throttled client may retry: the stage's token bucket refills every second (the README promises Retry-After on
# every 429; the functions send it on DynamoDB's throttling, and API Gateway's own 429 carries none by default).
GATEWAY_RESPONSE_HEADERS = {"THROTTLED": {"Retry-After": "'1'"}}  # by code: jsii hands out a new ResponseType each time


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
        self.stage_name = stage_name
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
                response_headers=GATEWAY_RESPONSE_HEADERS.get(code),
            )

    def add_routes(self, scope: Construct, function: lambda_.IFunction, routes: list[Route]) -> list[apigw.Method]:
        """The routes' resources and methods, built in `scope` (a domain's nested stack) on the parent's RestApi.

        A domain owns the top-level path segments of its routes (`/contacts`, `/voting`…): another stack's
        resource under the same segment would be a second resource of that name, which API Gateway refuses.
        The function gets one invoke permission for the whole API, not one per method (see `_allow_invoke`).
        """
        stack = Stack.of(scope)
        if stack is Stack.of(self):
            raise ValueError(f"{scope.node.path}: routes belong in a domain's nested stack, not beside the RestApi")
        methods = []
        for route in routes:
            first, _, rest = route.path.strip("/").partition("/")
            top = self._top_level(scope, stack, first)
            resource = top.resource_for_path(rest) if rest else top
            # AwsIntegration is what LambdaIntegration builds on (same AWS_PROXY integration, same URI), without
            # LambdaIntegration's permission per method.
            integration = apigw.AwsIntegration(
                proxy=True, service="lambda", path=f"2015-03-31/functions/{function.function_arn}/invocations"
            )
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
        if routes:
            self._allow_invoke(function)
        return methods

    def _top_level(self, scope: Construct, stack: Stack, path_part: str) -> apigw.IResource:
        existing = self.rest_api.root.get_resource(path_part)
        if existing is not None:
            if Stack.of(existing) is not stack:
                raise ValueError(
                    f"/{path_part} already belongs to {existing.node.path}: "
                    "each domain owns its top-level path segments"
                )
            return existing
        routes = scope.node.try_find_child("Routes") or Construct(scope, "Routes")
        return apigw.Resource(routes, path_part, parent=self.rest_api.root, path_part=path_part)

    def _allow_invoke(self, function: lambda_.IFunction) -> None:
        """One resource-based policy statement per function, for any method of this API's stage.

        A function's resource-based policy is capped at 20 KB (PITFALLS 18): a statement per method grows it with
        every route. API Gateway invokes with source ARN `arn:<partition>:execute-api:<region>:<account>:<api id>/
        <stage>/<METHOD>/<path>`, so `<api id>/<stage>/*/*` covers every method of the stage and nothing else (not
        the console's test-invoke-stage, which the per-method permissions did not allow either). The stage is its
        name, not a reference to the Stage: the Stage waits for the Deployment, which waits for the nested stacks,
        so a nested stack referring to it would be a cycle.
        """
        if function.node.try_find_child(INVOKE_PERMISSION_ID) is None:
            function.add_permission(
                INVOKE_PERMISSION_ID,
                principal=iam.ServicePrincipal("apigateway.amazonaws.com"),
                action="lambda:InvokeFunction",
                source_arn=self.rest_api.arn_for_execute_api(stage=self.stage_name),
            )
