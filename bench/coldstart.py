"""10. Cold start (issue 16): the CPU a function's execution environment spends importing its handler module and
creating a DynamoDB resource, against importing boto3 and creating the same resource (the floor any Python
function that talks to DynamoDB pays). Budget: at most 1.3x.

Each figure is the median of fresh interpreters (`time.process_time()` around the imports, so the interpreter's
own start is left out). The baseline is measured again beside each function, runs interleaved: on a machine shared
with other work CPU time still varies by a third from one minute to the next (a first version measured the
baseline once, at 315 ms in one run and 519 ms in another), and interleaving makes both sides of a ratio pay alike. Measured with the
environment of the local runtime and the tests: tracing off, so the X-Ray SDK is not loaded. The "traced" column
is the same import with `LAMBDA_TASK_ROOT` set, as in Lambda with active tracing: Powertools' Tracer then loads
the X-Ray SDK at import (Lambda's init phase), which is the price of tracing on AWS, not counted in the verdict.
The first row, `bench.coldstart_floor`, is no function: Powertools' resolver with its validation and one pydantic
route, no domain code, so that each function's figure can be read against what it cannot avoid importing.
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
FLOOR = "bench.coldstart_floor"

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


def cpu_once(module: str, *, traced: bool = False) -> float:
    """CPU seconds of importing `module` ("" for none) and creating a DynamoDB resource, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k not in ("LAMBDA_TASK_ROOT", "POWERTOOLS_TRACE_DISABLED")}
    env.update(POWERTOOLS_SERVICE_NAME="coldstart", AWS_DEFAULT_REGION="us-east-1")
    if traced:
        env["LAMBDA_TASK_ROOT"] = str(ROOT)
    code = PROBE.format(root=str(ROOT), module=module)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def run(runs: int = RUNS) -> None:
    print(f"\n10. Cold start: CPU to import a handler and create a DynamoDB resource, against boto3 alone "
          f"(medians of {runs} fresh processes each; budget {BUDGET}x)")
    print("   the baseline is measured again beside each function, the runs interleaved, so that a machine shared "
          "with other work slows both alike")
    print(f"   {'function module':<40} {'import ms':>10} {'baseline ms':>12} {'ratio':>7} {'verdict':>8} {'traced ms':>10}")
    over = []
    for module in [FLOOR, *handler_modules()]:
        cpu_once(module)  # warm the file cache and the .pyc files
        base, own, traced = [], [], []
        for _ in range(runs):
            base.append(cpu_once(""))
            own.append(cpu_once(module))
            traced.append(cpu_once(module, traced=True))
        baseline, cpu = statistics.median(base), statistics.median(own)
        ratio = cpu / baseline
        verdict = "ok" if ratio <= BUDGET else "OVER"
        if module == FLOOR:
            verdict = "floor"  # not a function: what any of ours pays before its own code
        elif ratio > BUDGET:
            over.append(module)
        print(f"   {module:<40} {cpu * 1000:>10.0f} {baseline * 1000:>12.0f} {ratio:>6.2f}x {verdict:>8} "
              f"{statistics.median(traced) * 1000:>10.0f}")
    print("   (traced: with LAMBDA_TASK_ROOT, as in Lambda with active tracing: the X-Ray SDK loads at init there; "
          "not in the verdict)")
    print(f"   ({FLOOR}: Powertools' Logger and resolver with validation and one pydantic route, no domain code; "
          "a function cannot import less and keep Powertools' validation)")
    if over:
        raise SystemExit(f"cold start over {BUDGET}x the boto3 baseline: {', '.join(over)}")


if __name__ == "__main__":
    run()
