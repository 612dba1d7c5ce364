"""tests/support/waiting.py: `eventually` polls a check until it passes, on a monotonic clock. Here on a fake clock whose
`sleep` only moves time on: no thread, no server, no real wait but the last test's few milliseconds."""

from __future__ import annotations

import time

import pytest

from tests.support.waiting import eventually


class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


def calls_returning(*values):
    answers = iter(values)
    calls: list[int] = []

    def check():
        calls.append(1)
        return next(answers)

    return check, calls


def test_returns_the_first_truthy_value_after_sleeping_an_interval_between_calls(fake):
    check, calls = calls_returning(0, [], ["done"], ["later"])
    assert eventually(check, timeout=5, interval=0.5, clock=fake.clock, sleep=fake.sleep) == ["done"]
    assert len(calls) == 3 and fake.slept == [0.5, 0.5]


def test_a_check_made_of_assertions_passes_when_it_stops_raising(fake):
    seen = []

    def check():
        seen.append(len(seen))
        assert len(seen) >= 3, f"only {len(seen)}"

    assert eventually(check, timeout=5, interval=0.1, clock=fake.clock, sleep=fake.sleep) is None
    assert seen == [0, 1, 2]


def test_a_falsy_value_until_the_deadline_fails_showing_it(fake):
    check, calls = calls_returning(*[[]] * 100)
    with pytest.raises(AssertionError, match=r"not within 1 s: .*its last value: \[\]"):
        eventually(check, timeout=1, interval=0.3, clock=fake.clock, sleep=fake.sleep)
    # it never sleeps past the deadline, and checks once more there
    assert fake.slept == pytest.approx([0.3, 0.3, 0.3, 0.1]) and len(calls) == 5
    assert fake.now == pytest.approx(1001.0)


def test_an_assertion_still_failing_at_the_deadline_is_shown_and_chained(fake):
    def check():
        assert fake.now > 2000, f"at {fake.now:.0f}"

    with pytest.raises(AssertionError, match=r"its last assertion: at 1002") as failed:
        eventually(check, timeout=2, interval=1, clock=fake.clock, sleep=fake.sleep)
    assert isinstance(failed.value.__cause__, AssertionError)
    assert "check" in str(failed.value)  # named


def test_a_lambda_is_shown_by_its_source(fake):
    with pytest.raises(AssertionError, match=r"lambda: fake.now < 0"):
        eventually(lambda: fake.now < 0, timeout=0, clock=fake.clock, sleep=fake.sleep)


def test_another_exception_fails_at_once(fake):
    def check():
        raise KeyError("broken")

    with pytest.raises(KeyError):
        eventually(check, timeout=5, clock=fake.clock, sleep=fake.sleep)
    assert fake.slept == []


def test_a_check_that_passes_at_once_never_sleeps(fake):
    assert eventually(lambda: 42, timeout=0, clock=fake.clock, sleep=fake.sleep) == 42
    assert fake.slept == []


def test_by_default_it_waits_on_the_monotonic_clock_and_really_sleeps():
    assert eventually.__kwdefaults__["clock"] is time.monotonic
    started = time.monotonic()
    with pytest.raises(AssertionError):
        eventually(lambda: False, timeout=0.01, interval=0.002)
    assert 0.01 <= time.monotonic() - started < 1
