"""Schemathesis, the OpenAPI fuzzer, against the shared local runtime: every operation of the served description
(`/docs?format=json`), every check (schemathesis.toml at the root: the one check configured off and the hook, each
with its evidence), as an admin (coverage, fuzzing and stateful phases) and as a plain user (fuzzing phase), with
FUZZ_EXAMPLES cases per operation in the fuzzing phase (default 5, so that `make test` stays within its
15 minutes on two cores; `FUZZ_EXAMPLES=30` is the full run) and a fixed seed. Each run's summary line is
printed (`pytest -s`), its whole output kept beside the test's tmp_path.

Green means: no 5xx, no status, header or body outside the description, no schema-valid input refused, no
schema-invalid input accepted. It runs after every other e2e test (tests/e2e/conftest.py): the fuzzer writes and
deletes what it likes, and the other tests read the seeds' example data.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.fuzz_hooks import REFUSED_BY_STATE_OR_CLOCK

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("st")
# Every check, with the one exception and the hook it explains (schemathesis.toml at the repository's root).
CONFIG = ROOT / "schemathesis.toml"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
SEED = 20261123
# The admin reaches every operation's validation, so its runs take the coverage phase: every parameter's and body
# field's boundaries, valid and invalid, deterministically; the fuzzing phase, EXAMPLES random cases per operation
# (positive and negative: schema-valid data the API refuses with a 400 shows here, as a failed positive_data_acceptance
# check); and the stateful phase, which chains what it creates. Validation does not depend on the caller, so the plain
# user's run only fuzzes: what differs for a non-admin is authorization (403 on admin routes, another customer's
# data), which random cases reach as well, and repeating the coverage phase would double the time for the same answers.
#
# The admin's operations are split in two runs (one path regex, included in one and excluded from the other, so a new
# domain is always in the second), and the three runs go at once: each schemathesis process uses one worker thread,
# and the machine's two cores and the runtime's two workers per function are kept busy by the three processes.
# One worker per process, because with two, schemathesis's threads build Hypothesis strategies at once, and CPython
# 3.11's `ast.parse` (which Hypothesis calls to describe a filter's lambda) keeps its recursion depth in state shared
# between threads: runs ended in "SystemError: AST constructor recursion depth mismatch" (a schemathesis Runtime
# Error, on catalog routes). Processes share nothing. Measured on this 2-core machine: one admin run 110 s and the
# user's 25 s in a row; the three at once: docs/adr/0062-schemathesis-fuzzes-the-description.md.
SPLIT = r"^/(order-entry|patterns|ecommerce|messaging|games)/"
RUNS = {
    "admin-1": ("fuzz-admin", ("admin",), "coverage,fuzzing,stateful", ["--include-path-regex", SPLIT]),
    "admin-2": ("fuzz-admin", ("admin",), "coverage,fuzzing,stateful", ["--exclude-path-regex", SPLIT]),
    "user": ("fuzz-user", (), "fuzzing", []),
}


DEADLINE_SECONDS = 900  # for the three runs together


@pytest.fixture(scope="module")
def fuzz_runs(api, tmp_path_factory) -> dict[str, tuple[subprocess.CompletedProcess, Path, Path]]:
    """Starts every run at once and waits for them all, within one deadline: {run: (completed process, output file,
    NDJSON report)}. Output goes to files (no pipe to fill); whatever happens, no process outlives the fixture."""
    started = {}
    try:
        for name, (user, groups, phases, selection) in RUNS.items():
            folder = tmp_path_factory.mktemp(f"fuzz-{name}")
            report, output = folder / "report.ndjson", folder / "schemathesis.txt"
            command = [
                str(SCHEMATHESIS), "--config-file", str(CONFIG), "run", f"{api.url}/docs?format=json", *selection,
                "--phases", phases, "--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "1",
                "--generation-database", "none",  # the seed alone decides the cases (none replayed from earlier runs)
                "--header", f"Authorization: Bearer {api.token(user, groups)}",
                "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color",
            ]
            with output.open("w") as sink:
                process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT,
                                           env={**os.environ, "NO_COLOR": "1"})
            started[name] = (command, process, output, report)
        deadline = time.monotonic() + DEADLINE_SECONDS
        finished = {}
        for name, (command, process, output, report) in started.items():
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 1))
            except subprocess.TimeoutExpired:
                pytest.fail(f"schemathesis {name} still running after {DEADLINE_SECONDS} s (output so far: {output})")
            stdout = output.read_text()
            finished[name] = (subprocess.CompletedProcess(command, process.returncode, stdout, ""), output, report)
        return finished
    finally:
        for _, process, _, _ in started.values():
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.mark.parametrize("run_name", list(RUNS))
def test_the_fuzzer_finds_nothing(fuzz_runs, run_name):
    run, output, report = fuzz_runs[run_name]
    print(f"schemathesis, {run_name}: {_summary(run.stdout)} (output: {output})")
    assert run.returncode == 0, run.stdout[-20000:]
    assert _operations_tested(report) > 0


@pytest.mark.parametrize("run_name", list(RUNS))
def test_only_refusals_of_state_or_clock_are_a_schema_mismatch(fuzz_runs, run_name):
    # Schema-valid data refused for what the description cannot know (stored state, the clock) is listed with the
    # hooks, with why; any other operation schemathesis warns about is a description looser than its validation.
    run, _, _ = fuzz_runs[run_name]
    named = _mismatched(run.stdout)
    assert named - set(REFUSED_BY_STATE_OR_CLOCK) == set(), sorted(named)


def test_the_runs_together_test_every_operation_of_the_description(api, fuzz_runs):
    described = {f"{method.upper()} {path}" for path, operations in api.call("GET", "/docs?format=json").json()
                 ["paths"].items() for method in operations}
    for caller_runs in (("admin-1", "admin-2"), ("user",)):
        tested = set().union(*(_operations(fuzz_runs[name][2]) for name in caller_runs))
        assert tested == described, sorted(described ^ tested)


def _mismatched(output: str) -> set[str]:
    """The operations listed under the "Schema validation mismatch" warning of a run's output (none if no warning)."""
    named: set[str] = set()
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if line.strip().startswith("Schema validation mismatch"):
            for item in lines[index + 1:]:
                if match := re.match(r"^\s*-\s+([A-Z]+ /\S*)", item):
                    named.add(match[1])
                elif item.strip():
                    break
            break
    return named


def _summary(output: str) -> str:
    """The run's last line (`N passed in Ts` or `N failures ... in Ts`) and its case count."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    cases = next((line for line in lines if " generated" in line), "")
    return f"{cases}; {lines[-1] if lines else 'no output'}".strip("; ")


def _events(report: Path) -> list[dict]:
    if not report.exists():
        return []
    return [json.loads(line) for line in report.read_text().splitlines() if line.strip()]


# A scenario that ran cases (passed or failed); schemathesis also finishes scenarios as skipped (no case could be
# generated, time limit, server unavailable) and still exits 0: those test nothing.
RAN = ("success", "failure")


def _ran(report: Path) -> list[dict]:
    return [event["ScenarioFinished"] for event in _events(report)
            if "ScenarioFinished" in event and event["ScenarioFinished"].get("status") in RAN
            and event["ScenarioFinished"].get("recorder", {}).get("cases")]


def _operations_tested(report: Path) -> int:
    """Scenarios that ran cases, from the run's NDJSON event log (a run that tested nothing must not pass)."""
    return len(_ran(report))


def _operations(report: Path) -> set[str]:
    """`METHOD /path` of every operation a run tested (the stateful phase's labels are not operations)."""
    labels = {scenario["recorder"]["label"] for scenario in _ran(report) if scenario["phase"] != "stateful"}
    return {label for label in labels if label.split(" ", 1)[0].isupper() and label.count(" ") == 1}
