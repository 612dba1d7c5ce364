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
    STAGE_ENV,
    THROTTLED_METRIC,
    UNAVAILABLE_METRIC,
)
from functions.shared.table_spec import TableSpec
from infra.constructs.monitoring import (
    ALARM_EMAIL_CONTEXT,
    CONCURRENCY_THRESHOLD,
    ERROR_RATE_MIN_REQUESTS,
    ERROR_RATE_THRESHOLD,
    ITERATOR_AGE_THRESHOLD,
    LATENCY_P99_THRESHOLD,
    LATENCY_PERIODS,
    MAX_ALARMS,
    PERIOD,
    THROTTLED_THRESHOLD,
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


def alarm_metrics(alarm: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(namespace, metric, dimensions) of every metric an alarm reads, a single metric or a math expression's."""
    if "MetricName" in alarm:
        return [(alarm["Namespace"], alarm["MetricName"], dimensions(alarm))]
    found = []
    for query in alarm["Metrics"]:
        if "MetricStat" in query:
            metric = query["MetricStat"]["Metric"]
            found.append((metric["Namespace"], metric["MetricName"], dimensions(metric)))
    return found


def expression(alarm: dict[str, Any]) -> str:
    (math,) = [q["Expression"] for q in alarm["Metrics"] if "Expression" in q]
    return math


def test_every_alarm_treats_missing_data_as_not_breaching_and_none_notifies_by_itself(stage):
    every = alarms(stage)
    assert 10 <= len(every) <= MAX_ALARMS  # fewer, better alarms: symptoms, not every table and index
    assert {a["TreatMissingData"] for a in every.values()} == {"notBreaching"}
    assert {a["ComparisonOperator"] for a in every.values()} == {"GreaterThanOrEqualToThreshold"}
    # Only the composite may notify, and without an alarmEmail nothing does: no topic, no key, no action
    assert not any(a.get("AlarmActions") or a.get("OKActions") for a in every.values())
    resources = stage.merged["Resources"]
    (composite,) = of_type(resources, "AWS::CloudWatch::CompositeAlarm").values()
    assert not composite["Properties"].get("AlarmActions")
    assert not of_type(resources, "AWS::SNS::Topic") and not of_type(resources, "AWS::KMS::Key")


def test_stage_unhealthy_is_in_alarm_when_any_alarm_is(stage):
    (composite,) = of_type(stage.parent["Resources"], "AWS::CloudWatch::CompositeAlarm").values()
    rule = json.dumps(composite["Properties"]["AlarmRule"])
    # Each alarm appears in the rule by its ARN: the parent's by GetAtt, a nested stack's through its output
    assert rule.count("ALARM(") == len(alarms(stage))
    for logical_id in of_type(stage.parent["Resources"], ALARM):
        assert logical_id in rule


def test_every_stream_consumer_has_an_iterator_age_alarm_and_one_on_its_failures(stage):
    found = consumers(stage)
    assert len(found) == sum(len(d.consumers) for d in stage.stack.domains.values()) >= 4
    for function, queue in found:
        (age,) = [a for a in alarms(stage).values()
                  if alarm_metrics(a) == [("AWS/Lambda", "IteratorAge", {"FunctionName": {"Ref": function}})]]
        assert age["Statistic"] == "Maximum" and age["Threshold"] == ITERATOR_AGE_THRESHOLD.to_milliseconds()
        queue_name = {"Fn::GetAtt": [queue, "QueueName"]}
        (failing,) = [a for a in alarms(stage).values()
                      if ("AWS/SQS", "ApproximateNumberOfMessagesVisible", {"QueueName": queue_name})
                      in alarm_metrics(a)]
        assert sorted(alarm_metrics(failing), key=str) == sorted([
            ("AWS/Lambda", "Errors", {"FunctionName": {"Ref": function}}),
            ("AWS/Lambda", "Throttles", {"FunctionName": {"Ref": function}}),
            ("AWS/SQS", "ApproximateNumberOfMessagesVisible", {"QueueName": queue_name})], key=str)
        assert expression(failing) == "FILL(errors, 0) + FILL(throttles, 0) + FILL(queued, 0)"
        assert failing["Threshold"] == 1
    # The iterator age alarms long before Lambda gives records up (their max record age)
    ages = [m["Properties"]["MaximumRecordAgeInSeconds"]
            for m in of_type(stage.merged["Resources"], "AWS::Lambda::EventSourceMapping").values()]
    assert ITERATOR_AGE_THRESHOLD.to_seconds() * 10 < min(ages) <= DEFAULT_MAX_RECORD_AGE.to_seconds()


def test_every_function_writes_its_metrics_under_its_stage(stage):
    functions = of_type(stage.merged["Resources"], "AWS::Lambda::Function")
    assert len(functions) >= 18
    for function in functions:
        env = environment(stage, function)
        assert env[STAGE_ENV] == stage.stack.stack_name.removeprefix("Blueprints-")
        assert env["POWERTOOLS_METRICS_NAMESPACE"] == METRICS_NAMESPACE


def test_the_stage_alarms_on_what_its_functions_count_under_its_own_stage_dimension(stage):
    name = stage.stack.stack_name.removeprefix("Blueprints-")
    for metric, threshold in ((PARKED_RECORDS_METRIC, 1), (THROTTLED_METRIC, THROTTLED_THRESHOLD),
                              (UNAVAILABLE_METRIC, 1)):
        (alarm,) = alarms_on(stage, metric, stage=name)
        assert alarm["Namespace"] == METRICS_NAMESPACE and alarm["Statistic"] == "Sum"
        assert alarm["Threshold"] == threshold and alarm["Period"] == 300
    # No alarm per table or index: DynamoDB's throttle events are graphs (the dashboard's), the symptom is one alarm
    assert not [a for a in alarms(stage).values() if a.get("MetricName") in ("ReadThrottleEvents", "WriteThrottleEvents")]
    (concurrency,) = alarms_on(stage, "ConcurrentExecutions")
    assert concurrency["Namespace"] == "AWS/Lambda" and concurrency["Threshold"] == CONCURRENCY_THRESHOLD


def test_the_api_stage_alarms_on_its_5xx_rate_and_p99_latency(stage):
    (api_stage,) = of_type(stage.parent["Resources"], "AWS::ApiGateway::Stage")
    (rest_api,) = of_type(stage.parent["Resources"], "AWS::ApiGateway::RestApi").values()
    dims = {"ApiName": rest_api["Properties"]["Name"], "Stage": {"Ref": api_stage}}
    (rate,) = [a for a in alarms(stage).values() if ("AWS/ApiGateway", "5XXError", dims) in alarm_metrics(a)]
    assert ("AWS/ApiGateway", "Count", dims) in alarm_metrics(rate)
    assert expression(rate) == f"IF(FILL(requests, 0) >= {ERROR_RATE_MIN_REQUESTS}, FILL(errors, 0) / requests, 0)"
    assert rate["Threshold"] == ERROR_RATE_THRESHOLD
    (latency,) = alarms_on(stage, "Latency", **dims)
    assert latency["ExtendedStatistic"] == "p99"
    assert latency["Threshold"] == LATENCY_P99_THRESHOLD.to_milliseconds()
    assert latency["EvaluationPeriods"] == latency["DatapointsToAlarm"] == 3


def test_each_domains_alarms_live_in_its_nested_stack(stage):
    for name, nested in stage.nested.items():
        assert len(of_type(nested.raw["Resources"], ALARM)) == 2 * len(stage.stack.domains[name].consumers), name
    # The parent: the API's two and the stage's four
    assert len(of_type(stage.parent["Resources"], ALARM)) == 2 + 4


def test_the_stage_owns_its_api_execution_log_group_and_no_log_group_lives_forever(stage):
    (api_stage_id, api_stage), = of_type(stage.parent["Resources"], "AWS::ApiGateway::Stage").items()
    (rest_api,) = of_type(stage.parent["Resources"], "AWS::ApiGateway::RestApi")
    name = {"Fn::Join": ["", ["API-Gateway-Execution-Logs_", {"Ref": rest_api}, "/" + api_stage["Properties"]["StageName"]]]}
    (execution,) = [lid for lid, g in of_type(stage.parent["Resources"], "AWS::Logs::LogGroup").items()
                    if g["Properties"].get("LogGroupName") == name]
    assert execution in api_stage["DependsOn"]  # made before API Gateway could make it (with no retention)
    groups = of_type(stage.merged["Resources"], "AWS::Logs::LogGroup").values()
    assert groups and all(g["Properties"].get("RetentionInDays") for g in groups)


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


def dashboard_body(synthesized: Synth) -> dict[str, Any]:
    (dashboard,) = of_type(synthesized.parent["Resources"], "AWS::CloudWatch::Dashboard").values()
    # Dashboards are global to an account: the region is in the name
    name = rendered(synthesized, dashboard["Properties"]["DashboardName"])
    assert name == f"{synthesized.stack.stack_name}-AWS::Region"
    body = json.loads(rendered(synthesized, dashboard["Properties"]["DashboardBody"]))
    assert len(body["widgets"]) <= 500  # CloudWatch's most per dashboard (Dashboard Body Structure and Syntax)
    return body


def dashboard_metrics(synthesized: Synth) -> list[tuple[str, str, dict[str, str]]]:
    """(namespace, metric, dimensions) of every metric the dashboard draws (in a metrics line, a dimension value
    repeats the line above it as "..")."""
    found = []
    for widget in dashboard_body(synthesized)["widgets"]:
        for line in widget["properties"].get("metrics", []):
            namespace, name, *rest = [part for part in line if not isinstance(part, dict)]
            found.append((namespace, name, dict(zip(rest[::2], rest[1::2], strict=True))))
    return found


def plain(dims: dict[str, Any]) -> str:
    """Dimensions as the dashboard's rendering writes them: a Ref as its logical id, a GetAtt as `<id>.<attr>`."""
    out = {k: v["Ref"] if isinstance(v, dict) and "Ref" in v else v for k, v in dims.items()}
    out = {k: f"{v['Fn::GetAtt'][0]}.{v['Fn::GetAtt'][1]}" if isinstance(v, dict) else v for k, v in out.items()}
    return json.dumps(out, sort_keys=True)


def test_one_dashboard_draws_what_the_alarms_watch_every_table_and_what_server_timing_tells(stage):
    drawn = dashboard_metrics(stage)
    drawn_keys = {(ns, name, json.dumps(dims, sort_keys=True)) for ns, name, dims in drawn}
    watched = {(ns, name, plain(dims)) for alarm in alarms(stage).values() for ns, name, dims in alarm_metrics(alarm)}
    assert watched <= drawn_keys, sorted(watched - drawn_keys)
    # Every table and index: throttle events and consumed units (the project's cost story), as graphs
    tables = [t for t, r in of_type(stage.merged["Resources"], "AWS::DynamoDB::Table").items()]
    for table in tables:
        for metric in ("ReadThrottleEvents", "WriteThrottleEvents", "ConsumedReadCapacityUnits",
                       "ConsumedWriteCapacityUnits"):
            assert ("AWS/DynamoDB", metric, {"TableName": table}) in drawn, (table, metric)
    # Each function's errors, throttles and duration
    for function in of_type(stage.merged["Resources"], "AWS::Lambda::Function"):
        for metric in ("Errors", "Throttles", "Duration"):
            assert ("AWS/Lambda", metric, {"FunctionName": function}) in drawn, (function, metric)
    # Server-Timing's figures, per request, for each domain's service, under the stage
    name = stage.stack.stack_name.removeprefix("Blueprints-")
    services = {environment(stage, lid)["POWERTOOLS_SERVICE_NAME"]
                for lid in of_type(stage.merged["Resources"], "AWS::Lambda::Function")}
    for service in services:
        for metric in REQUEST_COST_METRICS:
            assert (METRICS_NAMESPACE, metric, {"stage": name, "service": service}) in drawn, (service, metric)


def test_the_dashboard_opens_on_every_alarms_state(stage):
    (status,) = [w for w in dashboard_body(stage)["widgets"] if w["type"] == "alarm"]
    assert status["y"] == 0 and status["width"] == 24
    assert len(status["properties"]["alarms"]) == len(alarms(stage)) + 1  # and the composite


def test_what_crosses_back_from_a_nested_stack_is_only_what_the_dashboard_and_the_composite_read(stage):
    # docs/architecture.md: the names of the domain's tables, functions and on-failure queues, its alarms' ARNs
    assert sum(len(nested.raw.get("Outputs", {})) for nested in stage.nested.values()) >= 30
    for nested in stage.nested.values():
        resources = nested.raw["Resources"]
        for output in nested.raw.get("Outputs", {}).values():
            value = output["Value"]
            if "Ref" in value:
                assert resources[value["Ref"]]["Type"] in {"AWS::DynamoDB::Table", "AWS::Lambda::Function"}
            else:
                lid, attribute = value["Fn::GetAtt"]
                assert (resources[lid]["Type"], attribute) in {("AWS::SQS::Queue", "QueueName"),
                                                               ("AWS::CloudWatch::Alarm", "Arn")}


# --- the topic -----------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def notified(tmp_path_factory) -> Synth:
    """The dev stage, one domain with consumers (Cart), with `-c alarmEmail=…`; cdk-nag on."""
    outdir = tmp_path_factory.mktemp("cdk-alarm-email")
    return synth("dev", outdir, domains=[cart], context={ALARM_EMAIL_CONTEXT: EMAIL})


def test_with_an_email_stage_unhealthy_notifies_an_encrypted_ssl_only_topic_the_address_is_subscribed_to(notified):
    resources = notified.merged["Resources"]
    (topic_id, topic), = of_type(resources, "AWS::SNS::Topic").items()
    (key_id, key), = of_type(resources, "AWS::KMS::Key").items()
    # The composite tells the topic of ALARM and of OK; no other alarm notifies anyone (one page, not twenty)
    (composite,) = of_type(resources, "AWS::CloudWatch::CompositeAlarm").values()
    assert composite["Properties"]["AlarmActions"] == [{"Ref": topic_id}]
    assert composite["Properties"]["OKActions"] == [{"Ref": topic_id}]
    assert not any(a.get("AlarmActions") or a.get("OKActions") for a in alarms(notified).values())
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


def test_the_topic_stays_in_the_parent_no_nested_stack_needs_it(notified):
    (topic_id,) = of_type(notified.parent["Resources"], "AWS::SNS::Topic")
    nested = notified.nested["Cart"]
    passed = notified.parent["Resources"][nested.logical_id]["Properties"].get("Parameters", {})
    assert not [name for name, value in passed.items() if value == {"Ref": topic_id}]


# --- the README's figures --------------------------------------------------------------------------------------------

def test_the_readme_states_the_thresholds_the_alarms_have():
    readme = (ROOT / "README.md").read_text()
    part = readme[readme.index("**Watching a stage.**"):readme.index("A new domain is `infra/domains/")]
    assert f"all on {PERIOD.to_minutes()}-minute periods" in part
    assert f"Maximum ≥ {ITERATOR_AGE_THRESHOLD.to_minutes()} minutes" in part
    assert f"gives records up at {DEFAULT_MAX_RECORD_AGE.to_hours()} h" in part
    assert (f"p99 `Latency` ≥ {LATENCY_P99_THRESHOLD.to_seconds()} s for three periods in a row "
            f"({LATENCY_PERIODS * PERIOD.to_minutes()} minutes)") in part and LATENCY_PERIODS == 3
    assert f"≥ {ERROR_RATE_THRESHOLD:.0%} of the requests, once there are {ERROR_RATE_MIN_REQUESTS}" in part
    assert f"`{THROTTLED_METRIC}` Sum ≥ {THROTTLED_THRESHOLD}" in part
    assert f"`ConcurrentExecutions` Maximum ≥ {CONCURRENCY_THRESHOLD:,}" in part
    assert f"`{PARKED_RECORDS_METRIC}`" in part and f"namespace `{METRICS_NAMESPACE}`, dimension `stage`" in part
    assert "`alarmEmail`" in part and f"at most {MAX_ALARMS}" in part
