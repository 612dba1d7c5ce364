"""functions/shared/ddb retries: transact_write (conditions by name; a conflict alone retried, bounded) and batch_get
(unprocessed keys retried after a backoff)."""

from __future__ import annotations

import pytest
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
