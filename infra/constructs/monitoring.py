"""Watching a stage as an on-call person would: a few alarms on symptoms, one composite that pages, one dashboard.

The alarms (README, "Watching a stage"; at most 20 a stage, tests/infra/test_monitoring.py counts them):
- each stream consumer: its `IteratorAge` (stuck or falling behind its stream), and its failures: `Errors` +
  `Throttles` + its on-failure queue's `ApproximateNumberOfMessagesVisible` (failing, unable to start, or a batch
  Lambda gave up on);
- the stage: `StreamRecordsParked` (records a consumer parked for an operator), `DynamoDBThrottled` (calls the
  functions gave up on for throttling: what the callers got as 429, one symptom instead of two alarms per table and
  index) and `DynamoDBUnavailable` (DynamoDB's own faults, 503), each under the `stage` dimension alone
  (functions/shared/observability.py `count_for_stage`); the API's 5xx *rate* (5XXError / Count, once there are 20
  requests in the period) and its p99 latency; the account's Lambda `ConcurrentExecutions` near its quota.
- "stage unhealthy", a composite alarm in ALARM when any of them is: the only one with an action (the topic).
Conditional check failures are how this backend enforces its rules: they are not alarmed. Per-table throttle events
and consumed capacity stay on the dashboard as graphs. Every alarm treats missing data as not breaching: these metrics
have no data point while nothing happens (no traffic, no throttling, nothing parked), which is health, not doubt.

A domain's alarms live in its nested stack, beside what they watch (CloudFormation's 500 resources count per
template); the parent holds the stage's alarms, the composite, the topic and the dashboard, which read the nested
stacks' names through their outputs.

The topic exists only when `alarmEmail` is set (stages.toml, or `-c alarmEmail=…`), with that address subscribed;
without it the composite has no action (the console and the dashboard still show every state), and no topic or key
is paid for. CloudWatch can publish to an encrypted topic only with a customer managed key whose policy lets it (an
AWS managed key's policy cannot be changed:
https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services), and a topic
policy (here the SSL-only statement) replaces the default one, so CloudWatch also gets sns:Publish on it.
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
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from functions.shared.schema import (
    METRICS_NAMESPACE,
    PARKED_RECORDS_METRIC,
    REQUEST_COST_METRICS,
    THROTTLED_METRIC,
    UNAVAILABLE_METRIC,
)
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
CAPACITY_METRICS = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits")
# The API's 5xx rate pages above 1% of the period's requests, once the period has 20 (one failed request of three
# during a quiet hour is a log to read, not a page).
ERROR_RATE_THRESHOLD = 0.01
ERROR_RATE_MIN_REQUESTS = 20
# Calls given up on for throttling (429 to the caller) in one period before it pages: a few are the SDK's retries
# running out under a burst, many are a design or quota problem.
THROTTLED_THRESHOLD = 10
# 80% of Lambda's default 1,000 concurrent executions per account and region: raise it with the account's quota
# ("Lambda quotas", https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). The metric is the
# account's, so every stage in the account sees it: the quota is shared too.
CONCURRENCY_THRESHOLD = 800
MAX_ALARMS = 20  # a stage's alarms, the composite not counted


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
    """Makes the stage's alarms (missing data not breaching) and remembers them: "stage unhealthy", the composite of
    them all, is the one that notifies the topic (if any) of ALARM and OK."""

    def __init__(self, topic: sns.ITopic | None = None, stage: str = ""):
        self.topic = topic
        self.stage = stage
        self.made: list[cloudwatch.Alarm] = []

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
        self.made.append(alarm)
        return alarm

    def composite(self, scope: Construct) -> cloudwatch.CompositeAlarm:
        """'Stage unhealthy': in ALARM while any of the stage's alarms is; the one alarm that pages."""
        if len(self.made) > MAX_ALARMS:
            raise ValueError(f"{len(self.made)} alarms: a stage has at most {MAX_ALARMS} (MAX_ALARMS)")
        unhealthy = cloudwatch.CompositeAlarm(
            scope, "StageUnhealthy", alarm_rule=cloudwatch.AlarmRule.any_of(*self.made),
            alarm_description=f"Blueprints {self.stage or 'stage'}: one of its {len(self.made)} alarms is in ALARM "
                              "(the dashboard's alarm status names it).",
        )
        if self.topic is not None:
            unhealthy.add_alarm_action(actions.SnsAction(self.topic))
            unhealthy.add_ok_action(actions.SnsAction(self.topic))
        return unhealthy


@dataclass(frozen=True)
class WatchedConsumer:
    name: str
    iterator_age: cloudwatch.Metric
    queue_depth: cloudwatch.Metric


@dataclass(frozen=True)
class WatchedTable:
    """A table's or an index's throttle events and consumed units (`index` None: the table's own)."""

    table: str
    index: str | None
    reads: cloudwatch.Metric
    writes: cloudwatch.Metric
    read_units: cloudwatch.Metric
    write_units: cloudwatch.Metric


@dataclass
class Watched:
    """What one part of the stage (a domain, or the parent's shared tables) is watched on: its dashboard section."""

    title: str
    service: str | None = None  # the Powertools `service` dimension of its functions
    stage: str = ""  # the `stage` dimension of its functions' metrics
    consumers: list[WatchedConsumer] = field(default_factory=list)
    parked: cloudwatch.Metric | None = None
    tables: list[WatchedTable] = field(default_factory=list)
    functions: list[tuple[str, lambda_.IFunction]] = field(default_factory=list)


def watch_tables(tables: Iterable[SpecTable]) -> list[WatchedTable]:
    """The dashboard's graphs of each table and each of its GSIs: throttle events and consumed units. No alarm: the
    functions count what throttling did to the callers (`DynamoDBThrottled`, one alarm a stage)."""
    watched = []
    for spec_table in tables:
        for index in (None, *(i.name for i in spec_table.spec.indexes)):
            dimensions = {"TableName": spec_table.table.table_name}
            if index is not None:
                dimensions["GlobalSecondaryIndexName"] = index
            what = spec_table.spec.construct_id + (f" index {index}" if index else "")
            metrics = [spec_table.table.metric(name, dimensions_map=dimensions, statistic="Sum", period=PERIOD,
                                               label=what) for name in (*THROTTLE_METRICS, *CAPACITY_METRICS)]
            watched.append(WatchedTable(spec_table.spec.construct_id, index, *metrics))
    return watched


def watch_consumers(alarms: StageAlarms, consumers: Mapping[str, StreamConsumer]) -> list[WatchedConsumer]:
    """For each consumer, two alarms (children of the consumer): its iterator age, and its failures."""
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
        # One alarm for "it failed": an invocation error, a throttle, or a batch given up to the on-failure queue
        # (whose records are no longer retried, and which the stream drops after 24 h).
        failing = cloudwatch.MathExpression(
            # FILL: a series with no point in a period (no invocation, an empty queue) counts 0 there, rather than
            # dropping the period from the sum
            expression="FILL(errors, 0) + FILL(throttles, 0) + FILL(queued, 0)",
            label=f"{name}: errors + throttles + given up", period=PERIOD,
            using_metrics={"errors": consumer.function.metric_errors(statistic="Sum", period=PERIOD),
                           "throttles": consumer.function.metric_throttles(statistic="Sum", period=PERIOD),
                           "queued": depth},
        )
        alarms.alarm(
            consumer, "FailingAlarm", failing, threshold=1,
            description=f"{name}: the consumer failed (an error it did not report per record), could not start "
                        "(throttled), or Lambda gave a batch up to its on-failure queue (README, \"Watching a "
                        "stage\": `make dlq`).",
        )
        watched.append(
            WatchedConsumer(name, iterator_age.with_(label=name), depth.with_(label=f"{name}: on-failure queue"))
        )
    return watched


def stage_metric(name: str, stage: str, service: str | None = None, statistic: str = "Sum") -> cloudwatch.Metric:
    """One of the functions' own metrics: under `stage` alone (what a stage alarm reads), or with `service`."""
    dimensions = {"stage": stage, **({"service": service} if service else {})}
    return cloudwatch.Metric(namespace=METRICS_NAMESPACE, metric_name=name, dimensions_map=dimensions,
                             statistic=statistic, period=PERIOD)


def parked_records_metric(service: str, stage: str) -> cloudwatch.Metric:
    return stage_metric(PARKED_RECORDS_METRIC, stage, service).with_(label=f"{service}: parked records")


def watch_stage(alarms: StageAlarms, scope: Construct) -> list[cloudwatch.IMetric]:
    """The stage's own alarms on what its functions count (parked records, calls given up on for throttling or for
    DynamoDB's faults) and on the account's Lambda concurrency."""
    stage = alarms.stage
    parked = stage_metric(PARKED_RECORDS_METRIC, stage)
    alarms.alarm(scope, "ParkedRecordsAlarm", parked, threshold=1,
                 description="A stream consumer parked a record it can never apply as things stand (the parked-records "
                             f"table, status pending; make dlq STAGE={stage}); fix the cause, then replay: "
                             f"make replay STAGE={stage}.")
    throttled = stage_metric(THROTTLED_METRIC, stage)
    alarms.alarm(scope, "ThrottledAlarm", throttled, threshold=THROTTLED_THRESHOLD,
                 description=f"DynamoDB throttled {THROTTLED_THRESHOLD} or more calls beyond the SDK's retries in 5 "
                             "minutes (callers got 429): the dashboard's per-table throttle events say where.")
    unavailable = stage_metric(UNAVAILABLE_METRIC, stage)
    alarms.alarm(scope, "DynamoDBUnavailableAlarm", unavailable, threshold=1,
                 description="DynamoDB answered with its own faults (InternalServerError, ServiceUnavailable) beyond "
                             "the SDK's retries: callers got 503. See the AWS Health Dashboard.")
    concurrency = cloudwatch.Metric(namespace="AWS/Lambda", metric_name="ConcurrentExecutions", statistic="Maximum",
                                    period=Duration.minutes(1))
    alarms.alarm(scope, "ConcurrencyAlarm", concurrency, threshold=CONCURRENCY_THRESHOLD, periods=5,
                 description=f"The account's Lambda functions ran {CONCURRENCY_THRESHOLD} or more environments at once "
                             "for 5 minutes, near the default quota of 1,000: new ones will be throttled.")
    return [parked.with_(label="parked records"), throttled.with_(label="throttled calls (429)"),
            unavailable.with_(label="DynamoDB faults (503)"), concurrency.with_(label="Lambda concurrency (account)")]


def watch_api(alarms: StageAlarms, api: apigw.RestApi) -> None:
    """The API stage's 5xx rate and p99 latency (children of the RestApi's construct)."""
    stage = api.deployment_stage
    rate = cloudwatch.MathExpression(
        expression=f"IF(FILL(requests, 0) >= {ERROR_RATE_MIN_REQUESTS}, FILL(errors, 0) / requests, 0)",
        label="5XXError rate",
        period=PERIOD, using_metrics={"errors": stage.metric_server_error(statistic="Sum", period=PERIOD),
                                      "requests": stage.metric_count(statistic="Sum", period=PERIOD)},
    )
    alarms.alarm(api, "ServerErrorRateAlarm", rate, threshold=ERROR_RATE_THRESHOLD,
                 description=f"The API answered 5xx to {ERROR_RATE_THRESHOLD:.0%} or more of its requests in 5 minutes "
                             "(a function failed or timed out, or DynamoDB refused beyond retries): see the logs.")
    latency = stage.metric_latency(statistic="p99", period=PERIOD)
    alarms.alarm(api, "LatencyAlarm", latency, threshold=LATENCY_P99_THRESHOLD.to_milliseconds(),
                 periods=LATENCY_PERIODS,
                 description=f"The API's p99 latency stayed above {LATENCY_P99_THRESHOLD.to_seconds()} s for "
                             f"{LATENCY_PERIODS * PERIOD.to_minutes()} minutes.")


class StageDashboard(Construct):
    """One dashboard per stage, top to bottom as on call reads it: every alarm's state, the API (rate, errors,
    latency), the stage's own counts, then per domain its functions (errors, throttles, duration), its consumers
    (iterator age, on-failure queues, parked records), its tables (consumed units, throttle events) and what
    `Server-Timing` tells per request.

    Dashboards are global to an account, not regional (AWS::CloudWatch::Dashboard in the CloudFormation reference):
    the name holds the stack's name and region, so a stage deployed in two regions of one account gets two."""

    WIDTH = 8

    def __init__(self, scope: Construct, construct_id: str, *, api: apigw.RestApi, sections: Sequence[Watched],
                 alarms: Sequence[cloudwatch.IAlarm] = (), stage_metrics: Sequence[cloudwatch.IMetric] = ()):
        super().__init__(scope, construct_id)
        self.dashboard = cloudwatch.Dashboard(
            self, "Dashboard", dashboard_name=f"{Stack.of(self).stack_name}-{Stack.of(self).region}",
            default_interval=Duration.hours(3),
        )
        if alarms:
            self.dashboard.add_widgets(cloudwatch.AlarmStatusWidget(
                title="Alarms", alarms=list(alarms), width=24, height=3,
                sort_by=cloudwatch.AlarmStatusWidgetSortBy.STATE_UPDATED_TIMESTAMP))
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
            cloudwatch.GraphWidget(title="Stage: what its alarms count", width=self.WIDTH, left=list(stage_metrics)),
        )
        for section in sections:
            self.dashboard.add_widgets(*self._row(section))

    def _row(self, section: Watched) -> list[cloudwatch.IWidget]:
        widgets: list[cloudwatch.IWidget] = []
        if section.functions:
            widgets.append(cloudwatch.GraphWidget(
                title=f"{section.title}: functions", width=self.WIDTH,
                left=[m for label, f in section.functions
                      for m in (f.metric_errors(statistic="Sum", period=PERIOD, label=f"{label} errors"),
                                f.metric_throttles(statistic="Sum", period=PERIOD, label=f"{label} throttles"))],
                left_y_axis=cloudwatch.YAxisProps(label="errors, throttles"),
                right=[f.metric_duration(statistic="p99", period=PERIOD, label=f"{label} duration p99")
                       for label, f in section.functions],
                right_y_axis=cloudwatch.YAxisProps(label="ms"),
            ))
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
                title=f"{section.title}: consumed read (left) and write (right) units", width=self.WIDTH,
                left=[t.read_units for t in section.tables], right=[t.write_units for t in section.tables],
            ))
            widgets.append(cloudwatch.GraphWidget(
                title=f"{section.title}: DynamoDB throttle events", width=self.WIDTH,
                left=[t.reads for t in section.tables], left_y_axis=cloudwatch.YAxisProps(label="read"),
                right=[t.writes for t in section.tables], right_y_axis=cloudwatch.YAxisProps(label="write"),
            ))
        if section.service is not None:
            # What the `Server-Timing` header tells each caller, averaged per request (functions/shared/http.py).
            widgets.append(cloudwatch.GraphWidget(
                title=f"{section.title}: DynamoDB per request (Server-Timing)", width=self.WIDTH,
                left=[stage_metric(name, section.stage, section.service, "Average").with_(label=name)
                      for name in REQUEST_COST_METRICS],
            ))
        return [cloudwatch.Row(*widgets)] if widgets else []
