"""The local runtime reads a real synth that holds a stage's alarms, dashboard and alarm topic (infra/constructs/
monitoring.py): it provisions the stack as before, creates nothing for them, and every reference in them resolves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import aws_cdk as cdk
import boto3
import pytest
from moto import mock_aws

from infra.constructs.monitoring import ALARM_EMAIL_CONTEXT
from infra.domains.cart import cart
from infra.stack import BlueprintsStack, StageConfig
from local.cloudformation.resources import Clients, StackResources
from local.cloudformation.template import load_assembly, synth_context

ROOT = Path(__file__).resolve().parents[3]
MONITORING = ("AWS::CloudWatch::Alarm", "AWS::CloudWatch::CompositeAlarm", "AWS::CloudWatch::Dashboard",
              "AWS::SNS::Topic", "AWS::SNS::TopicPolicy", "AWS::SNS::Subscription", "AWS::KMS::Key")


@pytest.fixture(scope="module")
def assembly(tmp_path_factory) -> Path:
    """The dev stage with one domain with consumers (Cart) and `-c alarmEmail`, synthesized as the runtime's synth
    does (cdk.json's context, asset metadata on)."""
    outdir = tmp_path_factory.mktemp("cdk-monitoring")
    app = cdk.App(outdir=str(outdir),
                  context={**synth_context(ROOT, "dev"), ALARM_EMAIL_CONTEXT: "ops@example.com"})
    BlueprintsStack(app, "Blueprints-dev", stage=StageConfig.named("dev"), domains=[cart])
    app.synth()
    return outdir


@pytest.fixture
def aws() -> Iterator[Clients]:
    with mock_aws():
        yield Clients(lambda service: boto3.client(service, region_name="us-east-1"))


def test_alarms_dashboard_and_topic_are_read_created_for_nothing_and_resolve(assembly: Path, aws: Clients) -> None:
    # Given the synthesized stage, loaded as `make run` loads it
    (parent,) = load_assembly(assembly)
    resources = StackResources(parent, aws, region="us-east-1")

    # When it is provisioned
    resources.provision()

    # Then its tables and queues exist, and nothing was made for the monitoring resources (moto has no topic, no key)
    stacks = list(resources.walk())
    found = {rtype: [(s, lid) for s in stacks for lid, r in s.stack.resources.items() if r["Type"] == rtype]
             for rtype in MONITORING}
    assert all(found.values()), {k: len(v) for k, v in found.items()}
    assert aws["dynamodb"].list_tables()["TableNames"] and aws["sqs"].list_queues()["QueueUrls"]
    assert aws["sns"].list_topics()["Topics"] == [] and aws["kms"].list_keys()["Keys"] == []

    # And every reference in them resolves: the composite reaches the topic and the nested alarms' ARNs through
    # the nested stack's outputs, the dashboard the nested stack's functions, queues and tables
    topic = resources.ref(found["AWS::SNS::Topic"][0][1])
    for stack, lid in found["AWS::CloudWatch::Alarm"]:
        props = stack.resolver.resolve(stack.stack.resources[lid]["Properties"], lid)
        assert "AlarmActions" not in props
    ((stack, composite),) = found["AWS::CloudWatch::CompositeAlarm"]
    props = stack.resolver.resolve(stack.stack.resources[composite]["Properties"], composite)
    assert props["AlarmActions"] == props["OKActions"] == [topic]
    assert props["AlarmRule"].count("ALARM(") == len(found["AWS::CloudWatch::Alarm"])
    (dashboard_lid,) = [lid for _, lid in found["AWS::CloudWatch::Dashboard"]]
    body = json.loads(resources.resolver.resolve(parent.resources[dashboard_lid]["Properties"], dashboard_lid)
                      ["DashboardBody"])
    drawn = json.dumps(body)
    cart_stack = next(s for s in stacks if s is not resources)
    for table in cart_stack.tables.values():
        assert f'"TableName", "{table.name}"' in drawn
