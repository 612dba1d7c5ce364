"""A Lambda function of the API: shared code asset, AWS-managed Powertools layer, logs, tracing."""

from __future__ import annotations

import re
from pathlib import Path

from aws_cdk import AssetHashType, Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from functions.shared.schema import METRICS_NAMESPACE, STAGE_ENV
from infra.constructs.function_asset import stage_function_asset
from infra.constructs.nag import acknowledge

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
DEFAULT_TIMEOUT = Duration.seconds(10)  # an API function's: functions/shared/ddb.py's retries end inside it


def powertools_version() -> str:
    """The Powertools version of requirements.txt, so the layer in AWS runs what the tests ran."""
    text = (ROOT / "requirements.txt").read_text()
    match = re.search(r"^aws-lambda-powertools(?:\[[^\]]*\])?==([\w.]+)", text, re.MULTILINE)
    if match is None:
        raise ValueError("requirements.txt must pin aws-lambda-powertools==<version>")
    return match.group(1)


def powertools_layer_parameter(version: str | None = None) -> str:
    """The public SSM parameter that names the AWS-managed layer's ARN for our architecture, runtime and pinned
    version (Powertools' install guide, "SSM Parameter Store"); tools/preflight.py checks it exists in the region."""
    return f"/aws/service/powertools/python/{ARCHITECTURE.name}/{RUNTIME.name}/{version or powertools_version()}"


class SharedCode(Construct):
    """One code asset and one layer reference for every function of the app.

    The layer ARN is resolved once, in the stack that holds this construct (the parent); CDK passes it to the
    nested stacks. A `Code` binds its asset to the first stack that uses it, so each stack gets its own `Code`
    of the same directory: one asset hash, one upload.
    """

    def __init__(self, scope: Construct, construct_id: str, *, stage: str = ""):
        super().__init__(scope, construct_id)
        self.stage = stage  # every function's STAGE_ENV: the `stage` dimension of its metrics
        self._code: dict[str, lambda_.Code] = {}
        self._staged: tuple[Path, str] | None = None
        # The public SSM parameter names the layer ARN for this version; it resolves at deploy time,
        # so synth stays offline.
        layer_arn = ssm.StringParameter.value_for_string_parameter(self, powertools_layer_parameter())
        self.powertools = lambda_.LayerVersion.from_layer_version_arn(self, "Powertools", layer_arn)

    def code_for(self, scope: Construct) -> lambda_.Code:
        stack = Stack.of(scope).node.path
        if stack not in self._code:
            # functions/ and the pinned AWS SDK, staged once (infra/constructs/function_asset.py); tests, infra and
            # local never reach Lambda. The staging key is the asset hash: no second fingerprint of ~30 MB.
            if self._staged is None:
                self._staged = stage_function_asset()
            directory, key = self._staged
            self._code[stack] = lambda_.Code.from_asset(
                str(directory), asset_hash=key, asset_hash_type=AssetHashType.CUSTOM)
        return self._code[stack]


def root_stack(scope: Construct) -> Stack:
    """The deployed stack a construct belongs to: its own, or the top of its nested stacks."""
    stack = Stack.of(scope)
    while stack.nested_stack_parent is not None:
        stack = stack.nested_stack_parent
    return stack


class ApiFunction(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        shared: SharedCode,
        handler: str,
        service: str,
        environment: dict[str, str],
        removal_policy: RemovalPolicy,
        timeout: Duration = DEFAULT_TIMEOUT,
        memory_size: int = 512,
    ):
        super().__init__(scope, construct_id)
        log_group = logs.LogGroup(
            self, "Logs", retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal_policy
        )
        # Its own role: write to its own log group, nothing else until a domain grants it exactly what it
        # uses (instead of AWSLambdaBasicExecutionRole, which may create and write any log group).
        self.role = iam.Role(self, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
        log_group.grant_write(self.role)
        self.function = lambda_.Function(
            self,
            "Function",
            role=self.role,
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=handler,
            code=shared.code_for(self),
            layers=[shared.powertools],
            timeout=timeout,
            memory_size=memory_size,
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            logging_format=lambda_.LoggingFormat.JSON,
            environment={
                "POWERTOOLS_SERVICE_NAME": service,
                "POWERTOOLS_METRICS_NAMESPACE": METRICS_NAMESPACE,
                "POWERTOOLS_LOG_LEVEL": "INFO",
                "STACK_NAME": root_stack(self).stack_name,
                **({STAGE_ENV: shared.stage} if shared.stage else {}),
                **environment,
            },
        )
        acknowledge(self.function, "AwsSolutions-L1",
                    "Python 3.13: the newest runtime the AWS-managed Powertools layer and our CI both cover; "
                    "raise RUNTIME in infra/constructs/api_function.py when they move.")
        acknowledge(self.role, "AwsSolutions-IAM5[Resource::*]",
                    "X-Ray's PutTraceSegments/PutTelemetryRecords and, for stream consumers, dynamodb:ListStreams "
                    "have no resource-level permissions.")


def grant_secret_value(grantee: iam.IGrantable, secret: secretsmanager.ISecret) -> None:
    """GetSecretValue on the secret and nothing else (`grant_read` adds DescribeSecret, which no code calls)."""
    grantee.grant_principal.add_to_principal_policy(
        iam.PolicyStatement(actions=["secretsmanager:GetSecretValue"], resources=[secret.secret_arn])
    )
