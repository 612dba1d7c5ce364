#!/usr/bin/env python3
"""The CDK app: one Blueprints stack for a stage (`-c stage=dev|prod`). Synth makes no AWS call."""

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from infra.stack import BlueprintsStack, StageConfig


def build_app() -> cdk.App:
    # Asset paths in the template metadata tell the local runtime where each function's staged code is;
    # the CDK CLI asks for them too, this keeps a plain `python app.py` the same.
    app = cdk.App(context={"aws:cdk:enable-asset-metadata": True})
    stage = StageConfig.named(app.node.try_get_context("stage") or "dev")
    BlueprintsStack(app, f"Blueprints-{stage.name}", stage=stage, description="Blueprints: DynamoDB data models")
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


if __name__ == "__main__":
    build_app().synth()
