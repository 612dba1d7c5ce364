#!/usr/bin/env python3
"""The CDK app: one Blueprints stack for a stage (`-c stage=dev|prod`), with a nested stack per domain; or, with
`-c account=true`, only the account stack (API Gateway's CloudWatch role, infra/account_stack.py).

Synth makes no AWS call."""

import os
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from infra.account_stack import CONTEXT_KEY as ACCOUNT_CONTEXT_KEY
from infra.account_stack import AccountStack
from infra.constructs.region import UnsupportedRegionError, require_powertools_region
from infra.stack import DOMAINS, BlueprintsStack, DomainBuilder, StageConfig

# Each stage's settings (alarm email, CORS origins, explorer, token lifetime), committed: a deploy without `-c` flags
# keeps them (docs/adr/0116-stage-settings-in-a-committed-file.md).
SETTINGS = Path(__file__).with_name("stages.toml")
SETTINGS_KEYS = ("alarmEmail", "corsOrigins", "explorer", "idTokenMinutes")
# Set by tools/deploy.py while the stage's stack does not exist yet (StageConfig.named)
FIRST_CREATE_CONTEXT = "firstCreate"


def stage_settings(name: str, path: Path = SETTINGS) -> dict[str, object]:
    """The stage's table of stages.toml (nothing for a stage it does not name); an unknown key is refused."""
    settings = tomllib.loads(path.read_text(encoding="utf-8")).get(name, {}) if path.is_file() else {}
    unknown = sorted(set(settings) - set(SETTINGS_KEYS))
    if unknown:
        raise ValueError(f"{path.name} [{name}]: unknown setting(s) {', '.join(unknown)}: "
                         f"use {', '.join(SETTINGS_KEYS)}")
    return settings


def id_token_minutes(value: object) -> int:
    minutes = int(str(value))
    if not 5 <= minutes <= 1440:
        raise ValueError(f"idTokenMinutes={value}: Cognito takes 5 to 1440 minutes")
    return minutes


def build_app(environ: dict[str, str] | None = None, context: dict[str, object] | None = None, *,
              outdir: str | None = None, domains: Sequence[DomainBuilder] = DOMAINS, nag: bool = True) -> cdk.App:
    """The app the CDK CLI synthesizes; the infra tests build it here too (`domains`: a subset, `nag`: cdk-nag on)."""
    environ = dict(os.environ if environ is None else environ)
    # Asset paths in the template metadata tell the local runtime where each function's staged code is;
    # the CDK CLI asks for them too, this keeps a plain `python app.py` the same.
    app = cdk.App(outdir=outdir, context={"aws:cdk:enable-asset-metadata": True, **(context or {})})
    if str(app.node.try_get_context(ACCOUNT_CONTEXT_KEY)).lower() == "true":
        # `make deploy-account`: API Gateway's account-level logging role alone (infra/account_stack.py)
        AccountStack(app, description="Blueprints: API Gateway's CloudWatch role for this account and region")
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
        return app
    name = app.node.try_get_context("stage") or "dev"
    for key, value in stage_settings(name).items():
        if app.node.try_get_context(key) is None:  # a `-c` on the command line wins, for that command only
            app.node.set_context(key, value)
    first_create = str(app.node.try_get_context(FIRST_CREATE_CONTEXT)).lower() == "true"
    stage = StageConfig.named(name, first_create=first_create)
    if (minutes := app.node.try_get_context("idTokenMinutes")) is not None:
        stage = replace(stage, id_token_minutes=id_token_minutes(minutes))
    # Environment-agnostic on purpose (no `env`): the template is the same whoever synthesizes it (CI, the CLI
    # with a profile, the local runtime), so what runs locally is what deploys. The CLI deploys such a stack to
    # the region it puts in CDK_DEFAULT_REGION: that region is checked now, any other at deploy by a template rule.
    stack = BlueprintsStack(
        app, f"Blueprints-{stage.name}", stage=stage, description="Blueprints: DynamoDB data models",
        # prod cannot be deleted by accident: `make destroy STAGE=prod` says how to turn this off first
        # (not during a first create: the CLI turns it on before the create runs, and a failed create must stay
        # deletable for the next `make deploy` to create it again: docs/adr/0114-a-first-create-that-rolls-back.md)
        termination_protection=stage.name == "prod" and not first_create, domains=domains,
    )
    require_powertools_region(stack, deploy_region=environ.get("CDK_DEFAULT_REGION"))
    if nag:
        cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


if __name__ == "__main__":
    try:
        app = build_app()
    except UnsupportedRegionError as error:
        sys.exit(f"error: {error}")
    app.synth()
