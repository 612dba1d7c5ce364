"""The functions' asset (infra/constructs/function_asset.py): functions/ plus the AWS SDK pinned in requirements.txt,
so the SDK the tests run is the one that deploys, not the older one of Lambda's Python runtime."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from infra.constructs import function_asset
from infra.constructs.function_asset import (
    SDK_DISTRIBUTIONS,
    AssetBuildError,
    requirement_pins,
    sdk_distributions,
    stage_function_asset,
)


def function_asset_dir(synth) -> Path:
    functions = [r for r in synth.merged["Resources"].values() if r["Type"] == "AWS::Lambda::Function"
                 and r["Properties"].get("Handler", "").startswith("functions.")]
    assert functions
    (path,) = {r["Metadata"]["aws:asset:path"] for r in functions}  # one asset for every function
    return synth.outdir / path


def test_every_sdk_distribution_is_pinned_and_installed_at_its_pin():
    pins = requirement_pins()
    for name in SDK_DISTRIBUTIONS:
        assert importlib.metadata.version(name) == pins[name], name
    assert pins["boto3"] and pins["botocore"]


def test_the_synthesized_asset_holds_the_pinned_sdk_whole_and_nothing_of_this_machine(dev):
    asset = function_asset_dir(dev)
    pins = requirement_pins()
    for dist in sdk_distributions():
        (info,) = asset.glob(f"{dist.metadata['Name'].replace('-', '_')}-*.dist-info")
        assert info.name == f"{dist.metadata['Name'].replace('-', '_')}-{pins[dist.metadata['Name'].lower()]}.dist-info"
        assert not (info / "RECORD").exists() and not (info / "INSTALLER").exists()
    staged, _ = stage_function_asset()
    files = {p.relative_to(asset) for p in asset.rglob("*") if p.is_file()}
    assert files == {p.relative_to(staged) for p in staged.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert not [p for p in files if p.suffix == ".pyc" or "__pycache__" in p.parts]
    assert {p.parts[0] for p in files} >= {"functions", "boto3", "botocore", "s3transfer", "jmespath", "dateutil",
                                           "six.py", "urllib3"}


def test_the_asset_imports_its_own_sdk_first_as_lambda_would(dev):
    # /var/task comes first on a Lambda function's path; the local runtime's worker puts the asset first the same way
    asset = function_asset_dir(dev)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import boto3, botocore, urllib3; "
            "print(boto3.__version__, botocore.__version__, urllib3.__version__, botocore.__file__)")
    out = subprocess.run([sys.executable, "-I", "-B", "-c", code, str(asset)],  # -B: no bytecode in the asset
                         capture_output=True, text=True, check=True)
    boto3_version, botocore_version, urllib3_version, botocore_file = out.stdout.split()
    pins = requirement_pins()
    assert (boto3_version, botocore_version, urllib3_version) == (pins["boto3"], pins["botocore"], pins["urllib3"])
    assert Path(botocore_file).is_relative_to(asset)


def test_the_asset_ships_every_domain_toml_and_each_domain_loads_from_the_asset_alone():
    # every API function reads its functions/<domain>/domain.toml at run time (its routes), and the explorer every
    # domain's (functions/platform/explorer.py), in Lambda
    staged, _ = stage_function_asset()
    tomls = sorted(p.relative_to(function_asset.ROOT) for p in function_asset.ROOT.glob("functions/*/domain.toml"))
    assert len(tomls) >= 14 and [p for p in tomls if not (staged / p).is_file()] == []
    domains = [p.parent.name for p in tomls]
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from functions.shared import domain; "
            "[print(domain.path_of(d), len(domain.load(d).routes)) for d in sys.argv[2:]]")
    out = subprocess.run([sys.executable, "-I", "-B", "-c", code, str(staged), *domains],
                         capture_output=True, text=True, check=True)
    loaded = [line.rsplit(" ", 1) for line in out.stdout.splitlines()]
    assert [Path(file).relative_to(staged).parent.name for file, _ in loaded] == domains
    assert all(int(count) > 0 for _, count in loaded)


def test_staging_is_deterministic_and_named_by_its_key():
    (first_dir, first_key), (second_dir, second_key) = stage_function_asset(), stage_function_asset()
    assert (first_dir, first_key) == (second_dir, second_key) and first_dir.name == first_key[:32]


def test_a_version_other_than_the_pin_fails_synth():
    pins = {**requirement_pins(), "botocore": "1.0.0"}
    with pytest.raises(AssetBuildError, match=r"botocore .* is installed, requirements.txt pins 1.0.0"):
        sdk_distributions(pins)


def test_an_unpinned_sdk_distribution_fails_synth():
    pins = {name: version for name, version in requirement_pins().items() if name != "urllib3"}
    with pytest.raises(AssetBuildError, match="requirements.txt must pin urllib3"):
        sdk_distributions(pins)


def test_requirement_pins_read_names_extras_and_versions(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# c\naws-lambda-powertools[tracer]==3.37.0\nPython_Dateutil==2.9.0.post0  # x\nfoo>=1\n")
    assert requirement_pins(requirements) == {"aws-lambda-powertools": "3.37.0", "python-dateutil": "2.9.0.post0"}


def test_the_staging_root_is_ignored_by_git():
    ignored = (function_asset.ROOT / ".gitignore").read_text().splitlines()
    assert ".build/" in ignored
