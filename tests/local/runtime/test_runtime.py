"""The whole runtime over a small hand-written cloud assembly: moto, a worker, the HTTP API."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests

from local.cognito import mint_token
from local.runtime import Runtime
from tests.local.api_template import API, ROOT

HANDLER = """
import json
import os

import boto3

_table = None


def table():
    global _table  # created on first use, never at import (a client made at import bypasses moto)
    if _table is None:
        _table = boto3.resource("dynamodb").Table(os.environ["TABLE_NAME"])
    return _table


def handler(event, context):
    if event.get("direct"):
        return {"direct": True, "function": context.function_name}
    person_id = event["pathParameters"]["personId"]
    table().put_item(Item={"PK": person_id, "SK": "A", "n": 1})
    item = table().get_item(Key={"PK": person_id, "SK": "A"})["Item"]
    secret = boto3.client("secretsmanager").get_secret_value(SecretId=os.environ["SECRET_ARN"])
    return {
        "statusCode": 200,
        "headers": {"Content-Type": "application/json"},
        "body": json.dumps({
            "item": {"PK": item["PK"], "n": int(item["n"])},
            "table": os.environ["TABLE_NAME"],
            "secretLength": len(secret["SecretString"]),
            "groups": event["requestContext"]["authorizer"]["claims"]["cognito:groups"],
        }),
    }
"""


def _assembly(root: Path) -> Path:
    outdir = root / "cdk.out"
    asset = outdir / "asset.0123"
    (asset / "functions").mkdir(parents=True)
    (asset / "functions" / "__init__.py").write_text("")
    (asset / "functions" / "fake.py").write_text(HANDLER)
    resources: dict[str, Any] = {
        "Table": {
            "Type": "AWS::DynamoDB::Table",
            "Properties": {
                "KeySchema": [
                    {"AttributeName": "PK", "KeyType": "HASH"},
                    {"AttributeName": "SK", "KeyType": "RANGE"},
                ],
                "AttributeDefinitions": [
                    {"AttributeName": "PK", "AttributeType": "S"},
                    {"AttributeName": "SK", "AttributeType": "S"},
                ],
                "BillingMode": "PAY_PER_REQUEST",
                "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
                "TimeToLiveSpecification": {"AttributeName": "ttl", "Enabled": True},
            },
        },
        "Secret": {
            "Type": "AWS::SecretsManager::Secret",
            "Properties": {"GenerateSecretString": {"PasswordLength": 40}},
        },
        "UserPool": {"Type": "AWS::Cognito::UserPool", "Properties": {}},
        "Fn": {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "Handler": "functions.fake.handler",
                "Runtime": "python3.13",
                "Timeout": 10,
                "Code": {"S3Bucket": "b", "S3Key": "0123.zip"},
                "Environment": {
                    "Variables": {
                        "TABLE_NAME": {"Ref": "Table"},
                        "SECRET_ARN": {"Ref": "Secret"},
                        "STREAM_ARN": {"Fn::GetAtt": ["Table", "StreamArn"]},
                    }
                },
            },
            "Metadata": {"aws:asset:path": "asset.0123"},
        },
        API: {"Type": "AWS::ApiGateway::RestApi", "Properties": {"Name": "Api"}},
        "Stage": {
            "Type": "AWS::ApiGateway::Stage",
            "Properties": {"RestApiId": {"Ref": API}, "StageName": "dev"},
        },
        "Authorizer": {
            "Type": "AWS::ApiGateway::Authorizer",
            "Properties": {
                "Type": "COGNITO_USER_POOLS",
                "IdentitySource": "method.request.header.Authorization",
                "ProviderARNs": [{"Fn::GetAtt": ["UserPool", "Arn"]}],
                "RestApiId": {"Ref": API},
            },
        },
        "Persons": {
            "Type": "AWS::ApiGateway::Resource",
            "Properties": {"ParentId": ROOT, "PathPart": "persons", "RestApiId": {"Ref": API}},
        },
        "PersonId": {
            "Type": "AWS::ApiGateway::Resource",
            "Properties": {
                "ParentId": {"Ref": "Persons"},
                "PathPart": "{personId}",
                "RestApiId": {"Ref": API},
            },
        },
        "PersonGet": {
            "Type": "AWS::ApiGateway::Method",
            "Properties": {
                "HttpMethod": "GET",
                "ResourceId": {"Ref": "PersonId"},
                "RestApiId": {"Ref": API},
                "AuthorizationType": "COGNITO_USER_POOLS",
                "AuthorizerId": {"Ref": "Authorizer"},
                "Integration": {
                    "Type": "AWS_PROXY",
                    "IntegrationHttpMethod": "POST",
                    "Uri": {
                        "Fn::Join": [
                            "",
                            [
                                "arn:aws:apigateway:",
                                {"Ref": "AWS::Region"},
                                ":lambda:path/2015-03-31/functions/",
                                {"Fn::GetAtt": ["Fn", "Arn"]},
                                "/invocations",
                            ],
                        ]
                    },
                },
            },
        },
    }
    (outdir / "App-dev.template.json").write_text(json.dumps({"Resources": resources}))
    (outdir / "manifest.json").write_text(
        json.dumps(
            {
                "artifacts": {
                    "App-dev": {
                        "type": "aws:cloudformation:stack",
                        "properties": {"templateFile": "App-dev.template.json"},
                    }
                }
            }
        )
    )
    return outdir


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    root = tmp_path_factory.mktemp("runtime")
    with Runtime.start(
        assembly=_assembly(root), port=0, aws_port=0, seed=False, keys_dir=root / "keys"
    ) as running:
        yield running


def test_http_request_runs_the_function_against_moto(runtime: Runtime) -> None:
    keys_dir = Path(runtime.assembly).parent / "keys"
    token = mint_token("alice", ["admin", "vehicle"], keys_dir=keys_dir)
    response = requests.get(
        f"{runtime.url}/dev/persons/p-1", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    body = response.json()
    (table,) = runtime.stacks[0].tables.values()
    assert body == {
        "item": {"PK": "p-1", "n": 1},
        "table": table.name,
        "secretLength": 40,
        "groups": "admin,vehicle",
    }
    unauthorized = requests.get(f"{runtime.url}/persons/p-1", timeout=30)
    assert unauthorized.status_code == 401


def test_a_worker_killed_between_two_requests_is_replaced_and_the_second_answers_200(runtime: Runtime) -> None:
    keys_dir = Path(runtime.assembly).parent / "keys"
    headers = {"Authorization": f"Bearer {mint_token('alice', ['admin'], keys_dir=keys_dir)}"}
    assert requests.get(f"{runtime.url}/persons/p-2", headers=headers, timeout=30).status_code == 200
    assert runtime.functions is not None
    pool = runtime.functions.pool("Fn")
    killed = pool.worker_pids
    assert killed
    for pid in killed:  # the warm environment dies between two requests (killed, out of memory...)
        os.kill(pid, signal.SIGKILL)
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead, and left for the runtime to notice
    second = requests.get(f"{runtime.url}/persons/p-2", headers=headers, timeout=30)
    assert second.status_code == 200, second.text  # not 502: a new environment took the request
    assert second.json()["item"] == {"PK": "p-2", "n": 1}
    assert pool.worker_pids and set(pool.worker_pids).isdisjoint(killed)


def test_tables_live_on_the_printed_endpoint(runtime: Runtime) -> None:
    (table,) = runtime.stacks[0].tables.values()
    client = boto3.client(
        "dynamodb",
        endpoint_url=runtime.aws_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    assert table.name in client.list_tables()["TableNames"]
    assert table.name.startswith("App-dev-Table-")
    assert table.stream_arn and table.ttl_attribute == "ttl"
    spec = runtime.functions.pool("Fn").spec if runtime.functions else None
    assert spec is not None and spec.environment["STREAM_ARN"] == table.stream_arn


def test_invoke_api_reaches_the_same_workers(runtime: Runtime) -> None:
    result = runtime.invoke("Fn", {"direct": True})
    assert result == {"direct": True, "function": runtime.functions.pool("Fn").spec.name}


def test_seed_environment_merges_resolved_variables(runtime: Runtime) -> None:
    env = runtime.seed_environment()
    assert env["TABLE_NAME"] == next(iter(runtime.stacks[0].tables.values())).name
    assert env["SECRET_ARN"].startswith("arn:aws:secretsmanager:")


def test_stop_kills_workers_and_restores_the_environment(tmp_path: Path) -> None:
    before = os.environ.get("AWS_ENDPOINT_URL")
    running = Runtime.start(
        assembly=_assembly(tmp_path), port=0, aws_port=0, seed=False, keys_dir=tmp_path / "keys"
    )
    assert os.environ["AWS_ENDPOINT_URL"] == running.aws_endpoint
    running.invoke("Fn", {"direct": True})
    pids = running.functions.pool("Fn").worker_pids
    running.stop()
    assert pids
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert os.environ.get("AWS_ENDPOINT_URL") == before
    with pytest.raises(requests.ConnectionError):
        requests.get(f"{running.url}/persons/x", timeout=5)
