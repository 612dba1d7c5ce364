"""The runtime's Lambda API (ListFunctions, Invoke) as a plain boto3 `lambda` client sees it: what `make replay`
relies on to work the same locally and on AWS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local.functions import FunctionError, FunctionSpec
from local.lambda_api import LambdaApi
from local.server import ApiServer

ARN = "arn:aws:lambda:us-east-1:123456789012:function:App-dev-Consumer-abc"
SPEC = FunctionSpec(
    logical_id="Consumer", name="App-dev-Consumer-abc", arn=ARN, handler="functions.x.lambda_handler",
    runtime="python3.13", code_dir=Path("."), environment={"PARKED_RECORDS_TABLE_NAME": "parked"}, timeout=30.0,
)


@pytest.fixture
def client() -> Iterator[tuple[Any, list[tuple[str, Any]]]]:
    calls: list[tuple[str, Any]] = []

    def invoke(function: str, event: Any, request_id: str) -> Any:
        calls.append((function, event))
        if event.get("fail"):
            raise FunctionError(function, "RuntimeError", "it broke", "Traceback ...\n  line 1\n")
        return {"echo": event}

    known = {SPEC.name, SPEC.arn, SPEC.logical_id}
    api = LambdaApi(lambda: [SPEC], invoke, known.__contains__)
    server = ApiServer(None, port=0, lambda_api=api).start()  # type: ignore[arg-type]  # no REST API needed
    try:
        lambda_client = boto3.client("lambda", endpoint_url=server.url, region_name="us-east-1",
                                     aws_access_key_id="testing", aws_secret_access_key="testing")
        yield lambda_client, calls
    finally:
        server.stop()


def test_list_functions_names_each_function_with_its_environment(client):
    lambda_client, _ = client
    (function,) = lambda_client.list_functions()["Functions"]
    assert (function["FunctionName"], function["FunctionArn"], function["Timeout"]) == (SPEC.name, ARN, 30)
    assert function["Environment"]["Variables"] == {"PARKED_RECORDS_TABLE_NAME": "parked"}


def test_invoke_by_arn_or_name_runs_the_function_and_returns_its_result(client):
    lambda_client, calls = client
    response = lambda_client.invoke(FunctionName=ARN, Payload=json.dumps({"replay": {"limit": 5}}).encode())
    assert response["StatusCode"] == 200 and "FunctionError" not in response
    assert json.loads(response["Payload"].read()) == {"echo": {"replay": {"limit": 5}}}
    lambda_client.invoke(FunctionName=f"{SPEC.name}:$LATEST", Payload=b"{}")
    assert calls == [(ARN, {"replay": {"limit": 5}}), (SPEC.name, {})]


def test_a_function_error_is_a_200_with_the_function_error_header_as_on_aws(client):
    lambda_client, _ = client
    response = lambda_client.invoke(FunctionName=SPEC.name, Payload=b'{"fail": true}')
    assert (response["StatusCode"], response["FunctionError"]) == (200, "Unhandled")
    assert json.loads(response["Payload"].read())["errorType"] == "RuntimeError"


def test_an_unknown_function_is_resource_not_found(client):
    lambda_client, calls = client
    with pytest.raises(ClientError) as error:
        lambda_client.invoke(FunctionName="nope", Payload=b"{}")
    assert error.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert error.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    assert calls == []
