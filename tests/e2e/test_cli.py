"""`make run` and `make token` as a developer uses them: the CLI in a subprocess, on free ports."""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from seeds import contacts as seed

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_run(tmp_path: Path) -> tuple[subprocess.Popen, int, dict[str, str], Path]:
    """`python -m local run` on free ports, as `make run` starts it: (process, port, its environment, its log)."""
    port, aws_port = free_port(), free_port()
    env = {**os.environ, "PORT": str(port), "LOCAL_AWS_PORT": str(aws_port), "PYTHONUNBUFFERED": "1"}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    log = tmp_path / "local-run.log"  # its log, shown when it does not stop
    with log.open("w") as sink:
        process = subprocess.Popen([sys.executable, "-m", "local", "run"], cwd=ROOT, env=env,
                                   stdout=subprocess.PIPE, stderr=sink, text=True)
    return process, port, env, log


def exit_code(process: subprocess.Popen, log: Path) -> int:
    """Its exit code within 30 s (the signal already sent); else it is killed and the test fails with its log's end."""
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-40:])
        pytest.fail(f"`local run` still running 30 s after SIGTERM; the end of its log:\n{tail}")


def test_run_prints_ready_serves_the_seed_and_stops_on_sigterm(tmp_path):
    process, port, env, log = start_run(tmp_path)
    try:
        # Given the runtime has said it is ready
        deadline = time.monotonic() + 120
        first = process.stdout.readline().strip()
        assert first == f"ready http://127.0.0.1:{port}", first
        assert time.monotonic() < deadline
        example = process.stdout.readline()
        assert example.startswith("try: curl") and f":{port}/" in example
        # And last, where to go: the API's links, the explorer, Swagger UI, the local DynamoDB and make admin
        block = [process.stdout.readline() for _ in range(5)]
        assert [line.split()[0] for line in block] == ["API", "explorer", "Swagger", "DynamoDB", "routes"], block
        assert f"http://127.0.0.1:{port}/explorer" in block[1] and f"http://127.0.0.1:{port}/docs" in block[2]
        assert "make admin" in block[3] and "VERBOSE=1" in block[4]
        links = requests.get(f"http://127.0.0.1:{port}/", timeout=30).json()  # GET /: the same, as JSON
        assert links["explorer"] == "/dev/explorer" and links["docs"] == "/dev/docs"
        # When a token from the token command asks the seed's question
        token = subprocess.run([sys.executable, "-m", "local", "token", "--user", "alice"], cwd=ROOT, env=env,
                               capture_output=True, text=True, check=True).stdout
        assert token.count("\n") == 1 and token.count(".") == 2
        reply = requests.get(
            f"http://127.0.0.1:{port}/contacts/persons/{seed.BOB}/addresses?relationship=Residential&current=true",
            headers={"Authorization": f"Bearer {token.strip()}"}, timeout=30,
        )
        # Then Bob lives at 1600 15th Street
        assert reply.status_code == 200
        assert [i["address"]["streetAddress"] for i in reply.json()["items"]] == ["1600 15th Street"]
    finally:
        process.send_signal(signal.SIGTERM)
        code = exit_code(process, log)
    assert code in (0, -signal.SIGTERM, 128 + signal.SIGTERM)
    with socket.socket() as s:  # nothing listens any more (REUSEADDR only forgives TIME_WAIT, not a listener)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen()


def _signal_thread(pid: int, tid: int, signum: int) -> None:
    """tgkill(2): the signal to one thread of another process (Python's `signal.pthread_kill` reaches its own only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "tgkill"):
        pytest.skip("no tgkill in this C library (glibc 2.30 or later has it)")
    if libc.tgkill(pid, tid, signum) != 0:
        raise OSError(ctypes.get_errno(), f"tgkill({pid}, {tid}, {signum})")


def test_run_stops_on_a_sigterm_the_kernel_hands_to_another_thread(tmp_path):
    # The kernel gives a process-directed signal to any of its threads; CPython runs the handler in the main thread
    # when that thread next runs Python. Signalling one poller thread on purpose is the case a CI run met by chance.
    process, _, _, log = start_run(tmp_path)
    try:
        assert process.stdout.readline().startswith("ready ")
        threads = [int(tid) for tid in os.listdir(f"/proc/{process.pid}/task") if int(tid) != process.pid]
        assert threads  # the servers, the pollers, the sweeper
        _signal_thread(process.pid, threads[0], signal.SIGTERM)
        code = exit_code(process, log)
    finally:
        if process.poll() is None:  # an assertion failed before the signal
            process.kill()
            process.wait()
    assert code in (0, -signal.SIGTERM, 128 + signal.SIGTERM)
