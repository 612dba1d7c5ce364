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

from aws_cdk import Aws, CfnRule, CfnRuleAssertion, Fn, Stack, Token

# The regions of "All regional Layer ARNs" → arm64 → Python 3.13 (our ARCHITECTURE and RUNTIME) in Powertools for
# AWS Lambda (Python)'s install guide: https://docs.aws.amazon.com/powertools/python/latest/getting-started/install/
# (source: aws-powertools/powertools-lambda-python, docs/includes/_layer_homepage_arm64.md). The AWS China and
# GovCloud layers are published by other accounts, at other layer versions, and the versioned SSM parameter we
# resolve is not documented there; nor has the rest of the stack (Cognito user pools…) been checked there.
# A region that AWS adds later: check that table, then add it here.
POWERTOOLS_LAYER_REGIONS: tuple[str, ...] = (
    "af-south-1",
    "ap-east-1",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-northeast-3",
    "ap-south-1",
    "ap-south-2",
    "ap-southeast-1",
    "ap-southeast-2",
    "ap-southeast-3",
    "ap-southeast-4",
    "ap-southeast-5",
    "ap-southeast-7",
    "ca-central-1",
    "eu-central-1",
    "eu-central-2",
    "eu-north-1",
    "eu-south-1",
    "eu-south-2",
    "eu-west-1",
    "eu-west-2",
    "eu-west-3",
    "il-central-1",
    "me-central-1",
    "me-south-1",
    "mx-central-1",
    "sa-east-1",
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
)

RULE_ID = "PowertoolsLayerRegion"


class UnsupportedRegionError(ValueError):
    """The stack would be deployed where the AWS-managed Powertools layer is not published."""


def unsupported_region_message(region: str | None = None) -> str:
    where = f"{region} is not a region" if region else "This stack cannot be deployed in a region"
    return (
        f"{where} where the AWS-managed Powertools for AWS Lambda (Python) layer is published. "
        f"Deploy to one of: {', '.join(POWERTOOLS_LAYER_REGIONS)}."
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
