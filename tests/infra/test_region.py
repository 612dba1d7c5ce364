"""The stack refuses a region where the AWS-managed Powertools layer is not published: at synth when the region
is known, at deploy (a template rule, before any resource is created) when it is not."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest

import app as cdk_app
from infra.constructs.api_function import ARCHITECTURE, RUNTIME
from infra.constructs.region import (
    POWERTOOLS_LAYER_REGIONS,
    REGIONS_FILE,
    RULE_ID,
    UnsupportedRegionError,
    require_powertools_region,
    unsupported_region_message,
)


def small_stack(region: str | None = None) -> cdk.Stack:
    return cdk.Stack(cdk.App(), "Probe", env=cdk.Environment(region=region) if region else None)


def template_of(stack: cdk.Stack) -> dict:
    return cdk.assertions.Template.from_stack(stack).to_json()


@pytest.mark.parametrize("region", ["cn-north-1", "cn-northwest-1", "us-gov-west-1", "eu-isoe-west-1"])
def test_an_unsupported_region_of_the_stack_is_refused_at_synth_naming_the_supported_ones(region):
    with pytest.raises(UnsupportedRegionError) as refused:
        require_powertools_region(small_stack(region))
    message = str(refused.value)
    assert region in message
    assert all(supported in message for supported in POWERTOOLS_LAYER_REGIONS)


def test_the_cli_deploy_region_of_an_environment_agnostic_stack_is_checked_too():
    with pytest.raises(UnsupportedRegionError,
                       match="^Cannot deploy to cn-north-1. Blueprints deploys only to regions where"):
        require_powertools_region(small_stack(), deploy_region="cn-north-1")


def test_the_stack_region_wins_over_the_cli_region():
    require_powertools_region(small_stack("eu-west-1"), deploy_region="cn-north-1")  # no error


def test_app_refuses_an_unsupported_cli_region_before_synth():
    with pytest.raises(UnsupportedRegionError, match="is published: af-south-1, ap-east-1, "):
        cdk_app.build_app({"CDK_DEFAULT_REGION": "cn-north-1"})


def test_an_environment_agnostic_stack_gets_the_deploy_time_rule():
    stack = small_stack()
    require_powertools_region(stack)
    rule = template_of(stack)["Rules"][RULE_ID]
    assert rule == {
        "Assertions": [{
            "Assert": {"Fn::Contains": [list(POWERTOOLS_LAYER_REGIONS), {"Ref": "AWS::Region"}]},
            "AssertDescription": unsupported_region_message(),
        }]
    }
    assert "us-east-1" in rule["Assertions"][0]["Assert"]["Fn::Contains"][0]
    assert "cn-north-1" not in rule["Assertions"][0]["Assert"]["Fn::Contains"][0]


def test_the_app_synthesizes_for_a_supported_region_with_the_rule_and_stays_environment_agnostic():
    app = cdk_app.build_app({"CDK_DEFAULT_REGION": "eu-west-1"})
    assembly = app.synth()
    stack = assembly.stacks[0]
    template = json.loads(Path(stack.template_full_path).read_text())
    assert RULE_ID in template["Rules"]
    assert stack.environment.region == "unknown-region"  # the same template wherever it is synthesized
    assert "eu-west-1" not in json.dumps(template["Resources"])
    # The domains' nested stacks are created by the parent's update, after CloudFormation checked its rule
    nested = sorted(Path(assembly.directory).glob("*.nested.template.json"))
    assert len(nested) == len(template_nested_stacks(template)) > 0
    for path in nested:
        assert "eu-west-1" not in path.read_text()


def template_nested_stacks(template: dict) -> list[str]:
    return [k for k, r in template["Resources"].items() if r["Type"] == "AWS::CloudFormation::Stack"]


def test_the_rule_says_where_blueprints_deploys_and_the_list_is_the_published_table_for_our_functions():
    # the description CloudFormation shows when the rule fails reads as a rule, not as its negation
    assert unsupported_region_message() == (
        "Blueprints deploys only to regions where the AWS-managed Powertools for AWS Lambda (Python) layer is "
        f"published: {', '.join(POWERTOOLS_LAYER_REGIONS)}.")
    data = json.loads(REGIONS_FILE.read_text())
    assert (data["architecture"], data["runtime"]) == (ARCHITECTURE.name, RUNTIME.name) == ("arm64", "python3.13")
    assert tuple(data["regions"]) == POWERTOOLS_LAYER_REGIONS and len(set(data["regions"])) == len(data["regions"])
    assert "_layer_homepage_arm64.md" in data["_source"]
