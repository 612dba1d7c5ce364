"""The synthesized stacks, built once per test session (jsii start-up is the slow part).

The app is one parent stack and one nested stack per domain (infra/stack.py). `Synth` gives each template as
written (`parent`, `nested`, `templates`) and `merged`: every template's resources in one dict, with each nested
template's parameters replaced by what the parent passes in (`{"Ref": "referenceto…"}` becomes the parent's
`{"Ref": "ApiAuthorizer…"}`), so an assertion about the whole app reads as it did when the app was one stack.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Template

from infra.stack import DOMAINS, BlueprintsStack, DomainBuilder

NESTED_STACK_TYPE = "AWS::CloudFormation::Stack"


@dataclass
class Nested:
    """A domain's nested stack: its resource in the parent, and its template."""

    domain: str
    logical_id: str  # of the AWS::CloudFormation::Stack resource in the parent
    file: Path
    raw: dict[str, Any]


@dataclass
class Synth:
    stack: BlueprintsStack
    outdir: Path
    parent_file: Path
    parent: dict[str, Any]
    nested: dict[str, Nested] = field(default_factory=dict)  # by domain construct id ("ConnectedCar")

    @property
    def templates(self) -> dict[str, dict[str, Any]]:
        """Every template by a stable name: the stack's name for the parent, "<stack>.<domain>" for a nested one."""
        return {
            self.stack.stack_name: self.parent,
            **{f"{self.stack.stack_name}.{name}": nested.raw for name, nested in self.nested.items()},
        }

    @property
    def files(self) -> dict[str, Path]:
        return {
            self.stack.stack_name: self.parent_file,
            **{f"{self.stack.stack_name}.{name}": nested.file for name, nested in self.nested.items()},
        }

    @cached_property
    def merged(self) -> dict[str, Any]:
        """All resources of all templates, nested parameters resolved to the parent's values."""
        resources = dict(self.parent["Resources"])
        for nested in self.nested.values():
            passed = self.parent["Resources"][nested.logical_id]["Properties"].get("Parameters", {})
            for logical_id, resource in nested.raw["Resources"].items():
                if resource["Type"] == "AWS::CDK::Metadata":
                    continue
                assert logical_id not in resources, f"{logical_id} is in two templates"
                resources[logical_id] = _substitute(resource, passed)
        return {"Parameters": self.parent.get("Parameters", {}), "Resources": resources}

    @cached_property
    def template(self) -> Template:
        return Template.from_json(self.merged)

    def template_of(self, logical_id: str) -> str:
        """Which template ("Blueprints-dev" or "Blueprints-dev.Voting") holds a resource."""
        (name,) = [name for name, raw in self.templates.items() if logical_id in raw["Resources"]]
        return name


def _substitute(value: Any, parameters: dict[str, Any]) -> Any:
    if isinstance(value, dict):
        if set(value) == {"Ref"} and value["Ref"] in parameters:
            return parameters[value["Ref"]]
        return {k: _substitute(v, parameters) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, parameters) for v in value]
    return value


ROOT = Path(__file__).resolve().parents[2]


def cli_context(stage: str) -> dict[str, Any]:
    """What `cdk synth -c stage=…` gives the app: cdk.json's context (feature flags), path and asset metadata and
    version reporting, so the templates tested (their sizes too) are the ones `make synth` writes and deploys."""
    return {
        **json.loads((ROOT / "cdk.json").read_text())["context"],
        "stage": stage,
        "aws:cdk:enable-asset-metadata": True,
        "aws:cdk:enable-path-metadata": True,
        "aws:cdk:version-reporting": True,
    }


def synth(
    stage: str, outdir: Path, *, domains: Sequence[DomainBuilder] = DOMAINS, nag: bool = True,
    context: dict[str, Any] | None = None,
) -> Synth:
    from app import build_app

    # app.py's own app: stages.toml's settings, termination protection and the region check as `make synth` has them
    app = build_app({}, {**cli_context(stage), **(context or {})}, outdir=str(outdir), domains=domains, nag=nag)
    stack = app.node.find_child(f"Blueprints-{stage}")
    assert isinstance(stack, BlueprintsStack)
    assembly = app.synth()  # raises if cdk-nag reports an unacknowledged finding
    parent_file = Path(assembly.get_stack_by_name(stack.stack_name).template_full_path)
    result = Synth(stack, Path(outdir), parent_file, json.loads(parent_file.read_text()))
    # A nested template is a file asset of the parent: the parent's AWS::CloudFormation::Stack resource names it
    # in its `aws:asset:path` metadata (asset metadata is on in this app) and its TemplateURL ends with its hash.
    by_path = {
        resource["Metadata"]["aws:asset:path"]: logical_id
        for logical_id, resource in result.parent["Resources"].items()
        if resource["Type"] == NESTED_STACK_TYPE
    }
    for name, domain in stack.domains.items():
        file = Path(outdir) / domain.stack.template_file
        result.nested[name] = Nested(name, by_path.pop(file.name), file, json.loads(file.read_text()))
    assert not by_path, f"nested stacks that are no domain: {by_path}"
    return result


@pytest.fixture(scope="session")
def dev(tmp_path_factory) -> Synth:
    return synth("dev", tmp_path_factory.mktemp("cdk-dev"))


@pytest.fixture(scope="session")
def prod(tmp_path_factory) -> Synth:
    return synth("prod", tmp_path_factory.mktemp("cdk-prod"))


@dataclass(frozen=True)
class DomainModule:
    """A discovered domain as the tests see it: `infra/domains/<name>.py` and `functions/<name>/`."""

    name: str  # connected_car

    @property
    def construct_id(self) -> str:  # ConnectedCar: its nested stack and its logical ids' prefix
        return "".join(part.capitalize() for part in self.name.split("_"))

    @property
    def infra(self) -> Any:
        return importlib.import_module(f"infra.domains.{self.name}")

    @property
    def app(self) -> Any:
        return importlib.import_module(f"functions.{self.name}.api").app

    @property
    def table_ids(self) -> set[str]:
        try:
            schema = importlib.import_module(f"functions.{self.name}.schema")
        except ModuleNotFoundError:
            return set()
        return {spec.construct_id for spec in schema.TABLES}


def domain_modules(*, platform: bool = False) -> list[DomainModule]:
    """Every domain `infra.domains.discover()` builds (the platform domain only if asked)."""
    modules = [DomainModule(builder.__name__) for builder in DOMAINS]
    return [m for m in modules if platform or m.name != "platform"]
