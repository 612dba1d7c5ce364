"""The runtime's own clients (provisioning, pollers, TTL sweeper, seeds) hand their requests to the endpoint's app in
process: no socket, the same answers, errors and IAM checks as a client over HTTP."""

from __future__ import annotations

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from local.aws import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, InProcessTransport, MotoService
from local.iam import PolicyDocument, Principal

REGION = "us-east-1"
CLOSED_PORT = "http://127.0.0.1:9"  # nothing listens there: a request that went over HTTP would fail to connect


def in_process(moto: MotoService, service: str, *, key: str = FAKE_ACCESS_KEY):
    """A client of nowhere, with the in-process transport; `key`: the access key it signs with."""
    client = boto3.session.Session().client(
        service, endpoint_url=CLOSED_PORT, region_name=REGION, aws_access_key_id=key,
        aws_secret_access_key=FAKE_SECRET_KEY, config=Config(account_id_endpoint_mode="disabled",
                                                             retries={"max_attempts": 1}))
    return moto.transport.attach(client)


@pytest.fixture(scope="module")
def table(moto: MotoService) -> str:
    moto.client("dynamodb", REGION).create_table(
        TableName="InProcess", BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
    return "InProcess"


def test_answers_without_a_socket_what_http_answers(moto: MotoService, table: str) -> None:
    direct, over_http = in_process(moto, "dynamodb"), moto.client("dynamodb", REGION)
    direct.put_item(TableName=table, Item={"PK": {"S": "a"}, "n": {"N": "1"}, "blob": {"B": b"\x00\xff"}})
    assert over_http.get_item(TableName=table, Key={"PK": {"S": "a"}})["Item"] == \
        direct.get_item(TableName=table, Key={"PK": {"S": "a"}})["Item"] == \
        {"PK": {"S": "a"}, "n": {"N": "1"}, "blob": {"B": b"\x00\xff"}}
    consumed = direct.get_item(TableName=table, Key={"PK": {"S": "a"}}, ReturnConsumedCapacity="TOTAL")
    assert consumed["ConsumedCapacity"]["CapacityUnits"] == 0.5  # the local endpoint's own rules, as over HTTP


def test_errors_are_parsed_as_over_http(moto: MotoService, table: str) -> None:
    direct = in_process(moto, "dynamodb")
    with pytest.raises(ClientError) as missing:
        direct.get_item(TableName="NoSuchTable", Key={"PK": {"S": "a"}})
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as refused:
        direct.put_item(TableName=table, Item={"PK": {"S": "a"}}, ConditionExpression="attribute_not_exists(PK)")
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"


def test_other_services_and_streams_too(moto: MotoService, table: str) -> None:
    streams, sqs = in_process(moto, "dynamodbstreams"), in_process(moto, "sqs")
    arn = in_process(moto, "dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    url = sqs.create_queue(QueueName="in-process")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["hello"]


def test_iam_checks_a_function_key_in_process_as_over_http(moto: MotoService, table: str) -> None:
    arn = f"arn:aws:dynamodb:{REGION}:123456789012:table/{table}"
    moto.iam.principals["AKIAREADER"] = Principal(
        "Reader", "arn:aws:iam::123456789012:role/reader", "reader",
        lambda: [PolicyDocument("Reader", {"Statement": [{"Effect": "Allow", "Action": "dynamodb:GetItem",
                                                          "Resource": arn}]})])
    try:
        reader = in_process(moto, "dynamodb", key="AKIAREADER")
        reader.get_item(TableName=table, Key={"PK": {"S": "a"}})
        with pytest.raises(ClientError) as denied:
            reader.put_item(TableName=table, Item={"PK": {"S": "b"}})
        assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
    finally:
        del moto.iam.principals["AKIAREADER"]


def test_detach_sends_over_http_again(moto: MotoService, table: str) -> None:
    client = in_process(moto, "dynamodb")
    client.describe_table(TableName=table)
    moto.transport.detach(client)
    with pytest.raises(Exception, match="Could not connect"):
        client.describe_table(TableName=table)


def test_an_app_that_raises_answers_500_as_werkzeugs_server_does(moto: MotoService) -> None:
    def broken(environ, start_response):
        raise KeyError("moto failed")

    client = in_process(moto, "dynamodb")
    moto.transport.detach(client)
    InProcessTransport(broken).attach(client)
    with pytest.raises(ClientError) as failed:
        client.list_tables()
    assert failed.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    assert failed.value.response["Error"]["Code"] == "InternalFailure"
