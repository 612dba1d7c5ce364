"""functions/shared/ddb retries: transact_write (conditions by name; a conflict alone retried, bounded) and batch_get
(unprocessed keys retried after a backoff)."""

from __future__ import annotations

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from functions.shared import ddb


def cancelled(*codes: str) -> ClientError:
    return ClientError({"Error": {"Code": "TransactionCanceledException", "Message": "cancelled"},
                        "CancellationReasons": [{"Code": code} for code in codes]}, "TransactWriteItems")


class FakeClient:
    def __init__(self, *outcomes: Exception | None):
        self.outcomes, self.calls = list(outcomes), 0

    def transact_write_items(self, **_):
        self.calls += 1
        outcome = self.outcomes.pop(0) if self.outcomes else None
        if outcome is not None:
            raise outcome


@pytest.fixture
def client(monkeypatch):
    def use(*outcomes):
        fake = FakeClient(*outcomes)
        monkeypatch.setattr(ddb, "resource", lambda: type("R", (), {"meta": type("M", (), {"client": fake})})())
        monkeypatch.setattr(ddb, "CONFLICT_BACKOFF_SECONDS", 0)
        return fake
    return use


ACTIONS = [("user", {"Put": {}}), ("marker", {"Put": {}})]


def test_a_failed_condition_is_named_by_its_action(client):
    fake = client(cancelled("None", "ConditionalCheckFailed"))
    failed = ddb.transact_write(ACTIONS)
    assert (failed.name, failed.names, fake.calls) == ("marker", ("marker",), 1)


def test_a_conflict_alone_is_retried_until_it_commits(client):
    fake = client(cancelled("TransactionConflict", "None"), cancelled("None", "TransactionConflict"))
    assert ddb.transact_write(ACTIONS) is None
    assert fake.calls == 3


def test_a_conflict_that_outlasts_the_attempts_propagates(client):
    fake = client(*[cancelled("TransactionConflict", "None")] * ddb.CONFLICT_ATTEMPTS)
    with pytest.raises(ClientError):
        ddb.transact_write(ACTIONS)
    assert fake.calls == ddb.CONFLICT_ATTEMPTS


def test_a_condition_wins_over_a_conflict_and_throttling_is_not_retried(client):
    client(cancelled("TransactionConflict", "ConditionalCheckFailed"))
    assert ddb.transact_write(ACTIONS).name == "marker"
    fake = client(cancelled("ThrottlingError", "None"))
    with pytest.raises(ClientError):
        ddb.transact_write(ACTIONS)
    assert fake.calls == 1


class FakeBatchResource:
    def __init__(self, unprocessed_rounds: int):
        self.left, self.calls = unprocessed_rounds, []

    def batch_get_item(self, RequestItems):
        keys = RequestItems["t"]["Keys"]
        self.calls.append(len(keys))
        if self.left:
            self.left -= 1
            return {"Responses": {"t": [keys[0]]}, "UnprocessedKeys": {"t": {"Keys": keys[1:]}}}
        return {"Responses": {"t": keys}}


def test_batch_get_backs_off_before_each_retry_of_unprocessed_keys(monkeypatch):
    fake, sleeps = FakeBatchResource(unprocessed_rounds=2), []
    monkeypatch.setattr(ddb, "resource", lambda: fake)
    monkeypatch.setattr(ddb.time, "sleep", sleeps.append)
    items = ddb.batch_get("t", [{"k": str(i)} for i in range(5)])
    assert sorted(i["k"] for i in items) == ["0", "1", "2", "3", "4"]
    assert fake.calls == [5, 4, 3] and len(sleeps) == 2  # a pause before each of the two retries, none before the first


# --- the retry budget, against the botocore that deploys ----------------------------------------------------------

class _Throttled:
    """botocore's throttling detector, answering "throttling" for every attempt: the longest backoff there is."""

    def is_throttling_error_from_context(self, context):
        return True


def worst_case_seconds(config) -> float:
    """Every attempt waits out its connect and read timeouts, every retry waits botocore's longest backoff (its own
    ExponentialBackoff, as standard mode registers it for DynamoDB, with the jitter at its maximum)."""
    from botocore.retries import standard

    attempts = config.retries["total_max_attempts"]
    assert config.retries["mode"] == "standard"
    backoff = standard.ExponentialBackoff(service_name="dynamodb", random=lambda: 1.0, throttling_detector=_Throttled())
    waits = [backoff.delay_amount(standard.RetryContext(attempt_number=n)) for n in range(1, attempts)]
    return attempts * (config.connect_timeout + config.read_timeout) + sum(waits)


def api_function_timeout_seconds() -> float:
    import inspect

    from infra.constructs.api_function import ApiFunction

    return inspect.signature(ApiFunction.__init__).parameters["timeout"].default.to_seconds()


def test_the_installed_botocore_is_the_one_that_deploys():
    import botocore

    from infra.constructs.function_asset import requirement_pins

    assert botocore.__version__ == requirement_pins()["botocore"]


def test_a_dynamodb_call_gives_up_well_inside_the_api_functions_timeout():
    timeout = api_function_timeout_seconds()
    worst = worst_case_seconds(ddb.CLIENT_CONFIG)
    assert timeout == 10
    assert worst == 7  # 2 × (1 s + 2 s) + 1 s of throttling backoff, as ddb.py's comment says
    assert worst <= 0.8 * timeout  # room for the handler's own work and the 429/503 answer


def test_a_third_attempt_would_not_fit():
    """Why 2 attempts: the same timeouts with a third attempt pass the timeout (the older runtime SDK's budget)."""
    config = ddb.CLIENT_CONFIG.merge(Config(retries={"mode": "standard", "total_max_attempts": 3}))
    assert worst_case_seconds(config) == 12 > api_function_timeout_seconds()
