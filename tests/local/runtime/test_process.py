"""`python -m local run` as a process: SIGTERM stops it within 3 s, its workers with it, whether it is serving or
still starting; each instance synthesizes into a directory of its own and removes it when it stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from local.awslambda.pool import PACKAGE_ROOT
from local.cloudformation import template as template_module
from local.runtime import Runtime
from tests.local.runtime.test_runtime import _assembly
from tests.support.waiting import eventually

STOP_WITHIN = 3.0


def start(*args: str, **environ: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "local", "run", "--port", "0", "--aws-port", "0", *args],
                            cwd=PACKAGE_ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, **environ})


def children(pid: int) -> set[int]:
    """Every descendant of `pid` still running (from /proc: no psutil here)."""
    found, frontier = set(), {pid}
    while frontier:
        parent = frontier.pop()
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                    found.add(int(entry.name))
                    frontier.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


def commands(pids: set[int]) -> set[str]:
    """The command names of those of `pids` still running (/proc/<pid>/comm)."""
    names = set()
    for pid in pids:
        try:
            names.add((Path("/proc") / str(pid) / "comm").read_text().strip())
        except OSError:
            continue
    return names


def alive(pids: set[int]) -> set[int]:
    left = set()
    for pid in pids:
        try:
            state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            left.add(pid)
    return left


def terminate(process: subprocess.Popen) -> float:
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    return time.monotonic() - started


def test_sigterm_stops_a_serving_runtime_and_its_workers_within_3s(tmp_path: Path) -> None:
    process = start("--assembly", str(_assembly(tmp_path)), "--no-seed")
    try:
        url = process.stdout.readline().removeprefix("ready ").strip()
        assert url.startswith("http://"), url
        functions = requests.get(f"{url}/2015-03-31/functions/", timeout=30).json()["Functions"]
        invoked = requests.post(f"{url}/2015-03-31/functions/{functions[0]['FunctionName']}/invocations",
                                json={"direct": True}, timeout=60)
        assert invoked.status_code == 200, invoked.text
        workers = children(process.pid)
        assert workers, "a worker serves the invocation"
    finally:
        took = terminate(process)
    assert took < STOP_WITHIN
    assert process.returncode == 0
    assert alive(workers) == set()


def synth_outdirs(pids: set[int]) -> set[Path]:
    """The assembly directories the synth processes among `pids` write into (their CDK_OUTDIR)."""
    found = set()
    for pid in pids:
        try:
            variables = (Path("/proc") / str(pid) / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        found |= {Path(v.split(b"=", 1)[1].decode()) for v in variables if v.startswith(b"CDK_OUTDIR=")}
    return found


def test_sigterm_while_synthesizing_stops_within_3s_and_leaves_no_assembly() -> None:
    process = start("--no-seed", LOCAL_SYNTH_CACHE="0")  # a real synth, not the cached output
    # This instance's own directory: other runtimes (tests on another worker) add and remove theirs meanwhile.
    outdirs = eventually(lambda: synth_outdirs(children(process.pid)), timeout=20, interval=0.2)
    # well inside the synth (several seconds): app.py has started jsii's Node
    eventually(lambda: "node" in commands(children(process.pid)), timeout=20)
    spawned = children(process.pid)
    assert len(outdirs) == 1 and next(iter(outdirs)).parent == PACKAGE_ROOT / ".local", outdirs
    assert next(iter(outdirs)).is_dir()
    took = terminate(process)
    assert took < STOP_WITHIN
    assert alive(spawned) == set()
    assert not next(iter(outdirs)).exists()


def test_each_instance_synthesizes_into_its_own_directory_and_removes_it(tmp_path: Path, monkeypatch) -> None:
    # Given synth and boot replaced (what matters here is where each instance's assembly lives)
    def fake_synth(repo: Path, outdir: Path, stage: str, log, context=None) -> Path:
        (outdir / "manifest.json").write_text("{}")
        return outdir

    monkeypatch.setattr(template_module, "synth", fake_synth)  # what Runtime.start's synth_cached calls
    monkeypatch.setattr(Runtime, "_boot", lambda self, *args, **kwargs: None)
    # When two instances run in the same checkout
    first, second = Runtime.start(tmp_path), Runtime.start(tmp_path)
    # Then each has its own assembly, and stopping one leaves the other's in place
    assert first.assembly != second.assembly
    assert first.assembly.parent == second.assembly.parent == tmp_path / ".local"
    second.stop()
    assert not second.assembly.exists()
    assert (first.assembly / "manifest.json").is_file()
    first.stop()
    assert not first.assembly.exists()


def test_a_given_assembly_is_never_removed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(Runtime, "_boot", lambda self, *args, **kwargs: None)
    given = _assembly(tmp_path)
    Runtime.start(tmp_path, assembly=given).stop()
    assert (given / "manifest.json").is_file()

