"""A DynamoDB table built from a TableSpec (functions/<domain>/schema.py): keys, GSIs, TTL, stream."""

from __future__ import annotations

from aws_cdk import CfnDeletionPolicy, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from constructs import Construct

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

# What Powertools' DynamoDBPersistenceLayer calls on the idempotency table: PutItem (conditional, returning the
# existing record with ReturnValuesOnConditionCheckFailure, so no GetItem), UpdateItem (the result), DeleteItem
# (a failed attempt is forgotten). Its GetItem is only a fallback for responses without the old item, which
# DynamoDB always returns here; tests/functional/test_grants.py proves the list by traffic.
IDEMPOTENCY_ACTIONS = ["PutItem", "UpdateItem", "DeleteItem"]

_TYPES = {"S": dynamodb.AttributeType.STRING, "N": dynamodb.AttributeType.NUMBER, "B": dynamodb.AttributeType.BINARY}


def _attribute(key: KeyAttribute | None) -> dynamodb.Attribute | None:
    return None if key is None else dynamodb.Attribute(name=key.name, type=_TYPES[key.type])


class SpecTable(Construct):
    """On-demand, point-in-time recovery on, no physical name (CloudFormation names it per stack), kept when a key
    change replaces it."""

    def __init__(self, scope: Construct, spec: TableSpec, *, removal_policy: RemovalPolicy, deletion_protection: bool):
        super().__init__(scope, spec.construct_id)
        self.spec = spec
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=_attribute(spec.partition_key),
            sort_key=_attribute(spec.sort_key),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=spec.ttl_attribute,
            stream=dynamodb.StreamViewType[spec.stream_view] if spec.stream_view else None,
            removal_policy=removal_policy,
            deletion_protection=deletion_protection,
        )
        for index in spec.indexes:
            self.table.add_global_secondary_index(**_index_props(index))
        # A key schema change replaces the table; the old one is kept, on every stage, for `make migrate` to copy
        # from (tools/migrate.py, docs/adr/0113-key-changes-migrated-by-make-migrate.md). Deleting a stage still
        # follows `removal_policy` (DeletionPolicy).
        resource: dynamodb.CfnTable = self.table.node.default_child
        resource.cfn_options.update_replace_policy = CfnDeletionPolicy.RETAIN

    def grant(self, grantee: iam.IGrantable, actions: list[str], *, indexes: tuple[str, ...] = ()) -> None:
        """Exactly these actions on the table, and Query on the named indexes (no `index/*` wildcard).

        AWS authorizes a Query with IndexName against the index ARN only, and no other item action applies to an
        index, so an index gets nothing but Query; list "Query" in `actions` only when the table itself is queried.
        """
        for name in indexes:
            self.spec.index(name)  # a typo here fails the synth
        if actions:
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(actions=[f"dynamodb:{a}" for a in actions], resources=[self.table.table_arn])
            )
        if indexes:
            grantee.grant_principal.add_to_principal_policy(
                iam.PolicyStatement(
                    actions=["dynamodb:Query"],
                    resources=[f"{self.table.table_arn}/index/{name}" for name in indexes],
                )
            )


def _index_props(index: IndexSpec) -> dict:
    props: dict = {
        "index_name": index.name,
        "partition_key": _attribute(index.partition_key),
        "sort_key": _attribute(index.sort_key),
    }
    if isinstance(index.projection, tuple):
        props["projection_type"] = dynamodb.ProjectionType.INCLUDE
        props["non_key_attributes"] = list(index.projection)
    else:
        props["projection_type"] = dynamodb.ProjectionType[index.projection]
    return props
