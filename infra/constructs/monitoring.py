"""Watching a stage: CloudWatch alarms on what would otherwise go wrong unseen, one dashboard, an optional SNS topic.

The alarms (README, "Watching a stage"):
- each stream consumer: its `IteratorAge` (a consumer stuck or falling behind its stream) and its on-failure queue's
  `ApproximateNumberOfMessagesVisible` (a batch Lambda gave up on);
- each domain with consumers: `StreamRecordsParked`, the Powertools metric counting records parked for an operator
  (functions/shared/parked.py), under the domain's `service` dimension;
- every table and every global secondary index: `ReadThrottleEvents` and `WriteThrottleEvents`. A table's figure
  leaves its indexes out; an index's carries the `GlobalSecondaryIndexName` dimension too
  (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html);
- the API stage: `5XXError` and p99 `Latency` (ApiName and Stage dimensions).
Every alarm treats missing data as not breaching: these metrics have no data point while nothing happens (no traffic,
no throttling, nothing parked), which is health, not doubt.

A domain's alarms live in its nested stack, beside what they watch (CloudFormation's 500 resources count per
template); the parent holds the API's and the shared tables' alarms, the topic and the dashboard, which reads the
nested stacks' names through their outputs.

The topic exists only when `-c alarmEmail=…` is given, with that address subscribed; without it the alarms have no
action (the console and the dashboard still show their state), and no topic or key is paid for. CloudWatch can publish
to an encrypted topic only with a customer managed key whose policy lets it (an AWS managed key's policy cannot be
changed: https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services), and a
topic policy (here the SSL-only statement) replaces the default one, so CloudWatch also gets sns:Publish on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from functions.shared.schema import METRICS_NAMESPACE, PARKED_RECORDS_METRIC, REQUEST_COST_METRICS
from infra.constructs.spec_table import SpecTable
from infra.constructs.stream_consumer import StreamConsumer

# The CDK context value naming the address every alarm notifies (`cdk deploy -c alarmEmail=ops@example.com`).
ALARM_EMAIL_CONTEXT = "alarmEmail"

PERIOD = Duration.minutes(5)
# Far below every consumer's max record age (6 h), after which Lambda gives records up to the on-failure queue: a
# stuck consumer is seen hours before it loses anything. It includes the batching window (1 s at most here).
ITERATOR_AGE_THRESHOLD = Duration.minutes(10)
# p99 above 3 s for 15 minutes: a cold start or a slow request alone does not page anyone, a slow stage does.
LATENCY_P99_THRESHOLD = Duration.seconds(3)
LATENCY_PERIODS = 3
THROTTLE_METRICS = ("ReadThrottleEvents", "WriteThrottleEvents")


class AlarmTopic(Construct):
    """An SNS topic, SSL only and encrypted with its own key (rotated), that CloudWatch alarms may publish to."""

    def __init__(self, scope: Construct, construct_id: str, *, email: str, removal_policy: RemovalPolicy):
        super().__init__(scope, construct_id)
        account = Stack.of(self).account
        self.key = kms.Key(
            self, "Key", description="Encrypts the alarm topic", enable_key_rotation=True, removal_policy=removal_policy
        )
        self.topic = sns.Topic(self, "Topic", display_name="Blueprints alarms", master_key=self.key, enforce_ssl=True)
        cloudwatch_service = iam.ServicePrincipal("cloudwatch.amazonaws.com", conditions={
            "StringEquals": {"aws:SourceAccount": account},
        })
        self.key.grant(cloudwatch_service, "kms:Decrypt", "kms:GenerateDataKey*")
        self.topic.grant_publish(cloudwatch_service)
        self.topic.add_subscription(subscriptions.EmailSubscription(email))


class StageAlarms:
    """Makes the stage's alarms: missing data not breaching, and the topic (if any) told of ALARM and OK."""

    def __init__(self, topic: sns.ITopic | None = None):
        self.topic = topic

    def alarm(
        self, scope: Construct, construct_id: str, metric: cloudwatch.IMetric, *, threshold: float,
        description: str, periods: int = 1,
    ) -> cloudwatch.Alarm:
        alarm = cloudwatch.Alarm(
            scope,
            construct_id,
            metric=metric,
            threshold=threshold,
            evaluation_periods=periods,
            datapoints_to_alarm=periods,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )
        if self.topic is not None:
            alarm.add_alarm_action(actions.SnsAction(self.topic))
            alarm.add_ok_action(actions.SnsAction(self.topic))
        return alarm


@dataclass(frozen=True)
class WatchedConsumer:
    name: str
    iterator_age: cloudwatch.Metric
    queue_depth: cloudwatch.Metric


@dataclass(frozen=True)
class WatchedTable:
    """A table's or an index's throttle metrics (`index` None: the table's own)."""

    table: str
    index: str | None
    reads: cloudwatch.Metric
    writes: cloudwatch.Metric


@dataclass
class Watched:
    """What one part of the stage (a domain, or the parent's shared tables) is watched on: its dashboard section."""

    title: str
    service: str | None = None  # the Powertools `service` dimension of its functions
    consumers: list[WatchedConsumer] = field(default_factory=list)
    parked: cloudwatch.Metric | None = None
    tables: list[WatchedTable] = field(default_factory=list)


def watch_tables(alarms: StageAlarms, tables: Iterable[SpecTable]) -> list[WatchedTable]:
    """Read and write throttle alarms for each table and each of its GSIs (children of the table's construct)."""
    watched = []
    for spec_table in tables:
        for index in (None, *(i.name for i in spec_table.spec.indexes)):
            metrics = {}
            for name in THROTTLE_METRICS:
                dimensions = {"TableName": spec_table.table.table_name}
                if index is not None:
                    dimensions["GlobalSecondaryIndexName"] = index
                metric = spec_table.table.metric(name, dimensions_map=dimensions, statistic="Sum", period=PERIOD)
                what = spec_table.spec.construct_id + (f" index {index}" if index else "")
                alarms.alarm(
                    spec_table, f"{index or ''}{name.removesuffix('Events')}Alarm", metric, threshold=1,
                    description=f"{what}: DynamoDB throttled requests ({name}) in the last 5 minutes.",
                )
                metrics[name] = metric.with_(label=what)
            watched.append(WatchedTable(spec_table.spec.construct_id, index, *metrics.values()))
    return watched


def watch_consumers(alarms: StageAlarms, consumers: Mapping[str, StreamConsumer]) -> list[WatchedConsumer]:
    """For each consumer, alarms on its iterator age and its on-failure queue (children of the consumer)."""
    watched = []
    for name, consumer in consumers.items():
        iterator_age = consumer.function.metric("IteratorAge", statistic="Maximum", period=PERIOD)
        alarms.alarm(
            consumer, "IteratorAgeAlarm", iterator_age, threshold=ITERATOR_AGE_THRESHOLD.to_milliseconds(),
            description=f"{name}: the newest batch's last record was older than "
                        f"{ITERATOR_AGE_THRESHOLD.to_minutes()} minutes when the consumer got it: it is stuck or "
                        "falling behind its stream.",
        )
        depth = consumer.dead_letter_queue.metric_approximate_number_of_messages_visible(
            statistic="Maximum", period=PERIOD
        )
        alarms.alarm(
            consumer, "DeadLetterQueueAlarm", depth, threshold=1,
            description=f"{name}: its on-failure queue holds batches Lambda gave up on: their records are no longer "
                        "retried, and the stream drops them after 24 h (README, \"Watching a stage\").",
        )
        watched.append(
            WatchedConsumer(name, iterator_age.with_(label=name), depth.with_(label=f"{name}: on-failure queue"))
        )
    return watched


def parked_records_metric(service: str) -> cloudwatch.Metric:
    return cloudwatch.Metric(
        namespace=METRICS_NAMESPACE, metric_name=PARKED_RECORDS_METRIC, dimensions_map={"service": service},
        statistic="Sum", period=PERIOD,
    )


def watch_parked(alarms: StageAlarms, scope: Construct, service: str) -> cloudwatch.Metric:
    metric = parked_records_metric(service)
    alarms.alarm(
        scope, "ParkedRecordsAlarm", metric, threshold=1,
        description=f"{service}: a stream consumer parked a record it can never apply as things stand (the "
                    "parked-records table, status pending); fix the cause, then replay: "
                    "`python -m local replay --aws`.",
    )
    return metric.with_(label=f"{service}: parked records")


def watch_api(alarms: StageAlarms, api: apigw.RestApi) -> tuple[cloudwatch.Metric, cloudwatch.Metric]:
    """5XXError and p99 Latency of the API's stage (children of the RestApi's construct)."""
    stage = api.deployment_stage
    errors = stage.metric_server_error(statistic="Sum", period=PERIOD)
    alarms.alarm(api, "ServerErrorAlarm", errors, threshold=1,
                 description="The API answered 5xx in the last 5 minutes (a function failed or timed out, or DynamoDB "
                             "refused beyond retries): see the functions' logs.")
    latency = stage.metric_latency(statistic="p99", period=PERIOD)
    alarms.alarm(api, "LatencyAlarm", latency, threshold=LATENCY_P99_THRESHOLD.to_milliseconds(),
                 periods=LATENCY_PERIODS,
                 description=f"The API's p99 latency stayed above {LATENCY_P99_THRESHOLD.to_seconds()} s for "
                             f"{LATENCY_PERIODS * PERIOD.to_minutes()} minutes.")
    return errors, latency


class StageDashboard(Construct):
    """One dashboard per stage: the API, then each watched part in a row.

    Dashboards are global to an account, not regional (AWS::CloudWatch::Dashboard in the CloudFormation reference):
    the name holds the stack's name and region, so a stage deployed in two regions of one account gets two."""

    WIDTH = 8

    def __init__(self, scope: Construct, construct_id: str, *, api: apigw.RestApi, sections: Sequence[Watched]):
        super().__init__(scope, construct_id)
        self.dashboard = cloudwatch.Dashboard(
            self, "Dashboard", dashboard_name=f"{Stack.of(self).stack_name}-{Stack.of(self).region}",
            default_interval=Duration.hours(3),
        )
        stage = api.deployment_stage
        self.dashboard.add_widgets(
            cloudwatch.GraphWidget(
                title="API: requests and errors", width=self.WIDTH,
                left=[stage.metric_count(statistic="Sum", period=PERIOD, label="Count")],
                right=[stage.metric_client_error(statistic="Sum", period=PERIOD, label="4XXError"),
                       stage.metric_server_error(statistic="Sum", period=PERIOD, label="5XXError")],
            ),
            cloudwatch.GraphWidget(
                title="API: latency (ms)", width=self.WIDTH,
                left=[stage.metric_latency(statistic=s, period=PERIOD, label=f"Latency {s}") for s in ("p50", "p99")]
                + [stage.metric_integration_latency(statistic="p99", period=PERIOD, label="IntegrationLatency p99")],
                left_annotations=[cloudwatch.HorizontalAnnotation(
                    value=LATENCY_P99_THRESHOLD.to_milliseconds(), label="p99 alarm")],
            ),
        )
        for section in sections:
            self.dashboard.add_widgets(*self._row(section))

    def _row(self, section: Watched) -> list[cloudwatch.IWidget]:
        widgets: list[cloudwatch.IWidget] = []
        if section.consumers:
            widgets.append(cloudwatch.GraphWidget(
                title=f"{section.title}: stream consumers", width=self.WIDTH,
                left=[c.iterator_age for c in section.consumers],
                left_y_axis=cloudwatch.YAxisProps(label="IteratorAge ms"),
                left_annotations=[cloudwatch.HorizontalAnnotation(
                    value=ITERATOR_AGE_THRESHOLD.to_milliseconds(), label="alarm")],
                right=[c.queue_depth for c in section.consumers]
                + ([section.parked] if section.parked is not None else []),
                right_y_axis=cloudwatch.YAxisProps(label="messages, parked records"),
            ))
        if section.tables:
            widgets.append(cloudwatch.GraphWidget(
                title=f"{section.title}: DynamoDB throttle events", width=self.WIDTH,
                left=[t.reads for t in section.tables], left_y_axis=cloudwatch.YAxisProps(label="read"),
                right=[t.writes for t in section.tables], right_y_axis=cloudwatch.YAxisProps(label="write"),
            ))
        if section.service is not None:
            # What the `Server-Timing` header tells each caller, averaged per request (functions/shared/http.py).
            widgets.append(cloudwatch.GraphWidget(
                title=f"{section.title}: DynamoDB per request (Server-Timing)", width=self.WIDTH,
                left=[cloudwatch.Metric(namespace=METRICS_NAMESPACE, metric_name=name,
                                        dimensions_map={"service": section.service}, statistic="Average",
                                        period=PERIOD, label=name)
                      for name in REQUEST_COST_METRICS],
            ))
        return [cloudwatch.Row(*widgets)] if widgets else []
