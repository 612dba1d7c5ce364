"""The explorer's what-if: a model's rows of `make scale` at another rate (GET /explorer/scale/{model}?rate=).

`make scale` writes, beside the figures the docs and the page show (functions/platform/scale-figures.json), what each
row's verdict was judged from (functions/platform/scale-basis.json: its `Basis`, the sums its workload adds up to at
the seed's rate). A what-if judges those sums scaled to the rate asked (model.py `judge`), with the code `make scale`
judges with: no workload runs here, so the answer costs the same whatever the rate, and imports no domain.

"The rate" of a model is the rate of its claim, the "rate/s" of its first row (votes a second for voting; the cart's
reads a second, with as many writes): at a rate f times that, every row's workload runs f times over (model.py
`judge`). Every operation is f times as frequent on the same keys, with the same items, and the design (its shards,
its buckets) stays as built for the seed's rate; what the workload keeps for a while is f times as much.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

from functions.platform.scale import MAX_RATE_PER_S
from functions.platform.scale.model import Basis, Load, judge
from functions.shared.errors import InvalidInputError, NotFoundError

BASIS = Path(__file__).resolve().parents[1] / "scale-basis.json"


def number(value: float) -> str:
    """A figure as the docs and the page print it: thousands separated, three significant digits below 10."""
    if math.isinf(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 10 else f"{value:.3g}"


def figures_row(row: Load) -> dict[str, Any]:
    """One row as functions/platform/scale-figures.json holds it (rounded as printed) and the what-if answers it."""
    return {
        "claim": row.claim, "design": row.design, "rate_per_s": number(row.rate_per_s),
        "hottest_key": row.hottest_key, "hottest_key_rcu": number(row.hottest_key_rcu),
        "hottest_key_wcu": number(row.hottest_key_wcu), "max_rate_per_s": number(row.max_rate_per_s),
        "partitions": row.partitions, "throttles": row.throttles, "even_with_split": row.even_with_split,
        "monthly_usd": number(row.monthly_usd), "provisioned_monthly_usd": number(row.provisioned_monthly_usd),
        "seed_figure": row.seed_figure, "note": row.note, "conflict_limit_per_s": number(row.conflict_limit_per_s),
        "busiest_table": row.busiest_table, "warm_before_launch": row.warm_before_launch,
        "arithmetic": row.arithmetic}


def model_rate(bases: list[Basis]) -> float:
    """A model's rate: its first row's, the rate its claim states."""
    return bases[0].rate_per_s


def rows_at(bases: list[Basis], rate: float) -> list[Load]:
    """The rows of one model at `rate` a second (its `model_rate`), judged as `make scale` judges them."""
    factor = rate / model_rate(bases)
    return [judge(basis, factor) for basis in bases]


@cache
def committed() -> dict[str, dict[str, Any]]:
    """{model: {"counts": what its rate counts, "rows": [Basis, ...]}} as the last `make scale` wrote them."""
    data = json.loads(BASIS.read_text(encoding="utf-8"))
    return {name: {**entry, "rows": [Basis.from_json(row) for row in entry["rows"]]} for name, entry in data.items()}


def answer(model: str, rate: int) -> dict[str, Any]:
    """The route's answer: the model's rows at `rate`, with the seed's rate and what the rate counts."""
    models = committed()
    if model not in models:
        raise NotFoundError(f"no scale model {model!r}; the models: {', '.join(sorted(models))}",
                            code="MODEL_NOT_FOUND")
    if not 1 <= rate <= MAX_RATE_PER_S:  # the route's Query bounds say the same; a direct caller meets it here
        raise InvalidInputError(f"rate must be from 1 to {MAX_RATE_PER_S:,} a second",
                                details=[{"field": "query.rate", "message": f"from 1 to {MAX_RATE_PER_S:,}"}])
    entry = models[model]
    return {"model": model, "rate_per_s": rate, "seed_rate_per_s": model_rate(entry["rows"]),
            "counts": entry["counts"], "rows": [figures_row(row) for row in rows_at(entry["rows"], rate)]}
