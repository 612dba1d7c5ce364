#!/usr/bin/env python3
"""The CDK app: one Blueprints stack for a stage (`-c stage=dev|prod`), with a nested stack per domain; or, with
`-c account=true`, only the account stack (API Gateway's CloudWatch role, infra/account_stack.py).

Synth makes no AWS call."""

import os
import sys

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from infra.account_stack import CONTEXT_KEY as ACCOUNT_CONTEXT_KEY
from infra.account_stack import AccountStack
from infra.constructs.region import UnsupportedRegionError, require_powertools_region
from infra.stack import BlueprintsStack, StageConfig


def build_app(environ: dict[str, str] | None = None, context: dict[str, object] | None = None) -> cdk.App:
    environ = dict(os.environ if environ is None else environ)
    # Asset paths in the template metadata tell the local runtime where each function's staged code is;
    # the CDK CLI asks for them too, this keeps a plain `python app.py` the same.
    app = cdk.App(context={"aws:cdk:enable-asset-metadata": True, **(context or {})})
    if str(app.node.try_get_context(ACCOUNT_CONTEXT_KEY)).lower() == "true":
        # `make deploy-account`: API Gateway's account-level logging role alone (infra/account_stack.py)
        AccountStack(app, description="Blueprints: API Gateway's CloudWatch role for this account and region")
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
        return app
    stage = StageConfig.named(app.node.try_get_context("stage") or "dev")
    # Environment-agnostic on purpose (no `env`): the template is the same whoever synthesizes it (CI, the CLI
    # with a profile, the local runtime), so what runs locally is what deploys. The CLI deploys such a stack to
    # the region it puts in CDK_DEFAULT_REGION: that region is checked now, any other at deploy by a template rule.
    stack = BlueprintsStack(
        app, f"Blueprints-{stage.name}", stage=stage, description="Blueprints: DynamoDB data models"
    )
    require_powertools_region(stack, deploy_region=environ.get("CDK_DEFAULT_REGION"))
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


if __name__ == "__main__":
    try:
        app = build_app()
    except UnsupportedRegionError as error:
        sys.exit(f"error: {error}")
    app.synth()
