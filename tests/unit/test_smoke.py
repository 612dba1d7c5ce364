"""tools/smoke.py against a fake API (a requests transport) and tables in memory: a broken promise is a FAIL line
naming it and a non-zero exit; every domain of infra/domains/ has a line; what a round trip wrote is deleted whatever
failed, and a cleanup that leaves something fails its line (tests/e2e/test_smoke.py runs the whole tour against the
local runtime and reads its tables)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import boto3
import jwt
import pytest
import requests
from moto import mock_aws
from requests.adapters import BaseAdapter

from functions.games.schema import GAMES_TABLE
from functions.patterns.schema import PATTERNS_TABLE
from functions.shared.table_spec import TableSpec
from functions.voting.schema import APPLIED_SK, POLL_SK, RAW_VOTES_TABLE, VOTES_TABLE, ballot_pk, segment_pk
from tools import cognito_users, leftovers, smoke

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


class MemoryTables(leftovers.Tables):
    """The API's tables in memory (construct id -> key -> item); each DeleteItem is recorded in `Fake.seen`, so the
    order of the API's and the tables' deletes shows."""

    def __init__(self, items: dict[TableSpec, list[dict[str, Any]]] | None = None) -> None:
        self.store = {spec.construct_id: {self.key(spec, item): item for item in rows}
                      for spec, rows in (items or {}).items()}

    @staticmethod
    def key(spec: TableSpec, item: Any) -> tuple[Any, ...]:
        return tuple(item[attribute.name] for attribute in spec.key_attributes)

    def get(self, spec: TableSpec, key: Any) -> dict[str, Any] | None:
        return self.store.get(spec.construct_id, {}).get(self.key(spec, key))

    def delete(self, spec: TableSpec, key: Any) -> int:
        Fake.seen.append(("DeleteItem", spec.construct_id, json.dumps(dict(key), sort_keys=True)))
        return 0 if self.store.get(spec.construct_id, {}).pop(self.key(spec, key), None) is None else 1

    def items(self, spec: TableSpec, partition: Any) -> list[dict[str, Any]]:
        return [i for i in self.store.get(spec.construct_id, {}).values() if i[spec.partition_key.name] == partition]


def tour(url: str, capsys, *extra: str, tables: leftovers.Tables | None = None) -> tuple[int, list[str]]:
    code = smoke.main(["--url", url, *extra], tokens=lambda user, groups: f"token-of-{user}",
                      tables=tables or MemoryTables())
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

    code = smoke.main(["--url", server, "--domain", "games", "--no-examples"], tokens=tokens, tables=MemoryTables())
    lines = capsys.readouterr().out.splitlines()
    assert code == 1 and lines[0].startswith("FAIL games") and "no token for smoke-admin" in lines[0]


RUN = "abcdef0123"
TIMING = {"Server-Timing": 'ddb;dur=1;desc="requests=1 items=1 rcu=0.5 wcu=0"'}


def test_what_a_failing_round_trip_wrote_is_deleted_anyway_last_first(server, capsys):
    # Given a games API that creates the game and the membership, then lists no player
    game, me = f"smoke-{RUN}", smoke.USER[0]
    Fake.routes = {("POST", "/games"): (201, {"gameId": game}, {}),
                   ("PUT", f"/games/{game}/players/{me}"): (201, {}, {}),
                   ("DELETE", f"/games/{game}/players/{me}"): (204, None, {})}
    tables = MemoryTables({GAMES_TABLE: [{"GameId": game, "name": "Smoke game"}]})

    code, lines = tour(server, capsys, "--domain", "games", "--no-examples", "--run", RUN, tables=tables)

    # Then the line fails on the check, and the membership went through the API, then the game in its table
    assert code == 1 and lines[0].startswith("FAIL games") and "the game's players" in lines[0]
    assert "left" not in lines[0]
    cleanup = Fake.seen[Fake.seen.index(("GET", f"/games/{game}/players", "Bearer token-of-smoke-user")) + 1:]
    assert cleanup == [("DELETE", f"/games/{game}/players/{me}", "Bearer token-of-smoke-user"),
                       ("DeleteItem", "GamesTable", json.dumps({"GameId": game}))]
    assert tables.store["GamesTable"] == {}


def passing_sessions_api(cleanup_status: int) -> dict:
    """A sessions API that keeps every promise of the line; the cleanup's DELETE (the second one) answers
    `cleanup_status`."""
    round_trip = sessions_api(TIMING)
    round_trip.update({("GET", "/sessions/users/smoke-user"): (401, {}, {}),
                       ("DELETE", "/sessions/users/smoke-admin"): (403, {}, {})})
    deletes = iter([(204, None, {}), (cleanup_status, {"error": {"code": "X"}}, {})])

    class Routes(dict):
        def get(self, key, default=None):
            return next(deletes) if key == ("DELETE", "/sessions/s1") else round_trip.get(key, default)

    return Routes()


def test_a_line_passes_once_its_cleanup_is_done_and_fails_naming_what_its_cleanup_left(server, capsys):
    Fake.routes = passing_sessions_api(404)  # the round trip deleted the session already
    code, lines = tour(server, capsys, "--domain", "sessions", "--no-examples")
    assert (code, lines) == (0, ["ok   sessions  round trip, Server-Timing, 401, 403; "
                                 "cleanup: 1 DELETE calls, 0 items deleted in the tables"])

    Fake.routes = passing_sessions_api(503)
    code, lines = tour(server, capsys, "--domain", "sessions", "--no-examples")
    assert code == 1 and lines[0].startswith("FAIL sessions  round trip, Server-Timing, 401, 403; but left: "
                                             "DELETE /sessions/s1: 503")


def test_cleanup_steps_are_safe_to_repeat_and_a_failed_one_is_tried_again():
    repo = "REPO#smoke#repo-x"
    tables = MemoryTables({GAMES_TABLE: [{"GameId": "g"}],
                           PATTERNS_TABLE: [{"PK": repo, "SK": repo}, {"PK": repo, "SK": "STAR#smoke-user"},
                                            {"PK": "REPO#alexdebrie#dynamodb-book", "SK": "REPO#alexdebrie#dynamodb-book"}]})
    answers = iter([leftovers.CleanupError("503 busy"), None, None])

    def delete_route(path: str, who: Any) -> None:
        if (answer := next(answers)) is not None:
            raise answer

    def steps(cleanup: leftovers.Cleanup) -> leftovers.Cleanup:
        cleanup.item(GAMES_TABLE, {"GameId": "g"})
        cleanup.partition(PATTERNS_TABLE, repo)
        cleanup.route("/patterns/repos/smoke/repo-x/stars/smoke-user", smoke.USER)
        return cleanup

    cleanup = steps(leftovers.Cleanup(tables, delete_route))
    # the API refuses once: that step stays, the others are done (the repo's two items, the game; not another repo)
    assert cleanup.run() == ["DELETE /patterns/repos/smoke/repo-x/stars/smoke-user: 503 busy"]
    assert (cleanup.deleted["table"], len(cleanup.steps)) == (3, 1)
    assert list(tables.store["PatternsTable"]) == [("REPO#alexdebrie#dynamodb-book", "REPO#alexdebrie#dynamodb-book")]
    # run again: only the step that failed, now done
    assert cleanup.run() == [] and (cleanup.deleted["api"], cleanup.steps) == (1, [])
    # the same steps over what is already clean: nothing to delete, nothing fails
    again = steps(leftovers.Cleanup(tables, delete_route))
    assert again.run() == [] and again.deleted["table"] == 0


class Aggregator(MemoryTables):
    """Votes tables whose applied-change counter catches up one change per read, as the stream aggregator would."""

    def __init__(self, poll: str, applied: int, version: int) -> None:
        bucket_pk, segment = ballot_pk(poll, 1), segment_pk(poll, 1)
        super().__init__({
            VOTES_TABLE: [{"pollId": poll, "sk": POLL_SK, "buckets": 2}, {"pollId": segment, "sk": APPLIED_SK,
                                                                          "changes": applied},
                          {"pollId": segment, "sk": "TOTAL#Yes", "votes": 0}],
            RAW_VOTES_TABLE: [{"pollBucket": bucket_pk, "userId": "u1", "version": version}]})
        self.target, self.counter = version, (segment, APPLIED_SK)

    def get(self, spec: TableSpec, key: Any) -> dict[str, Any] | None:
        item = super().get(spec, key)
        if item is not None and (item["pollId"], item["sk"]) == self.counter and item["changes"] != self.target:
            item["changes"] += 1 if item["changes"] < self.target else -1
        return item

    def delete(self, spec: TableSpec, key: Any) -> int:
        if spec is RAW_VOTES_TABLE:
            self.target = 0  # the aggregator will take the deleted ballot's version off
        return super().delete(spec, key)


def test_a_poll_goes_only_after_the_aggregator_has_applied_its_ballots_and_their_deletes(monkeypatch):
    monkeypatch.setattr(leftovers, "POLL_SECONDS", 0)
    tables = Aggregator("smoke-x", applied=0, version=2)  # two changes not applied yet
    Fake.seen = []
    assert smoke.remove_poll(tables, "smoke-x") == 4  # the ballot, the segment's two items, the poll
    assert [row[1] for row in Fake.seen] == ["RawVotesTable", "VotesTable", "VotesTable", "VotesTable"]
    assert tables.store == {"VotesTable": {}, "RawVotesTable": {}}


def test_a_poll_whose_ballots_the_aggregator_has_not_applied_stays(monkeypatch):
    monkeypatch.setattr(leftovers, "POLL_SECONDS", 0)
    monkeypatch.setattr(leftovers, "WAIT_SECONDS", 0.05)

    class Stuck(Aggregator):
        def get(self, spec: TableSpec, key: Any) -> dict[str, Any] | None:
            return MemoryTables.get(self, spec, key)  # the aggregator applies nothing

    tables = Stuck("smoke-x", applied=1, version=2)
    Fake.seen = []
    with pytest.raises(leftovers.CleanupError, match="the aggregator applying the ballots of smoke-x"):
        smoke.remove_poll(tables, "smoke-x")
    assert Fake.seen == [] and len(tables.store["VotesTable"]) == 3  # nothing deleted: its records would be parked


def test_the_readme_states_each_domains_cleanup_as_the_code_does():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+?) \|$", readme.split("**What `make smoke` leaves behind")[1].split("\n\n")[1],
                           re.MULTILINE))
    assert rows == {name: check.leaves for name, check in smoke.CHECKS.items()}


def test_on_a_stage_tokens_come_from_its_pool_the_url_from_its_stack_and_no_password_is_printed(
        server, capsys, caplog, monkeypatch, tmp_path):
    # Given stage dev on moto: smoke-admin and smoke-user made as `make user` makes them, and the stack's outputs
    monkeypatch.setattr(cognito_users, "DEFAULT_PASSWORDS_DIR", tmp_path)
    Fake.routes = passing_sessions_api(404)
    with mock_aws():
        idp = boto3.client("cognito-idp")
        pool = idp.create_user_pool(PoolName="pool")["UserPool"]["Id"]
        idp.create_group(UserPoolId=pool, GroupName="admin")
        cli = idp.create_user_pool_client(UserPoolId=pool, ClientName="cli", ExplicitAuthFlows=[
            "ALLOW_ADMIN_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"])["UserPoolClient"]["ClientId"]
        passwords = {}
        for user, groups in (smoke.ADMIN, smoke.USER):
            passwords[user] = cognito_users.generate_password()
            cognito_users.create_user(idp, pool, user, passwords[user], groups)
            cognito_users.store_password("dev", user, passwords[user])
        outputs = {"UserPoolId": pool, "CliClientId": cli, "ApiUrl": f"{server}/"}
        boto3.client("cloudformation").create_stack(StackName="Blueprints-dev", TemplateBody=json.dumps({
            "Resources": {"Placeholder": {"Type": "AWS::SQS::Queue"}},
            "Outputs": {key: {"Value": value} for key, value in outputs.items()}}))

        # a URL that is not the stage's API is refused: the cleanup would delete in the stage's tables, not behind it
        refused = smoke.main(["--stage", "dev", "--url", "http://127.0.0.1:9/", "--domain", "sessions"],
                             tables=MemoryTables())
        assert refused == 2 and "is not stage dev's ApiUrl" in caplog.text
        assert not [call for call in Fake.seen if call[1] == "/sessions/s1"]
        capsys.readouterr()

        code = smoke.main(["--stage", "dev", "--domain", "sessions"], tables=MemoryTables())

    out, err = capsys.readouterr()
    assert code == 0, out
    # the calls carried smoke-user's ID token of the stage's pool, to the stack's ApiUrl
    (auth,) = {auth for method, path, auth in Fake.seen if path == "/sessions/s1"}
    assert jwt.decode(auth.removeprefix("Bearer "), options={"verify_signature": False})["cognito:username"] == \
        "smoke-user"
    assert err.count("region: us-east-1") == 1  # one session, in tools/region.py's region, said once
    printed = out + err + caplog.text
    assert all(password not in printed for password in passwords.values())
