"""Shared helpers of the local runtime's tests: hand-written templates, stub resources, fake handler packages."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from local.aws import MotoService
from local.cloudformation.resources import Clients, StackResources
from local.cloudformation.template import StackTemplate


def stack_of(resources: Mapping[str, Any], **extra: Any) -> StackTemplate:
    template = {"Resources": dict(resources), **extra}
    return StackTemplate(name="Test-dev", template=template, assembly_dir=Path("/nonexistent"))


def no_clients(service: str) -> Any:
    raise AssertionError(f"this test must not create {service} resources")


def stack_resources(resources: Mapping[str, Any], **extra: Any) -> StackResources:
    """Resources of a template that only has faked types (no AWS call is allowed)."""
    return StackResources(stack_of(resources, **extra), Clients(no_clients), region="us-east-1")


@pytest.fixture
def make_asset(tmp_path: Path) -> Callable[[str], Path]:
    """A staged asset dir holding `functions/fake.py` with the given source."""

    def make(source: str, name: str = "asset.fake") -> Path:
        asset = tmp_path / name
        package = asset / "functions"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "fake.py").write_text(textwrap.dedent(source))
        return asset

    return make


@pytest.fixture(scope="module")
def moto() -> Iterator[MotoService]:
    """A moto endpoint of the module's own, served over HTTP (and in process through its `transport`)."""
    service = MotoService(0).start()
    yield service
    service.stop()
