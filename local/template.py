"""Cloud assembly loading (synth + manifest) and a small CloudFormation intrinsic-function resolver.

Why: the local runtime must take tables, functions and routes from the template that deploys, not
from a second hand-kept description. The resolver only covers what CDK output uses; anything it
cannot resolve raises `TemplateError` naming the resource and property, instead of guessing.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ACCOUNT_ID = "123456789012"  # moto's default account
PARTITION = "aws"
URL_SUFFIX = "amazonaws.com"
STACK_ARTIFACT = "aws:cloudformation:stack"
NESTED_ASSEMBLY_ARTIFACT = "cdk:cloud-assembly"
ASSET_MANIFEST_ARTIFACT = "cdk:asset-manifest"


class TemplateError(Exception):
    """The template (or assembly) uses something the local runtime cannot resolve or run."""


class _NoValue:
    """`Ref: AWS::NoValue`: the enclosing property or list item disappears."""

    def __repr__(self) -> str:
        return "AWS::NoValue"


NO_VALUE = _NoValue()


# --------------------------------------------------------------------------------------------
# Cloud assembly


@dataclass(frozen=True)
class StackTemplate:
    """One synthesized stack: its CloudFormation name, template and where its assets live."""

    name: str
    artifact_id: str
    template: Mapping[str, Any]
    assembly_dir: Path
    dependencies: tuple[str, ...] = ()
    # S3 key of a file asset ("<hash>.zip") -> its staged directory, from the asset manifest.
    asset_dirs_by_key: Mapping[str, Path] = field(default_factory=dict)

    @property
    def resources(self) -> Mapping[str, Mapping[str, Any]]:
        return self.template.get("Resources", {})

    def resources_of_type(self, *types: str) -> dict[str, Mapping[str, Any]]:
        return {lid: res for lid, res in self.resources.items() if res.get("Type") in types}

    def asset_dir(self, logical_id: str, code: Any) -> Path | None:
        """Staged directory of a resource's file asset (Lambda code, layer content).

        CDK records it in the resource's `aws:asset:path` metadata when asset metadata is enabled;
        otherwise the S3 key in the template is looked up in the stack's asset manifest.
        """
        metadata = self.resources.get(logical_id, {}).get("Metadata") or {}
        asset_path = metadata.get("aws:asset:path")
        if isinstance(asset_path, str):
            path = Path(asset_path)
            return path if path.is_absolute() else self.assembly_dir / path
        if isinstance(code, Mapping):
            key = code.get("S3Key")
            if isinstance(key, str) and key in self.asset_dirs_by_key:
                return self.asset_dirs_by_key[key]
        return None


def load_assembly(outdir: Path) -> list[StackTemplate]:
    """All stacks of a cloud assembly (nested stage assemblies included), dependencies first."""
    outdir = Path(outdir).resolve()  # asset paths become worker cwd and sys.path entries
    manifest_path = outdir / "manifest.json"
    if not manifest_path.is_file():
        raise TemplateError(f"no cloud assembly at {outdir} (missing manifest.json)")
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    artifacts: Mapping[str, Any] = manifest.get("artifacts", {})
    asset_dirs = _asset_dirs(outdir, artifacts)
    stacks: list[StackTemplate] = []
    for artifact_id, artifact in artifacts.items():
        kind = artifact.get("type")
        props = artifact.get("properties", {})
        if kind == NESTED_ASSEMBLY_ARTIFACT:
            stacks.extend(load_assembly(outdir / props["directoryName"]))
        elif kind == STACK_ARTIFACT:
            template_path = outdir / props["templateFile"]
            stacks.append(
                StackTemplate(
                    name=props.get("stackName") or artifact.get("displayName") or artifact_id,
                    artifact_id=artifact_id,
                    template=json.loads(template_path.read_text(encoding="utf-8")),
                    assembly_dir=outdir,
                    dependencies=tuple(artifact.get("dependencies", ())),
                    asset_dirs_by_key=asset_dirs,
                )
            )
    if not stacks:
        raise TemplateError(f"cloud assembly {outdir} has no CloudFormation stack")
    return _dependency_order(stacks)


def _asset_dirs(outdir: Path, artifacts: Mapping[str, Any]) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for artifact in artifacts.values():
        if artifact.get("type") != ASSET_MANIFEST_ARTIFACT:
            continue
        assets = json.loads((outdir / artifact["properties"]["file"]).read_text(encoding="utf-8"))
        for asset in assets.get("files", {}).values():
            source = asset.get("source", {})
            if source.get("packaging") not in ("zip", None) or "path" not in source:
                continue
            for destination in asset.get("destinations", {}).values():
                if "objectKey" in destination:
                    found[destination["objectKey"]] = outdir / source["path"]
    return found


def _dependency_order(stacks: list[StackTemplate]) -> list[StackTemplate]:
    by_id = {s.artifact_id: s for s in stacks}
    ordered: list[StackTemplate] = []
    seen: set[str] = set()

    def visit(stack: StackTemplate) -> None:
        if stack.artifact_id in seen:
            return
        seen.add(stack.artifact_id)
        for dep in stack.dependencies:
            if dep in by_id:
                visit(by_id[dep])
        ordered.append(stack)

    for stack in stacks:
        visit(stack)
    return ordered


def synth_context(repo: Path, stage: str) -> dict[str, Any]:
    """The context the CDK CLI would pass: cdk.json + cdk.context.json, stage, asset metadata.

    Asset metadata (`aws:asset:path`) is what lets us find each function's staged code; the CLI
    turns it on by default, a bare `python app.py` does not.
    """
    context: dict[str, Any] = {}
    cdk_json = repo / "cdk.json"
    if cdk_json.is_file():
        context.update(json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {}))
    cdk_context = repo / "cdk.context.json"
    if cdk_context.is_file():
        context.update(json.loads(cdk_context.read_text(encoding="utf-8")))
    context["aws:cdk:enable-asset-metadata"] = True
    context["stage"] = stage
    return context


def synth(repo: Path, outdir: Path, stage: str, log: Callable[[str], None]) -> Path:
    """Run `app.py` like the CDK CLI would and return the cloud assembly directory."""
    app = repo / "app.py"
    if not app.is_file():
        raise TemplateError(f"{app} does not exist: nothing to synthesize (use --assembly DIR)")
    if outdir.exists():
        shutil.rmtree(outdir)  # stale asset.<hash> directories would pile up otherwise
    outdir.mkdir(parents=True)
    env = dict(os.environ)
    # Like the Makefile: the venv's bin first, so jsii finds the Node that the venv provides.
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(
        CDK_OUTDIR=str(outdir),
        CDK_CONTEXT_JSON=json.dumps(synth_context(repo, stage)),
        JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION="1",
    )
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(app)], cwd=repo, env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise TemplateError(
            f"synth failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}".rstrip()
        )
    log(f"synthesized stage {stage!r} into {outdir} in {time.monotonic() - started:.1f}s")
    return outdir


# --------------------------------------------------------------------------------------------
# Intrinsic functions


class AttributeSource(Protocol):
    """Physical values of resources: what `Ref` and `Fn::GetAtt` on a logical id return."""

    def ref(self, logical_id: str) -> Any: ...

    def get_att(self, logical_id: str, attribute: str) -> Any: ...


_SUB_VARIABLE = re.compile(r"\$\{([^}]*)\}")


class Resolver:
    """Resolves CloudFormation intrinsic functions in one stack's template values."""

    def __init__(
        self,
        stack: StackTemplate,
        attributes: AttributeSource,
        *,
        region: str,
        account_id: str = ACCOUNT_ID,
        parameters: Mapping[str, str] | None = None,
        exports: Mapping[str, Any] | None = None,
    ) -> None:
        self.stack = stack
        self.attributes = attributes
        self.region = region
        self.account_id = account_id
        self._parameter_overrides = dict(parameters or {})
        self._exports = exports if exports is not None else {}
        self._conditions: dict[str, bool] = {}
        self._stack_id = (
            f"arn:{PARTITION}:cloudformation:{region}:{account_id}:stack/{stack.name}/"
            f"{uuid.uuid5(uuid.NAMESPACE_URL, stack.name)}"
        )

    # public -----------------------------------------------------------------------------------

    def resolve(self, value: Any, where: str) -> Any:
        """Resolve every intrinsic inside `value`; `where` names the property in error messages."""
        return self._resolve(value, where)

    def resolve_string(self, value: Any, where: str) -> str:
        resolved = self._resolve(value, where)
        if isinstance(resolved, bool):
            return "true" if resolved else "false"
        if isinstance(resolved, (str, int, float)):
            return str(resolved)
        raise TemplateError(f"{where}: expected a string, got {resolved!r}")

    def parameter(self, name: str, where: str = "Parameters") -> Any:
        params = self.stack.template.get("Parameters", {})
        if name in self._parameter_overrides:
            return self._parameter_overrides[name]
        if name not in params:
            raise KeyError(name)
        spec = params[name]
        if "Default" not in spec:
            raise TemplateError(
                f"{where}: Parameters.{name} has no Default, and no value was given locally"
            )
        default = spec["Default"]
        kind = str(spec.get("Type", ""))
        if kind == "CommaDelimitedList" or "List<" in kind:
            return [part.strip() for part in str(default).split(",")]
        # SSM parameter types resolve (locally) to their Default: the parameter's name.
        return str(default)

    def condition(self, name: str, where: str) -> bool:
        if name not in self._conditions:
            conditions = self.stack.template.get("Conditions", {})
            if name not in conditions:
                raise TemplateError(f"{where}: unknown condition {name!r}")
            self._conditions[name] = self._evaluate_condition(
                conditions[name], f"Conditions.{name}"
            )
        return self._conditions[name]

    # recursion --------------------------------------------------------------------------------

    def _resolve(self, value: Any, where: str) -> Any:
        if isinstance(value, list):
            items = (self._resolve(item, f"{where}[{i}]") for i, item in enumerate(value))
            return [item for item in items if item is not NO_VALUE]
        if not isinstance(value, Mapping):
            return value
        if len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Ref":
                return self._ref(arg, where)
            if key.startswith("Fn::"):
                handler = self._FUNCTIONS.get(key)
                if handler is None:
                    raise TemplateError(
                        f"{where}: intrinsic function {key} is not supported locally"
                    )
                return handler(self, arg, f"{where}.{key}")
        resolved = {k: self._resolve(v, f"{where}.{k}") for k, v in value.items()}
        return {k: v for k, v in resolved.items() if v is not NO_VALUE}

    def _ref(self, name: Any, where: str) -> Any:
        if not isinstance(name, str):
            raise TemplateError(f"{where}: Ref needs a name, got {name!r}")
        pseudo = self._pseudo(name)
        if pseudo is not None:
            return pseudo
        try:
            return self.parameter(name, where)
        except KeyError:
            pass
        if name in self.stack.resources:
            return self.attributes.ref(name)
        raise TemplateError(f"{where}: Ref to unknown name {name!r}")

    def _pseudo(self, name: str) -> Any:
        return {
            "AWS::Region": self.region,
            "AWS::AccountId": self.account_id,
            "AWS::Partition": PARTITION,
            "AWS::StackName": self.stack.name,
            "AWS::StackId": self._stack_id,
            "AWS::URLSuffix": URL_SUFFIX,
            "AWS::NoValue": NO_VALUE,
            "AWS::NotificationARNs": [],
        }.get(name)

    def _get_att(self, arg: Any, where: str) -> Any:
        if isinstance(arg, str):
            logical_id, _, attribute = arg.partition(".")
        elif isinstance(arg, list) and len(arg) == 2:
            logical_id, attribute = arg[0], self.resolve_string(arg[1], where)
        else:
            raise TemplateError(f"{where}: malformed Fn::GetAtt {arg!r}")
        if logical_id not in self.stack.resources or not attribute:
            raise TemplateError(f"{where}: Fn::GetAtt on unknown resource {logical_id!r}")
        return self.attributes.get_att(logical_id, attribute)

    def _join(self, arg: Any, where: str) -> str:
        if not (isinstance(arg, list) and len(arg) == 2):
            raise TemplateError(f"{where}: malformed Fn::Join {arg!r}")
        delimiter = self.resolve_string(arg[0], where)
        items = self._resolve(arg[1], where)
        if not isinstance(items, list):
            raise TemplateError(f"{where}: Fn::Join needs a list, got {items!r}")
        return delimiter.join(self._as_string(item, where) for item in items)

    def _sub(self, arg: Any, where: str) -> str:
        if isinstance(arg, str):
            text, variables = arg, {}
        elif isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str):
            text = arg[0]
            variables = self._resolve(arg[1], where)
        else:
            raise TemplateError(f"{where}: malformed Fn::Sub {arg!r}")

        def substitute(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return self._as_string(variables[name], where)
            if "." in name and name.partition(".")[0] in self.stack.resources:
                return self._as_string(self._get_att(name, where), where)
            return self._as_string(self._ref(name, where), where)

        return _SUB_VARIABLE.sub(substitute, text)

    def _select(self, arg: Any, where: str) -> Any:
        if not (isinstance(arg, list) and len(arg) == 2):
            raise TemplateError(f"{where}: malformed Fn::Select {arg!r}")
        index = int(self.resolve_string(arg[0], where))
        items = self._resolve(arg[1], where)
        if not isinstance(items, list) or not 0 <= index < len(items):
            raise TemplateError(f"{where}: Fn::Select index {index} out of range of {items!r}")
        return items[index]

    def _split(self, arg: Any, where: str) -> list[str]:
        if not (isinstance(arg, list) and len(arg) == 2):
            raise TemplateError(f"{where}: malformed Fn::Split {arg!r}")
        delimiter = self.resolve_string(arg[0], where)
        return self.resolve_string(arg[1], where).split(delimiter)

    def _base64(self, arg: Any, where: str) -> str:
        return base64.b64encode(self.resolve_string(arg, where).encode()).decode()

    def _find_in_map(self, arg: Any, where: str) -> Any:
        if not (isinstance(arg, list) and len(arg) in (3, 4)):
            raise TemplateError(f"{where}: malformed Fn::FindInMap {arg!r}")
        name, top, second = (self.resolve_string(a, where) for a in arg[:3])
        try:
            return self.stack.template["Mappings"][name][top][second]
        except KeyError:
            if len(arg) == 4 and isinstance(arg[3], Mapping) and "DefaultValue" in arg[3]:
                return self._resolve(arg[3]["DefaultValue"], where)
            raise TemplateError(f"{where}: no mapping {name}.{top}.{second}") from None

    def _import_value(self, arg: Any, where: str) -> Any:
        name = self.resolve_string(arg, where)
        if name not in self._exports:
            raise TemplateError(f"{where}: no stack exports {name!r}")
        return self._exports[name]

    def _get_azs(self, arg: Any, where: str) -> list[str]:
        region = self.resolve_string(arg, where) or self.region
        return [f"{region}{zone}" for zone in "abc"]

    def _if(self, arg: Any, where: str) -> Any:
        if not (isinstance(arg, list) and len(arg) == 3 and isinstance(arg[0], str)):
            raise TemplateError(f"{where}: malformed Fn::If {arg!r}")
        branch = arg[1] if self.condition(arg[0], where) else arg[2]
        return self._resolve(branch, where)

    def _evaluate_condition(self, value: Any, where: str) -> bool:
        if isinstance(value, Mapping) and len(value) == 1:
            ((key, arg),) = value.items()
            if key == "Condition":
                return self.condition(arg, where)
            if key == "Fn::Equals":
                left, right = (self._resolve(a, where) for a in arg)
                return str(left) == str(right)
            if key == "Fn::Not":
                return not self._evaluate_condition(arg[0], where)
            if key == "Fn::And":
                return all(self._evaluate_condition(a, where) for a in arg)
            if key == "Fn::Or":
                return any(self._evaluate_condition(a, where) for a in arg)
        raise TemplateError(f"{where}: unsupported condition {value!r}")

    def _as_string(self, value: Any, where: str) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (str, int, float)):
            return str(value)
        raise TemplateError(f"{where}: expected a string, got {value!r}")

    _FUNCTIONS: Mapping[str, Callable[[Resolver, Any, str], Any]] = {
        "Fn::GetAtt": _get_att,
        "Fn::Join": _join,
        "Fn::Sub": _sub,
        "Fn::Select": _select,
        "Fn::Split": _split,
        "Fn::Base64": _base64,
        "Fn::FindInMap": _find_in_map,
        "Fn::ImportValue": _import_value,
        "Fn::GetAZs": _get_azs,
        "Fn::If": _if,
    }
