"""bench section 10 (cold start): its verdict against the floor, its statistic, and its reference rows, which must be
working Powertools functions for the floor to mean anything."""

from __future__ import annotations

import importlib
import json

import pytest

from bench.coldstart import FLOOR, FLOOR_BUDGET, REFERENCES, Figure, judge, measure


def test_a_function_is_judged_against_the_floor_each_against_its_own_baseline() -> None:
    floor = Figure(FLOOR, cpu=0.30, baseline=0.20, traced=0.30)  # 1.5x
    # measured while the machine ran twice as slow: the same 1.5x, so the same as the floor
    slowed = Figure("functions.a.api", cpu=0.60, baseline=0.40, traced=0.6)
    at_budget = Figure("functions.b.api", cpu=0.30 * FLOOR_BUDGET, baseline=0.20, traced=0.4)
    over = Figure("functions.c.api", cpu=0.40, baseline=0.20, traced=0.4)  # 2.0x: 1.33x the floor
    verdicts = judge([slowed, at_budget, over], floor)
    assert [round(v.over_floor, 4) for v in verdicts] == [1.0, FLOOR_BUDGET, 1.3333]
    assert [v.ok for v in verdicts] == [True, True, False]


def test_each_figure_is_the_least_of_its_runs_interleaved_with_the_baseline() -> None:
    calls = []
    samples = {"": iter([0.25, 0.20, 0.30]), "m": iter([0.9, 0.50, 0.40, 0.45]), "m traced": iter([0.7, 0.6, 0.8])}

    def cpu(module: str, *, traced: bool = False) -> float:
        key = f"{module} traced" if traced else module
        calls.append(key)
        return next(samples[key])

    figure = measure("m", runs=3, cpu=cpu)
    assert calls == ["m"] + ["", "m", "m traced"] * 3  # a warm-up, then one of each per run
    assert figure == Figure("m", cpu=0.40, baseline=0.20, traced=0.6)


def post_items(module: str, body: str) -> dict:
    """The reference function's answer to `POST /items` with `body`, as API Gateway's REST proxy would send it."""
    event = {"resource": "/items", "path": "/items", "httpMethod": "POST", "headers": {}, "body": body,
             "requestContext": {"resourcePath": "/items", "httpMethod": "POST", "stage": "dev"}}
    return importlib.import_module(module).lambda_handler(event, None)


@pytest.mark.parametrize("module", list(REFERENCES))
def test_each_reference_row_is_a_working_function(module: str) -> None:
    answer = post_items(module, '{"name": "a"}')
    assert answer["statusCode"] == 200 and json.loads(answer["body"]) == {"name": "a"}


def test_the_floor_validates_with_powertools() -> None:
    assert post_items(FLOOR, '{"name": 1}')["statusCode"] == 422  # Powertools' validation, before the route runs
