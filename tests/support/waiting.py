"""Waiting in tests for what another thread or process does: one helper, `eventually`, instead of hand-rolled loops
around `time.sleep`."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def eventually(check: Callable[[], T], *, timeout: float = 10.0, interval: float = 0.05,
               clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], object] = time.sleep) -> T:
    """Call `check()` every `interval` seconds until it passes, and return what it returned last.

    A check passes when it returns a truthy value (a predicate: `lambda: len(events) >= 2`), or returns None without
    raising AssertionError (a check made of assertions). A falsy value other than None, or an AssertionError, means
    "not yet"; any other exception fails at once. After `timeout` seconds (by `clock`, monotonic: a change of the
    wall clock does not shorten or stretch the wait) it raises AssertionError naming the check and showing its last
    value or assertion. The check runs at least once, and once more at the deadline.
    """
    deadline = clock() + timeout
    while True:
        failure: AssertionError | None = None
        try:
            value = check()
        except AssertionError as failed:
            failure = failed
        else:
            if value or value is None:
                return value
        remaining = deadline - clock()
        if remaining <= 0:
            last = f"its last assertion: {failure}" if failure is not None else f"its last value: {value!r}"
            raise AssertionError(f"not within {timeout} s: {_describe(check)}; {last}") from failure
        sleep(min(interval, remaining))


def _describe(check: Callable[[], object]) -> str:
    """A lambda's source line, or the check's name."""
    name = getattr(check, "__qualname__", None) or repr(check)
    if getattr(check, "__name__", None) == "<lambda>":
        try:
            return inspect.getsource(check).strip()
        except (OSError, TypeError):
            pass
    return name
