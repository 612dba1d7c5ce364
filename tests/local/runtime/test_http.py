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

from local.apigateway.gateway import Gateway, GatewayRequestHandler, LambdaApi
from local.apigateway.restapi import MAX_BODY_BYTES, build_rest_api
from local.aws import WsgiServer
from local.awslambda.pool import FunctionError
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
                                    lambda_api=lambda_api), "127.0.0.1", 0, setting="PORT",
                            handler=GatewayRequestHandler).start()
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


def raw_request(server: WsgiServer, head: bytes) -> tuple[int, dict[str, str], bytes]:
    """Sends `head` as is (no client would send these requests) and reads the whole answer."""
    import socket

    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as connection:
        connection.sendall(head)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    header_block, _, body = rest.partition(b"\r\n\r\n")
    headers = dict(line.decode().split(": ", 1) for line in header_block.split(b"\r\n") if line)
    return int(status_line.split()[1]), {k.lower(): v for k, v in headers.items()}, body


@pytest.mark.parametrize("method", ["TRACE", "FOO", "CONNECT"])
def test_a_method_no_route_has_is_the_json_route_not_found(server: WsgiServer, functions: FakeFunctions,
                                                           method: str) -> None:
    response = requests.request(method, f"{server.url}/contacts/persons", timeout=30,
                                headers={"Authorization": GOOD_TOKEN})
    assert (response.status_code, response.json()["error"]["code"]) == (404, "ROUTE_NOT_FOUND")
    assert functions.calls == []


@pytest.mark.parametrize("length", [10_241, 70_000])  # over API Gateway's 10240; over http.server's own 64 KB
def test_a_uri_over_api_gateways_limit_is_a_json_414(server: WsgiServer, functions: FakeFunctions,
                                                     length: int) -> None:
    path = "/contacts/persons/" + "a" * (length - len("/contacts/persons/"))
    status, headers, body = raw_request(server, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert (status, headers["content-type"]) == (414, "application/json")
    assert json.loads(body)["error"]["code"] == "BAD_REQUEST"
    assert functions.calls == []


@pytest.mark.parametrize("value", ["abc", "-1", "1.5"])
def test_a_content_length_that_is_no_number_is_a_json_400(server: WsgiServer, functions: FakeFunctions,
                                                          value: str) -> None:
    status, headers, body = raw_request(server, (
        f"POST /contacts/persons HTTP/1.1\r\nHost: x\r\nAuthorization: {GOOD_TOKEN}\r\n"
        f"Content-Length: {value}\r\nConnection: close\r\n\r\n").encode())
    assert (status, headers["content-type"]) == (400, "application/json")
    assert json.loads(body)["error"]["code"] == "BAD_REQUEST"
    assert functions.calls == []


def test_a_malformed_request_line_is_a_json_400(server: WsgiServer) -> None:
    status, headers, body = raw_request(server, b"GET / HTTP/x.y\r\n\r\n")
    assert (status, headers["content-type"]) == (400, "application/json")
    assert json.loads(body)["error"]["code"] == "BAD_REQUEST"


@pytest.mark.parametrize(("raw", "decoded"), [("a%40b.com", "a@b.com"), ("a+b%40c.com", "a+b@c.com"),
                                              ("a%2Bb", "a+b"), ("a%2Fb", "a/b")])
def test_a_percent_encoded_path_parameter_arrives_as_on_aws(server: WsgiServer, functions: FakeFunctions,
                                                            raw: str, decoded: str) -> None:
    response = requests.get(f"{server.url}/contacts/persons/{raw}", headers={"Authorization": GOOD_TOKEN}, timeout=30)
    assert response.status_code == 200
    event = functions.calls[0][1]
    # `path` as sent (API Gateway REST keeps it encoded), `pathParameters` decoded
    assert (event["path"], event["pathParameters"]) == (f"/contacts/persons/{raw}", {"personId": decoded})
