"""Contacts (seed 000): the Contact table, its API function, its routes and its grants."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from functions.contacts.schema import CONTACT_TABLE, LAST_NAME_INDEX, PERSON_INDEX, TYPE_INDEX
from functions.shared.idempotency import IDEMPOTENCY_TABLE
from infra.constructs.api_function import ApiFunction, SharedCode, grant_secret_value
from infra.constructs.rest_api import BlueprintsApi, Route
from infra.constructs.spec_table import IDEMPOTENCY_ACTIONS, SpecTable

ROUTES = [
    Route("POST", "/contacts/persons"),
    Route("GET", "/contacts/persons"),
    Route("GET", "/contacts/items/{id}"),
    Route("POST", "/contacts/addresses"),
    Route("POST", "/contacts/persons/{personId}/addresses"),
    Route("PATCH", "/contacts/person-addresses/{linkId}"),
    Route("GET", "/contacts/persons/{personId}/addresses"),
]


class ContactsDomain(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        api: BlueprintsApi,
        shared: SharedCode,
        cursor_secret: secretsmanager.ISecret,
        idempotency: SpecTable,
        removal_policy: RemovalPolicy,
        deletion_protection: bool,
    ):
        super().__init__(scope, construct_id)
        self.table = SpecTable(self, CONTACT_TABLE, removal_policy=removal_policy, deletion_protection=deletion_protection)
        self.api_function = ApiFunction(
            self,
            "Api",
            shared=shared,
            handler="functions.contacts.api.lambda_handler",
            service="contacts",
            removal_policy=removal_policy,
            environment={
                CONTACT_TABLE.env_var: self.table.table.table_name,
                "CURSOR_SECRET_ARN": cursor_secret.secret_arn,
                IDEMPOTENCY_TABLE.env_var: idempotency.table.table_name,
            },
        ).function
        # Exactly what functions/contacts/repository.py calls, on the table and the indexes it queries.
        self.table.grant(
            self.api_function,
            ["GetItem", "Query", "BatchGetItem", "PutItem", "UpdateItem", "ConditionCheckItem"],
            indexes=(TYPE_INDEX, LAST_NAME_INDEX, PERSON_INDEX),
        )
        idempotency.grant(self.api_function, IDEMPOTENCY_ACTIONS)
        grant_secret_value(self.api_function, cursor_secret)
        api.add_routes(self.api_function, ROUTES)
