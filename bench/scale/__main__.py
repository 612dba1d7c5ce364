"""`make scale` (`python -m bench.scale`): for each seed claim, our design and the seed's alternative side by side —
the rate, the hottest partition key's RCU and WCU a second against one key's 3,000 / 1,000, the rate at which that key
reaches its limit, the partitions needed, whether it throttles, and the monthly cost (on-demand and provisioned)
beside the seed's figure. Writes `.artifacts/scale.json` (one object per row), functions/platform/scale-figures.json
(what the docs' "At the seed's scale" sections render, `make docs`, and the explorer shows) and
functions/platform/scale-basis.json (what each row was judged from: the explorer's what-if scales it). No moto, no
server: key builders and capacity rules only.

`python -m bench.scale --model voting --rate 5000` (`make scale MODEL=voting RATE=5000`): that model's rows with its
workload that many times over the seed's rate (functions/platform/scale/what_if.py), as the explorer's what-if
answers them; writes nothing (`--json`: the rows as the what-if route answers them).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from bench.scale.model import KEY_RCU, KEY_WCU, Load
from bench.scale.workloads import MODELS, all_rows, cart_break_even
from functions.platform.scale import MAX_RATE_PER_S
from functions.platform.scale.model import Basis
from functions.platform.scale.what_if import BASIS, figures_row, model_rate, number, rows_at

ROOT = Path(__file__).resolve().parents[2]
ARTIFACT = ROOT / ".artifacts" / "scale.json"
# One generated copy, shipped with the platform function (the explorer shows it) and rendered into the docs.
FIGURES = ROOT / "functions" / "platform" / "scale-figures.json"


def figures(rows: list[Load], break_even: dict[str, float]) -> dict[str, Any]:
    """The docs' data: per domain, its rows (rounded as printed), what its rate counts for the explorer's what-if, and
    the cart's break-even."""
    out: dict[str, Any] = {}
    for row in rows:
        out.setdefault(row.model, {"rows": []})["rows"].append(figures_row(row))
    for name, entry in out.items():
        rate = model_rate(bases(rows, name))
        entry["what_if"] = {"rate_per_s": int(rate) if rate == int(rate) else rate, "counts": MODELS[name][1],
                            "max_rate_per_s": MAX_RATE_PER_S}
    out["cart"]["break_even"] = {k: number(v) for k, v in break_even.items()}
    return out


def bases(rows: list[Load], model: str) -> list[Basis]:
    """What the model's rows were judged from (`simulate` keeps it on each row)."""
    found = [row.basis for row in rows if row.model == model and row.basis is not None]
    if not found:
        raise LookupError(f"no rows of model {model!r}")
    return found


def basis_file(rows: list[Load]) -> dict[str, Any]:
    """functions/platform/scale-basis.json: per model, what its rate counts and each row's basis."""
    return {name: {"counts": MODELS[name][1], "rows": [basis.as_json() for basis in bases(rows, name)]}
            for name in dict.fromkeys(row.model for row in rows)}


def what_if(model: str, rate: float, rows: list[Load] | None = None) -> list[Load]:
    """The model's rows at `rate` a second, from its workloads run now (or from `rows`, all_rows() already run), judged
    as the explorer's what-if judges the committed basis."""
    if model not in MODELS:
        raise SystemExit(f"no scale model {model!r}; the models: {', '.join(MODELS)}")
    if not 1 <= rate <= MAX_RATE_PER_S:
        raise SystemExit(f"--rate must be from 1 to {MAX_RATE_PER_S:,} a second")
    return rows_at(bases(MODELS[model][0]() if rows is None else rows, model), rate)


def print_rows(rows: list[Load]) -> None:
    head = (f"{'model':<14} {'design':<58} {'rate/s':>9} {'hot RCU':>9} {'hot WCU':>9} {'limit at/s':>10} "
            f"{'parts':>6} {'thr':>4} {'$ on-dem.':>11} {'$ prov.':>10}  seed")
    print(head)
    print("-" * len(head))
    for row in rows:
        verdict = ("YES" if row.even_with_split else "yes") if row.throttles else "no"
        print(f"{row.model:<14} {row.design[:58]:<58} {number(row.rate_per_s):>9} {number(row.hottest_key_rcu):>9} "
              f"{number(row.hottest_key_wcu):>9} {number(row.max_rate_per_s):>10} {row.partitions:>6} {verdict:>4} "
              f"{number(row.monthly_usd):>11} {number(row.provisioned_monthly_usd):>10}  {row.seed_figure}")
    print("YES: one item (or a full item collection) is over a limit; yes: a key of many items is (a split for heat "
          "on sort-key\nranges is reactive and not promised: never counted as holding); limit at/s: the first of a "
          "key's units, an item's\ntransactions (TransactionConflict) or a table's 40,000 units to be reached")
    print("\nwhy each throttling row throttles (the hottest key, or the index holding back its table):")
    for row in rows:
        if row.throttles:
            print(f"- {row.model}, {row.design}: {row.why}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=list(MODELS), help="one model's rows at --rate (with --rate)")
    parser.add_argument("--rate", type=float, help="the model's rate a second (its claim's, its first row's rate/s)")
    parser.add_argument("--json", action="store_true", help="with --model/--rate: the rows as the what-if answers")
    args = parser.parse_args(argv)
    if (args.model is None) != (args.rate is None):
        parser.error("--model and --rate go together (make scale MODEL=voting RATE=5000)")
    if args.model is not None:
        rows = what_if(args.model, args.rate)
        if args.json:
            print(json.dumps([figures_row(row) for row in rows], indent=1, ensure_ascii=False))
        else:
            print(f"{args.model} at {number(args.rate)} {MODELS[args.model][1]}: every row's workload "
                  f"{args.rate / model_rate(bases(rows, args.model)):g} times over the seed's rate")
            print_rows(rows)
        return
    started = time.perf_counter()
    rows = all_rows()
    break_even = cart_break_even([row for row in rows if row.model == "cart"])
    print(f"At the seeds' scale: per partition key value at most {KEY_RCU:,} RCU and {KEY_WCU:,} WCU a second "
          "(functions/platform/scale/model.py); $ = a month on-demand / provisioned, us-east-1")
    print_rows(rows)
    b = break_even
    for mode, label in (("provisioned", "provisioned"), ("on_demand", "on-demand")):
        print(f"\ncart, {label}: ours costs ${number(b['extra_per_month_' + mode])} a month more than the seed's "
              f"one-item cart at 10K reads + 10K writes/s; the seed's price job costs ${b['job_run_' + mode]:.2f} a "
              f"run: ours pays for itself when the job would run more than {number(b['jobs_per_month_' + mode])} "
              f"times a month (every {b['minutes_between_jobs_' + mode]:.0f} min), or, with a daily job, below "
              f"{number(b['rate_for_daily_job_' + mode])} reads + writes/s")
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(json.dumps([row.as_json() for row in rows], indent=1) + "\n", encoding="utf-8")
    FIGURES.write_text(json.dumps(figures(rows, break_even), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    BASIS.write_text(json.dumps(basis_file(rows), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{len(rows)} rows in {time.perf_counter() - started:.1f} s; written to "
          f"{ARTIFACT.relative_to(ROOT)}, {FIGURES.relative_to(ROOT)} (`make docs` renders it) and "
          f"{BASIS.relative_to(ROOT)} (the explorer's what-if)")


if __name__ == "__main__":
    main()
