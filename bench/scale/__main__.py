"""`make scale` (`python -m bench.scale`): for each seed claim, our design and the seed's alternative side by side —
the rate, the hottest partition key's RCU and WCU a second against one key's 3,000 / 1,000, the rate at which that key
reaches its limit, the partitions needed, whether it throttles, and the monthly cost (on-demand and provisioned)
beside the seed's figure. Writes `.artifacts/scale.json` (one object per row) and functions/platform/scale-figures.json
(what the docs' "At the seed's scale" sections render, `make docs`, and the explorer shows). No moto, no server: key builders and capacity rules only.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from bench.scale.model import KEY_RCU, KEY_WCU, Load
from bench.scale.workloads import all_rows, cart_break_even

ROOT = Path(__file__).resolve().parents[2]
ARTIFACT = ROOT / ".artifacts" / "scale.json"
# One generated copy, shipped with the platform function (the explorer shows it) and rendered into the docs.
FIGURES = ROOT / "functions" / "platform" / "scale-figures.json"


def _num(value: float) -> str:
    if math.isinf(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 10 else f"{value:.3g}"


def figures(rows: list[Load], break_even: dict[str, float]) -> dict[str, Any]:
    """The docs' data: per domain, its rows (rounded as printed), and the cart's break-even."""
    out: dict[str, Any] = {}
    for row in rows:
        out.setdefault(row.model, {"rows": []})["rows"].append({
            "claim": row.claim, "design": row.design, "rate_per_s": _num(row.rate_per_s),
            "hottest_key": row.hottest_key, "hottest_key_rcu": _num(row.hottest_key_rcu),
            "hottest_key_wcu": _num(row.hottest_key_wcu), "max_rate_per_s": _num(row.max_rate_per_s),
            "partitions": row.partitions, "throttles": row.throttles, "even_with_split": row.even_with_split, "monthly_usd": _num(row.monthly_usd),
            "provisioned_monthly_usd": _num(row.provisioned_monthly_usd), "seed_figure": row.seed_figure,
            "note": row.note, "conflict_limit_per_s": _num(row.conflict_limit_per_s),
            "busiest_table": row.busiest_table, "warm_before_launch": row.warm_before_launch,
            "arithmetic": row.arithmetic})
    out["cart"]["break_even"] = {k: _num(v) for k, v in break_even.items()}
    return out


def main() -> None:
    started = time.perf_counter()
    rows = all_rows()
    break_even = cart_break_even([row for row in rows if row.model == "cart"])
    print(f"At the seeds' scale: per partition key value at most {KEY_RCU:,} RCU and {KEY_WCU:,} WCU a second "
          "(bench/scale/model.py); $ = a month on-demand / provisioned, us-east-1")
    head = (f"{'model':<14} {'design':<58} {'rate/s':>9} {'hot RCU':>9} {'hot WCU':>9} {'limit at/s':>10} "
            f"{'parts':>6} {'thr':>4} {'$ on-dem.':>11} {'$ prov.':>10}  seed")
    print(head)
    print("-" * len(head))
    for row in rows:
        print(f"{row.model:<14} {row.design[:58]:<58} {_num(row.rate_per_s):>9} {_num(row.hottest_key_rcu):>9} "
              f"{_num(row.hottest_key_wcu):>9} {_num(row.max_rate_per_s):>10} {row.partitions:>6} "
              f"{('YES' if row.even_with_split else 'yes') if row.throttles else 'no':>4} {_num(row.monthly_usd):>11} "
              f"{_num(row.provisioned_monthly_usd):>10}  {row.seed_figure}")
    print("YES: one item (or a full item collection) is over a limit; yes: a key of many items is (a split for heat "
          "on sort-key\nranges is reactive and not promised: never counted as holding); limit at/s: the first of a key's "
          "units, an item's\ntransactions (TransactionConflict) or a table's 40,000 units to be reached")
    print("\nwhy each throttling row throttles (the hottest key, or the index holding back its table):")
    for row in rows:
        if row.throttles:
            print(f"- {row.model}, {row.design}: {row.why}")
    b = break_even
    for mode, label in (("provisioned", "provisioned"), ("on_demand", "on-demand")):
        print(f"\ncart, {label}: ours costs ${_num(b['extra_per_month_' + mode])} a month more than the seed's one-item "
              f"cart at 10K reads + 10K writes/s; the seed's price job costs ${b['job_run_' + mode]:.2f} a run: ours "
              f"pays for itself when the job would run more than {_num(b['jobs_per_month_' + mode])} times a month "
              f"(every {b['minutes_between_jobs_' + mode]:.0f} min), or, with a daily job, below "
              f"{_num(b['rate_for_daily_job_' + mode])} reads + writes/s")
    ARTIFACT.parent.mkdir(exist_ok=True)
    ARTIFACT.write_text(json.dumps([row.as_json() for row in rows], indent=1) + "\n", encoding="utf-8")
    FIGURES.write_text(json.dumps(figures(rows, break_even), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{len(rows)} rows in {time.perf_counter() - started:.1f} s; written to "
          f"{ARTIFACT.relative_to(ROOT)} and {FIGURES.relative_to(ROOT)} (`make docs` renders the latter)")


if __name__ == "__main__":
    main()
