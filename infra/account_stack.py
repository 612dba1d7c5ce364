"""API Gateway's account-level CloudWatch role, in a stack of its own (`make deploy-account`, once per account and
region).

A stage that writes execution or access logs needs the `cloudwatchRoleArn` account setting
(AWS::ApiGateway::Account) of its region; without it the first deploy of Blueprints fails late, after the nested
stacks were created. The setting is one per account and region, shared by every stage: in a stage's stack, two
stages would fight over it and destroying one would stop the other's logging, so no stage's stack holds it
(https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html). app.py builds this stack only
when asked (`-c account=true`): `make synth`, the local runtime and the stage's templates do not change.
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from constructs import Construct

from infra.constructs.nag import acknowledge

STACK_NAME = "Blueprints-account"
CONTEXT_KEY = "account"  # `cdk deploy -c account=true`
PUSH_TO_CLOUDWATCH_POLICY = "service-role/AmazonAPIGatewayPushToCloudWatchLogs"


class AccountStack(Stack):
    def __init__(self, scope: Construct, construct_id: str = STACK_NAME, **kwargs):
        super().__init__(scope, construct_id, **kwargs)
        self.role = iam.Role(
            self,
            "ApiGatewayCloudWatchRole",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            description="API Gateway writes the execution and access logs of every stage in this region with it",
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(PUSH_TO_CLOUDWATCH_POLICY)],
        )
        # Destroying this stack must not stop the logging of stages still deployed (their stage settings point at
        # this role); a failed first create still deletes it.
        self.role.apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        acknowledge(self.role, "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/"
                               f"{PUSH_TO_CLOUDWATCH_POLICY}]",
                    "AWS's managed policy for exactly this role (API Gateway's logging guide); AWS keeps its "
                    "CloudWatch Logs actions in step with what API Gateway writes.")
        self.api_gateway_account = apigw.CfnAccount(self, "ApiGatewayAccount", cloud_watch_role_arn=self.role.role_arn)
        self.api_gateway_account.node.add_dependency(self.role)
