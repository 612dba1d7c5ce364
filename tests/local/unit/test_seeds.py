"""Seed modules: each `load(env)` runs; a module not written yet is skipped with a warning."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from seeds import load_all


@pytest.fixture
def seed_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    package = tmp_path / "fake_seeds"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "good.py").write_text("CALLS = []\n\ndef load(env):\n    CALLS.append(dict(env))\n")
    (package / "broken.py").write_text("import module_that_does_not_exist_anywhere\n")
    (package / "no_load.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "fake_seeds"
    for name in [n for n in sys.modules if n.startswith("fake_seeds")]:
        del sys.modules[name]


def test_present_modules_are_loaded_with_the_env_and_missing_ones_skipped(
    seed_package: str, caplog: pytest.LogCaptureFixture
) -> None:
    env = {"CONTACTS_TABLE_NAME": "Test-dev-Contacts-abcdef"}
    loaded = load_all(env, (f"{seed_package}.good", f"{seed_package}.not_written_yet"))
    assert loaded == [f"{seed_package}.good"]
    calls = sys.modules[f"{seed_package}.good"].CALLS
    assert calls == [env]
    assert "not_written_yet not found" in caplog.text


def test_a_missing_dependency_inside_a_seed_module_is_an_error(seed_package: str) -> None:
    with pytest.raises(ModuleNotFoundError, match="module_that_does_not_exist_anywhere"):
        load_all({}, (f"{seed_package}.broken",))


def test_a_seed_module_without_load_is_an_error(seed_package: str) -> None:
    with pytest.raises(TypeError, match="no load"):
        load_all({}, (f"{seed_package}.no_load",))


class RecordingTransport:
    """Stands in for local.aws.InProcessTransport: which clients it was attached to and detached from."""

    def __init__(self) -> None:
        self.attached: list = []
        self.detached: list = []

    def attach(self, client):
        self.attached.append(client)
        return client

    def detach(self, client) -> None:
        self.detached.append(client)


def test_a_transport_carries_the_seeds_calls_and_is_detached_after_them(seed_package: str, monkeypatch) -> None:
    from functions.shared import ddb

    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    transport = RecordingTransport()
    load_all({}, (f"{seed_package}.good",), transport=transport)
    assert transport.attached == transport.detached == [ddb.resource().meta.client]
    failing = RecordingTransport()
    with pytest.raises(TypeError):
        load_all({}, (f"{seed_package}.no_load",), transport=failing)
    assert len(failing.attached) == 1 and failing.detached == failing.attached  # detached when a seed fails too
