"""README's "A session with curl", pasted as a newcomer pastes it: every command of its shell blocks, as written, one
after another with no pause, in one bash, against a freshly started runtime with the example data (as `make run`
leaves it). Only the base URL is changed (the runtime listens on a free port, not 3000); the tokens come from
`make -s token` itself, which signs with the key the runtime trusts (`.local/keys`).

Each command's answer is compared with what the README says beside it. A command the README adds without an
expectation here fails the test, so the page and the test cannot drift apart.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from local.runtime import Runtime

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SECTION = "## A session with curl"
README_URL = "http://127.0.0.1:3000"
MARK = "@@tour-command@@"


def tour_commands(text: str) -> list[str]:
    """The shell commands of the section's ```sh blocks, continuation lines joined, comment-only lines dropped."""
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    commands: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.S):
        pending = ""
        for line in block.splitlines():
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            pending += line + "\n"
            if not line.rstrip().endswith("\\"):
                commands.append(pending.rstrip("\n"))
                pending = ""
    return commands


def run_tour(commands: list[str], url: str) -> list[str]:
    """Runs the commands in one bash in the repository (so `make` is the project's), returns each one's output."""
    script = ["set -u"]
    for command in commands:
        script.append(f"echo {MARK}")
        script.append(command.replace(README_URL, url))
        script.append("echo")
    done = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return [part.strip() for part in done.stdout.split(MARK + "\n")[1:]]


@pytest.fixture(scope="module")
def fresh_runtime() -> Iterator[Runtime]:
    """A runtime of its own, as `make run` starts it (default keys, example data): the tour writes (a booking, a
    vote, a price) that the shared e2e runtime's tests must not see, and it needs the example data untouched."""
    log: deque[str] = deque(maxlen=200)  # the functions' last log lines, shown when an answer does not hold
    rt = Runtime.start(ROOT, stage="dev", port=0, aws_port=0, log_sink=log.append)
    rt.log = log
    try:
        yield rt
    finally:
        rt.stop()


def body(out: str) -> Any:
    return json.loads(out)


def items(out: str) -> list[dict[str, Any]]:
    return body(out)["items"]


def totals(out: str) -> dict[str, int]:
    return body(out)["totals"]


def lines_as_json(out: str) -> list[Any]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


# What the README says beside each command (a unique part of the command → a check of its answer). Commands that
# only set a variable or define wait_for print nothing.
EXPECTED: dict[str, Callable[[str], bool]] = {
    "relationship=Business&on=2005-01-01\"\n": lambda out: items(out)[0]["address"]["streetAddress"]
    == "1850 Wazee Street",
    "relationship=Residential&current=true": lambda out: [i["address"]["streetAddress"] for i in items(out)]
    == ["1600 15th Street"],
    "persons?limit=2": lambda out: len(items(out)) == 2 and body(out)["nextCursor"] is not None,
    "Lovelace": lambda out: body(out)["firstName"] == "Ada" and body(out)["lastName"] == "Lovelace",
    "Idempotency-Key: ada-1": lambda out: (lambda first, second: first == second and first["lastName"] == "Byron")(
        *lines_as_json(out)),
    "grep -i server-timing": lambda out: out.startswith("Server-Timing: ddb;dur=")
    and 'desc="requests=2 items=2 rcu=1 wcu=0"' in out and ".ContactPersonIndex;" in out,
    "minAvailableBays=1": lambda out: any(i["serviceDateHour"].endswith("T10") and i["availableBays"] == 2
                                          for i in items(out)),
    "connected-car/appointments": lambda out: body(out)["serviceDateHour"].endswith("T10")
    and body(out)["username"] == "alice" and "appointmentId" in body(out),
    "curl -s -H \"Authorization: Bearer $ADMIN\" \"http://127.0.0.1:3000/connected-car/customers?active=true\"":
    lambda out: [i["username"] for i in items(out)] == ["alice", "bob"],
    "registrations/JTDKN3DU0A0123456": lambda out: body(out)["statusCode"] == "active",
    "wait_for '\"carol\"'": lambda out: "carol" in [i["username"] for i in items(out)],
    "$P/results               # Streams 4": lambda out: totals(out)
    == {"Streams": 4, "Transactions": 1, "TTL": 1, "Global tables": 1},
    "$P/votes\n": lambda out: body(out)["candidate"] == "TTL",
    "$P/votes   # 409 ALREADY_VOTED": lambda out: body(out)["error"]["code"] == "ALREADY_VOTED",
    "$P/votes/me": lambda out: body(out)["candidate"] == "Streams",
    "wait_for '\"Streams\":5'": lambda out: totals(out)
    == {"Streams": 5, "Transactions": 1, "TTL": 1, "Global tables": 1},
    "$P/recount": lambda out: body(out)["corrected"] == {},
    "$B/catalog/products/2\n": lambda out: items(out)[0]["kind"] == "album"
    and [i["kind"] for i in items(out)[1:]] == ["track"] * 3,
    "children/track": lambda out: [i["title"] for i in items(out)] == ["Track 1", "Track 2", "Track 3"],
    "catalog/documents/3": lambda out: body(out)["kind"] == "movie" and body(out)["title"] == "Some Movie",
    "$B/users/bob": lambda out: body(out) == {"userId": "bob", "email": "bob@gmail.com", "joinDate": "2011-11-15"},
    "users/by-email/fred@yahoo.com": lambda out: body(out)["userId"] == "fred",
    "games/Game1/players": lambda out: [i["userId"] for i in items(out)] == ["bob"],
    "games/by-user/bob": lambda out: [i["gameId"] for i in items(out)] == ["Game1", "Game3"],
    "measurements/devices/1/readings": lambda out: len(items(out)) == 10
    and [i["epochMs"] for i in items(out)] == sorted(i["epochMs"] for i in items(out)),
    "messaging/inbox": lambda out: [i["msgId"] for i in items(out)] == ["3kf8", "afed"]
    and all("body" not in i for i in items(out)),
    "messaging/messages/3kf8": lambda out: body(out)["msgId"] == "3kf8" and body(out)["body"].startswith("David,"),
    "orders?status=OPEN": lambda out: [i["orderId"] for i in items(out)] == ["O-1003", "O-1005", "O-1006", "O-1008"],
    "quarters/2026-Q1/reps": lambda out: [i["repId"] for i in items(out)] == ["150", "180"],
    "cart/prices/SKU-COFFEE": lambda out: body(out)["price"] == "11.00",
    "wait_for SKU-COFFEE": lambda out: any(i.get("sku") == "SKU-COFFEE" for i in items(out)),
}


def expectation(command: str) -> Callable[[str], bool] | None:
    found = [check for part, check in EXPECTED.items() if part in command + "\n"]
    assert len(found) <= 1, f"more than one expectation matches {command!r}"
    return found[0] if found else None


def test_the_readme_tour_answers_as_written_when_pasted_at_once(fresh_runtime):
    commands = tour_commands(README.read_text())
    outputs = run_tour(commands, fresh_runtime.url)
    assert len(outputs) == len(commands)
    unmatched = set(EXPECTED)
    for command, out in zip(commands, outputs, strict=True):
        check = expectation(command)
        if check is None:
            assert out == "", f"README command without an expectation in this test printed something:\n{command}\n{out}"
            continue
        unmatched -= {part for part in EXPECTED if part in command + "\n"}
        try:
            ok = check(out)
        except (ValueError, KeyError, IndexError, TypeError) as error:
            ok, out = False, f"{out}\n({error!r})"
        assert ok, f"the README's answer does not hold for\n{command}\ngot: {out}\nlog:\n" + "\n".join(fresh_runtime.log)
    assert not unmatched, f"expectations whose command the README no longer has: {sorted(unmatched)}"
