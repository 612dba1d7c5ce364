"""10. Cold start: the CPU a function's execution environment spends importing its handler module and
creating a DynamoDB resource, against importing boto3 and creating the same resource (the floor any Python
function that talks to DynamoDB pays).

Each figure is the minimum over fresh interpreters (`time.process_time()` around the imports, so the interpreter's
own start is left out). The minimum, as `timeit` advises: other work on the machine only ever adds CPU time (caches,
frequency), so the lowest figure is the least disturbed one; medians of 5 moved by a tenth from one run to the next
on this 2-core machine. The baseline is measured again beside each function, runs interleaved, so that both sides of
a ratio are measured under the same load. Measured with the environment of the local runtime and the tests: tracing
off, so the X-Ray SDK is not loaded. The "traced" column is the same import with `LAMBDA_TASK_ROOT` set, as in Lambda
with active tracing: Powertools' Tracer then loads the X-Ray SDK at import (Lambda's init phase), which is the price
of tracing on AWS, not counted in a verdict.

The first budget was at most 1.3x the boto3 baseline. That cannot be met by any function that imports pydantic, and
ours must: the API functions validate with Powertools (which needs pydantic) and every repository returns pydantic
models. Four reference rows, no domain code in them, show where the cost is (measured, not assumed):
`bench.coldstart_resolver` (Powertools' Logger and REST resolver, no pydantic), `bench.coldstart_bare_pydantic` (one
pydantic model in a bare handler, no Powertools: the two rows are the floor's two parts, and their excesses add up to
more than the 0.3 of a baseline that 1.3x leaves), `bench.coldstart_pydantic` (the resolver with one pydantic model
the route validates itself) and `bench.coldstart_floor` (the same with Powertools' validation, what every API
function uses). So the verdict is against the floor: a function may cost at most FLOOR_BUDGET times
what the floor costs (each against its own baseline), which catches what our own code adds — an eager import that
only AWS needs, a domain's modules loaded where they are not used. The first budget's ratio is printed beside it
(docs/adr/0069-cold-start-verdict-against-floor.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 1.3  # the first budget, against the boto3 baseline: printed, not reachable while a function imports pydantic
FLOOR_BUDGET = 1.3  # the verdict: a function against the floor
RUNS = 5
FLOOR = "bench.coldstart_floor"
REFERENCES = {  # no domain code: what a function of this stack cannot avoid importing, step by step
    "bench.coldstart_resolver": "Powertools' Logger and REST resolver, one route, no pydantic",
    "bench.coldstart_bare_pydantic": "no Powertools: one pydantic model validating the body in a bare handler",
    "bench.coldstart_pydantic": "Powertools' Logger and REST resolver and one pydantic model, validated by the route",
    FLOOR: "the same with Powertools' validation (enable_validation=True), as every API function: the floor",
}

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


@dataclass(frozen=True)
class Figure:
    """One module's CPU seconds (the least of its runs), the baseline's beside it, and the traced import's."""

    module: str
    cpu: float
    baseline: float
    traced: float

    @property
    def ratio(self) -> float:
        return self.cpu / self.baseline


@dataclass(frozen=True)
class Verdict:
    figure: Figure
    over_floor: float  # the function's ratio over the floor's ratio
    ok: bool


def judge(figures: Sequence[Figure], floor: Figure, budget: float = FLOOR_BUDGET) -> list[Verdict]:
    """Each function's ratio against the floor's (both taken against their own baselines, so that a change of the
    machine's load between the two cancels out); over `budget` is a failure, judged on the printed two decimals."""
    return [Verdict(f, f.ratio / floor.ratio, round(f.ratio / floor.ratio, 2) <= budget) for f in figures]


def handler_modules(root: Path = ROOT) -> list[str]:
    """Every module that defines a function's `lambda_handler` (the API functions and the stream consumers)."""
    defines = re.compile(r"^(?:[\w, ]+, )?lambda_handler = ", re.MULTILINE)  # `app, lambda_handler = kit.serve(...)`
    modules = []
    for path in sorted((root / "functions").glob("*/*.py")):
        if path.parent.name != "shared" and defines.search(path.read_text(encoding="utf-8")):
            modules.append(f"functions.{path.parent.name}.{path.stem}")
    return modules


def cpu_once(module: str, *, traced: bool = False) -> float:
    """CPU seconds of importing `module` ("" for none) and creating a DynamoDB resource, in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k not in ("LAMBDA_TASK_ROOT", "POWERTOOLS_TRACE_DISABLED")}
    env.update(POWERTOOLS_SERVICE_NAME="coldstart", AWS_DEFAULT_REGION="us-east-1")
    if traced:
        env["LAMBDA_TASK_ROOT"] = str(ROOT)
    code = PROBE.format(root=str(ROOT), module=module)
    out = subprocess.run([sys.executable, "-c", code],  # noqa: S603  this interpreter and our own probe, no shell
                         env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def measure(module: str, runs: int = RUNS, cpu: Callable[..., float] = cpu_once) -> Figure:
    """The least CPU of `runs` fresh imports of `module`, each run beside one of the baseline's and a traced one."""
    cpu(module)  # warm the file cache
    base, own, traced = [], [], []
    for _ in range(runs):
        base.append(cpu(""))
        own.append(cpu(module))
        traced.append(cpu(module, traced=True))
    return Figure(module, min(own), min(base), min(traced))


def run(runs: int = RUNS) -> None:
    print(f"\n10. Cold start: CPU to import a handler and create a DynamoDB resource, against boto3 alone "
          f"(the least of {runs} fresh processes each; verdict: at most {FLOOR_BUDGET}x the floor)")
    print("   the baseline is measured again beside each module, the runs interleaved, so that a machine shared "
          "with other work slows both alike")
    header = (f"   {'module':<40} {'import ms':>10} {'baseline ms':>12} {'ratio':>7} {'/floor':>7} {'verdict':>8} "
              f"{'traced ms':>10}")
    print(header)
    references = {module: measure(module, runs) for module in REFERENCES}
    floor = references[FLOOR]
    for module, figure in references.items():
        print(f"   {module:<40} {figure.cpu * 1000:>10.0f} {figure.baseline * 1000:>12.0f} {figure.ratio:>6.2f}x "
              f"{figure.ratio / floor.ratio:>6.2f}x {'ref':>8} {figure.traced * 1000:>10.0f}")
    verdicts = judge([measure(module, runs) for module in handler_modules()], floor)
    for v in verdicts:
        f = v.figure
        print(f"   {f.module:<40} {f.cpu * 1000:>10.0f} {f.baseline * 1000:>12.0f} {f.ratio:>6.2f}x "
              f"{v.over_floor:>6.2f}x {'ok' if v.ok else 'OVER':>8} {f.traced * 1000:>10.0f}")
    print("   (traced: with LAMBDA_TASK_ROOT, as in Lambda with active tracing: the X-Ray SDK loads at init there; "
          "not in the verdict)")
    for module, what in REFERENCES.items():
        print(f"   ({module}: {what})")
    within = [v.figure.module for v in verdicts if v.figure.ratio <= BUDGET]
    print(f"   the first budget, {BUDGET}x the boto3 baseline: {len(within)} of {len(verdicts)} functions within it; "
          f"without pydantic the least is {references['bench.coldstart_resolver'].ratio:.2f}x, pydantic without "
          f"Powertools {references['bench.coldstart_bare_pydantic'].ratio:.2f}x, both with one pydantic model "
          f"{references['bench.coldstart_pydantic'].ratio:.2f}x, with Powertools' validation "
          f"{floor.ratio:.2f}x (docs/adr/0069-cold-start-verdict-against-floor.md)")
    over = [v.figure.module for v in verdicts if not v.ok]
    if over:
        raise SystemExit(f"cold start over {FLOOR_BUDGET}x the floor ({FLOOR}): {', '.join(over)}")


if __name__ == "__main__":
    run()
