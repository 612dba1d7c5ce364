"""Schemathesis, the OpenAPI fuzzer, against the shared local runtime: every operation of the served description
(`/docs?format=json`), `--checks all`, as an admin and as a plain user, with a fixed seed and a bounded number of
examples per operation (FUZZ_EXAMPLES, default 5; the issue's own run used 30).

Green means: no 5xx, no status, header or body outside the description, no schema-valid input refused, no
schema-invalid input accepted. It runs after every other e2e test (tests/e2e/conftest.py): the fuzzer writes and
deletes what it likes, and the other tests read the seeds' example data.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SCHEMATHESIS = Path(sys.executable).with_name("st")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
SEED = 20261123
CALLERS = {"admin": ("fuzz-admin", ("admin",)), "user": ("fuzz-user", ())}


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_the_fuzzer_finds_nothing(api, caller, tmp_path):
    user, groups = CALLERS[caller]
    report = tmp_path / "report.ndjson"
    command = [
        str(SCHEMATHESIS), "run", f"{api.url}/docs?format=json",
        "--checks", "all", "--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "2",
        "--header", f"Authorization: Bearer {api.token(user, groups)}",
        "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, env={**os.environ, "NO_COLOR": "1"})
    summary = _summary(run.stdout)
    print(f"schemathesis as {caller}: {summary}")
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-2000:]
    assert _operations_tested(report) > 0


def _summary(output: str) -> str:
    """The run's last line (`N passed in Ts` or `N failures ... in Ts`) and its case count."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    cases = next((line for line in lines if " generated" in line), "")
    return f"{cases}; {lines[-1] if lines else 'no output'}".strip("; ")


def _operations_tested(report: Path) -> int:
    """Operations the fuzzer reached, from its NDJSON event log (a run that tested nothing must not pass)."""
    if not report.exists():
        return 0
    events = [json.loads(line) for line in report.read_text().splitlines() if line.strip()]
    return sum(1 for event in events if "ScenarioFinished" in event)
