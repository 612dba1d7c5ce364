"""The REST API: Cognito authorizer, stage throttling, JSON access logs, JSON gateway responses, routes.

The RestApi, its authorizer, gateway responses, Deployment and Stage live in the parent stack; each domain's
resources and methods live in the domain's nested stack (about 3 resources a route; CloudFormation's
quota is 500 resources a stack: "CloudFormation quotas"; docs/adr/0036-one-nested-stack-per-domain.md).
They are built on the parent's `RestApi` object, each in the domain's scope, rather than on an imported
`RestApi.from_rest_api_attributes`: a method on the real RestApi registers with it, so CDK keeps doing what it
does for a single-stack API — the Deployment's logical id hashes every method, resource and the authorizer (a
changed route gets a new deployment, not a stale stage), the Deployment depends on them (CDK turns that into a
dependency on each nested stack), and the RestApi's "must contain methods" validation holds without a
placeholder method. CDK passes the ids the nested stacks need (API, root resource, authorizer) as parameters.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from aws_cdk import Duration, RemovalPolicy, Size, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from functions.shared import cors
from functions.shared.routes import Route
from infra.constructs.nag import acknowledge

# The id of a function's one permission for API Gateway (a child of the function, beside it in its nested stack).
INVOKE_PERMISSION_ID = "ApiInvokePermission"


# A refusal whose default message says the wrong thing gets its own, from the $context variables a gateway response
# template may substitute ("Gateway responses for REST APIs in API Gateway"): API Gateway answers a path or method
# that matches no method with MISSING_AUTHENTICATION_TOKEN, "Missing Authentication Token" (no route uses IAM auth).
# $context.path is the request path with the stage ("/dev/contacts/x"), as in a request's requestContext.path.
GATEWAY_MESSAGES = {
    "ROUTE_NOT_FOUND": "no route matches $context.httpMethod $context.path",
    # The Cognito authorizer tells API Gateway no reason ($context.error.message is "Unauthorized"); the local runtime
    # puts the reason there (missing, malformed, bad signature, expired at..., wrong audience).
    "UNAUTHORIZED": "$context.error.message: send an ID token of this stage's user pool as Authorization: Bearer "
                    "<token> (make token USER=<name> prints one for make run, make token STAGE=<stage> USER=<name> "
                    "for a deployed stage)",
}


EXECUTION_LOG_GROUP_CONTEXT = "executionLogGroup"
EXECUTION_LOG_RETENTION_DAYS = 90  # logs.RetentionDays.THREE_MONTHS, as the stack sets its own group


def execution_log_group_name(rest_api_id: str, stage_name: str) -> str:
    """The group API Gateway writes a stage's execution logs to (developerguide/set-up-logging.html)."""
    return f"API-Gateway-Execution-Logs_{rest_api_id}/{stage_name}"


def _error_template(code: str) -> str:
    # $context.error.messageString is already a quoted JSON string.
    message = json.dumps(GATEWAY_MESSAGES[code]) if code in GATEWAY_MESSAGES else "$context.error.messageString"
    return json.dumps({"error": {"code": code, "message": "__MSG__"}}).replace('"__MSG__"', message)


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
GATEWAY_RESPONSE_HEADERS = {  # by code: jsii hands out a new ResponseType each time
    "THROTTLED": {"Retry-After": "'1'"},
    # RFC 6750 section 3; API Gateway cannot tell a missing token from a bad one, the local runtime can
    # (local/apigateway/authorizer.py)
    "UNAUTHORIZED": {"WWW-Authenticate": "'Bearer realm=\"blueprints\", error=\"invalid_token\", error_description="
                                         "\"a valid ID token of this user pool is needed\"'"},
}

# API Gateway gzips an answer of at least this many bytes for a client that sends `Accept-Encoding: gzip` ("Payload
# compression for REST APIs"): /docs' page with one domain's description and the styles inline (200 KB) leaves it as
# 30 KB, Swagger UI's script (1.5 MB) as 418 KB (measured with the local runtime, which compresses as the template
# says). Below 1 KiB, gzip's 18 bytes of framing and the time spent gain little.
MIN_COMPRESSION_BYTES = 1024

# Every public (anonymous) method gets its own throttle below the stage's: a browser opening /docs makes two
# requests (the page, Swagger UI's script), the explorer one, a health check one a few seconds; 10 a
# second with bursts of 20 serve many people at once, while anonymous traffic cannot spend more than 10 function
# invocations a second per route ("Throttle requests to your REST APIs": method-level limits override the stage's).
PUBLIC_RATE_LIMIT, PUBLIC_BURST_LIMIT = 10, 20


def cors_gateway_headers(origins: Sequence[str]) -> dict[str, str]:
    """The CORS headers of API Gateway's own refusals (401, 403, 429…), so that a page on an allowed origin can read
    why it was refused. A gateway response cannot choose among several origins (its headers are static values or
    request values, "Set up a gateway response"), so with several it echoes the request's `Origin`: these answers
    carry only the error envelope, and no answer of the API allows credentials."""
    if not origins:
        return {}
    allow = f"'{origins[0]}'" if len(origins) == 1 else "method.request.header.Origin"
    return {"Access-Control-Allow-Origin": allow, "Vary": "'Origin'",
            "Access-Control-Expose-Headers": f"'{','.join(cors.EXPOSE_HEADERS)}'"}


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
        cors_origins: Sequence[str] = (),
    ):
        super().__init__(scope, construct_id)
        self.stage_name = stage_name
        self.cors_origins = tuple(cors_origins)
        self._acknowledged: set[str] = set()  # OPTIONS methods whose cdk-nag findings are acknowledged
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
            # account and region instead, by infra/account_stack.py (`make deploy-account`; `make deploy`'s
            # preflight checks it); without it the stage's deploy fails with
            # "CloudWatch Logs role ARN must be set in account settings to enable logging".
            cloud_watch_role=False,
            min_compression_size=Size.bytes(MIN_COMPRESSION_BYTES),
            # Preflight OPTIONS on every resource, answered by API Gateway (MOCK) without calling a function; the
            # functions add the headers to their answers (functions/shared/http.py, `cors_config`).
            default_cors_preflight_options=apigw.CorsOptions(
                allow_origins=list(self.cors_origins), allow_methods=apigw.Cors.ALL_METHODS,
                allow_headers=list(cors.ALLOW_HEADERS), max_age=Duration.seconds(cors.MAX_AGE_SECONDS),
            ) if self.cors_origins else None,
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
        # The execution log group API Gateway writes the stage's ERROR logs to, by the name it uses
        # (https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html), made by the stack with a
        # retention before the stage exists: otherwise API Gateway makes it on its first log, kept forever and
        # outside the stack.
        # A stage deployed before this group was part of the stack may have it already (API Gateway made it): there
        # `make deploy` passes `-c executionLogGroup=external` and sets its retention itself (tools/deploy.py).
        if self.node.try_get_context(EXECUTION_LOG_GROUP_CONTEXT) != "external":
            self.execution_logs = logs.LogGroup(
                self, "ExecutionLogs",
                log_group_name=execution_log_group_name(self.rest_api.rest_api_id, stage_name),
                retention=logs.RetentionDays.THREE_MONTHS, removal_policy=removal_policy,
            )
            self.rest_api.deployment_stage.node.add_dependency(self.execution_logs)
        self.authorizer = apigw.CognitoUserPoolsAuthorizer(
            self, "Authorizer", cognito_user_pools=[user_pool], identity_source="method.request.header.Authorization"
        )
        for response_type, status, code in GATEWAY_RESPONSES:
            self.rest_api.add_gateway_response(
                response_type.response_type,
                type=response_type,
                status_code=status,
                templates={"application/json": _error_template(code)},
                response_headers={**cors_gateway_headers(self.cors_origins), **GATEWAY_RESPONSE_HEADERS.get(code, {})}
                or None,
            )
        if self.cors_origins:
            self._acknowledge_preflight(self.rest_api.root)

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
            # AwsIntegration is what LambdaIntegration builds on (same AWS_PROXY integration, same URI), without
            # LambdaIntegration's permission per method.
            integration = apigw.AwsIntegration(
                proxy=True, service="lambda", path=f"2015-03-31/functions/{function.function_arn}/invocations"
            )
            auth: dict[str, Any] = {"authorization_type": apigw.AuthorizationType.NONE} if route.public else {
                "authorizer": self.authorizer, "authorization_type": apigw.AuthorizationType.COGNITO}
            resource: apigw.IResource
            if not first:
                # GET /: a method on the API's own root resource, built in this nested stack (as every route is), so
                # that it joins the Deployment's logical id like the others (a method on an imported API would not)
                resource = self.rest_api.root
                routes_scope = scope.node.try_find_child("Routes") or Construct(scope, "Routes")
                methods.append(apigw.Method(routes_scope, f"Root{route.method}", resource=resource,
                                            http_method=route.method, integration=integration,
                                            options=apigw.MethodOptions(**auth)))
            else:
                top = self._top_level(scope, stack, first)
                resource = top.resource_for_path(rest) if rest else top
                methods.append(resource.add_method(route.method, integration, **auth))
            if route.public:
                self._throttle_public(route)
            parent: apigw.IResource | None = resource
            while self.cors_origins and isinstance(parent, apigw.Resource):  # each resource on the way has one
                self._acknowledge_preflight(parent)
                parent = parent.parent_resource
        if routes:
            self._allow_invoke(function)
        return methods

    def _throttle_public(self, route: Route) -> None:
        """The stage's method setting for one public route: its own limits (PUBLIC_RATE_LIMIT, PUBLIC_BURST_LIMIT),
        logging as the stage's default. CDK renders the stage's settings when the stage is made, before any domain
        adds its routes, so the setting is appended to the CloudFormation stage here."""
        stage = self.rest_api.deployment_stage.node.default_child
        if not isinstance(stage, apigw.CfnStage):
            raise TypeError(f"the deployment stage's default child is a {type(stage).__name__}, not a CfnStage")
        # The resource path of a method setting escapes "/" as "~1" (CloudFormation's AWS::ApiGateway::Stage
        # MethodSetting, ResourcePath): /docs/swagger-ui.js -> /~1docs~1swagger-ui.js; the root is "/" alone.
        setting = apigw.CfnStage.MethodSettingProperty(
            http_method=route.method, resource_path="/" if route.path == "/" else "/" + route.path.replace("/", "~1"),
            throttling_rate_limit=PUBLIC_RATE_LIMIT, throttling_burst_limit=PUBLIC_BURST_LIMIT,
            logging_level=apigw.MethodLoggingLevel.ERROR.value, data_trace_enabled=False,
        )
        stage.method_settings = [*(stage.method_settings or []), setting]

    def _acknowledge_preflight(self, resource: apigw.IResource) -> None:
        options = resource.node.try_find_child("OPTIONS")
        if options is not None and options.node.path not in self._acknowledged:
            self._acknowledged.add(options.node.path)
            reason = "A CORS preflight (OPTIONS) is anonymous by the Fetch standard; API Gateway answers it (MOCK)."
            acknowledge(options, "AwsSolutions-APIG4", reason)
            acknowledge(options, "AwsSolutions-COG4", reason)

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

        A function's resource-based policy is capped at 20 KB (Lambda Developer Guide, "Lambda quotas"): a
        statement per method grows it with every route. API Gateway invokes with source ARN
        `arn:<partition>:execute-api:<region>:<account>:<api id>/<stage>/<METHOD>/<path>`, so
        `<api id>/<stage>/*/*` covers every method of the stage and nothing else (not the console's
        test-invoke-stage, which the per-method permissions did not allow either). The stage is its name, not a
        reference to the Stage: the Stage waits for the Deployment, which waits for the nested stacks, so a nested
        stack referring to it would be a cycle.
        """
        if function.node.try_find_child(INVOKE_PERMISSION_ID) is None:
            function.add_permission(
                INVOKE_PERMISSION_ID,
                principal=iam.ServicePrincipal("apigateway.amazonaws.com"),
                action="lambda:InvokeFunction",
                source_arn=self.rest_api.arn_for_execute_api(stage=self.stage_name),
            )
