"""Whole-suite checks judged once, with every worker's observations merged (tests/support/whole_suite.py).

The functional suite's checks (every grant used: tests/functional/test_grants.py; every documented status got and
every status got documented: tests/functional/test_openapi_responses.py) run on the controller with what each xdist
worker observed. Here: the merge keeps what any worker saw, the records cross execnet (xdist's channel) intact, the
checks still fail on an unused grant or an unobserved status, and a real `pytest -n 2` run reports a check that
fails as a failed test (exit 1), and skips the checks, saying why, when not every test ran.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from http import HTTPStatus
from pathlib import Path

import execnet
import pytest

from local.iam import Grant
from tests.functional import test_grants, test_openapi_responses
from tests.support.whole_suite import Answer, Observations, RoleUse, WholeSuite

ROOT = Path(__file__).resolve().parents[2]
TABLE = "arn:aws:dynamodb:us-east-1:123456789012:table/Votes"
GET = ("VotingFnRolePolicy", 0, "dynamodb:GetItem", 0)
PUT = ("VotingFnRolePolicy", 0, "dynamodb:PutItem", 0)
LOGS = ("VotingFnRolePolicy", 1, "logs:PutLogEvents", 0)


def worker(used: set[tuple[str, int, str, int]], answers: Sequence[Answer] = ()) -> Observations:
    """One worker's record, as it reaches the controller: through execnet's serializer."""
    grants = {key: Grant(key[0], key[1], key[2], TABLE if key[2].startswith("dynamodb") else "*")
              for key in (GET, PUT, LOGS)}
    mine = Observations(list(answers), {"functions.voting.api.lambda_handler": RoleUse("VotingFn", grants, used)})
    return Observations.from_wire(execnet.loads(execnet.dumps(mine.to_wire())))


def merged(*workers: Observations) -> Observations:
    result = Observations()
    for each in workers:
        result.merge(each)
    return result


def test_a_grant_used_on_either_worker_is_used_and_one_used_on_none_is_not():
    observations = merged(worker({GET}), worker({LOGS}))
    assert [(function, grant.action) for function, grant in observations.unused_grants()] == [
        ("VotingFn", "dynamodb:PutItem")]
    assert merged(worker({GET}), worker({PUT})).unused_grants() == [
        ("VotingFn", Grant("VotingFnRolePolicy", 1, "logs:PutLogEvents", "*"))]


def test_the_grant_check_fails_on_a_grant_no_worker_used_and_passes_once_one_did():
    with pytest.raises(AssertionError, match=r"VotingFn: dynamodb:PutItem on .*table/Votes"):
        test_grants.test_every_grant_was_used_by_some_test(merged(worker({GET}), worker(set())))
    # logs:PutLogEvents is Lambda's own use of the role (USED_BY_AWS): never asked of a test
    test_grants.test_every_grant_was_used_by_some_test(merged(worker({GET}), worker({PUT})))


def every_documented_answer() -> list[Answer]:
    """One answer per operation and documented status, with an error code its description names."""
    answers = []
    for (method, path), op in test_openapi_responses.spec_operations().items():
        for status, response in op["responses"].items():
            named = re.findall(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b", response["description"])
            code = (named or [response["description"]])[0] if int(status) >= 400 else None
            answers.append(Answer(method, path, int(status), code))
    return answers


STATUS_CHECKS = (
    test_openapi_responses.test_every_status_a_test_got_is_documented,
    test_openapi_responses.test_every_error_code_a_test_got_is_named_by_its_status_description,
    test_openapi_responses.test_every_route_specific_status_documented_was_got_by_some_test,
)


def test_the_status_checks_pass_on_every_workers_answers_merged_and_not_on_one_workers_half():
    answers = every_documented_answer()
    first, second = worker(set(), answers[::2]), worker(set(), answers[1::2])
    for check in STATUS_CHECKS:
        check(merged(first, second))
    with pytest.raises(AssertionError, match="documented answers no functional test got"):
        test_openapi_responses.test_every_route_specific_status_documented_was_got_by_some_test(merged(first))


def test_the_status_checks_fail_on_a_status_unobserved_or_undocumented():
    answers = every_documented_answer()
    operations = test_openapi_responses.spec_operations()
    method, path, status = next((a.method, a.resource, a.status) for a in answers
                                if a.status not in test_openapi_responses.UNIFORM
                                and operations[(a.method, a.resource)]["responses"][str(a.status)]["description"]
                                not in test_openapi_responses.SHARED)
    unobserved = [a for a in answers if (a.method, a.resource, a.status) != (method, path, status)]
    with pytest.raises(AssertionError, match=re.escape(f"{method} {path}: {status}")):
        test_openapi_responses.test_every_route_specific_status_documented_was_got_by_some_test(
            merged(worker(set(), unobserved)))
    teapot = [*answers, Answer(method, path, 418, "TEAPOT")]
    with pytest.raises(AssertionError, match=re.escape(f"{method} {path}: 418 ['TEAPOT']")):
        test_openapi_responses.test_every_status_a_test_got_is_documented(merged(worker(set(), teapot)))


def test_a_test_that_did_not_finish_or_a_lost_worker_keeps_the_checks_from_judging(tmp_path):
    plugin = WholeSuite(tmp_path, ("test_checks.py",))
    record = {"checks": [], "tests": ["suite/test_a.py::test_one", "suite/test_a.py::test_two"], "left_out": [],
              "observations": Observations().to_wire()}
    plugin.absorb(record)
    plugin.finished = {"suite/test_a.py::test_one"}
    assert plugin.why_not_whole() == ("skipped", "1 of its tests did not finish, e.g. suite/test_a.py::test_two")
    plugin.finished.add("suite/test_a.py::test_two")
    assert plugin.why_not_whole() is None
    plugin.lost.append("gw1")  # its tests may all have passed: the checks fail rather than pass unjudged
    assert plugin.why_not_whole() == (
        "failed", "worker(s) gw1 went down before handing over what their tests observed")


def test_an_answer_as_a_handler_gives_it_crosses_to_the_controller():
    answer = Answer("GET", "/voting/polls/{pollId}", HTTPStatus.OK, None)  # Powertools may answer an HTTPStatus
    (arrived,) = worker(set(), [answer]).answers
    assert arrived == Answer("GET", "/voting/polls/{pollId}", 200, None)


# A suite of its own, run by a real `pytest -n 2`: six tests over two modules (xdist's `load` scheduling hands the
# first four out in turn, so both workers run some), and checks that read what all six observed.
TOY = {
    "pytest.ini": "[pytest]\n",
    "conftest.py": """
        from pathlib import Path

        from tests.support.whole_suite import WholeSuite


        def pytest_configure(config):
            suite = WholeSuite(Path(__file__).resolve().parent / "suite", ("test_checks.py",))
            config.pluginmanager.register(suite, "toy-whole-suite")
    """,
    "suite/__init__.py": "",
    "suite/test_a.py": """
        import os
        from http import HTTPStatus

        import pytest

        from tests.support.whole_suite import RECORDER, Answer


        @pytest.mark.parametrize("n", range(3))
        def test_alpha(n):
            status = HTTPStatus(200 + n)  # as a handler may give it
            RECORDER.answers.append(Answer("GET", "/a", status, os.environ.get("PYTEST_XDIST_WORKER")))
    """,
    "suite/test_b.py": """
        import os

        import pytest

        from tests.support.whole_suite import RECORDER, Answer


        @pytest.mark.parametrize("n", range(3))
        def test_beta(n):
            RECORDER.answers.append(Answer("GET", "/b", 200 + n, os.environ.get("PYTEST_XDIST_WORKER")))
    """,
    "suite/test_checks.py": """
        def test_every_answer_arrived(observations):
            got = sorted((a.resource, a.status) for a in observations.answers)
            assert got == [(r, s) for r in ("/a", "/b") for s in (200, 201, 202)]


        def test_both_workers_answered(observations):
            assert sorted({a.code for a in observations.answers}) == ["gw0", "gw1"]


        def test_an_answer_no_test_got(observations):
            assert ("/c", 200) in {(a.resource, a.status) for a in observations.answers}, "no test called /c"
    """,
}


def run_toy(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    for name, text in TOY.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}  # not this run's worker
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", "-rA", *args],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_under_xdist_the_controller_judges_every_workers_observations_and_a_failed_check_fails_the_run(tmp_path):
    run = run_toy(tmp_path)
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert "PASSED suite/test_checks.py::test_every_answer_arrived" in out
    assert "PASSED suite/test_checks.py::test_both_workers_answered" in out
    assert "FAILED suite/test_checks.py::test_an_answer_no_test_got" in out and "no test called /c" in out
    assert "1 failed, 8 passed" in out


def test_under_xdist_the_checks_are_skipped_saying_why_when_a_test_was_deselected(tmp_path):
    run = run_toy(tmp_path, "-k", "not beta")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed, 3 skipped" in run.stdout
    assert "not every one ran: 3 of its tests deselected" in run.stdout
