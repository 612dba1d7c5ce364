"""The functions' code asset: functions/ plus the AWS SDK for Python pinned in requirements.txt, staged at synth.

Lambda's Python runtime brings its own boto3/botocore, older than the one the tests run and changed by AWS without
notice; our DynamoDB retry budget (functions/shared/ddb.py) and the client parameters we use are those of the pinned
SDK. A deployment package's own copy comes first on the function's path (/var/task, before the runtime's SDK:
https://docs.aws.amazon.com/lambda/latest/dg/python-package.html), so shipping the pinned SDK makes what the tests
run what deploys. The SDK and its dependencies are pure Python: copied from this environment's installed
distributions (their `importlib.metadata` file lists), no pip and no Docker at synth.

The staging directory is named by a key of its content (functions/'s files, the distributions' names and versions,
this module), built once per key into `.build/function-asset/<key>` (the SDK's files hard-linked, functions/ copied;
a temporary sibling renamed into place, so parallel synths never see half a directory) and handed to
`Code.from_asset` with that key as its hash: an unchanged tree costs no rebuild and no fingerprint, and the asset hash
is the same on every machine with the same pins.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
STAGING_ROOT = ROOT / ".build" / "function-asset"
# boto3 and what it needs at run time (their METADATA's Requires-Dist), all pure Python
SDK_DISTRIBUTIONS = ("boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3")
# install records that say how this machine installed a wheel, not what it contains
_MACHINE_FILES = frozenset({"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"})
_KEEP = 3  # staged trees kept (the newest): a few branches
_PRUNE_AFTER = 600  # seconds: far longer than a synth takes to copy the tree into its assembly
_FORMAT = "1"  # bump when the layout of the staged tree changes


class AssetBuildError(RuntimeError):
    """The environment does not hold what requirements.txt pins: synth stops rather than ship something else."""


def requirement_pins(requirements: Path = ROOT / "requirements.txt") -> dict[str, str]:
    """`name==version` lines of requirements.txt, by normalized name (PEP 503)."""
    pins = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;#]+)", line)
        if match:
            pins[_normalize(match.group(1))] = match.group(2)
    return pins


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def sdk_distributions(pins: dict[str, str] | None = None) -> list[importlib.metadata.Distribution]:
    """The installed SDK distributions, each checked: pinned, installed at its pin, a pure-Python wheel."""
    pins = requirement_pins() if pins is None else pins
    found = []
    for name in SDK_DISTRIBUTIONS:
        pin = pins.get(_normalize(name))
        if pin is None:
            raise AssetBuildError(f"requirements.txt must pin {name}==<version>: the function asset ships it")
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            raise AssetBuildError(
                f"{name} is not installed: run make setup (requirements.txt pins {name}=={pin})") from None
        if dist.version != pin:
            raise AssetBuildError(f"{name} {dist.version} is installed, requirements.txt pins {pin}: run make setup")
        wheel = dist.read_text("WHEEL") or ""
        if "Root-Is-Purelib: true" not in wheel or not re.search(r"^Tag: \S+-none-any$", wheel, re.MULTILINE):
            raise AssetBuildError(f"{name} {pin} is not a pure-Python wheel here: it cannot be copied into the asset")
        found.append(dist)
    return found


def _dist_files(dist: importlib.metadata.Distribution) -> Iterator[tuple[PurePosixPath, Path]]:
    """(path in the asset, installed file) for every file the distribution installed into site-packages."""
    for file in dist.files or ():
        relative = PurePosixPath(file.as_posix())
        if relative.parts[0] == ".." or "__pycache__" in relative.parts or relative.suffix == ".pyc":
            continue  # console scripts (bin/) and bytecode
        if relative.parent.name.endswith(".dist-info") and relative.name in _MACHINE_FILES:
            continue
        yield relative, Path(str(dist.locate_file(file)))  # typed as a protocol (SimplePath): a path here


def _function_files(root: Path = ROOT) -> Iterator[tuple[PurePosixPath, Path]]:
    for path in sorted((root / "functions").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            yield PurePosixPath(path.relative_to(root).as_posix()), path


def staging_key(dists: list[importlib.metadata.Distribution], root: Path = ROOT) -> str:
    digest = hashlib.sha256(f"format {_FORMAT}\0".encode())
    digest.update(Path(__file__).read_bytes())
    for dist in dists:
        digest.update(f"dist\0{dist.metadata['Name']}\0{dist.version}\0".encode())
    for relative, path in _function_files(root):
        data = path.read_bytes()
        digest.update(f"file\0{relative}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def stage_function_asset() -> tuple[Path, str]:
    """The staged tree (built if this key has none yet) and its key, the asset hash."""
    dists = sdk_distributions()
    key = staging_key(dists)
    target = STAGING_ROOT / key[:32]
    if not target.is_dir():
        STAGING_ROOT.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".building.", dir=STAGING_ROOT))
        try:
            # functions/ is copied (an editor may rewrite a source file in place), the installed SDK linked
            files: list[tuple[tuple[PurePosixPath, Path], Callable[[Path, Path], object]]] = [
                (entry, shutil.copyfile) for entry in _function_files()]
            files += [(entry, _link_or_copy) for dist in dists for entry in _dist_files(dist)]
            for (relative, source), place in files:
                destination = building.joinpath(*relative.parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                place(source, destination)
            os.chmod(building, 0o755)  # noqa: S103  mkdtemp's 0700 would reach the asset's root, which Lambda reads
            # the key of what was copied, should functions/ have changed since it was read
            key = staging_key(dists, building)
            target = STAGING_ROOT / key[:32]
            try:
                building.rename(target)
            except OSError:
                if not target.is_dir():  # not a parallel synth that got there first
                    raise
        finally:
            shutil.rmtree(building, ignore_errors=True)
    os.utime(target)
    _prune(keep=target)
    return target, key


def _link_or_copy(source: Path, destination: Path) -> None:
    """A hard link costs no disk (every edit of functions/ makes a new tree); pip replaces files, never rewrites them
    in place, so a link keeps the content it was made with. CDK copies the tree into the cloud assembly anyway."""
    try:
        os.link(source, destination)
    except OSError:
        shutil.copyfile(source, destination)


def _prune(keep: Path) -> None:
    """Staged trees beyond the newest _KEEP, and temporaries an interrupted build left; none used in the last
    _PRUNE_AFTER seconds, so a parallel synth (another state of functions/) never loses the tree it is about to copy."""
    trees = sorted((p for p in STAGING_ROOT.iterdir() if p.is_dir() and p != keep),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    stale = [p for p in trees[_KEEP - 1:] if time.time() - p.stat().st_mtime > _PRUNE_AFTER]
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
