"""ConnectedCar in the template: the seed's tables and indexes, the isActive stream consumer, exact grants."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import RemovalPolicy
from aws_cdk.assertions import Template

from functions.connected_car.schema import (
    CUSTOMER_TABLE,
    CUSTOMER_TABLE_DURING_UPGRADE,
    REGISTRATION_TABLE,
    TABLES,
    TIMESLOT_TABLE,
)
from functions.shared.schema import PARKED_TABLE
from infra.constructs.api_function import SharedCode
from infra.constructs.spec_table import SpecTable
from infra.constructs.stream_consumer import StreamConsumer
from infra.domains.connected_car import KEEP_RETIRED_INDEXES, tables
from tests.infra.test_stack import logical_id, resources


def table_id(raw: dict[str, Any], construct_id: str) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", f"ConnectedCar{construct_id}")


def test_seed_tables_keys_and_indexes(dev):
    raw = dev.merged
    expected = {
        "DealerTable": ([("dealerId", "HASH")], {}),
        "TimeslotTable": ([("dealerId", "HASH"), ("serviceDateHour", "RANGE")], {}),
        "CustomerTable": ([("username", "HASH")],
                          {"ActiveCustomerShardIndex": [("activeShard", "HASH"), ("username", "RANGE")]}),
        "VehicleTable": ([("vin", "HASH")], {}),
        "RegistrationTable": (
            [("username", "HASH"), ("vin", "RANGE")],
            {"VehicleRegistrationIndex": [("vin", "HASH"), ("username", "RANGE")]},
        ),
        "AppointmentTable": (
            [("appointmentId", "HASH")],
            {
                "TimeslotAppointmentIndex": [("timeslotKey", "HASH"), ("appointmentId", "RANGE")],
                "RegistrationAppointmentIndex": [("registrationKey", "HASH"), ("serviceDateHour", "RANGE")],
            },
        ),
        "EventTable": ([("vin", "HASH"), ("eventId", "RANGE")], {"VehicleEventTypeIndex": [("vinType", "HASH"), ("eventId", "RANGE")]}),
    }
    assert {spec.construct_id for spec in TABLES} == set(expected)
    for construct_id, (keys, indexes) in expected.items():
        props = raw["Resources"][table_id(raw, construct_id)]["Properties"]
        assert [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]] == keys, construct_id
        found = {
            gsi["IndexName"]: [(k["AttributeName"], k["KeyType"]) for k in gsi["KeySchema"]]
            for gsi in props.get("GlobalSecondaryIndexes", [])
        }
        assert found == indexes, construct_id
        assert props["BillingMode"] == "PAY_PER_REQUEST"


def test_events_expire_by_ttl_and_registrations_stream_their_keys(dev):
    raw = dev.merged
    event = raw["Resources"][table_id(raw, "EventTable")]["Properties"]
    assert event["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}
    registration = raw["Resources"][table_id(raw, "RegistrationTable")]["Properties"]
    assert registration["StreamSpecification"] == {"StreamViewType": "KEYS_ONLY"}
    streams = [
        spec.construct_id
        for spec in TABLES
        if "StreamSpecification" in raw["Resources"][table_id(raw, spec.construct_id)]["Properties"]
    ]
    assert streams == ["RegistrationTable"]


def test_active_customers_consumer_has_bounded_retries_bisect_max_age_and_a_dlq(dev):
    raw = dev.merged
    consumer = logical_id(raw, "AWS::Lambda::Function", "ConnectedCarActiveCustomersConsumerFunction")
    (mapping,) = [m for m in resources(raw, "AWS::Lambda::EventSourceMapping").values()
                  if m["Properties"]["FunctionName"] == {"Ref": consumer}]
    queue = logical_id(raw, "AWS::SQS::Queue", "ConnectedCarActiveCustomersDeadLetterQueue")
    assert mapping["Properties"] == {
        "BatchSize": 50,
        "BisectBatchOnFunctionError": True,
        "DestinationConfig": {"OnFailure": {"Destination": {"Fn::GetAtt": [queue, "Arn"]}}},
        "EventSourceArn": {"Fn::GetAtt": [table_id(raw, "RegistrationTable"), "StreamArn"]},
        "FunctionName": {"Ref": logical_id(raw, "AWS::Lambda::Function", "ConnectedCarActiveCustomersConsumerFunction")},
        "FunctionResponseTypes": ["ReportBatchItemFailures"],
        "MaximumBatchingWindowInSeconds": 0,
        "MaximumRecordAgeInSeconds": 6 * 3600,
        "MaximumRetryAttempts": 5,
        "StartingPosition": "TRIM_HORIZON",
    }
    (queue_policy,) = [p for p in resources(raw, "AWS::SQS::QueuePolicy").values()
                       if p["Properties"]["Queues"] == [{"Ref": queue}]]
    (deny,) = queue_policy["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert raw["Resources"][queue]["Properties"]["SqsManagedSseEnabled"] is True

def test_the_active_customer_index_projects_only_what_the_list_answers(dev):
    raw = dev.merged
    props = raw["Resources"][table_id(raw, "CustomerTable")]["Properties"]
    (index,) = props["GlobalSecondaryIndexes"]
    assert index["Projection"] == {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["name", "email", "isActive"]}


def test_an_upgrades_first_deploy_keeps_the_retired_index_beside_the_new_one():
    # Given the flag of a stage deployed with the old keys (CloudFormation: one GSI created or deleted per update)
    upgrading = cdk.Stack(cdk.App(context={KEEP_RETIRED_INDEXES: "true"}))
    assert tables(cdk.Stack(cdk.App())) == TABLES
    assert CUSTOMER_TABLE_DURING_UPGRADE in tables(upgrading) and CUSTOMER_TABLE not in tables(upgrading)
    # When the Customer table is built from it, Then the template has both indexes: only one is created
    SpecTable(upgrading, CUSTOMER_TABLE_DURING_UPGRADE, removal_policy=RemovalPolicy.DESTROY, deletion_protection=False)
    (props,) = [r["Properties"] for r in Template.from_stack(upgrading).find_resources(
        "AWS::DynamoDB::Table").values()]
    assert [gsi["IndexName"] for gsi in props["GlobalSecondaryIndexes"]] == ["ActiveCustomerShardIndex",
                                                                             "ActiveCustomerIndex"]


# --- the StreamConsumer construct on its own -------------------------------------------------------------

def _scope() -> tuple[cdk.Stack, SharedCode]:
    stack = cdk.Stack(cdk.App())
    return stack, SharedCode(stack, "Shared")


def _parked(stack: cdk.Stack) -> SpecTable:
    return SpecTable(stack, PARKED_TABLE, removal_policy=RemovalPolicy.DESTROY, deletion_protection=False)


def test_stream_consumer_refuses_a_table_without_a_stream():
    stack, shared = _scope()
    table = SpecTable(stack, TIMESLOT_TABLE, removal_policy=RemovalPolicy.DESTROY, deletion_protection=False)
    with pytest.raises(ValueError, match="has no stream"):
        StreamConsumer(stack, "C", table=table, parked=_parked(stack), shared=shared, handler="h.h", service="s",
                       environment={}, removal_policy=RemovalPolicy.DESTROY)


def test_stream_consumer_refuses_unbounded_retries():
    stack, shared = _scope()
    table = SpecTable(stack, REGISTRATION_TABLE, removal_policy=RemovalPolicy.DESTROY, deletion_protection=False)
    with pytest.raises(ValueError, match="bounded"):
        StreamConsumer(stack, "C", table=table, parked=_parked(stack), shared=shared, handler="h.h", service="s",
                       environment={}, removal_policy=RemovalPolicy.DESTROY, retry_attempts=-1)
