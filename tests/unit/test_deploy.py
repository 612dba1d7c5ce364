"""tools/deploy.py (`make deploy`): one synth, the preflight on what was synthesized, the deploy of that assembly, a
first create without deletion protection then a second pass with it, the migrations last; and tools/region.py, the
one way every tool finds its region (as the CDK CLI: AWS_REGION, AWS_DEFAULT_REGION, the profile)."""

from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from tools import deploy, migrate, preflight, region

TEMPLATE = {"Resources": {"Queue": {"Type": "AWS::SQS::Queue"}}}


@pytest.fixture
def steps(monkeypatch, tmp_path):
    """Runs deploy() with every command and step recorded instead of run."""
    done: list[str] = []
    monkeypatch.setattr(preflight, "problem", lambda session, functions=0: done.append(f"preflight {functions}"))
    monkeypatch.setattr(migrate, "record", lambda cloudformation, stage: done.append(f"record {stage}"))
    monkeypatch.setattr(migrate, "main", lambda argv: done.append("migrate " + " ".join(argv)) or 0)
    monkeypatch.setattr(migrate, "wait_for_indexes", lambda dynamodb, names: done.append(
        "wait " + ("ContactTable" if names and all("ContactTable" in n for n in names) else repr(names))))
    assembly = tmp_path / "cdk.out"
    assembly.mkdir()
    (assembly / "Blueprints-prod.template.json").write_text(json.dumps({"Resources": {
        "F": {"Type": "AWS::Lambda::Function"},
        "Cart": {"Type": "AWS::CloudFormation::Stack", "Metadata": {"aws:asset:path": "cart.nested.template.json"}}}}))
    (assembly / "cart.nested.template.json").write_text(json.dumps({"Resources": {
        "A": {"Type": "AWS::Lambda::Function"}, "B": {"Type": "AWS::Lambda::Function"}}}))
    (assembly / "Blueprints-dev.template.json").write_text(json.dumps({"Resources": {}}))

    def run(stage, context=(), template=TEMPLATE):
        with mock_aws():
            session = boto3.Session(region_name="us-east-1")
            if stage == "dev":
                session.client("cloudformation").create_stack(StackName="Blueprints-dev",
                                                              TemplateBody=json.dumps(template))
            code = deploy.deploy(stage, context, session, lambda command: done.append(" ".join(command)) or 0,
                                 assembly=assembly)
        return code, [step.replace(str(assembly), "cdk.out") for step in done]
    return run


def test_a_first_create_of_prod_deploys_unprotected_then_turns_protection_on(steps):
    code, done = steps("prod")
    assert code == 0
    assert done == [
        "npx cdk synth --quiet -o cdk.out -c stage=prod -c firstCreate=true",
        "preflight 3",  # the functions of the parent and its nested stack, as synthesized
        "record prod",
        "npx cdk deploy --app cdk.out Blueprints-prod",
        "npx cdk synth --quiet -o cdk.out -c stage=prod",
        "npx cdk deploy --app cdk.out Blueprints-prod",
        "migrate run --stage prod",
    ]


def test_a_stage_that_exists_is_deployed_once_with_its_context(steps):
    code, done = steps("dev", ["explorer=false"])
    assert code == 0
    assert done == ["npx cdk synth --quiet -o cdk.out -c stage=dev -c explorer=false", "preflight 0", "record dev",
                    "npx cdk deploy --app cdk.out Blueprints-dev", "migrate run --stage dev"]


# A stage deployed before ADR 0110: its Contact table still has the type index the new layout retires
OLD_CONTACTS = {"Resources": {"ContactsContactTable1A2B3C4D": {
    "Type": "AWS::DynamoDB::Table",
    "Metadata": {"aws:cdk:path": "Blueprints-dev/Contacts/Contacts/ContactTable/Table/Resource"},
    "Properties": {
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "Id", "KeyType": "HASH"}, {"AttributeName": "Sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": "S"} for n in ("Id", "Sk", "Type")],
        "GlobalSecondaryIndexes": [{"IndexName": "ContactTypeIndex", "Projection": {"ProjectionType": "ALL"},
                                    "KeySchema": [{"AttributeName": "Type", "KeyType": "HASH"},
                                                  {"AttributeName": "Id", "KeyType": "RANGE"}]}]}}}}


def test_an_upgrade_that_retires_an_index_keeps_it_migrates_then_drops_it(steps):
    code, done = steps("dev", template=OLD_CONTACTS)
    assert code == 0
    assert done == [
        "npx cdk synth --quiet -o cdk.out -c stage=dev -c keepRetiredIndexes=true",
        "preflight 0", "record dev", "npx cdk deploy --app cdk.out Blueprints-dev",
        "wait ContactTable",  # until the new index is built
        "migrate run --stage dev",  # the new index filled while the old still answers
        "npx cdk synth --quiet -o cdk.out -c stage=dev", "npx cdk deploy --app cdk.out Blueprints-dev",
        "migrate run --stage dev",
    ]


API = {"Resources": {"Api": {"Type": "AWS::ApiGateway::RestApi", "Properties": {"Name": "blueprints"}}}}


def test_an_execution_log_group_api_gateway_made_before_stays_outside_the_stack_and_gets_a_retention(steps):
    """A stage deployed before the stack owned its execution log group may have it already (API Gateway makes it on
    its first log): CloudFormation could not create it, so the deploy keeps it out of the template and sets its
    retention itself."""
    with mock_aws():
        session = boto3.Session(region_name="us-east-1")
        session.client("cloudformation").create_stack(StackName="Blueprints-dev", TemplateBody=json.dumps(API))
        (api,) = session.client("apigateway").get_rest_apis()["items"]
        name = f"API-Gateway-Execution-Logs_{api['id']}/dev"
        assert deploy.external_execution_logs(session, "Blueprints-dev", "dev") is None  # none yet: the stack makes it
        session.client("logs").create_log_group(logGroupName=name)
        assert deploy.external_execution_logs(session, "Blueprints-dev", "dev") == name
        deploy._retain(session, name)
        (group,) = session.client("logs").describe_log_groups(logGroupNamePrefix=name)["logGroups"]
        assert group["retentionInDays"] == 90


def test_a_preflight_problem_stops_before_anything_is_deployed(steps, monkeypatch, capsys):
    monkeypatch.setattr(preflight, "problem", lambda session, functions=0: "run: make deploy-account")
    code, done = steps("prod")
    assert code == 1 and not [step for step in done if "deploy --app" in step]
    assert "preflight: run: make deploy-account" in capsys.readouterr().err


@pytest.mark.parametrize(("environ", "expected"), [
    ({"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "us-east-2"}, ("eu-west-1", "AWS_REGION")),
    ({"AWS_DEFAULT_REGION": "us-east-2"}, ("us-east-2", "AWS_DEFAULT_REGION")),
    ({}, ("ap-southeast-2", "profile default")),
])
def test_every_tool_resolves_the_region_as_the_cdk_cli_does(environ, expected, monkeypatch, tmp_path):
    config = tmp_path / "config"
    config.write_text("[default]\nregion = ap-southeast-2\n")
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert region.resolve_region() == expected
    assert region.session(say=False).region_name == expected[0]


def test_cognito_users_uses_the_region_make_deploy_used(monkeypatch, tmp_path, capsys):
    # `make deploy` worked with AWS_REGION alone, and `make user` then failed: botocore does not read AWS_REGION
    from tools import cognito_users

    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert cognito_users._session().region_name == "eu-central-1"
    assert "region: eu-central-1 (AWS_REGION)" in capsys.readouterr().err
