"""local/iam.py: what a call needs, how the role's policies decide, and the local endpoint's AccessDenied."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import pytest

from local.iam import (
    IamEnforcement,
    Permission,
    PolicyDocument,
    Principal,
    check_mapping_role,
    required_permissions,
)

TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/Orders"
OTHER = "arn:aws:dynamodb:us-east-1:123456789012:table/Other"
STREAM = f"{TABLE}/stream/2026-11-23T00:00:00.000"


def principal(*statements: dict) -> Principal:
    document = PolicyDocument("Policy", {"Version": "2012-10-17", "Statement": list(statements)})
    return Principal(
        function="OrdersFunction",
        role_arn="arn:aws:iam::123456789012:role/OrdersRole",
        session="orders-fn",
        policies=lambda: [document],
    )


def allow(actions: list[str], resources: list[str]) -> dict:
    return {"Effect": "Allow", "Action": actions, "Resource": resources}


def needs(operation: str, **params) -> list[Permission]:
    return required_permissions("dynamodb", operation, params, region="us-east-1")


def test_a_transaction_needs_the_underlying_action_of_each_item():
    permissions = needs(
        "TransactWriteItems",
        TransactItems=[
            {"Update": {"TableName": "Orders", "Key": {}}},
            {"ConditionCheck": {"TableName": "Other", "Key": {}}},
            {"Put": {"TableName": "Orders", "Item": {}}},
            {"Delete": {"TableName": "Other", "Key": {}}},
        ],
    )
    assert permissions == [
        Permission("dynamodb:UpdateItem", TABLE),
        Permission("dynamodb:ConditionCheckItem", OTHER),
        Permission("dynamodb:PutItem", TABLE),
        Permission("dynamodb:DeleteItem", OTHER),
    ]
    assert needs("TransactGetItems", TransactItems=[{"Get": {"TableName": "Other", "Key": {}}}]) == [
        Permission("dynamodb:GetItem", OTHER)
    ]


def test_a_query_on_an_index_needs_the_index_arn_and_batches_need_every_table():
    assert needs("Query", TableName="Orders", IndexName="ByCustomer") == [
        Permission("dynamodb:Query", f"{TABLE}/index/ByCustomer")
    ]
    assert needs("Query", TableName="Orders") == [Permission("dynamodb:Query", TABLE)]
    assert needs("BatchGetItem", RequestItems={"Orders": {}, "Other": {}}) == [
        Permission("dynamodb:BatchGetItem", TABLE),
        Permission("dynamodb:BatchGetItem", OTHER),
    ]
    assert needs("GetItem", TableName=TABLE) == [Permission("dynamodb:GetItem", TABLE)]  # an ARN as the name


def test_other_services_need_their_action_on_the_named_resource():
    secret = "arn:aws:secretsmanager:us-east-1:123456789012:secret:cursor-AbCdEf"
    assert required_permissions("secretsmanager", "GetSecretValue", {"SecretId": secret}, region="us-east-1") == [
        Permission("secretsmanager:GetSecretValue", secret)
    ]
    queue = required_permissions(
        "sqs", "SendMessage", {"QueueUrl": "http://localhost/123456789012/dlq"}, region="us-east-1"
    )
    assert queue == [Permission("sqs:SendMessage", "arn:aws:sqs:us-east-1:123456789012:dlq")]


def test_a_call_is_allowed_only_when_every_permission_is_and_an_explicit_deny_wins():
    role = principal(allow(["dynamodb:GetItem", "dynamodb:UpdateItem"], [TABLE]))
    assert role.first_denied([Permission("dynamodb:GetItem", TABLE)]) is None
    update_other = Permission("dynamodb:UpdateItem", OTHER)
    assert role.first_denied([Permission("dynamodb:GetItem", TABLE), update_other]) == update_other
    assert role.first_denied([Permission("dynamodb:Query", f"{TABLE}/index/X")]) is not None
    denied = principal(
        allow(["dynamodb:*"], ["*"]), {"Effect": "Deny", "Action": "dynamodb:DeleteItem", "Resource": TABLE}
    )
    assert denied.first_denied([Permission("dynamodb:DeleteItem", TABLE)]) == Permission("dynamodb:DeleteItem", TABLE)
    assert denied.first_denied([Permission("dynamodb:PutItem", TABLE)]) is None


def test_unused_grants_are_the_action_resource_pairs_no_allowed_call_matched():
    role = principal(allow(["dynamodb:GetItem", "dynamodb:PutItem"], [TABLE, f"{TABLE}/index/ByCustomer"]))
    role.first_denied([Permission("dynamodb:GetItem", TABLE)])
    assert sorted((g.action, g.resource) for g in role.unused_grants()) == [
        ("dynamodb:GetItem", f"{TABLE}/index/ByCustomer"),
        ("dynamodb:PutItem", TABLE),
        ("dynamodb:PutItem", f"{TABLE}/index/ByCustomer"),
    ]


def test_a_stream_mapping_needs_the_stream_actions_and_sendmessage_on_its_destination():
    queue = "arn:aws:sqs:us-east-1:123456789012:dlq"
    mapping = SimpleNamespace(id="App/Mapping", stream_arn=STREAM, on_failure=queue)
    stream_reads = allow(["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator"], [STREAM])
    complete = principal(stream_reads, allow(["dynamodb:ListStreams"], ["*"]), allow(["sqs:SendMessage"], [queue]))
    check_mapping_role(mapping, complete)
    without_queue = principal(stream_reads, allow(["dynamodb:ListStreams"], ["*"]))
    with pytest.raises(PermissionError, match="sqs:SendMessage"):
        check_mapping_role(mapping, without_queue)


def _call(app: IamEnforcement, key: str, target: str, body: dict) -> tuple[str, dict]:
    raw = json.dumps(body).encode()
    environ = {
        "HTTP_AUTHORIZATION": f"AWS4-HMAC-SHA256 Credential={key}/20261123/us-east-1/dynamodb/aws4_request, "
        "SignedHeaders=host, Signature=0",
        "HTTP_X_AMZ_TARGET": target,
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
    }
    seen: dict = {}

    def start_response(status: str, headers: list) -> None:
        seen["status"] = status

    body_out = b"".join(app(environ, start_response))
    return seen["status"], json.loads(body_out)


def test_the_local_endpoint_answers_accessdenied_as_dynamodb_and_passes_other_callers():
    def moto(environ, start_response):
        start_response("200 OK", [])
        return [json.dumps({"read": environ["wsgi.input"].read().decode()}).encode()]

    app = IamEnforcement(moto, region="us-east-1")
    app.principals["ASIAFUNCTION"] = principal(allow(["dynamodb:GetItem"], [TABLE]))

    status, body = _call(app, "ASIAFUNCTION", "DynamoDB_20120810.UpdateItem", {"TableName": "Orders"})
    assert status.startswith("400")
    assert body["__type"].endswith("#AccessDeniedException")
    assert body["message"] == (
        "User: arn:aws:sts::123456789012:assumed-role/OrdersRole/orders-fn is not authorized to perform: "
        f"dynamodb:UpdateItem on resource: {TABLE} because no identity-based policy allows the "
        "dynamodb:UpdateItem action"
    )
    status, body = _call(app, "ASIAFUNCTION", "DynamoDB_20120810.GetItem", {"TableName": "Orders"})
    assert status.startswith("200") and json.loads(body["read"]) == {"TableName": "Orders"}  # body still readable
    status, _ = _call(app, "testing", "DynamoDB_20120810.DeleteTable", {"TableName": "Orders"})
    assert status.startswith("200")  # the runtime's own (admin) calls
