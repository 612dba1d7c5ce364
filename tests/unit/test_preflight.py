"""tools/preflight.py, the first step of `make deploy`, against moto's API Gateway and SSM: it passes when the
account is ready and otherwise stops with one line saying what to do."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.utils import utcnow
from moto.ssm.models import Parameter, ssm_backends

from infra.constructs.api_function import powertools_layer_parameter, powertools_version
from tools import preflight

REGION = "eu-west-1"


@pytest.fixture
def session():
    with mock_aws():
        yield boto3.Session(region_name=REGION)


def publish_layer(region: str = REGION) -> None:
    """What AWS does for its public parameters: no API lets an account write under /aws/ (moto refuses too)."""
    name = powertools_layer_parameter()
    ssm_backends[DEFAULT_ACCOUNT_ID][region]._parameters[name].append(Parameter(
        account_id=DEFAULT_ACCOUNT_ID, name=name, value=f"arn:aws:lambda:{region}:017000801446:layer:x:1",
        parameter_type="String", description=None, allowed_pattern=None, keyid=None,
        last_modified_date=utcnow(), version=1, data_type="text"))


def set_cloudwatch_role(session: boto3.Session) -> None:
    session.client("apigateway").update_account(patchOperations=[{
        "op": "replace", "path": "/cloudwatchRoleArn", "value": "arn:aws:iam::123456789012:role/ApiGatewayLogs"}])


def test_a_ready_account_passes(session):
    publish_layer()
    set_cloudwatch_role(session)
    assert preflight.problem(session) is None
    assert session.client("ssm").get_parameter(Name=powertools_layer_parameter())["Parameter"]["Value"]


def test_no_cloudwatch_role_says_run_make_deploy_account(session):
    publish_layer()
    line = preflight.problem(session)
    assert line == (f"API Gateway in {REGION} has no CloudWatch role for the stage's logs: run: make deploy-account "
                    "(once per account and region)")


def test_a_missing_layer_version_names_it_and_the_region(session):
    set_cloudwatch_role(session)
    line = preflight.problem(session)
    assert line == (f"the Powertools layer {powertools_version()} (arm64, python3.13) is not published in {REGION} "
                    f"(no /aws/service/powertools/python/arm64/python3.13/{powertools_version()}): pick another "
                    "region, or another aws-lambda-powertools version in requirements.txt")


def test_the_layer_is_checked_before_the_role_and_in_the_callers_region(session):
    publish_layer("us-east-1")  # published elsewhere, not where the deploy goes
    assert "is not published in eu-west-1" in preflight.problem(session)


def test_a_region_without_the_layer_is_refused_before_any_call():
    line = preflight.problem(boto3.Session(region_name="cn-north-1"))
    assert line.startswith("cn-north-1 has no AWS-managed Powertools layer: deploy to one of af-south-1, ")
    assert "\n" not in line


def test_main_prints_one_line_and_fails(session, monkeypatch, capsys):
    monkeypatch.setattr(preflight, "caller_session", lambda: session)
    assert preflight.main() == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("preflight: the Powertools layer ")
    publish_layer()
    set_cloudwatch_role(session)
    assert preflight.main() == 0
    assert capsys.readouterr().err == ""


def test_the_region_is_the_one_the_cdk_cli_deploys_to(monkeypatch):
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    assert preflight.caller_session().region_name == "eu-central-1"
    monkeypatch.delenv("AWS_REGION")
    assert preflight.caller_session().region_name == "us-east-1"


def test_a_new_accounts_reduced_lambda_concurrency_is_named_in_one_line(session, monkeypatch):
    # moto has no GetAccountSettings: the answer a new account gets, stubbed as botocore's Stubber checks it
    from botocore.stub import Stubber

    publish_layer()
    set_cloudwatch_role(session)
    lambda_client = session.client("lambda")
    stubber = Stubber(lambda_client)
    settings = {"AccountLimit": {"ConcurrentExecutions": 10, "UnreservedConcurrentExecutions": 10,
                                 "TotalCodeSize": 80530636800, "CodeSizeUnzipped": 262144000, "CodeSizeZipped": 52428800}}
    stubber.add_response("get_account_settings", settings)
    stubber.add_response("get_account_settings", settings)
    client = session.client
    monkeypatch.setattr(session, "client", lambda name, **kw: lambda_client if name == "lambda" else client(name, **kw))
    with stubber:
        line = preflight.problem(session, functions=30)
        assert preflight.problem(session, functions=10) is None
    assert line == (f"Lambda in {REGION} lets this account run 10 function environments at once (a new account's "
                    "reduced quota; the default is 1,000), fewer than the stage's 30 functions: ask for more "
                    "'Concurrent executions' (Service Quotas, AWS Lambda)")
