"""The account stack (`make deploy-account`): API Gateway's CloudWatch role and the account setting that names it,
built only when asked, apart from every stage, and clean under cdk-nag."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_iam as iam
from cdk_nag import AwsSolutionsChecks

import app as cdk_app
from infra.account_stack import PUSH_TO_CLOUDWATCH_POLICY, STACK_NAME


@pytest.fixture(scope="module")
def account_assembly(tmp_path_factory):
    app = cdk_app.build_app({"CDK_DEFAULT_REGION": "eu-west-1"}, context={"account": "true"})
    app_outdir = Path(app.outdir)
    assembly = app.synth()  # cdk-nag's AwsSolutions checks run here and fail the synth on a finding
    assert app_outdir.is_dir()
    return assembly


def resources_of(template: dict, kind: str) -> dict:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def test_asked_for_the_app_builds_the_account_stack_alone(account_assembly):
    assert [stack.stack_name for stack in account_assembly.stacks] == [STACK_NAME]


def test_the_role_is_api_gateways_with_the_aws_managed_push_policy_and_the_account_setting_names_it(account_assembly):
    template = json.loads(Path(account_assembly.get_stack_by_name(STACK_NAME).template_full_path).read_text())
    (role_id, role), = resources_of(template, "AWS::IAM::Role").items()
    assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"] == [{
        "Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "apigateway.amazonaws.com"}}]
    assert role["Properties"]["ManagedPolicyArns"] == [{"Fn::Join": ["", [
        "arn:", {"Ref": "AWS::Partition"}, f":iam::aws:policy/{PUSH_TO_CLOUDWATCH_POLICY}"]]}]
    assert "Policies" not in role["Properties"]
    # kept when the stack is destroyed (stages still log with it), deleted when its first create fails
    assert role["DeletionPolicy"] == "RetainExceptOnCreate"
    (account_id, account), = resources_of(template, "AWS::ApiGateway::Account").items()
    assert account["Properties"] == {"CloudWatchRoleArn": {"Fn::GetAtt": [role_id, "Arn"]}}
    assert role_id in account["DependsOn"]
    assert set(template["Resources"]) - {role_id, account_id} <= {"CDKMetadata"}


def test_cdk_nag_passes_the_account_stack_only_because_iam4_is_acknowledged(account_assembly):
    # The fixture's synth ran AwsSolutionsChecks and passed; the same role without the acknowledgment fails it.
    app = cdk.App()
    stack = cdk.Stack(app, "Unacknowledged")
    iam.Role(stack, "Role", assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
             managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(PUSH_TO_CLOUDWATCH_POLICY)])
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    with pytest.raises(Exception, match="AwsSolutions-IAM4"):
        app.synth()


def test_without_asking_the_app_has_no_account_stack_and_no_stage_holds_the_account_setting(dev, prod):
    for synth in (dev, prod):
        for template in synth.templates.values():
            assert resources_of(template, "AWS::ApiGateway::Account") == {}
    app = cdk_app.build_app({"CDK_DEFAULT_REGION": "eu-west-1"})
    assert [child.node.id for child in app.node.children if hasattr(child, "stack_name")] == ["Blueprints-dev"]
