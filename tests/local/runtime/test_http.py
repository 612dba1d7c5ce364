"""The gateway behind werkzeug's server on a real socket: what only HTTP shows (chunked bodies, draining an
oversized body, the stage prefix in the URL) and the Lambda API as a plain boto3 `lambda` client sees it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
import requests
from botocore.exceptions import ClientError

from local.apigw import MAX_BODY_BYTES, build_rest_api
from local.aws import WsgiServer
from local.functions import FunctionError
from local.gateway import Gateway, LambdaApi
from tests.local.api_template import api_resources
from tests.local.conftest import stack_resources
from tests.local.unit.test_gateway import GOOD_TOKEN, SPEC, FakeFunctions, verify


@pytest.fixture
def functions() -> FakeFunctions:
    return FakeFunctions()


@pytest.fixture
def server(functions: FakeFunctions) -> Iterator[WsgiServer]:
    lambda_api = LambdaApi(lambda: [SPEC], functions, {SPEC.name, SPEC.arn, SPEC.logical_id}.__contains__)
    api_server = WsgiServer(Gateway(build_rest_api(stack_resources(api_resources())), functions, verify,
                                    lambda_api=lambda_api), "127.0.0.1", 0, setting="PORT").start()
    yield api_server
    api_server.stop()


def test_http_round_trip(server: WsgiServer, functions: FakeFunctions) -> None:
    functions.result = {"statusCode": 201, "multiValueHeaders": {"Set-Cookie": ["a=1", "b=2"]},
                        "headers": {"Content-Type": "application/json"}, "body": '{"created": true}'}
    response = requests.post(f"{server.url}/dev/contacts/persons?x=1&x=2", data=b'{"firstName": "Ann"}', timeout=10,
                             headers={"Authorization": f"Bearer {GOOD_TOKEN}", "Content-Type": "application/json"})
    assert (response.status_code, response.json()) == (201, {"created": True})
    assert response.raw.headers.getlist("Set-Cookie") == ["a=1", "b=2"]
    event = functions.calls[0][1]
    assert (event["path"], event["requestContext"]["path"]) == ("/contacts/persons", "/dev/contacts/persons")
    assert event["body"] == '{"firstName": "Ann"}'
    assert event["requestContext"]["identity"]["sourceIp"] == "127.0.0.1"


def test_a_chunked_body_and_an_unknown_route(server: WsgiServer, functions: FakeFunctions) -> None:
    response = requests.put(f"{server.url}/docs", data=iter([b'{"a":', b" 1}"]), timeout=10)
    assert response.status_code == 200
    assert functions.calls[0][1]["body"] == '{"a": 1}'
    missing = requests.get(f"{server.url}/nothing/here", timeout=10)
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "ROUTE_NOT_FOUND")
    assert requests.head(f"{server.url}/docs", timeout=10).content == b""


def test_an_oversized_body_gets_413_not_a_reset_connection(server: WsgiServer, functions: FakeFunctions) -> None:
    response = requests.post(f"{server.url}/docs", data=b"x" * (MAX_BODY_BYTES + 10), timeout=30)
    assert response.status_code == 413 and functions.calls == []


def test_the_lambda_api_answers_a_boto3_lambda_client(server: WsgiServer, functions: FakeFunctions) -> None:
    client = boto3.client("lambda", endpoint_url=server.url, region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    (function,) = client.list_functions()["Functions"]
    assert (function["FunctionName"], function["Timeout"]) == (SPEC.name, 30)
    functions.result = {"replayed": 2}
    response = client.invoke(FunctionName=SPEC.arn, Payload=json.dumps({"replay": {"limit": 5}}).encode())
    assert "FunctionError" not in response and json.load(response["Payload"]) == {"replayed": 2}
    functions.result = FunctionError("Consumer", "RuntimeError", "it broke", "Traceback")
    failed: Any = client.invoke(FunctionName=SPEC.name, Payload=b"{}")
    assert failed["FunctionError"] == "Unhandled" and json.load(failed["Payload"])["errorMessage"] == "it broke"
    with pytest.raises(ClientError, match="ResourceNotFoundException"):
        client.invoke(FunctionName="Nope", Payload=b"{}")
