"""`bench_runtime`: the local runtime every bench section that serves HTTP starts (it once lost its import, and
`make bench` stopped at section 2 with a NameError while every test passed)."""

from __future__ import annotations

from bench import runtime as bench
from local.runtime import Runtime


def test_the_bench_runtime_is_the_dev_stage_under_the_prod_stages_limits(monkeypatch) -> None:
    started = {}

    def start(cls, repo, **settings):
        started.update(settings, repo=repo)
        return "a runtime"

    monkeypatch.setattr(Runtime, "start", classmethod(start))
    assert bench.bench_runtime(3) == "a runtime"
    assert started["repo"] == bench.ROOT and started["stage"] == "dev" and started["max_concurrency"] == 3
    assert started["keys_dir"] == bench.BENCH_KEYS and started["throttle"] == bench.prod_throttle()
