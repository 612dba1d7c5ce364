"""Where the stack can run: the regions where the AWS-managed Powertools layer it uses is published.

Every function takes Powertools from the AWS-managed layer (infra/constructs/api_function.py), which AWS publishes
in some commercial regions only. Deployed elsewhere, the layer's SSM parameter does not resolve and the deploy
fails halfway, or a function has no Powertools. So an unsupported region is refused as early as it is known:

- at synth, when the region is known: the stack's own `env`, or else the region the CDK CLI will deploy this
  environment-agnostic stack to (`CDK_DEFAULT_REGION`, which the CLI sets from the profile);
- at deploy, before CloudFormation creates anything, by a template rule on `AWS::Region` (a template synthesized
  without a region, then deployed by other means, still stops there), with the same message.
"""

from __future__ import annotations

import json
from pathlib import Path

from aws_cdk import Aws, CfnRule, CfnRuleAssertion, Fn, Stack, Token

from infra.constructs.api_function import ARCHITECTURE, RUNTIME

# The regions where AWS publishes the layer for our ARCHITECTURE and RUNTIME, as data with its source ("_source":
# Powertools' install guide, "All regional Layer ARNs"). The AWS China and GovCloud layers are published by other
# accounts, at other layer versions, and the versioned SSM parameter we resolve is not documented there; nor has the
# rest of the stack (Cognito user pools…) been checked there. tools/preflight.py reads the same file.
REGIONS_FILE = Path(__file__).with_name("powertools_layer_regions.json")


def _published_regions() -> tuple[str, ...]:
    data = json.loads(REGIONS_FILE.read_text(encoding="utf-8"))
    if (data["architecture"], data["runtime"]) != (ARCHITECTURE.name, RUNTIME.name):
        raise ValueError(f"{REGIONS_FILE.name} lists the layer's regions for {data['architecture']}/{data['runtime']}, "
                         f"the functions run {ARCHITECTURE.name}/{RUNTIME.name}: take that table from its source")
    return tuple(data["regions"])


POWERTOOLS_LAYER_REGIONS: tuple[str, ...] = _published_regions()

RULE_ID = "PowertoolsLayerRegion"


class UnsupportedRegionError(ValueError):
    """The stack would be deployed where the AWS-managed Powertools layer is not published."""


def unsupported_region_message(region: str | None = None) -> str:
    """What the synth-time check raises (naming the region) and the template rule shows when it fails."""
    refused = f"Cannot deploy to {region}. " if region else ""
    return (
        f"{refused}Blueprints deploys only to regions where the AWS-managed Powertools for AWS Lambda (Python) layer "
        f"is published: {', '.join(POWERTOOLS_LAYER_REGIONS)}."
    )


def require_powertools_region(stack: Stack, *, deploy_region: str | None = None) -> None:
    """Refuse an unsupported region now if it is known, and add the template rule that refuses it at deploy.

    `deploy_region` is where an environment-agnostic stack will go (the CLI's `CDK_DEFAULT_REGION`); the stack's
    own region wins when it is concrete."""
    region = None if Token.is_unresolved(stack.region) else stack.region
    region = region or deploy_region or None
    if region is not None and region not in POWERTOOLS_LAYER_REGIONS:
        raise UnsupportedRegionError(unsupported_region_message(region))
    CfnRule(
        stack,
        RULE_ID,
        assertions=[
            CfnRuleAssertion(
                assert_=Fn.condition_contains(list(POWERTOOLS_LAYER_REGIONS), Aws.REGION),
                assert_description=unsupported_region_message(),
            )
        ],
    )
