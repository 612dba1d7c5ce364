"""A stream consumer killed mid-batch: its worker process dies (SIGKILL) while it flushes the votes aggregates.

Lambda treats a crashed execution environment as a failed invocation and retries the batch per the mapping's retry
settings; the local runtime does the same (a dead worker is `Runtime.ExitError`, local/awslambda/pool.py, and a failed
invocation is retried, local/streams/failures.py). The aggregator must converge to exactly the ballots whether it
died before its flush committed (nothing applied: the retry applies all) or after (the retry finds the records at or
below the shard's checkpoint and skips them).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import uuid

import pytest
from moto.dynamodb.models import DynamoDBBackend

from tests.e2e.test_voting import CANDIDATES, converge, new_poll, results
from tests.support.waiting import eventually

AGGREGATOR_HANDLER = "voting.aggregator.lambda_handler"


class Crash:
    """Kills the aggregator's workers on its first flush that touches `poll_id`, before or after moto applies it."""

    def __init__(self, runtime, poll_id: str, when: str) -> None:
        (spec,) = [spec for spec in runtime.functions.specs() if spec.handler.endswith(AGGREGATOR_HANDLER)]
        self.pool, self.poll_id, self.when = runtime.functions.pool(spec.arn), poll_id, when
        self.killed: list[int] = []
        self.flushes = 0  # the aggregator's transactions that touch the poll
        self.deliveries = 0  # the aggregator's invocations with records of the poll
        self._lock = threading.Lock()

    def wrap(self, original):
        crash = self

        def transact_write_items(backend, transact_items):
            if crash.poll_id not in json.dumps(transact_items, default=str):
                return original(backend, transact_items)
            with crash._lock:
                crash.flushes += 1
                first = not crash.killed
            if first and crash.when == "before-commit":
                crash.kill()
                raise RuntimeError("the consumer died before its flush reached the database")
            result = original(backend, transact_items)
            if first:
                crash.kill()  # committed, but the consumer never learns it
            return result

        return transact_write_items

    def counting(self, invoke):
        def counted(function, event, request_id):
            if self.poll_id in json.dumps(event):
                with self._lock:
                    self.deliveries += 1
            return invoke(function, event, request_id)

        return counted

    def kill(self) -> None:
        for pid in self.pool.worker_pids:
            os.killpg(pid, signal.SIGKILL)  # the worker leads its own process group (local/awslambda/pool.py)
            self.killed.append(pid)


@pytest.mark.parametrize("when", ["before-commit", "after-commit"])
def test_an_aggregator_killed_mid_batch_converges_to_the_exact_ballots_after_redelivery(api, runtime, monkeypatch,
                                                                                         when):
    poll_id = new_poll(api)
    crash = Crash(runtime, poll_id, when)
    monkeypatch.setattr(DynamoDBBackend, "transact_write_items", crash.wrap(DynamoDBBackend.transact_write_items))
    monkeypatch.setattr(runtime.streams, "invoke", crash.counting(runtime.streams.invoke))
    voters = {f"crash-{uuid.uuid4().hex[:6]}-{n}": CANDIDATES[n % 3] for n in range(12)}

    # When twelve ballots are cast and the aggregator's worker is killed during its first flush
    for voter, candidate in voters.items():
        reply = api.call("POST", f"/voting/polls/{poll_id}/votes", user=voter, json={"candidate": candidate})
        assert reply.status_code == 201, reply.text

    # Then the runtime redelivers, and the totals equal the ballots: nothing lost, nothing counted twice
    expected = {candidate: list(voters.values()).count(candidate) for candidate in CANDIDATES}
    converge(api, poll_id, expected, timeout=15.0)
    assert crash.killed, "the aggregator was never killed: the test proved nothing"
    # the killed invocation's batch is delivered again; after a committed flush the totals are right before that
    # redelivery happens, so wait for it rather than read the count at once
    eventually(lambda: crash.deliveries >= 2, timeout=15.0)
    assert crash.flushes >= (2 if when == "before-commit" else 1)  # after the commit, the retry skips what it applied
    assert runtime.streams.wait_idle(timeout=5)
    assert results(api, poll_id)["totals"] == expected
    assert not set(crash.killed) & set(crash.pool.worker_pids)  # a new environment served the retry
