"""tools/smoke.py against a fake API (a requests transport): a broken promise is a FAIL line naming it and a
non-zero exit; every domain of infra/domains/ has a line (tests/e2e/test_smoke.py runs the whole tour against the
local runtime)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests
from requests.adapters import BaseAdapter

from tools import smoke

ROOT = Path(__file__).resolve().parents[2]


class Fake(BaseAdapter):
    """A transport for requests (no server: unit tests start none) answering from `routes`
    ((method, path) -> (status, body, headers)); anything else 200 {"items": []}."""

    routes: dict[tuple[str, str], tuple[int, Any, dict[str, str]]] = {}
    seen: list[tuple[str, str, str | None]] = []

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        self.seen.append((request.method, request.path_url, request.headers.get("Authorization")))
        status, body, headers = self.routes.get((request.method, request.path_url), (200, {"items": []}, {}))
        response = requests.Response()
        response.status_code, response.request, response.url = status, request, request.url
        response.headers.update({"Content-Type": "application/json", **headers})
        response._content = b"" if body is None else json.dumps(body).encode()
        return response

    def close(self) -> None:
        pass


@pytest.fixture
def server(monkeypatch) -> str:
    """The base URL of the fake API: every session the smoke tool opens sends its requests to `Fake`."""
    Fake.routes, Fake.seen = {}, []

    class Session(requests.Session):
        def __init__(self) -> None:
            super().__init__()
            self.mount("http://fake.invalid", Fake())

    monkeypatch.setattr(smoke.requests, "Session", Session)
    return "http://fake.invalid"


def tour(url: str, capsys, *extra: str) -> tuple[int, list[str]]:
    code = smoke.main(["--url", url, *extra], tokens=lambda user, groups: f"token-of-{user}")
    return code, capsys.readouterr().out.splitlines()


def test_every_check_is_of_a_domain_and_a_domain_without_one_is_skipped_not_failed(server, capsys):
    names = smoke.domain_names(ROOT)
    assert "contacts" in names and "platform" in names
    assert set(smoke.CHECKS) <= set(names)  # no check outlives its domain
    # a domain `make new-domain` just made has no check yet: its line says so, and the exit status ignores it
    Fake.routes = {("GET", "/docs?format=json"): (200, {"paths": {"/health": {}}}, {})}
    code, lines = tour(server, capsys, "--domain", "orders", "--domain", "platform")
    assert [line.split()[:2] for line in lines] == [["skip", "orders"], ["ok", "platform"]] and code == 0
    assert "CHECKS in tools/smoke.py" in lines[0]


def test_a_server_that_keeps_no_promise_fails_every_domain_and_exits_1(server, capsys):
    code, lines = tour(server, capsys)
    assert code == 1
    assert [line.split()[:2] for line in lines] == [["FAIL", name] for name in smoke.domain_names(ROOT)]
    # the reason names the broken promise: here the example data's answer
    (contacts,) = [line for line in lines if line.split()[1] == "contacts"]
    assert "Bob's work address on 2005-01-01" in contacts and "1850 Wazee Street" in contacts


def test_the_platform_line_passes_only_when_the_description_has_paths(server, capsys):
    Fake.routes = {("GET", "/docs?format=json"): (200, {"paths": {"/health": {}}}, {})}
    code, lines = tour(server, capsys, "--domain", "platform")
    assert (code, [line.split()[:2] for line in lines]) == (0, [["ok", "platform"]])
    assert all(auth is None for _, _, auth in Fake.seen)  # public routes: asked without a token
    Fake.routes = {("GET", "/docs?format=json"): (200, {"paths": {}}, {})}
    code, lines = tour(server, capsys, "--domain", "platform")
    assert code == 1 and lines[0].startswith("FAIL platform") and "no paths" in lines[0]


def sessions_api(read_headers: dict[str, str]) -> dict:
    """A sessions API whose round trip works: s1 is created, read (with `read_headers`), deleted, then gone."""
    reads = iter([(200, {"username": "smoke-user"}, read_headers), (404, {"error": {"code": "SESSION_NOT_FOUND"}}, {})])

    class Routes(dict):
        def get(self, key, default=None):
            return next(reads) if key == ("GET", "/sessions/s1") else super().get(key, default)

    return Routes({("POST", "/sessions"): (201, {"sessionToken": "s1"}, {}),
                   ("DELETE", "/sessions/s1"): (204, None, {})})


def test_a_round_trip_without_server_timing_fails(server, capsys):
    Fake.routes = sessions_api({})
    code, lines = tour(server, capsys, "--domain", "sessions", "--no-examples")
    assert code == 1 and lines[0].startswith("FAIL sessions") and "GET /sessions/s1: no Server-Timing" in lines[0]


def test_an_answer_without_a_token_fails(server, capsys):
    # Given a sessions API that keeps the round trip's promises but answers a call without a token (200)
    Fake.routes = sessions_api({"Server-Timing": 'ddb;dur=1;desc="requests=1 items=1 rcu=0.5 wcu=0"'})
    code, lines = tour(server, capsys, "--domain", "sessions", "--no-examples")
    # Then the line names the missing 401, and the call was made without an Authorization header
    assert code == 1 and "without a token: expected 401, got 200" in lines[0], lines
    assert ("GET", "/sessions/users/smoke-user", None) in Fake.seen


def test_a_user_the_stage_lacks_is_that_domains_failure_not_a_crash(server, capsys):
    def tokens(user: str, groups: tuple[str, ...]) -> str:
        raise RuntimeError(f"no password for {user} on stage dev")

    code = smoke.main(["--url", server, "--domain", "games", "--no-examples"], tokens=tokens)
    lines = capsys.readouterr().out.splitlines()
    assert code == 1 and lines[0].startswith("FAIL games") and "no token for smoke-admin" in lines[0]
