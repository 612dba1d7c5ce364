"""Schemathesis, the OpenAPI fuzzer, against the shared local runtime: every operation of the served description
(`/docs?format=json`), every check (schemathesis.toml at the root: the one check configured off and the cursor hook,
each with its evidence), as an admin (coverage and stateful phases) and as a plain user (fuzzing phase, FUZZ_EXAMPLES
cases per operation, default 5), with a fixed seed. Each run's summary line is printed (`pytest -s`), its whole
output kept beside the test's tmp_path.

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

ROOT = Path(__file__).resolve().parents[2]
SCHEMATHESIS = Path(sys.executable).with_name("st")
# Every check, with the one exception and the cursor hook it explains (schemathesis.toml at the repository's root).
CONFIG = ROOT / "schemathesis.toml"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
SEED = 20261123
# The admin reaches every operation's validation, so its run takes the coverage phase: every parameter's and body
# field's boundaries, valid and invalid, deterministically (and the stateful phase, which chains what it creates).
# Validation does not depend on the caller, so the plain user's run only fuzzes (random cases, positive and negative):
# what differs for a non-admin is authorization (403 on admin routes, another customer's data), which random cases
# reach as well, and repeating the coverage phase would double the time for the same answers.
CALLERS = {
    "admin": ("fuzz-admin", ("admin",), "coverage,stateful"),
    "user": ("fuzz-user", (), "fuzzing"),
}


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_the_fuzzer_finds_nothing(api, caller, tmp_path):
    user, groups, phases = CALLERS[caller]
    report = tmp_path / "report.ndjson"
    command = [
        str(SCHEMATHESIS), "--config-file", str(CONFIG), "run", f"{api.url}/docs?format=json",
        "--phases", phases, "--max-examples", str(EXAMPLES), "--seed", str(SEED), "--workers", "2",
        "--generation-database", "none",  # the seed alone decides the cases (no examples replayed from earlier runs)
        "--header", f"Authorization: Bearer {api.token(user, groups)}",
        "--report", "ndjson", "--report-ndjson-path", str(report), "--no-color",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=ROOT,
                         env={**os.environ, "NO_COLOR": "1"})
    output = tmp_path / "schemathesis.txt"
    output.write_text(run.stdout + run.stderr)
    summary = _summary(run.stdout)
    print(f"schemathesis as {caller}: {summary} (output: {output})")
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
