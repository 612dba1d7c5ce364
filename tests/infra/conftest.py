"""The synthesized stacks, built once per test session (jsii start-up is the slow part)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from cdk_nag import AwsSolutionsChecks

from infra.stack import BlueprintsStack, StageConfig


def synth(stage: str, outdir: Path) -> tuple[BlueprintsStack, Template, dict[str, Any]]:
    app = cdk.App(outdir=str(outdir), context={"stage": stage, "aws:cdk:enable-asset-metadata": True})
    stack = BlueprintsStack(app, f"Blueprints-{stage}", stage=StageConfig.named(stage))
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    assembly = app.synth()  # raises if cdk-nag reports an unacknowledged finding
    raw = json.loads(Path(assembly.get_stack_by_name(stack.stack_name).template_full_path).read_text())
    return stack, Template.from_json(raw), raw


@pytest.fixture(scope="session")
def dev(tmp_path_factory):
    return synth("dev", tmp_path_factory.mktemp("cdk-dev"))


@pytest.fixture(scope="session")
def prod(tmp_path_factory):
    return synth("prod", tmp_path_factory.mktemp("cdk-prod"))
