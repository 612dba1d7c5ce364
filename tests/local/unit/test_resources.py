"""Tables, secrets, queues and nested stacks are created on (in-process) moto; other types get plausible fakes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from local.cloudformation.resources import (
    USER_POOL_CLIENT_ID,
    USER_POOL_ID,
    Clients,
    StackResources,
    generate_secret_string,
)
from local.cloudformation.template import StackTemplate, TemplateError
from tests.local.conftest import no_clients, stack_of, stack_resources

TABLE = {
    "Type": "AWS::DynamoDB::Table",
    "Properties": {
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "GSI1PK", "AttributeType": "S"},
        ],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "GSI1",
                "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["a"]},
            }
        ],
        "LocalSecondaryIndexes": [
            {
                "IndexName": "LSI1",
                "KeySchema": [
                    {"AttributeName": "PK", "KeyType": "HASH"},
                    {"AttributeName": "GSI1PK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
        "TimeToLiveSpecification": {"AttributeName": "expiresAt", "Enabled": True},
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
    },
}


@pytest.fixture
def aws() -> Iterator[Clients]:
    with mock_aws():
        yield Clients(lambda service: boto3.client(service, region_name="us-east-1"))


def test_table_is_created_with_indexes_stream_and_ttl(aws: Clients) -> None:
    resources = StackResources(stack_of({"Table": TABLE}), aws, region="us-east-1")
    resources.provision()
    name = resources.ref("Table")
    assert re.fullmatch(r"Test-dev-Table-[a-z]{6}", name)
    table = aws["dynamodb"].describe_table(TableName=name)["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert table["GlobalSecondaryIndexes"][0]["IndexName"] == "GSI1"
    assert table["GlobalSecondaryIndexes"][0]["Projection"]["NonKeyAttributes"] == ["a"]
    assert table["LocalSecondaryIndexes"][0]["IndexName"] == "LSI1"
    assert table["StreamSpecification"] == {
        "StreamEnabled": True,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
    ttl = aws["dynamodb"].describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}
    assert resources.get_att("Table", "Arn") == table["TableArn"]
    assert resources.get_att("Table", "StreamArn") == table["LatestStreamArn"]
    info = resources.tables["Table"]
    assert (info.name, info.stream_arn, info.ttl_attribute) == (
        name,
        table["LatestStreamArn"],
        "expiresAt",
    )


def test_stream_arn_of_a_table_without_stream_is_an_error(aws: Clients) -> None:
    props = {k: v for k, v in TABLE["Properties"].items() if k != "StreamSpecification"}
    resources = StackResources(
        stack_of({"Table": {"Type": "AWS::DynamoDB::Table", "Properties": props}}),
        aws,
        region="us-east-1",
    )
    with pytest.raises(TemplateError, match="StreamArn"):
        resources.get_att("Table", "StreamArn")


def test_a_generated_secret_is_stored_and_what_is_not_emulated_fails(aws: Clients) -> None:
    secret = {"Type": "AWS::SecretsManager::Secret",
              "Properties": {"GenerateSecretString": {"PasswordLength": 64, "ExcludePunctuation": True}}}
    resources = StackResources(stack_of({"Secret": secret}), aws, region="us-east-1")
    arn = resources.ref("Secret")
    assert arn.startswith("arn:aws:secretsmanager:us-east-1:123456789012:secret:Secret-")
    value = aws["secretsmanager"].get_secret_value(SecretId=arn)["SecretString"]
    assert len(value) == 64 and value.isalnum()
    with pytest.raises(TemplateError, match="SecretStringTemplate"):
        generate_secret_string({"SecretStringTemplate": "{}", "GenerateStringKey": "password"})


def test_generated_secret_string_respects_length_and_exclusions() -> None:
    value = generate_secret_string({"PasswordLength": 64, "ExcludePunctuation": True, "ExcludeCharacters": "abc"})
    assert len(value) == 64 and value.isalnum() and not set("abc") & set(value)


def test_a_queue_is_created_with_its_attributes(aws: Clients) -> None:
    resources = StackResources(stack_of({"Dlq": {"Type": "AWS::SQS::Queue", "Properties": {
        "VisibilityTimeout": 60, "MessageRetentionPeriod": 1209600, "SqsManagedSseEnabled": True}}}), aws,
        region="us-east-1")
    resources.provision()
    url = resources.ref("Dlq")
    attributes = aws["sqs"].get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert (attributes["VisibilityTimeout"], attributes["MessageRetentionPeriod"]) == ("60", "1209600")
    assert resources.get_att("Dlq", "Arn") == attributes["QueueArn"]
    assert resources.get_att("Dlq", "QueueName") == url.rsplit("/", 1)[1]


def test_a_nested_stack_gets_its_parameters_from_the_parent_and_gives_back_its_outputs(aws: Clients) -> None:
    # Given a parent that passes its table's name to a nested stack and reads the nested table's name back
    nested = StackTemplate("Test-dev-Domain", {
        "Parameters": {"SharedTable": {"Type": "String"}},
        "Resources": {"Items": TABLE, "Fn": {"Type": "AWS::Lambda::Function", "Properties": {}}},
        "Outputs": {"ItemsName": {"Value": {"Ref": "Items"}}, "Shared": {"Value": {"Ref": "SharedTable"}}}},
        Path("/nonexistent"))
    parent = StackTemplate("Test-dev", {"Resources": {
        "Shared": TABLE,
        "Domain": {"Type": "AWS::CloudFormation::Stack", "Properties": {"Parameters": {"SharedTable": {"Ref": "Shared"}}}},
        "Reader": {"Type": "AWS::Lambda::Function", "Properties": {}}}}, Path("/nonexistent"), {"Domain": nested})
    resources = StackResources(parent, aws, region="us-east-1")
    # When the parent is provisioned
    resources.provision()
    # Then the nested stack's resources exist, named after the nested stack, and both directions resolve
    domain = resources.nested["Domain"]
    assert [s.stack.name for s in resources.walk()] == ["Test-dev", "Test-dev-Domain"]
    assert domain.ref("Items").startswith("Test-dev-Domain-Items-")
    assert aws["dynamodb"].describe_table(TableName=domain.ref("Items"))["Table"]["TableStatus"] == "ACTIVE"
    assert resources.get_att("Domain", "Outputs.ItemsName") == domain.ref("Items")
    assert resources.get_att("Domain", "Outputs.Shared") == resources.ref("Shared")
    assert resources.ref("Domain").startswith("arn:aws:cloudformation:us-east-1:123456789012:stack/Test-dev-Domain/")
    with pytest.raises(TemplateError, match="no output 'Nope'"):
        resources.get_att("Domain", "Outputs.Nope")


@pytest.mark.parametrize(
    ("rtype", "props", "ref", "attribute", "value"),
    [
        (
            "AWS::Cognito::UserPool",
            {},
            USER_POOL_ID,
            "Arn",
            f"arn:aws:cognito-idp:us-east-1:123456789012:userpool/{USER_POOL_ID}",
        ),
        ("AWS::Cognito::UserPoolClient", {}, USER_POOL_CLIENT_ID, "ClientId", USER_POOL_CLIENT_ID),
        ("AWS::IAM::Role", {"RoleName": "r"}, "r", "Arn", "arn:aws:iam::123456789012:role/r"),
        (
            "AWS::Logs::LogGroup",
            {"LogGroupName": "/aws/lambda/x"},
            "/aws/lambda/x",
            "Arn",
            "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/x:*",
        ),
        (
            "AWS::Lambda::Function",
            {"FunctionName": "fn"},
            "fn",
            "Arn",
            "arn:aws:lambda:us-east-1:123456789012:function:fn",
        ),
        ("AWS::ApiGateway::Stage", {"StageName": "dev"}, "dev", None, None),
    ],
)
def test_faked_resources_have_plausible_refs_and_attributes(
    rtype: str, props: dict[str, Any], ref: str, attribute: str | None, value: str | None
) -> None:
    resources = stack_resources({"Thing": {"Type": rtype, "Properties": props}})
    assert resources.ref("Thing") == ref
    if attribute:
        assert resources.get_att("Thing", attribute) == value


def test_unnamed_function_gets_a_cloudformation_like_name_and_arn() -> None:
    resources = stack_resources({"ApiFn": {"Type": "AWS::Lambda::Function", "Properties": {}}})
    name = resources.ref("ApiFn")
    assert re.fullmatch(r"Test-dev-ApiFn-[a-z]{6}", name)
    assert resources.get_att("ApiFn", "Arn") == (
        f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
    )
    assert resources.ref("ApiFn") == name  # stable for the life of the runtime


def test_unknown_types_still_resolve_to_strings() -> None:
    resources = stack_resources({"Rule": {"Type": "AWS::Events::Rule", "Properties": {}}})
    assert resources.get_att("Rule", "Arn").startswith("arn:aws:events:us-east-1:123456789012:")
    assert resources.get_att("Rule", "Whatever").endswith(".Whatever")


def test_a_long_nested_stack_name_does_not_push_the_logical_id_out_of_a_function_name() -> None:
    stack = StackTemplate("Blueprints-dev-ConnectedCarNestedStackConnectedCarNestedStackResourceBA9C5FA0",
                          {"Resources": {"ConnectedCarActiveCustomersConsumerFunctionC32CFDEE": {
                              "Type": "AWS::Lambda::Function", "Properties": {}}}}, Path("/nonexistent"))
    name = StackResources(stack, Clients(no_clients), region="us-east-1").ref(
        "ConnectedCarActiveCustomersConsumerFunctionC32CFDEE")
    assert len(name) == 64 and "ActiveCustomers" in name and name.startswith("Blueprints-dev-ConnectedCar")
