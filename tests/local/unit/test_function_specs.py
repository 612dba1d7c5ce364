"""A function's spec and worker environment from the template (no worker is started)."""

from __future__ import annotations

from pathlib import Path

from local.awslambda.pool import function_specs, worker_environment
from local.cloudformation.resources import Clients, StackResources
from local.cloudformation.template import StackTemplate
from tests.local.conftest import no_clients

AWS_ENV = {"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "testing",
           "AWS_SECRET_ACCESS_KEY": "testing"}


def test_function_specs_come_from_the_template(tmp_path: Path) -> None:
    asset = tmp_path / "asset.abc"
    asset.mkdir()
    template = {
        "Resources": {
            "Table": {"Type": "AWS::IAM::Role", "Properties": {"RoleName": "fake-table"}},
            "Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"LogGroupName": "/custom/logs"}},
            "Fn": {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Handler": "functions.contacts.api.lambda_handler",
                    "Runtime": "python3.13",
                    "Timeout": 10,
                    "MemorySize": 512,
                    "Code": {"S3Bucket": "b", "S3Key": "abc.zip"},
                    "Environment": {
                        "Variables": {
                            "ROLE": {"Ref": "Table"},
                            "ROLE_ARN": {"Fn::GetAtt": ["Table", "Arn"]},
                            "STACK": {"Ref": "AWS::StackName"},
                        }
                    },
                    "LoggingConfig": {"LogFormat": "JSON", "LogGroup": {"Ref": "Logs"}},
                },
                "Metadata": {"aws:asset:path": "asset.abc"},
            },
        }
    }
    stack = StackTemplate("Test-dev", template, tmp_path)
    (spec,) = function_specs(StackResources(stack, Clients(no_clients), region="us-east-1"))
    assert spec.logical_id == "Fn"
    assert spec.name.startswith("Test-dev-Fn-")
    assert spec.arn == f"arn:aws:lambda:us-east-1:123456789012:function:{spec.name}"
    assert spec.code_dir == asset
    assert (spec.timeout, spec.memory) == (10.0, 512)
    assert spec.log_group == "/custom/logs"
    assert spec.environment == {
        "ROLE": "fake-table",
        "ROLE_ARN": "arn:aws:iam::123456789012:role/fake-table",
        "STACK": "Test-dev",
    }
    env = worker_environment(spec, AWS_ENV, parent={"PATH": "/bin", "RANDOM": "x"})
    assert env["AWS_LAMBDA_LOG_FORMAT"] == "JSON"
    assert env["PATH"] == "/bin" and "RANDOM" not in env
    assert env["AWS_ACCESS_KEY_ID"] == spec.access_key != "testing"  # its calls are checked as its role
    assert env["AWS_LAMBDA_FUNCTION_NAME"] == spec.name and env["_HANDLER"] == "functions.contacts.api.lambda_handler"
