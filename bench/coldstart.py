"""10. Cold start (issue 16): the CPU a function's execution environment spends importing its handler module and
creating a DynamoDB resource, against importing boto3 and creating the same resource (the floor any Python
function that talks to DynamoDB pays). Budget: at most 1.3x.

Each figure is the median of fresh interpreters (`time.process_time()` around the imports, so the interpreter's
own start is left out and another process on the machine slows a run without counting in it). Measured with the
environment of the local runtime and the tests: tracing off, so the X-Ray SDK is not loaded. The "traced" column
is the same import with `LAMBDA_TASK_ROOT` set, as in Lambda with active tracing: Powertools' Tracer then loads
the X-Ray SDK at import (Lambda's init phase), which is the price of tracing on AWS, not counted in the verdict.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 1.3
RUNS = 5

PROBE = """
import sys, time
sys.path.insert(0, {root!r})
started = time.process_time()
if {module!r}:
    __import__({module!r})
import boto3
boto3.resource("dynamodb", region_name="us-east-1")
print(time.process_time() - started)
"""


def handler_modules(root: Path = ROOT) -> list[str]:
    """Every module that defines a function's `lambda_handler` (the API functions and the stream consumers)."""
    modules = []
    for path in sorted((root / "functions").glob("*/*.py")):
        if path.parent.name != "shared" and "\nlambda_handler = " in path.read_text(encoding="utf-8"):
            modules.append(f"functions.{path.parent.name}.{path.stem}")
    return modules


def import_cpu(module: str, *, traced: bool = False, runs: int = RUNS) -> float:
    """Median CPU seconds of importing `module` ("" for none) and creating a DynamoDB resource, in fresh processes."""
    env = {k: v for k, v in os.environ.items() if k not in ("LAMBDA_TASK_ROOT", "POWERTOOLS_TRACE_DISABLED")}
    env.update(POWERTOOLS_SERVICE_NAME="coldstart", AWS_DEFAULT_REGION="us-east-1", PYTHONDONTWRITEBYTECODE="")
    if traced:
        env["LAMBDA_TASK_ROOT"] = str(ROOT)
    code = PROBE.format(root=str(ROOT), module=module)
    samples = []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True,
                             check=True)
        samples.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(samples)


def run(runs: int = RUNS) -> None:
    print(f"\n10. Cold start: CPU to import a handler and create a DynamoDB resource, against boto3 alone "
          f"(median of {runs} fresh processes; budget {BUDGET}x)")
    import_cpu("", runs=1)  # warm the file cache and the .pyc files
    baseline = import_cpu("", runs=runs)
    print(f"   baseline: import boto3 + boto3.resource('dynamodb'): {baseline * 1000:.0f} ms CPU")
    print(f"   {'function module':<40} {'import ms':>10} {'ratio':>7} {'verdict':>8} {'traced ms':>10}")
    over = []
    for module in handler_modules():
        import_cpu(module, runs=1)
        cpu = import_cpu(module, runs=runs)
        traced = import_cpu(module, traced=True, runs=runs)
        ratio = cpu / baseline
        verdict = "ok" if ratio <= BUDGET else "OVER"
        if ratio > BUDGET:
            over.append(module)
        print(f"   {module:<40} {cpu * 1000:>10.0f} {ratio:>6.2f}x {verdict:>8} {traced * 1000:>10.0f}")
    print("   (traced: with LAMBDA_TASK_ROOT, as in Lambda with active tracing; the X-Ray SDK loads at init there)")
    if over:
        raise SystemExit(f"cold start over {BUDGET}x the boto3 baseline: {', '.join(over)}")


if __name__ == "__main__":
    run()
