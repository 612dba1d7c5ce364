"""Intrinsic-function resolution and cloud-assembly loading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from local.template import (
    NO_VALUE,
    Resolver,
    StackTemplate,
    TemplateError,
    load_assembly,
    synth_context,
)
from tests.unit.local.conftest import stack_of


class FakeAttributes:
    """Physical values keyed like CloudFormation: Ref -> name, GetAtt -> `<name>.<attr>`."""

    def ref(self, logical_id: str) -> Any:
        return f"phys-{logical_id}"

    def get_att(self, logical_id: str, attribute: str) -> Any:
        return f"phys-{logical_id}.{attribute}"


RESOURCES = {
    "Table": {"Type": "AWS::DynamoDB::Table"},
    "Fn": {"Type": "AWS::Lambda::Function"},
}
PARAMETERS = {
    "PowertoolsLayer": {
        "Type": "AWS::SSM::Parameter::Value<String>",
        "Default": "/aws/service/powertools/python/arm64/python3.13/3.37.0",
    },
    "Subnets": {"Type": "CommaDelimitedList", "Default": "a, b"},
    "NoDefault": {"Type": "String"},
}
CONDITIONS = {
    "IsDev": {"Fn::Equals": [{"Ref": "AWS::StackName"}, "Test-dev"]},
    "IsProd": {"Fn::Not": [{"Condition": "IsDev"}]},
}


@pytest.fixture
def resolver() -> Resolver:
    stack = stack_of(
        RESOURCES,
        Parameters=PARAMETERS,
        Conditions=CONDITIONS,
        Mappings={"Sizes": {"dev": {"memory": 256}}},
    )
    return Resolver(stack, FakeAttributes(), region="eu-west-1", exports={"Shared-Arn": "arn:x"})


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"Ref": "Table"}, "phys-Table"),
        ({"Fn::GetAtt": ["Table", "StreamArn"]}, "phys-Table.StreamArn"),
        ({"Fn::GetAtt": "Table.Arn"}, "phys-Table.Arn"),
        ({"Ref": "AWS::Region"}, "eu-west-1"),
        ({"Ref": "AWS::AccountId"}, "123456789012"),
        ({"Ref": "AWS::Partition"}, "aws"),
        ({"Ref": "AWS::StackName"}, "Test-dev"),
        ({"Ref": "AWS::URLSuffix"}, "amazonaws.com"),
        ({"Ref": "PowertoolsLayer"}, "/aws/service/powertools/python/arm64/python3.13/3.37.0"),
        ({"Ref": "Subnets"}, ["a", "b"]),
        (
            {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":x:", {"Ref": "Table"}]]},
            "arn:aws:x:phys-Table",
        ),
        (
            {"Fn::Sub": "${AWS::Region}/${Table}/${Fn.Arn}/${!Literal}"},
            "eu-west-1/phys-Table/phys-Fn.Arn/${Literal}",
        ),
        (
            {"Fn::Sub": ["${A}-${Table}", {"A": {"Ref": "AWS::AccountId"}}]},
            "123456789012-phys-Table",
        ),
        ({"Fn::Select": [1, {"Fn::Split": ["/", "a/b/c"]}]}, "b"),
        ({"Fn::Select": ["0", ["x", "y"]]}, "x"),
        ({"Fn::If": ["IsDev", "dev-value", "prod-value"]}, "dev-value"),
        ({"Fn::If": ["IsProd", "prod-value", {"Ref": "AWS::NoValue"}]}, NO_VALUE),
        ({"Fn::FindInMap": ["Sizes", "dev", "memory"]}, 256),
        ({"Fn::ImportValue": "Shared-Arn"}, "arn:x"),
        ({"Fn::Base64": "hi"}, "aGk="),
        ("plain", "plain"),
    ],
)
def test_intrinsics_resolve(resolver: Resolver, value: Any, expected: Any) -> None:
    assert resolver.resolve(value, "Fn.Properties.X") == expected


def test_no_value_removes_keys_and_list_items(resolver: Resolver) -> None:
    value = {
        "Keep": {"Ref": "Table"},
        "Drop": {"Ref": "AWS::NoValue"},
        "List": ["a", {"Ref": "AWS::NoValue"}, "b"],
    }
    assert resolver.resolve(value, "Fn.Properties") == {"Keep": "phys-Table", "List": ["a", "b"]}


def test_nested_values_resolve_everywhere(resolver: Resolver) -> None:
    value = {"Variables": {"TABLE": {"Ref": "Table"}, "N": 3}, "List": [{"Ref": "Fn"}]}
    assert resolver.resolve(value, "Fn.Properties") == {
        "Variables": {"TABLE": "phys-Table", "N": 3},
        "List": ["phys-Fn"],
    }


def test_resolve_string_renders_scalars(resolver: Resolver) -> None:
    assert resolver.resolve_string(True, "x") == "true"
    assert resolver.resolve_string(10, "x") == "10"
    with pytest.raises(TemplateError, match="expected a string"):
        resolver.resolve_string({"Ref": "Subnets"}, "Fn.Properties.Environment.Variables.X")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"Ref": "Missing"},
            r"Fn\.Properties\.Environment\.Variables\.X: Ref to unknown name 'Missing'",
        ),
        ({"Fn::GetAtt": ["Missing", "Arn"]}, "Fn::GetAtt on unknown resource 'Missing'"),
        ({"Fn::Cidr": ["10.0.0.0/16", 2, 8]}, "Fn::Cidr is not supported locally"),
        ({"Fn::Select": [5, ["a"]]}, "out of range"),
        ({"Fn::ImportValue": "Nope"}, "no stack exports 'Nope'"),
        ({"Ref": "NoDefault"}, "Parameters.NoDefault has no Default"),
        ({"Fn::If": ["Unknown", 1, 2]}, "unknown condition 'Unknown'"),
    ],
)
def test_unresolvable_values_name_the_property(
    resolver: Resolver, value: Any, message: str
) -> None:
    with pytest.raises(TemplateError, match=message) as info:
        resolver.resolve({"X": value}, "Fn.Properties.Environment.Variables")
    assert "Fn.Properties.Environment.Variables" in str(info.value)


def test_parameter_overrides_beat_defaults() -> None:
    stack = stack_of(RESOURCES, Parameters=PARAMETERS)
    resolver = Resolver(stack, FakeAttributes(), region="us-east-1", parameters={"NoDefault": "v"})
    assert resolver.resolve({"Ref": "NoDefault"}, "x") == "v"


def _write_assembly(root: Path, *, asset_metadata: bool) -> Path:
    outdir = root / "cdk.out"
    asset = outdir / "asset.abc123"
    (asset / "functions").mkdir(parents=True)
    function: dict[str, Any] = {
        "Type": "AWS::Lambda::Function",
        "Properties": {"Code": {"S3Bucket": "b", "S3Key": "abc123.zip"}, "Handler": "x.y"},
    }
    if asset_metadata:
        function["Metadata"] = {"aws:asset:path": "asset.abc123", "aws:asset:property": "Code"}
    (outdir / "App-dev.template.json").write_text(json.dumps({"Resources": {"Fn": function}}))
    (outdir / "Base.template.json").write_text(json.dumps({"Resources": {}}))
    (outdir / "App-dev.assets.json").write_text(
        json.dumps(
            {
                "files": {
                    "abc123": {
                        "source": {"path": "asset.abc123", "packaging": "zip"},
                        "destinations": {"d": {"bucketName": "b", "objectKey": "abc123.zip"}},
                    }
                }
            }
        )
    )
    manifest = {
        "artifacts": {
            "App-dev.assets": {
                "type": "cdk:asset-manifest",
                "properties": {"file": "App-dev.assets.json"},
            },
            "App-dev": {
                "type": "aws:cloudformation:stack",
                "properties": {"templateFile": "App-dev.template.json"},
                "dependencies": ["App-dev.assets", "Base"],
                "displayName": "App-dev",
            },
            "Base": {
                "type": "aws:cloudformation:stack",
                "properties": {"templateFile": "Base.template.json", "stackName": "Base-Stack"},
            },
            "Tree": {"type": "cdk:tree", "properties": {"file": "tree.json"}},
        }
    }
    (outdir / "manifest.json").write_text(json.dumps(manifest))
    return outdir


@pytest.mark.parametrize("asset_metadata", [True, False])
def test_assembly_loads_stacks_in_dependency_order_with_asset_dirs(
    tmp_path: Path, asset_metadata: bool
) -> None:
    outdir = _write_assembly(tmp_path, asset_metadata=asset_metadata)
    stacks = load_assembly(outdir)
    assert [s.name for s in stacks] == ["Base-Stack", "App-dev"]
    app: StackTemplate = stacks[1]
    function = app.resources["Fn"]
    assert app.asset_dir("Fn", function["Properties"]["Code"]) == outdir / "asset.abc123"


def test_missing_assembly_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match=r"missing manifest\.json"):
        load_assembly(tmp_path)


def test_synth_context_merges_cdk_json_and_forces_stage_and_asset_metadata(tmp_path: Path) -> None:
    (tmp_path / "cdk.json").write_text(
        json.dumps({"app": "python app.py", "context": {"stage": "dev", "@aws-cdk/flag": True}})
    )
    (tmp_path / "cdk.context.json").write_text(json.dumps({"lookup": "cached"}))
    context = synth_context(tmp_path, "prod")
    assert context == {
        "stage": "prod",
        "@aws-cdk/flag": True,
        "lookup": "cached",
        "aws:cdk:enable-asset-metadata": True,
    }


def test_relative_assembly_path_gives_absolute_asset_dirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_assembly(tmp_path, asset_metadata=True)
    monkeypatch.chdir(tmp_path)
    app = load_assembly(Path("cdk.out"))[1]
    asset = app.asset_dir("Fn", None)
    assert asset is not None and asset.is_absolute()
    assert asset == (tmp_path / "cdk.out" / "asset.abc123").resolve()
