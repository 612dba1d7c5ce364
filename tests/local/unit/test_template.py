"""Intrinsic-function resolution and cloud-assembly loading, nested stack templates included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from local.cloudformation.template import Resolver, TemplateError, load_assembly, synth_context
from tests.local.conftest import stack_of


class FakeAttributes:
    """Physical values keyed like CloudFormation: Ref -> name, GetAtt -> `<name>.<attr>`."""

    def ref(self, logical_id: str) -> Any:
        return f"phys-{logical_id}"

    def get_att(self, logical_id: str, attribute: str) -> Any:
        return f"phys-{logical_id}.{attribute}"


RESOURCES = {"Table": {"Type": "AWS::DynamoDB::Table"}, "Fn": {"Type": "AWS::Lambda::Function"}}
PARAMETERS = {
    "PowertoolsLayer": {"Type": "AWS::SSM::Parameter::Value<String>",
                        "Default": "/aws/service/powertools/python/arm64/python3.13/3.37.0"},
    "NoDefault": {"Type": "String"},
}


@pytest.fixture
def resolver() -> Resolver:
    return Resolver(stack_of(RESOURCES, Parameters=PARAMETERS), FakeAttributes(), region="eu-west-1")


@pytest.mark.parametrize(("value", "expected"), [
    ({"Ref": "Table"}, "phys-Table"),
    ({"Fn::GetAtt": ["Table", "StreamArn"]}, "phys-Table.StreamArn"),
    ({"Fn::GetAtt": "Table.Arn"}, "phys-Table.Arn"),
    ({"Ref": "AWS::Region"}, "eu-west-1"),
    ({"Ref": "AWS::AccountId"}, "123456789012"),
    ({"Ref": "AWS::Partition"}, "aws"),
    ({"Ref": "AWS::StackName"}, "Test-dev"),
    ({"Ref": "AWS::URLSuffix"}, "amazonaws.com"),
    ({"Ref": "PowertoolsLayer"}, "/aws/service/powertools/python/arm64/python3.13/3.37.0"),
    ({"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":x:", {"Ref": "Table"}]]}, "arn:aws:x:phys-Table"),
    ({"Fn::Sub": "${AWS::Region}/${Table}/${Fn.Arn}"}, "eu-west-1/phys-Table/phys-Fn.Arn"),
    ("plain", "plain"),
])
def test_intrinsics_resolve(resolver: Resolver, value: Any, expected: Any) -> None:
    assert resolver.resolve(value, "Fn.Properties.X") == expected


def test_nested_values_resolve_everywhere(resolver: Resolver) -> None:
    value = {"Variables": {"TABLE": {"Ref": "Table"}, "N": 3}, "List": [{"Ref": "Fn"}]}
    assert resolver.resolve(value, "Fn.Properties") == {"Variables": {"TABLE": "phys-Table", "N": 3},
                                                        "List": ["phys-Fn"]}


def test_resolve_string_renders_scalars(resolver: Resolver) -> None:
    assert resolver.resolve_string(True, "x") == "true"
    assert resolver.resolve_string(10, "x") == "10"
    with pytest.raises(TemplateError, match="expected a string"):
        resolver.resolve_string(["a"], "Fn.Properties.Environment.Variables.X")


@pytest.mark.parametrize(("value", "message"), [
    ({"Ref": "Missing"}, r"Fn\.Properties\.Environment\.Variables\.X: Ref to unknown name 'Missing'"),
    ({"Fn::GetAtt": ["Missing", "Arn"]}, "Fn::GetAtt on unknown resource 'Missing'"),
    ({"Fn::Select": [0, ["a"]]}, "Fn::Select is not supported locally"),
    ({"Fn::If": ["IsDev", 1, 2]}, "Fn::If is not supported locally"),
    ({"Fn::ImportValue": "Shared"}, "Fn::ImportValue is not supported locally"),
    ({"Fn::Sub": ["${A}", {"A": "x"}]}, "only the string form of Fn::Sub"),
    ({"Ref": "NoDefault"}, "parameter NoDefault of Test-dev has no value"),
])
def test_what_is_not_supported_or_unresolvable_names_the_property(resolver: Resolver, value: Any, message: str) -> None:
    with pytest.raises(TemplateError, match=message) as info:
        resolver.resolve({"X": value}, "Fn.Properties.Environment.Variables")
    assert "Fn.Properties.Environment.Variables" in str(info.value)


def test_parameters_passed_by_a_parent_beat_defaults() -> None:
    resolver = Resolver(stack_of(RESOURCES, Parameters=PARAMETERS), FakeAttributes(), region="us-east-1",
                        parameters={"NoDefault": "v", "PowertoolsLayer": "layer"})
    assert resolver.resolve([{"Ref": "NoDefault"}, {"Ref": "PowertoolsLayer"}], "x") == ["v", "layer"]


def write_assembly(root: Path) -> Path:
    """A stack with a function and a nested stack (itself with a function and a nested stack), as CDK writes them."""
    outdir = root / "cdk.out"
    (outdir / "asset.abc123" / "functions").mkdir(parents=True)

    def function() -> dict[str, Any]:
        return {"Type": "AWS::Lambda::Function", "Properties": {"Code": {"S3Key": "abc123.zip"}, "Handler": "x.y"},
                "Metadata": {"aws:asset:path": "asset.abc123", "aws:asset:property": "Code"}}

    def nested(path: str) -> dict[str, Any]:
        return {"Type": "AWS::CloudFormation::Stack", "Properties": {"TemplateURL": "https://s3/x.json"},
                "Metadata": {"aws:asset:path": path, "aws:asset:property": "TemplateURL"}}

    templates = {
        "App-dev.template.json": {"Resources": {"Fn": function(), "Domain": nested("AppdevDomain.nested.template.json")}},
        "AppdevDomain.nested.template.json": {"Resources": {"Fn": function(),
                                                            "Inner": nested("AppdevInner.nested.template.json")}},
        "AppdevInner.nested.template.json": {"Resources": {}},
        "Other.template.json": {"Resources": {}},
    }
    for name, template in templates.items():
        (outdir / name).write_text(json.dumps(template))
    (outdir / "manifest.json").write_text(json.dumps({"artifacts": {
        "App-dev": {"type": "aws:cloudformation:stack", "properties": {"templateFile": "App-dev.template.json"},
                    "displayName": "App-dev"},
        "Other": {"type": "aws:cloudformation:stack",
                  "properties": {"templateFile": "Other.template.json", "stackName": "Other-Stack"}},
        "Tree": {"type": "cdk:tree", "properties": {"file": "tree.json"}},
    }}))
    return outdir


def test_the_assembly_loads_every_stack_with_its_nested_stacks_and_asset_dirs(tmp_path: Path) -> None:
    outdir = write_assembly(tmp_path)
    app, other = load_assembly(outdir)
    assert (app.name, other.name) == ("App-dev", "Other-Stack")
    assert [s.name for s in app.walk()] == ["App-dev", "App-dev-Domain", "App-dev-Domain-Inner"]
    domain = app.nested["Domain"]
    assert set(domain.resources) == {"Fn", "Inner"}
    assert app.asset_dir("Fn") == domain.asset_dir("Fn") == outdir / "asset.abc123"


def test_a_nested_stack_without_asset_metadata_is_a_clear_error(tmp_path: Path) -> None:
    outdir = write_assembly(tmp_path)
    template = json.loads((outdir / "App-dev.template.json").read_text())
    del template["Resources"]["Domain"]["Metadata"]
    (outdir / "App-dev.template.json").write_text(json.dumps(template))
    with pytest.raises(TemplateError, match="App-dev/Domain: nested stack without aws:asset:path"):
        load_assembly(outdir)


def test_missing_assembly_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TemplateError, match=r"missing manifest\.json"):
        load_assembly(tmp_path)


def test_synth_context_is_cdk_jsons_with_the_stage_and_asset_metadata(tmp_path: Path) -> None:
    (tmp_path / "cdk.json").write_text(json.dumps({"app": "python app.py",
                                                   "context": {"stage": "dev", "@aws-cdk/flag": True}}))
    assert synth_context(tmp_path, "prod") == {"stage": "prod", "@aws-cdk/flag": True,
                                               "aws:cdk:enable-asset-metadata": True}


def test_relative_assembly_path_gives_absolute_asset_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_assembly(tmp_path)
    monkeypatch.chdir(tmp_path)
    asset = load_assembly(Path("cdk.out"))[0].nested["Domain"].asset_dir("Fn")
    assert asset is not None and asset.is_absolute()
    assert asset == (tmp_path / "cdk.out" / "asset.abc123").resolve()
