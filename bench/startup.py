"""12. `make run`'s start (bench/startup.py): seconds from starting `python -m local run` to its `ready` line, three
times in a row (the first may synthesize; the others hit the synth cache, as a second `make run` does), with the
runtime's own phases (its "started in" log line: synth, moto, tables, functions, seeds, api). Figures, not a check:
the first ten minutes want `ready` within 5 s on a cache hit on an idle machine.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 3
PHASES = re.compile(r"started in ([\d.]+)s: (.*)$")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_once(timeout: float = 180.0) -> tuple[float, str]:
    """(seconds to `ready`, the runtime's phases) of one `python -m local run`, stopped at once after."""
    env = {**os.environ, "PORT": str(_free_port()), "LOCAL_AWS_PORT": str(_free_port())}
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "local", "run"], cwd=ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        line = process.stdout.readline() if process.stdout is not None else ""
        ready = time.monotonic() - started
        if not line.startswith("ready "):
            raise RuntimeError(f"`local run` said {line!r} instead of ready")
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        _, errors = process.communicate(timeout=timeout)
    phases = next((m.group(2) for m in map(PHASES.search, errors.splitlines()) if m), "")
    return ready, phases


def run() -> None:
    print(f"\n12. make run's start: seconds to `ready`, {RUNS} starts in a row (the first may synthesize)")
    for n in range(1, RUNS + 1):
        seconds, phases = start_once()
        print(f"   start {n}: ready after {seconds:5.1f} s  ({phases})")
