"""`python -m bench`: the entry point lists the sections and runs the ones asked for, in the bench's order; a failed
check in one section does not hide the figures of the sections after it."""

from __future__ import annotations

import os

import pytest

import bench.__main__ as entry
from bench import runtime


def test_the_bench_runs_the_sections_asked_for_in_its_own_order_and_reports_failed_checks(monkeypatch) -> None:
    # Given: every section replaced by a recorder, the load check failing
    ran: list[str] = []

    def section(name: str, fails: bool = False):
        def run() -> None:
            ran.append(name)
            if fails:
                raise SystemExit("a check failed")
        return run

    monkeypatch.setattr(entry, "SECTIONS", {name: section(name, fails=name == "load") for name in entry.SECTIONS})
    for variable in runtime.ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)

    # When: three sections are asked for, out of order
    with pytest.raises(SystemExit) as stop:
        entry.main(["coldstart", "load", "read-cost"])

    # Then: they ran in the bench's order, the run failed naming the failed section, with moto's environment set
    assert ran == ["read-cost", "load", "coldstart"]
    assert str(stop.value.code) == "bench: failed checks in load"
    assert all(os.environ[name] == value for name, value in runtime.ENVIRONMENT.items())


def test_an_unknown_section_is_refused_before_anything_runs(monkeypatch, capsys) -> None:
    monkeypatch.setattr(entry, "SECTIONS", {"cost": lambda: pytest.fail("ran")})
    with pytest.raises(SystemExit) as stop:
        entry.main(["costs"])
    assert stop.value.code == 2
    assert "no such section: costs" in capsys.readouterr().err


def test_every_section_module_of_bench_is_listed() -> None:
    listed = {section.__module__ for section in entry.SECTIONS.values()}
    assert listed == {"bench.contacts", "bench.voting", "bench.workshop", "bench.cart", "bench.order_entry",
                      "bench.load", "bench.coldstart", "bench.cost", "bench.startup"}
