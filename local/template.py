"""The cloud assembly (synth, manifest, nested stack templates) and the intrinsic functions our templates use: `Ref`
(resources, parameters, pseudo parameters), `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`. Anything else raises `TemplateError`
naming the resource and property.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ACCOUNT_ID = "123456789012"  # moto's default account
PARTITION = "aws"
NESTED_STACK_TYPE = "AWS::CloudFormation::Stack"


class TemplateError(Exception):
    """The template (or assembly) uses something the local runtime cannot resolve or run."""


@dataclass(frozen=True)
class StackTemplate:
    """One stack's template, where its assets live, and its nested stacks (by the logical id of their
    `AWS::CloudFormation::Stack` resource). A nested stack is named `<parent>-<logical id>`."""
    name: str
    template: Mapping[str, Any]
    assembly_dir: Path
    nested: Mapping[str, StackTemplate] = field(default_factory=dict)

    @property
    def resources(self) -> Mapping[str, Mapping[str, Any]]:
        return self.template.get("Resources", {})

    def resources_of_type(self, *types: str) -> dict[str, Mapping[str, Any]]:
        return {lid: res for lid, res in self.resources.items() if res.get("Type") in types}

    def walk(self) -> Iterator[StackTemplate]:
        """This stack, then every nested stack, depth first."""
        yield self
        for child in self.nested.values():
            yield from child.walk()

    def asset_dir(self, logical_id: str) -> Path | None:
        """The staged file asset of a resource (a function's code, a nested template), from the `aws:asset:path`
        metadata that app.py and the CLI turn on."""
        path = (self.resources.get(logical_id, {}).get("Metadata") or {}).get("aws:asset:path")
        return None if not isinstance(path, str) else self.assembly_dir / path


def load_assembly(outdir: Path) -> list[StackTemplate]:
    """Every top-level stack of a cloud assembly, each with its nested stacks loaded."""
    outdir = Path(outdir).resolve()  # asset paths become worker cwd and sys.path entries
    manifest = outdir / "manifest.json"
    if not manifest.is_file():
        raise TemplateError(f"no cloud assembly at {outdir} (missing manifest.json)")
    stacks = [_stack(artifact["properties"].get("stackName") or artifact.get("displayName") or artifact_id,
                     outdir / artifact["properties"]["templateFile"], outdir)
              for artifact_id, artifact in json.loads(manifest.read_text(encoding="utf-8")).get("artifacts", {}).items()
              if artifact.get("type") == "aws:cloudformation:stack"]
    if not stacks:
        raise TemplateError(f"cloud assembly {outdir} has no CloudFormation stack")
    return stacks


def _stack(name: str, path: Path, outdir: Path) -> StackTemplate:
    template = json.loads(path.read_text(encoding="utf-8"))
    nested = {}
    for logical_id, resource in template.get("Resources", {}).items():
        if resource.get("Type") == NESTED_STACK_TYPE:
            asset = (resource.get("Metadata") or {}).get("aws:asset:path")
            if not isinstance(asset, str):
                raise TemplateError(f"{name}/{logical_id}: nested stack without aws:asset:path metadata "
                                    "(synthesize with asset metadata, as app.py does)")
            nested[logical_id] = _stack(f"{name}-{logical_id}", outdir / asset, outdir)
    return StackTemplate(name, template, outdir, nested)


def synth_context(repo: Path, stage: str) -> dict[str, Any]:
    """The context the CDK CLI would pass: cdk.json's, the stage, asset metadata on (the app makes no lookups: there
    is no cdk.context.json to read)."""
    cdk_json = repo / "cdk.json"
    context = json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {}) if cdk_json.is_file() else {}
    return {**context, "aws:cdk:enable-asset-metadata": True, "stage": stage}


def synth(repo: Path, outdir: Path, stage: str, log: Callable[[str], None]) -> Path:
    """Run `app.py` like the CDK CLI would and return the cloud assembly directory."""
    app = repo / "app.py"
    if not app.is_file():
        raise TemplateError(f"{app} does not exist: nothing to synthesize (use --assembly DIR)")
    if outdir.exists():
        shutil.rmtree(outdir)  # stale asset.<hash> directories would pile up otherwise
    outdir.mkdir(parents=True)
    env = dict(os.environ)
    # Like the Makefile: the venv's bin first, so that jsii finds the Node the venv provides.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(CDK_OUTDIR=str(outdir), CDK_CONTEXT_JSON=json.dumps(synth_context(repo, stage)),
               JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION="1")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(app)], cwd=repo, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise TemplateError(f"synth failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}".rstrip())
    log(f"synthesized stage {stage!r} into {outdir} in {time.monotonic() - started:.1f}s")
    return outdir


_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")


class Resolver:
    """Resolves intrinsic functions in one stack's values; `attributes` has the physical values of its resources
    (`ref(logical_id)`, `get_att(logical_id, attribute)`). A parameter's value is what a parent passes to its nested
    stack (`Parameters` of the `AWS::CloudFormation::Stack` resource), else its Default (an SSM parameter's name)."""

    def __init__(self, stack: StackTemplate, attributes: Any, *, region: str, account_id: str = ACCOUNT_ID,
                 parameters: Mapping[str, Any] | None = None) -> None:
        self.stack, self.attributes, self.region, self.account_id = stack, attributes, region, account_id
        self._parameters = dict(parameters or {})
        self._pseudo = {
            "AWS::Region": region, "AWS::AccountId": account_id, "AWS::Partition": PARTITION,
            "AWS::StackName": stack.name, "AWS::URLSuffix": "amazonaws.com",
            "AWS::StackId": f"arn:{PARTITION}:cloudformation:{region}:{account_id}:stack/{stack.name}/"
                            f"{uuid.uuid5(uuid.NAMESPACE_URL, stack.name)}",
        }

    def resolve(self, value: Any, where: str) -> Any:
        """Resolve every intrinsic inside `value`; `where` names the property in error messages."""
        if isinstance(value, list):
            return [self.resolve(item, f"{where}[{i}]") for i, item in enumerate(value)]
        if not isinstance(value, Mapping):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            function = {"Ref": self._ref, "Fn::GetAtt": self._get_att, "Fn::Join": self._join,
                        "Fn::Sub": self._sub}.get(key)
            if function is not None:
                return function(arg, where)
            if key.startswith("Fn::"):
                raise TemplateError(f"{where}: {key} is not supported locally (Ref, Fn::GetAtt, Fn::Join, Fn::Sub)")
        return {k: self.resolve(v, f"{where}.{k}") for k, v in value.items()}

    def resolve_string(self, value: Any, where: str) -> str:
        return _string(self.resolve(value, where), where)

    def parameter(self, name: str, where: str = "Parameters") -> Any:
        if name in self._parameters:
            return self._parameters[name]
        spec = self.stack.template.get("Parameters", {})[name]  # KeyError: not a parameter
        if "Default" not in spec:
            raise TemplateError(f"{where}: parameter {name} of {self.stack.name} has no value (no Default, and no "
                                "parent stack passes one)")
        return str(spec["Default"])

    def _ref(self, name: Any, where: str) -> Any:
        if not isinstance(name, str):
            raise TemplateError(f"{where}: Ref needs a name, got {name!r}")
        if name in self._pseudo:
            return self._pseudo[name]
        if name in self.stack.template.get("Parameters", {}) or name in self._parameters:
            return self.parameter(name, where)
        if name in self.stack.resources:
            return self.attributes.ref(name)
        raise TemplateError(f"{where}: Ref to unknown name {name!r}")

    def _get_att(self, arg: Any, where: str) -> Any:
        if isinstance(arg, str):  # "Resource.Attribute", as in Fn::Sub's ${Resource.Attribute}
            arg = arg.split(".", 1)
        logical_id, attribute = arg[0], self.resolve_string(arg[1], where)
        if logical_id not in self.stack.resources or not attribute:
            raise TemplateError(f"{where}: Fn::GetAtt on unknown resource {logical_id!r}")
        return self.attributes.get_att(logical_id, attribute)

    def _join(self, arg: Any, where: str) -> str:
        return self.resolve_string(arg[0], where).join(_string(i, where) for i in self.resolve(arg[1], where))

    def _sub(self, arg: Any, where: str) -> str:
        if not isinstance(arg, str):  # the [text, variables] form: unused by CDK output here
            raise TemplateError(f"{where}: only the string form of Fn::Sub is supported locally, got {arg!r}")

        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            if "." in name and name.partition(".")[0] in self.stack.resources:
                return _string(self._get_att(name, where), where)
            return _string(self._ref(name, where), where)

        return _SUB_VARIABLE.sub(substitute, arg)


def _string(value: Any, where: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise TemplateError(f"{where}: expected a string, got {value!r}")
