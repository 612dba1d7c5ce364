"""Tumbling windows (`TumblingWindowInSeconds`): aligned to multiples of their length since the epoch (by
ApproximateCreationDateTime); a batch never spans two. Events carry `shardId`, `eventSourceARN`, `window`, `state` (what
the window's last invocation returned; `{}` at its start), `isFinalInvokeForWindow`, `isWindowTerminatedEarly`. A
response without a `state` fails the batch. A final invocation with no records closes the window (Lambda holds the
shard until it succeeds; here: retried up to the retry limit). It is how a consumer learns its shard (the aggregator).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from local.awslambda.pool import FunctionError
from local.streams.failures import RETRY_DELAY, RETRY_DELAY_MAX, iso
from local.streams.mapping import MappingSpec, StreamRecord

log = logging.getLogger("local.streams")


class TumblingWindow:
    """The window of the records a shard delivered last, and its state as the function returned it."""

    def __init__(self, spec: MappingSpec, shard_id: str) -> None:
        self.spec, self.shard_id = spec, shard_id
        self.start: float | None = None
        self.state: dict[str, Any] = {}
        self.final_attempts = 0

    def of(self, record: StreamRecord) -> float | None:
        size = self.spec.tumbling_window
        return None if not size else (record.arrival // size) * size

    def fields(self, records: tuple[StreamRecord, ...]) -> dict[str, Any]:
        """The window fields of an event for `records` (all in one window): a new window starts with no state."""
        if not self.spec.tumbling_window:
            return {}
        window = self.of(records[0]) if records else self.start
        if window != self.start:
            self.start, self.state = window, {}
        start = self.start or 0.0
        return {"window": {"start": iso(start), "end": iso(start + self.spec.tumbling_window)},
                "state": dict(self.state), "shardId": self.shard_id, "eventSourceARN": self.spec.stream_arn,
                "isFinalInvokeForWindow": not records, "isWindowTerminatedEarly": False}

    def accept(self, result: Any) -> bool:
        """Keep the state a windowed invocation returned; False when the response has none (the batch failed)."""
        state = result.get("state") if isinstance(result, Mapping) else None
        if isinstance(state, Mapping):
            self.state = dict(state)
        return isinstance(state, Mapping)

    def over(self, next_record: StreamRecord | None, shard_closed: bool, now: float) -> bool:
        """The current window has ended and none of its records is left to deliver."""
        if self.start is None:
            return False
        if next_record is not None:
            return self.of(next_record) != self.start
        return shard_closed or now >= self.start + self.spec.tumbling_window

    def finish(self, invoke: Callable[[dict[str, Any]], Any]) -> float:
        """The window's final invocation (no records, its state); the pause before trying again, 0 once the window is
        closed (the invocation succeeded, or was given up on)."""
        try:
            ok = self.accept(invoke({"Records": [], **self.fields(())}))
            outcome = "ok" if ok else "response without a state object"
        except FunctionError as exc:
            ok, outcome = False, f"function error {exc.error_type}: {exc.message}"
        self.final_attempts += 1
        log.info("%s <- %s %s: final invocation of window %s, attempt %d: %s", self.spec.function_label,
                 self.spec.table.logical_id, self.shard_id, iso(self.start or 0.0), self.final_attempts, outcome)
        if not ok and not 0 <= self.spec.max_retries < self.final_attempts:
            return min(RETRY_DELAY * 2 ** (self.final_attempts - 1), RETRY_DELAY_MAX)
        if not ok:
            log.warning("%s: gave up on the final invocation of window %s", self.spec.id, iso(self.start or 0.0))
        self.start, self.state, self.final_attempts = None, {}, 0
        return 0.0
