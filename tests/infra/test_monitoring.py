"""Watching a stage (infra/constructs/monitoring.py): the alarms and the dashboard of the synthesized dev and prod
templates, and the alarm topic with and without `-c alarmEmail=…`.

What must be watched is read from elsewhere than the monitoring code: the consumers and their on-failure queues from
the templates' event source mappings, the tables and indexes from the table specs (functions/*/schema.py), the
metrics' namespace and service from the functions' own environment. A new consumer, table or index without its
alarms fails here.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest

from functions.shared.schema import (
    IDEMPOTENCY_TABLE,
    METRICS_NAMESPACE,
    PARKED_RECORDS_METRIC,
    PARKED_TABLE,
    REQUEST_COST_METRICS,
)
from functions.shared.table_spec import TableSpec
from infra.constructs.monitoring import (
    ALARM_EMAIL_CONTEXT,
    ITERATOR_AGE_THRESHOLD,
    LATENCY_P99_THRESHOLD,
    LATENCY_PERIODS,
    PERIOD,
)
from infra.constructs.stream_consumer import DEFAULT_MAX_RECORD_AGE
from infra.domains.cart import cart
from tests.infra.conftest import ROOT, Synth, synth

ALARM = "AWS::CloudWatch::Alarm"
EMAIL = "ops@example.com"


def of_type(resources: dict[str, Any], rtype: str) -> dict[str, dict[str, Any]]:
    return {lid: r for lid, r in resources.items() if r["Type"] == rtype}


def alarms(synthesized: Synth) -> dict[str, dict[str, Any]]:
    """Every alarm of every template (nested parameters resolved to the parent's values), by logical id."""
    return {lid: r["Properties"] for lid, r in of_type(synthesized.merged["Resources"], ALARM).items()}


def dimensions(alarm: dict[str, Any]) -> dict[str, Any]:
    return {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])}


def alarms_on(synthesized: Synth, metric: str, **dims: Any) -> list[dict[str, Any]]:
    return [a for a in alarms(synthesized).values() if a.get("MetricName") == metric and dimensions(a) == dims]


def specs_by_domain() -> dict[str, list[TableSpec]]:
    """Every table spec of every domain (functions/<domain>/schema.py, TABLES), by the domain's construct id."""
    found = {}
    for path in sorted((ROOT / "functions").glob("*/schema.py")):
        if path.parent.name == "shared":
            continue
        schema = importlib.import_module(f"functions.{path.parent.name}.schema")
        found["".join(part.capitalize() for part in path.parent.name.split("_"))] = list(schema.TABLES)
    return found


def table_logical_id(synthesized: Synth, domain: str | None, spec: TableSpec) -> str:
    built = synthesized.stack.domains[domain].table(spec) if domain else {
        IDEMPOTENCY_TABLE.construct_id: synthesized.stack.idempotency,
        PARKED_TABLE.construct_id: synthesized.stack.parked,
    }[spec.construct_id]
    table = built.table.node.default_child
    return table.stack.get_logical_id(table)


def consumers(synthesized: Synth) -> list[tuple[str, str]]:
    """(function logical id, on-failure queue logical id) of every event source mapping in the templates."""
    found = []
    for mapping in of_type(synthesized.merged["Resources"], "AWS::Lambda::EventSourceMapping").values():
        props = mapping["Properties"]
        queue_arn = props["DestinationConfig"]["OnFailure"]["Destination"]
        found.append((props["FunctionName"]["Ref"], queue_arn["Fn::GetAtt"][0]))
    return found


def environment(synthesized: Synth, function: str) -> dict[str, Any]:
    return synthesized.merged["Resources"][function]["Properties"]["Environment"]["Variables"]


@pytest.fixture(params=["dev", "prod"])
def stage(request, dev, prod) -> Synth:
    return dev if request.param == "dev" else prod


def test_every_alarm_treats_missing_data_as_not_breaching_and_without_an_email_notifies_nobody(stage):
    every = alarms(stage)
    assert len(every) > 50
    assert {a["TreatMissingData"] for a in every.values()} == {"notBreaching"}
    assert {a["ComparisonOperator"] for a in every.values()} == {"GreaterThanOrEqualToThreshold"}
    # No `-c alarmEmail`: no topic, no key, no action
    assert not any(a.get("AlarmActions") or a.get("OKActions") for a in every.values())
    resources = stage.merged["Resources"]
    assert not of_type(resources, "AWS::SNS::Topic") and not of_type(resources, "AWS::KMS::Key")


def test_every_stream_consumer_has_an_iterator_age_alarm_and_its_on_failure_queue_a_depth_alarm(stage):
    found = consumers(stage)
    assert len(found) == sum(len(d.consumers) for d in stage.stack.domains.values()) >= 4
    for function, queue in found:
        (age,) = alarms_on(stage, "IteratorAge", FunctionName={"Ref": function})
        assert age["Namespace"] == "AWS/Lambda" and age["Statistic"] == "Maximum"
        assert age["Threshold"] == ITERATOR_AGE_THRESHOLD.to_milliseconds()
        queue_name = {"Fn::GetAtt": [queue, "QueueName"]}
        (depth,) = alarms_on(stage, "ApproximateNumberOfMessagesVisible", QueueName=queue_name)
        assert depth["Namespace"] == "AWS/SQS" and depth["Statistic"] == "Maximum" and depth["Threshold"] == 1
    # The iterator age alarms long before Lambda gives records up (their max record age)
    ages = [m["Properties"]["MaximumRecordAgeInSeconds"]
            for m in of_type(stage.merged["Resources"], "AWS::Lambda::EventSourceMapping").values()]
    assert ITERATOR_AGE_THRESHOLD.to_seconds() * 10 < min(ages) <= DEFAULT_MAX_RECORD_AGE.to_seconds()


def test_each_domain_with_consumers_has_an_alarm_on_the_records_they_park(stage):
    services = set()
    for function, _ in consumers(stage):
        env = environment(stage, function)
        assert env["POWERTOOLS_METRICS_NAMESPACE"] == METRICS_NAMESPACE
        services.add(env["POWERTOOLS_SERVICE_NAME"])
    assert len(services) == len([d for d in stage.stack.domains.values() if d.consumers])
    for service in services:
        (parked,) = alarms_on(stage, PARKED_RECORDS_METRIC, service=service)
        assert parked["Namespace"] == METRICS_NAMESPACE
        assert parked["Statistic"] == "Sum" and parked["Threshold"] == 1 and parked["Period"] == 300
    assert len([a for a in alarms(stage).values() if a.get("MetricName") == PARKED_RECORDS_METRIC]) == len(services)


def test_every_table_and_every_gsi_of_every_spec_has_read_and_write_throttle_alarms(stage):
    expected: list[tuple[str, str | None]] = []  # (table logical id, index name or None)
    for domain, specs in {**specs_by_domain(), None: [IDEMPOTENCY_TABLE, PARKED_TABLE]}.items():
        for spec in specs:
            table = table_logical_id(stage, domain, spec)
            expected += [(table, None)] + [(table, index.name) for index in spec.indexes]
    # Every table and index in the templates comes from a spec
    in_templates = []
    for table, resource in of_type(stage.merged["Resources"], "AWS::DynamoDB::Table").items():
        indexes = resource["Properties"].get("GlobalSecondaryIndexes", [])
        in_templates += [(table, None)] + [(table, index["IndexName"]) for index in indexes]
    assert sorted(in_templates, key=str) == sorted(expected, key=str)
    assert len([e for e in expected if e[1]]) >= 15
    for table, index in expected:
        dims: dict[str, Any] = {"TableName": {"Ref": table}}
        if index is not None:
            dims["GlobalSecondaryIndexName"] = index
        for metric in ("ReadThrottleEvents", "WriteThrottleEvents"):
            (alarm,) = alarms_on(stage, metric, **dims)
            assert alarm["Namespace"] == "AWS/DynamoDB" and alarm["Statistic"] == "Sum" and alarm["Threshold"] == 1


def test_the_api_stage_has_a_5xx_and_a_p99_latency_alarm(stage):
    (api_stage,) = of_type(stage.parent["Resources"], "AWS::ApiGateway::Stage")
    (rest_api,) = of_type(stage.parent["Resources"], "AWS::ApiGateway::RestApi").values()
    dims = {"ApiName": rest_api["Properties"]["Name"], "Stage": {"Ref": api_stage}}
    (errors,) = alarms_on(stage, "5XXError", **dims)
    assert errors["Namespace"] == "AWS/ApiGateway" and errors["Statistic"] == "Sum" and errors["Threshold"] == 1
    (latency,) = alarms_on(stage, "Latency", **dims)
    assert latency["ExtendedStatistic"] == "p99"
    assert latency["Threshold"] == LATENCY_P99_THRESHOLD.to_milliseconds()
    assert latency["EvaluationPeriods"] == latency["DatapointsToAlarm"] == 3


def test_each_domains_alarms_live_in_its_nested_stack(stage):
    for name, nested in stage.nested.items():
        domain = stage.stack.domains[name]
        watched = len(domain.consumers) * 2 + (1 if domain.consumers else 0) + 2 * sum(
            1 + len(t.spec.indexes) for t in domain.tables.values())
        assert len(of_type(nested.raw["Resources"], ALARM)) == watched, name
    # The parent: the API's two and the shared tables' (no index)
    assert len(of_type(stage.parent["Resources"], ALARM)) == 2 + 2 * 2


# --- the dashboard -------------------------------------------------------------------------------------------------

def rendered(synthesized: Synth, value: Any) -> Any:
    """A dashboard body as CloudWatch gets it, each reference written as the logical id it names: `Ref`s and the
    nested stacks' outputs (which are `Ref`s or `Fn::GetAtt`s in the nested template) become `<logical id>` or
    `<logical id>.<attribute>`."""
    if isinstance(value, dict):
        if "Fn::Join" in value:
            separator, parts = value["Fn::Join"]
            return separator.join(str(rendered(synthesized, part)) for part in parts)
        if "Ref" in value:
            return value["Ref"]
        (lid, attribute) = value["Fn::GetAtt"]
        if attribute.startswith("Outputs."):
            nested = next(n for n in synthesized.nested.values() if n.logical_id == lid)
            return rendered(synthesized, nested.raw["Outputs"][attribute.removeprefix("Outputs.")]["Value"])
        return f"{lid}.{attribute}"
    return value


def dashboard_metrics(synthesized: Synth) -> list[tuple[str, str, dict[str, str]]]:
    """(namespace, metric, dimensions) of every metric the dashboard draws."""
    (dashboard,) = of_type(synthesized.parent["Resources"], "AWS::CloudWatch::Dashboard").values()
    # Dashboards are global to an account: the region is in the name
    name = rendered(synthesized, dashboard["Properties"]["DashboardName"])
    assert name == f"{synthesized.stack.stack_name}-AWS::Region"
    body = json.loads(rendered(synthesized, dashboard["Properties"]["DashboardBody"]))
    assert len(body["widgets"]) <= 500  # CloudWatch's most per dashboard (Dashboard Body Structure and Syntax)
    found = []
    for widget in body["widgets"]:
        for line in widget["properties"].get("metrics", []):
            namespace, name, *rest = [part for part in line if not isinstance(part, dict)]
            found.append((namespace, name, dict(zip(rest[::2], rest[1::2], strict=True))))
    return found


def test_one_dashboard_draws_what_the_alarms_watch_and_what_server_timing_tells(stage):
    drawn = dashboard_metrics(stage)
    watched = set()
    for alarm in alarms(stage).values():
        dims = {k: v["Ref"] if isinstance(v, dict) and "Ref" in v else v for k, v in dimensions(alarm).items()}
        dims = {k: f"{v['Fn::GetAtt'][0]}.{v['Fn::GetAtt'][1]}" if isinstance(v, dict) else v for k, v in dims.items()}
        watched.add((alarm["Namespace"], alarm["MetricName"], json.dumps(dims, sort_keys=True)))
    drawn_keys = {(ns, name, json.dumps(dims, sort_keys=True)) for ns, name, dims in drawn}
    assert watched <= drawn_keys, sorted(watched - drawn_keys)
    # Server-Timing's figures, per request, for each domain's service
    services = {environment(stage, lid)["POWERTOOLS_SERVICE_NAME"]
                for lid in of_type(stage.merged["Resources"], "AWS::Lambda::Function")}
    for service in services:
        for name in REQUEST_COST_METRICS:
            assert (METRICS_NAMESPACE, name, {"service": service}) in drawn, (service, name)


def test_what_crosses_back_from_a_nested_stack_is_only_what_the_dashboard_draws(stage):
    # docs/architecture.md: the names of the domain's tables, consumer functions and on-failure queues
    assert sum(len(nested.raw.get("Outputs", {})) for nested in stage.nested.values()) >= 30
    for nested in stage.nested.values():
        resources = nested.raw["Resources"]
        for output in nested.raw.get("Outputs", {}).values():
            value = output["Value"]
            if "Ref" in value:
                assert resources[value["Ref"]]["Type"] in {"AWS::DynamoDB::Table", "AWS::Lambda::Function"}
            else:
                lid, attribute = value["Fn::GetAtt"]
                assert (resources[lid]["Type"], attribute) == ("AWS::SQS::Queue", "QueueName")


# --- the topic -----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def notified(tmp_path_factory) -> Synth:
    """The dev stage, one domain with consumers (Cart), with `-c alarmEmail=…`; cdk-nag on."""
    outdir = tmp_path_factory.mktemp("cdk-alarm-email")
    return synth("dev", outdir, domains=[cart], context={ALARM_EMAIL_CONTEXT: EMAIL})


def test_with_an_email_every_alarm_notifies_an_encrypted_ssl_only_topic_the_address_is_subscribed_to(notified):
    resources = notified.merged["Resources"]
    (topic_id, topic), = of_type(resources, "AWS::SNS::Topic").items()
    (key_id, key), = of_type(resources, "AWS::KMS::Key").items()
    # Every alarm, parent and nested, tells the topic of ALARM and of OK
    every = alarms(notified)
    assert len(every) == 6 + len(of_type(notified.nested["Cart"].raw["Resources"], ALARM))
    for alarm in every.values():
        assert alarm["AlarmActions"] == [{"Ref": topic_id}] and alarm["OKActions"] == [{"Ref": topic_id}]
    (subscription,) = of_type(resources, "AWS::SNS::Subscription").values()
    assert subscription["Properties"] == {"Endpoint": EMAIL, "Protocol": "email", "TopicArn": {"Ref": topic_id}}
    # Encrypted with its own rotated key (AwsSolutions-SNS2), which CloudWatch may use to publish
    assert topic["Properties"]["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    assert key["Properties"]["EnableKeyRotation"] is True
    key_grants = [s for s in key["Properties"]["KeyPolicy"]["Statement"]
                  if s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}]
    assert [set(s["Action"]) for s in key_grants] == [{"kms:Decrypt", "kms:GenerateDataKey*"}]
    # SSL only (AwsSolutions-SNS3), and CloudWatch may publish: a topic policy replaces the default one
    (policy,) = of_type(resources, "AWS::SNS::TopicPolicy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    assert {"Action": "sns:Publish", "Condition": {"Bool": {"aws:SecureTransport": "false"}}, "Effect": "Deny",
            "Principal": "*", "Resource": {"Ref": topic_id}, "Sid": "AllowPublishThroughSSLOnly"} in statements
    (publish,) = [s for s in statements if s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}]
    assert publish["Effect"] == "Allow" and publish["Action"] == "sns:Publish"
    assert publish["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}}


def test_the_topic_is_in_the_parent_and_nested_alarms_get_its_arn_as_a_parameter(notified):
    (topic_id,) = of_type(notified.parent["Resources"], "AWS::SNS::Topic")
    nested = notified.nested["Cart"]
    passed = notified.parent["Resources"][nested.logical_id]["Properties"]["Parameters"]
    refs = {name for name, value in passed.items() if value == {"Ref": topic_id}}
    assert len(refs) == 1
    for alarm in of_type(nested.raw["Resources"], ALARM).values():
        assert alarm["Properties"]["AlarmActions"] == [{"Ref": next(iter(refs))}]


# --- the README's figures --------------------------------------------------------------------------------------------

def test_the_readme_states_the_thresholds_the_alarms_have():
    readme = (ROOT / "README.md").read_text()
    part = readme[readme.index("**Watching a stage.**"):readme.index("A new domain is `infra/domains/")]
    assert f"all on {PERIOD.to_minutes()}-minute periods" in part
    assert f"Maximum ≥ {ITERATOR_AGE_THRESHOLD.to_minutes()} minutes" in part
    assert f"gives records up at {DEFAULT_MAX_RECORD_AGE.to_hours()} h" in part
    assert (f"p99 `Latency` ≥ {LATENCY_P99_THRESHOLD.to_seconds()} s for three periods in a row "
            f"({LATENCY_PERIODS * PERIOD.to_minutes()} minutes)") in part and LATENCY_PERIODS == 3
    assert f"`{PARKED_RECORDS_METRIC}` (namespace `{METRICS_NAMESPACE}`, dimension `service`)" in part
    assert f"`-c {ALARM_EMAIL_CONTEXT}=…`" in part
