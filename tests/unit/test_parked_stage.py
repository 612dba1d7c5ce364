"""`make dlq STAGE=...` and `make replay STAGE=...` (tools/parked.py) on moto: two stages in one account and region,
built by CloudFormation as the CDK app builds them (a parent stack with the parked-records table, a nested stack with a
stream consumer, its on-failure queue and event source mapping, an API function and a queue that is no destination).
The tools read and invoke only the named stage's. moto's Lambda cannot run code without Docker, so Invoke is answered
at the client's boundary (botocore's `before-call` event): the request is what Lambda would get, and the test sees
each one."""

from __future__ import annotations

import io
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from moto import mock_aws

from functions.shared.parked import CONSUMERS_PARTITION
from functions.shared.schema import PARKED_TABLE
from tools import parked, region

BUCKET = "stage-templates"
ROOT = Path(__file__).resolve().parents[2]


def domain_template() -> dict[str, Any]:
    """A domain's nested stack: a stream consumer with its on-failure queue, an API function, and a work queue."""
    role = {"Fn::GetAtt": ["Role", "Arn"]}
    code = {"ZipFile": "def handler(event, context):\n    return {}\n"}
    return {
        "Parameters": {"ParkedName": {"Type": "String"}},
        "Resources": {
            "Source": {"Type": "AWS::DynamoDB::Table", "Properties": {
                "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"}}},
            "AggregatorDeadLetterQueue": {"Type": "AWS::SQS::Queue"},
            "WorkQueue": {"Type": "AWS::SQS::Queue"},
            "Role": {"Type": "AWS::IAM::Role", "Properties": {
                "AssumeRolePolicyDocument": {"Version": "2012-10-17", "Statement": []}}},
            "AggregatorConsumer": {"Type": "AWS::Lambda::Function", "Properties": {
                "Runtime": "python3.13", "Handler": "index.handler", "Role": role, "Code": code,
                "Environment": {"Variables": {PARKED_TABLE.env_var: {"Ref": "ParkedName"}}}}},
            "Api": {"Type": "AWS::Lambda::Function", "Properties": {
                "Runtime": "python3.13", "Handler": "index.handler", "Role": role, "Code": code}},
            "AggregatorMapping": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": {
                "FunctionName": {"Ref": "AggregatorConsumer"},
                "EventSourceArn": {"Fn::GetAtt": ["Source", "StreamArn"]}, "StartingPosition": "TRIM_HORIZON",
                "DestinationConfig": {"OnFailure": {
                    "Destination": {"Fn::GetAtt": ["AggregatorDeadLetterQueue", "Arn"]}}}}},
        },
    }


def stage_template(stage: str) -> dict[str, Any]:
    keys = [(a.name, t) for a, t in zip(PARKED_TABLE.key_attributes, ("HASH", "RANGE"), strict=True)]
    return {"Resources": {
        "ParkedRecordsTable": {"Type": "AWS::DynamoDB::Table", "Properties": {
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": n, "KeyType": t} for n, t in keys],
            "AttributeDefinitions": [{"AttributeName": n, "AttributeType": "S"} for n, _ in keys]}},
        "VotingNestedStack": {"Type": "AWS::CloudFormation::Stack", "Properties": {
            "TemplateURL": f"https://{BUCKET}.s3.amazonaws.com/{stage}/voting.json",
            "Parameters": {"ParkedName": {"Ref": "ParkedRecordsTable"}}}},
    }}


class Stage:
    """A deployed stage's names, read back from CloudFormation as an operator's console shows them."""

    def __init__(self, name: str) -> None:
        self.name = name
        cloudformation = boto3.client("cloudformation")
        top = self._resources(cloudformation, f"Blueprints-{name}")
        nested = self._resources(cloudformation, top["VotingNestedStack"])
        self.parked_table = top["ParkedRecordsTable"]
        self.dlq_url, self.work_url = nested["AggregatorDeadLetterQueue"], nested["WorkQueue"]
        self.consumer, self.api = nested["AggregatorConsumer"], nested["Api"]
        self.consumer_arn = boto3.client("lambda").get_function(FunctionName=self.consumer)[
            "Configuration"]["FunctionArn"]
        self.dlq_arn = boto3.client("sqs").get_queue_attributes(
            QueueUrl=self.dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]

    @staticmethod
    def _resources(cloudformation: Any, stack: str) -> dict[str, str]:
        summaries = cloudformation.list_stack_resources(StackName=stack)["StackResourceSummaries"]
        return {s["LogicalResourceId"]: s["PhysicalResourceId"] for s in summaries}


@pytest.fixture
def stages() -> Iterator[dict[str, Stage]]:
    """dev and prod in one account and region, each with a batch given up on and a record parked."""
    with mock_aws():
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket=BUCKET)
        cloudformation = boto3.client("cloudformation")
        built = {}
        for name in ("dev", "prod"):
            s3.put_object(Bucket=BUCKET, Key=f"{name}/voting.json", Body=json.dumps(domain_template()))
            cloudformation.create_stack(StackName=f"Blueprints-{name}", TemplateBody=json.dumps(stage_template(name)))
            stage = built[name] = Stage(name)
            sqs, dynamodb = boto3.client("sqs"), boto3.client("dynamodb")
            sqs.send_message(QueueUrl=stage.dlq_url, MessageBody=json.dumps({"requestContext": {"stage": name}}))
            sqs.send_message(QueueUrl=stage.work_url, MessageBody="a job, not a failure")
            for consumer, position in ((CONSUMERS_PARTITION, "voting.aggregator"),
                                       ("voting.aggregator", f"arn:{name}#0001")):
                dynamodb.put_item(TableName=stage.parked_table, Item={
                    "consumer": {"S": consumer}, "position": {"S": position}, "status": {"S": "pending"},
                    "record": {"S": json.dumps({"eventID": f"{name}-1"})}})
        yield built


def receive_counts(url: str) -> list[int]:
    """How often each message of the queue has been received, this receive included."""
    sqs = boto3.client("sqs")
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                   AttributeNames=["ApproximateReceiveCount"]).get("Messages", [])
    return [int(m["Attributes"]["ApproximateReceiveCount"]) for m in messages]


def test_make_dlq_on_a_stage_lists_its_queues_and_parked_records_and_nothing_of_another_stage(stages, capsys):
    dev, prod = stages["dev"], stages["prod"]

    assert parked.main(["dlq", "--stage", "dev"]) == 0

    out, err = capsys.readouterr()
    printed = json.loads(out)
    # only dev's consumer's on-failure queue (not its work queue, not prod's), its message left in the queue
    assert printed["onFailureQueues"] == {dev.dlq_arn: [{"requestContext": {"stage": "dev"}}]}
    assert list(printed["parkedRecords"]) == ["voting.aggregator"]
    assert [r["record"]["eventID"] for r in printed["parkedRecords"]["voting.aggregator"]] == ["dev-1"]
    assert "region: us-east-1 (AWS_REGION)" in err  # tools/region.py said which region, on stderr
    # the listing received dev's message once and left it there; prod's queues and dev's work queue were not read
    assert receive_counts(dev.dlq_url) == [2]
    assert receive_counts(dev.work_url) == [1] and receive_counts(prod.dlq_url) == [1]


class FakeInvoke:
    """Lambda's Invoke answered at the client's boundary: each request recorded, each answer the next of `answers`."""

    def __init__(self, answers: list[dict[str, Any]]) -> None:
        self.answers, self.requests = list(answers), []

    def attach(self, session: boto3.session.Session) -> boto3.session.Session:
        session.events.register("provide-client-params.lambda.Invoke", self._record)
        session.events.register("before-call.lambda.Invoke", self._answer)
        return session

    def _record(self, params: dict[str, Any], **kwargs: Any) -> None:
        self.requests.append((params["FunctionName"], json.loads(params["Payload"])))

    def _answer(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        body = json.dumps(self.answers.pop(0)).encode()
        return SimpleNamespace(status_code=200, headers={}), {
            "StatusCode": 200, "Payload": StreamingBody(io.BytesIO(body), len(body)),
            "ResponseMetadata": {"HTTPStatusCode": 200}}


@pytest.fixture
def invoke(monkeypatch) -> FakeInvoke:
    fake = FakeInvoke([{"replayed": 2, "stillFailing": 0, "next": "arn:dev#0002"},
                       {"replayed": 1, "stillFailing": 1, "stillFailingRecords": [{"position": "arn:dev#0003"}]}])
    real = region.session
    monkeypatch.setattr(region, "session", lambda **kwargs: fake.attach(real(**kwargs)))
    return fake


def test_make_replay_on_a_stage_invokes_its_consumers_only_until_they_are_through(stages, invoke, capsys):
    dev = stages["dev"]

    assert parked.main(["replay", "--stage", "dev"]) == 0

    # Then dev's consumer, and no other function, was invoked with the replay event, page after page
    assert invoke.requests == [(dev.consumer_arn, {"replay": {"limit": 100}}),
                               (dev.consumer_arn, {"replay": {"limit": 100, "after": "arn:dev#0002"}})]
    out, err = capsys.readouterr()
    assert json.loads(out) == {dev.consumer: {"replayed": 3, "stillFailing": 1,
                                              "stillFailingRecords": [{"position": "arn:dev#0003"}]}}
    assert "region: us-east-1 (AWS_REGION)" in err


def test_make_replay_function_matches_among_the_stages_consumers_only(stages, invoke, capsys, caplog):
    dev, prod = stages["dev"], stages["prod"]
    # a part of the name matches dev's consumer; prod's full name is no consumer of dev
    assert parked.main(["replay", "--stage", "dev", "--function", "AggregatorConsumer"]) == 0
    assert [name for name, _ in invoke.requests] == [dev.consumer_arn, dev.consumer_arn]
    capsys.readouterr()
    assert parked.main(["replay", "--stage", "dev", "--function", prod.consumer]) == 1
    assert parked.main(["replay", "--stage", "dev", "--function", dev.api]) == 1  # parks nothing: not a consumer
    assert len(invoke.requests) == 2
    assert caplog.text.count("no stream consumer that parks records matches") == 2


def test_a_stage_that_is_not_deployed_is_one_line_and_exit_1(stages, capsys, caplog):
    assert parked.main(["dlq", "--stage", "staging"]) == 1
    assert capsys.readouterr().out == ""
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        "no stack Blueprints-staging in this account and region"]


@pytest.mark.parametrize(("args", "environment", "expected"), [
    (["dlq"], {}, "-m local dlq"),
    (["dlq"], {"STAGE": "prod"}, "-m local dlq"),  # STAGE from the shell is the default deploy stage: still local
    (["dlq", "STAGE=dev"], {}, "-m tools.parked dlq --stage \"dev\""),
    (["replay", "FUNCTION=Aggregator"], {}, "-m local replay --function \"Aggregator\""),
    (["replay", "STAGE=prod", "FUNCTION=Aggregator"], {},
     "-m tools.parked replay --stage \"prod\" --function \"Aggregator\""),
])
def test_make_dlq_and_replay_go_to_a_stage_only_with_stage_on_the_command_line(args, environment, expected):
    env = {k: v for k, v in os.environ.items() if k not in ("STAGE", "MAKEFLAGS")} | environment
    dry = subprocess.run(["make", "-n", "-s", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    (line,) = [line for line in dry.stdout.splitlines() if " -m local " in line or " -m tools." in line]
    assert line.endswith(expected), dry.stdout
