"""The metrics a stage's alarms and dashboard read (infra/constructs/monitoring.py) are the ones the functions write:
Powertools' EMF lines on stdout, under the namespace, metric name and `service` dimension the infrastructure uses."""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any

import pytest

from functions.shared.schema import METRICS_NAMESPACE, PARKED_RECORDS_METRIC, REQUEST_COST_METRICS
from functions.voting import aggregator as aggregator_module
from tests.functional.conftest import LambdaContext, ok
from tests.functional.order_entry_support import (  # noqa: F401 (fixtures)
    P,
    client_fixture,
    clock_fixture,
    seeded_fixture,
    table_fixture,
)
from tests.functional.voting_support import AroundTheApi, Ballots, Clock, event_of, make_tables, service_for


@pytest.fixture
def emitted(monkeypatch, capsys):
    """The EMF documents the handlers print from here on (the suite turns metrics off: on for these tests)."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    capsys.readouterr()

    def read() -> list[dict[str, Any]]:
        documents = []
        for line in capsys.readouterr().out.splitlines():
            if line.startswith("{") and '"_aws"' in line:
                documents.append(json.loads(line))
        return documents

    return read


def values(documents: list[dict[str, Any]], name: str) -> list[float]:
    """Every value of metric `name`, each document checked to put it in our namespace under the `service` dimension."""
    found = []
    for document in documents:
        (directive,) = document["_aws"]["CloudWatchMetrics"]
        if name in {metric["Name"] for metric in directive["Metrics"]}:
            assert directive["Namespace"] == METRICS_NAMESPACE
            assert directive["Dimensions"] == [["service"]] and document["service"]
            value = document[name]
            found += value if isinstance(value, list) else [value]
    return found


@pytest.fixture
def tables(aws, monkeypatch):
    return make_tables(monkeypatch)


@pytest.fixture
def voting(tables):
    aggregator_module.default_aggregator.cache_clear()
    yield service_for(tables, Clock())
    aggregator_module.default_aggregator.cache_clear()


def handle(event) -> dict:
    return aggregator_module.lambda_handler(event, LambdaContext())


def test_a_record_parked_by_the_batch_processor_counts_once_however_often_it_is_delivered(voting, emitted):
    ballots = Ballots(voting, f"poll-{uuid.uuid4().hex[:8]}")
    for n in range(3):
        ballots.vote(f"u{n}", "A")
    records = [dict(r) for r in ballots.records]
    poison = {**records[1], "dynamodb": {**records[1]["dynamodb"], "NewImage": {"candidate": {"N": "7"}}}}
    batch = [records[0], poison, records[2]]

    handle(event_of(batch))
    assert values(emitted(), PARKED_RECORDS_METRIC) == [1.0]

    handle(event_of(batch))  # redelivered: already parked
    assert values(emitted(), PARKED_RECORDS_METRIC) == []


def test_a_ballot_parked_in_the_aggregators_transaction_counts_too(voting, emitted):
    ballots = Ballots(voting, f"poll-{uuid.uuid4().hex[:8]}")
    ghost = AroundTheApi(voting, f"ghost-{uuid.uuid4().hex[:6]}")  # a poll that does not exist
    ballots.vote("u1", "A")
    ghost.vote("g1", "A")
    ghost.vote("g2", "B")
    ballots.vote("u2", "B")
    records = ballots.records[:1] + ghost.records + ballots.records[1:]

    assert handle(event_of(records)) == {"batchItemFailures": [], "state": {}}
    assert values(emitted(), PARKED_RECORDS_METRIC) == [2.0]

    handle(event_of(records))  # redelivered: below the checkpoint, nothing parked again
    assert values(emitted(), PARKED_RECORDS_METRIC) == []


def test_an_api_answer_emits_the_server_timing_figures_the_dashboard_draws(seeded, emitted):
    reply = seeded.call("GET", f"{P}/orders?status=OPEN&from=2026-01-01&to=2026-06-30&limit=3")
    ok(reply)
    documents = emitted()
    requests = values(documents, "DynamoDBRequests")
    assert requests and requests[-1] > 0
    for name in REQUEST_COST_METRICS:
        assert values(documents, name), name


def test_calls_given_up_on_for_throttling_or_faults_are_counted_under_the_stage_alone_too(emitted, monkeypatch):
    """What the stage's throttle and DynamoDB-faults alarms read (infra/constructs/monitoring.py): one count per call
    the function gave up on, under `stage` and `service`, and under `stage` alone (one alarm a stage)."""
    from botocore.exceptions import ClientError

    from functions.shared import ddb
    from functions.shared.errors import ServiceUnavailableError, ThrottledError
    from functions.shared.schema import STAGE_ENV, THROTTLED_METRIC, UNAVAILABLE_METRIC

    monkeypatch.setenv(STAGE_ENV, "dev")
    monkeypatch.setenv("POWERTOOLS_SERVICE_NAME", "voting")

    def error(code: str) -> ClientError:
        return ClientError({"Error": {"Code": code, "Message": code}}, "PutItem")

    assert isinstance(ddb.translate_client_error(error("ProvisionedThroughputExceededException")), ThrottledError)
    assert isinstance(ddb.translate_client_error(error("InternalServerError")), ServiceUnavailableError)
    assert ddb.translate_client_error(error("ConditionalCheckFailedException")) is None  # a rule held: not counted
    documents = emitted()
    counted = {}
    for document in documents:
        (directive,) = document["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == METRICS_NAMESPACE
        assert directive["Dimensions"] == [["stage", "service"], ["stage"]]
        assert (document["stage"], document["service"]) == ("dev", "voting")
        for metric in directive["Metrics"]:
            value = document[metric["Name"]]
            counted[metric["Name"]] = counted.get(metric["Name"], 0) + sum(value if isinstance(value, list) else [value])
    assert counted == {THROTTLED_METRIC: 1.0, UNAVAILABLE_METRIC: 1.0}


def test_concurrent_invocations_on_threads_keep_their_own_metrics_as_separate_sandboxes_would(emitted):
    """Concurrency tests call handlers from threads of one process; in AWS each concurrent invocation has its own
    sandbox, so its own metrics buffer (conftest.metrics_per_sandbox). With one shared buffer, the document Powertools
    writes when a name reaches 100 values carries another invocation's half-finished metrics, and the two threads
    race on one dict ("dictionary changed size during iteration")."""
    from aws_lambda_powertools.metrics import MetricUnit

    from functions.shared.observability import metrics

    second_added, first_done = threading.Event(), threading.Event()

    def first() -> None:
        second_added.wait(5)
        for _ in range(100):  # the 100th value makes Powertools write the document at once
            metrics.add_metric(name="FirstOnly", unit=MetricUnit.Count, value=1)
        first_done.set()

    def second() -> None:
        metrics.add_metric(name="SecondOnly", unit=MetricUnit.Count, value=1)
        second_added.set()
        first_done.wait(5)
        metrics.clear_metrics()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    (document,) = emitted()
    names = {m["Name"] for d in document["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]}
    assert names == {"FirstOnly"}
    assert len(document["FirstOnly"]) == 100
    assert "SecondOnly" not in metrics.provider.metric_set  # nor did it reach the main thread's buffer
