"""Nested stacks end to end: a small CDK app (a parent with the RestApi, its authorizer and a shared table; a
NestedStack with a table, its stream consumer, a function and methods on the parent's API) synthesized by CDK and run.

The nested stack reaches the parent's API, authorizer and table only through the parameters CDK passes; the parent
reads the nested table's name back through `Fn::GetAtt [<NestedStack>, Outputs.<Name>]`.
"""

from __future__ import annotations

import logging
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from local.cloudformation.template import synth
from local.cognito import mint_token
from local.runtime import Runtime
from tests.support.waiting import eventually

APP = '''
import os

import aws_cdk as cdk
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs

KEY = ddb.Attribute(name="id", type=ddb.AttributeType.STRING)


def function(scope, name, handler, **environment):
    role = cdk.aws_iam.Role(scope, f"{name}Role", assumed_by=cdk.aws_iam.ServicePrincipal("lambda.amazonaws.com"))
    return lambda_.Function(scope, name, runtime=lambda_.Runtime.PYTHON_3_13, handler=handler, role=role,
                            code=lambda_.Code.from_asset("fn"), environment=environment)


class Things(cdk.NestedStack):
    def __init__(self, scope, construct_id, *, api, authorizer, shared):
        super().__init__(scope, construct_id)
        self.table = ddb.Table(self, "Things", partition_key=KEY, billing_mode=ddb.BillingMode.PAY_PER_REQUEST,
                               stream=ddb.StreamViewType.NEW_IMAGE, removal_policy=cdk.RemovalPolicy.DESTROY)
        api_fn = function(self, "ThingsApi", "handler.api", THINGS=self.table.table_name, SHARED=shared.table_name)
        self.table.grant_write_data(api_fn)
        shared.grant_read_data(api_fn)
        consumer = function(self, "Consumer", "handler.consumer", DELIVERIES=os.environ["DELIVERIES"])
        consumer.add_event_source(sources.DynamoEventSource(
            self.table, starting_position=lambda_.StartingPosition.TRIM_HORIZON, batch_size=10, retry_attempts=2,
            report_batch_item_failures=True, on_failure=sources.SqsDlq(sqs.Queue(self, "Dlq"))))
        thing = apigw.Resource(self, "ThingsResource", parent=api.root, path_part="things").add_resource("{id}")
        for verb in ("PUT", "DELETE"):
            thing.add_method(verb, apigw.LambdaIntegration(api_fn), authorizer=authorizer,
                             authorization_type=apigw.AuthorizationType.COGNITO)


class Parent(cdk.Stack):
    def __init__(self, scope, construct_id):
        super().__init__(scope, construct_id)
        pool = cognito.UserPool(self, "Pool", removal_policy=cdk.RemovalPolicy.DESTROY)
        api = apigw.RestApi(self, "Api", deploy_options=apigw.StageOptions(stage_name="dev"))
        authorizer = apigw.CognitoUserPoolsAuthorizer(self, "Authorizer", cognito_user_pools=[pool])
        shared = ddb.Table(self, "Shared", partition_key=KEY, billing_mode=ddb.BillingMode.PAY_PER_REQUEST,
                           removal_policy=cdk.RemovalPolicy.DESTROY)
        things = Things(self, "Things", api=api, authorizer=authorizer, shared=shared)
        reader = function(self, "Reader", "handler.reader", THINGS=things.table.table_name)
        api.root.add_method("GET", apigw.LambdaIntegration(reader))


app = cdk.App()
Parent(app, "Parent-dev")
app.synth()
'''

HANDLER = '''
import json
import os

import boto3


def api(event, context):
    thing_id = event["pathParameters"]["id"]
    dynamodb = boto3.client("dynamodb")
    if event["httpMethod"] == "DELETE":  # not granted: a write to the parent's shared table (read only)
        dynamodb.put_item(TableName=os.environ["SHARED"], Item={"id": {"S": thing_id}})
    dynamodb.put_item(TableName=os.environ["THINGS"], Item={"id": {"S": thing_id}})
    shared = dynamodb.get_item(TableName=os.environ["SHARED"], Key={"id": {"S": thing_id}})
    user = event["requestContext"]["authorizer"]["claims"]["cognito:username"]
    body = {"things": os.environ["THINGS"], "shared": "Item" in shared, "user": user}
    return {"statusCode": 200, "body": json.dumps(body)}


def reader(event, context):
    return {"statusCode": 200, "body": json.dumps({"things": os.environ["THINGS"]})}


def consumer(event, context):
    with open(os.environ["DELIVERIES"], "a") as deliveries:
        for record in event["Records"]:
            deliveries.write(record["dynamodb"]["Keys"]["id"]["S"] + "\\n")
    return {"batchItemFailures": []}
'''


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    root = tmp_path_factory.mktemp("nested")
    (root / "app.py").write_text(APP)
    (root / "fn").mkdir()
    (root / "fn" / "handler.py").write_text(textwrap.dedent(HANDLER))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DELIVERIES", str(root / "deliveries.txt"))
        assembly = synth(root, root / "cdk.out", "dev", log=lambda line: None)
    with Runtime.start(assembly=assembly, port=0, aws_port=0, seed=False, keys_dir=root / "keys") as running:
        running.keys_dir = root / "keys"
        yield running


def call(runtime: Runtime, method: str, path: str, user: str | None = "alice") -> requests.Response:
    headers = {"Authorization": f"Bearer {mint_token(user, keys_dir=runtime.keys_dir)}"} if user else {}
    return requests.request(method, f"{runtime.url}{path}", headers=headers, timeout=30)


def test_the_nested_templates_are_read_from_the_assembly(runtime: Runtime) -> None:
    assert len(list(runtime.assembly.glob("*.nested.template.json"))) == 1
    names = [stack.stack.name for stack in runtime.stacks]
    assert names[0] == "Parent-dev" and len(names) == 2 and names[1].startswith("Parent-dev-ThingsNestedStack")
    (things,) = runtime.stacks[1].tables.values()
    assert things.name.startswith(names[1]) and things.stream_arn


def test_a_nested_method_on_the_parents_api_runs_the_nested_function_with_the_parents_authorizer(
        runtime: Runtime) -> None:
    (things,) = runtime.stacks[1].tables.values()
    response = call(runtime, "PUT", "/dev/things/t-1")
    assert response.status_code == 200, response.text
    assert response.json() == {"things": things.name, "shared": False, "user": "alice"}
    assert call(runtime, "PUT", "/things/t-1", user=None).status_code == 401


def test_the_parent_reads_a_nested_output(runtime: Runtime) -> None:
    (things,) = runtime.stacks[1].tables.values()
    assert call(runtime, "GET", "/", user=None).json() == {"things": things.name}


def test_the_nested_roles_policies_are_enforced(runtime: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="local.iam")
    response = call(runtime, "DELETE", "/things/t-2")
    assert response.status_code == 502
    assert "IAM denied ThingsApi" in caplog.text and "dynamodb:PutItem" in caplog.text


def test_the_nested_stream_mapping_delivers_to_the_nested_consumer(runtime: Runtime) -> None:
    assert call(runtime, "PUT", "/things/t-3").status_code == 200
    assert runtime.streams is not None and runtime.streams.wait_idle(timeout=10)
    deliveries = Path(runtime.assembly.parent / "deliveries.txt")
    eventually(lambda: deliveries.exists() and "t-3" in deliveries.read_text().split())
    (mapping,) = runtime.streams.mappings
    assert mapping.max_retries == 2 and mapping.on_failure and mapping.on_failure.startswith("arn:aws:sqs:")
    assert runtime.dlq_messages()[mapping.on_failure] == []
