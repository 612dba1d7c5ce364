"""The functional suite runs every handler under its function's role (tests/support/iam.py): proof that it bites."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from local.iam import PolicyDocument
from tests.functional.connected_car_support import (
    ADMIN,
    VIN,
    connected_car_client,
    make_tables,
)

HANDLER = "functions.connected_car.api.lambda_handler"


def without(documents: list[PolicyDocument], action: str, table_logical_prefix: str) -> list[PolicyDocument]:
    """The documents with `action` removed from every statement that names that table (and nothing else)."""
    trimmed = []
    for document in documents:
        statements = []
        for statement in document.statements():
            resources = statement.get("Resource")
            names = resources if isinstance(resources, list) else [resources]
            if any(table_logical_prefix in str(r) for r in names) and action in statement.get("Action", []):
                statement = {**statement, "Action": [a for a in statement["Action"] if a != action]}
            statements.append(statement)
        trimmed.append(PolicyDocument(document.name, {**document.document, "Statement": statements}))
    return trimmed


@pytest.fixture
def client(aws, monkeypatch):
    make_tables(monkeypatch)
    return connected_car_client()


def test_a_call_the_role_does_not_allow_is_access_denied(client, function_roles, monkeypatch):
    # Given the ConnectedCar API's role as it was before IAM was enforced locally: no UpdateItem on the Vehicle table
    # (docs/adr/0027-iam-enforced-locally-grants-follow-aws.md)
    principal = function_roles[HANDLER].principal
    granted = principal.policies
    monkeypatch.setattr(principal, "policies", lambda: without(granted(), "dynamodb:UpdateItem", "VehicleTable"))
    # When an admin puts a vehicle (the repository's UpdateItem)
    with pytest.raises(ClientError) as denied:
        client.call("PUT", f"/connected-car/vehicles/{VIN}", body={"make": "Honda", "model": "Accord", "year": 2003},
                    user="root", groups=ADMIN)
    # Then AWS's answer, naming the role, the action and the table
    assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
    message = denied.value.response["Error"]["Message"]
    assert "assumed-role/" in message and "dynamodb:UpdateItem" in message and "table/test-VehicleTable" in message


def test_with_the_template_role_the_same_call_succeeds(client):
    reply = client.call("PUT", f"/connected-car/vehicles/{VIN}", body={"make": "Honda", "model": "Accord",
                                                                       "year": 2003}, user="root", groups=ADMIN)
    assert reply.status == 200
