#!/usr/bin/env python3
"""The CDK app: one Blueprints stack for a stage (`-c stage=dev|prod`). Synth makes no AWS call."""

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from infra.stack import BlueprintsStack, StageConfig


def build_app() -> cdk.App:
    app = cdk.App()
    stage = StageConfig.named(app.node.try_get_context("stage") or "dev")
    BlueprintsStack(app, f"Blueprints-{stage.name}", stage=stage, description="Blueprints: DynamoDB data models")
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


if __name__ == "__main__":
    build_app().synth()
