"""Checks of what a whole directory of tests observed, judged once after all of them ran, on whichever worker.

tests/functional's checks read what every functional test saw: the answers its `Client.call`s got
(test_openapi_responses.py) and the grants its handlers used (test_grants.py). Under pytest-xdist (`make test` runs
two workers) a worker sees only the tests it ran, so these checks are no ordinary tests:

- each process records what its tests observe in `RECORDER` (answers as they come, each function's grants and
  which of them a call used, read when the session ends);
- the check modules' tests are collected, then taken out of the run (no worker runs them); each process notes which
  of the directory's tests it collected, and whether any was left out (`-k`, a file selection);
- a worker hands its record to the controller as xdist's `config.workeroutput`, read in `pytest_testnodedown`; a plain
  `pytest` run's one process is its own controller;
- once the run loop is over, the controller merges the records and calls each check once with them, if every test of
  the directory was collected and finished (otherwise it reports the check skipped, saying why), and reports it under
  the check's own node id: a failed check fails the run, as any test does.

docs/adr/0122-whole-suite-checks-judged-by-the-controller.md says why.
"""

from __future__ import annotations

import contextvars
import importlib
import importlib.util
import os
import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from local.iam import Grant, GrantKey

if TYPE_CHECKING:
    from tests.support.iam import FunctionRole

WIRE_KEY = "whole_suite"  # this plugin's entry in a worker's `config.workeroutput`


@dataclass(frozen=True)
class Answer:
    """One answer a functional test got: what the OpenAPI test (test_openapi_responses.py) compares with /docs."""

    method: str
    resource: str  # API Gateway's, e.g. /contacts/persons/{personId}
    status: int
    code: str | None  # the error envelope's code


@dataclass
class RoleUse:
    """One function's grants (every Allow action x resource of its role) and the ones some call of a test used."""

    function: str  # the function's logical id
    grants: dict[GrantKey, Grant] = field(default_factory=dict)
    used: set[GrantKey] = field(default_factory=set)


@dataclass(frozen=True)
class RouteCall:
    """One DynamoDB permission a route's handler needed (test_pattern_actions.py compares them with domain.toml)."""

    domain: str
    method: str
    resource: str  # API Gateway's, e.g. /games/{gameId}
    action: str  # "GetItem"
    table: str  # the table's construct id, e.g. "GamesTable"
    index: str | None  # the index a Query read


@dataclass
class Observations:
    """What tests observed: one process's, or every process's merged."""

    answers: list[Answer] = field(default_factory=list)
    roles: dict[str, RoleUse] = field(default_factory=dict)  # by handler ("functions.voting.api.lambda_handler")
    route_calls: set[RouteCall] = field(default_factory=set)

    def merge(self, other: Observations) -> None:
        """Add another process's: every answer; a grant is used when some process's test used it."""
        self.answers.extend(other.answers)
        self.route_calls |= other.route_calls
        for handler, use in other.roles.items():
            mine = self.roles.setdefault(handler, RoleUse(use.function))
            mine.grants.update(use.grants)
            mine.used |= use.used

    def unused_grants(self) -> list[tuple[str, Grant]]:
        """(function, grant) for every grant no test used, in the order the policies list them."""
        return [(use.function, grant) for use in self.roles.values() for key, grant in use.grants.items()
                if key not in use.used]

    def to_wire(self) -> dict[str, Any]:
        """Plain lists, dicts, strings and numbers: what execnet carries from a worker to the controller."""
        def key(k: GrantKey) -> list[Any]:
            return [str(k[0]), int(k[1]), str(k[2]), int(k[3])]

        return {  # a handler may answer `HTTPStatus.OK`, which execnet cannot carry: plain types only
            "answers": [[str(a.method), str(a.resource), int(a.status), None if a.code is None else str(a.code)]
                        for a in self.answers],
            "roles": {str(handler): {"function": str(use.function),
                                     "grants": [[*key(k), str(grant.resource)] for k, grant in use.grants.items()],
                                     "used": [key(k) for k in sorted(use.used)]}
                      for handler, use in self.roles.items()},
            "route_calls": [[c.domain, c.method, c.resource, c.action, c.table, c.index] for c in self.route_calls],
        }

    @classmethod
    def from_wire(cls, wire: Mapping[str, Any]) -> Observations:
        roles = {}
        for handler, use in wire["roles"].items():
            grants = {(policy, statement, action, position): Grant(policy, statement, action, resource)
                      for policy, statement, action, position, resource in use["grants"]}
            roles[handler] = RoleUse(use["function"], grants, {tuple(key) for key in use["used"]})
        return cls([Answer(*answer) for answer in wire["answers"]], roles,
                   {RouteCall(*call) for call in wire["route_calls"]})


class Recorder:
    """What this process's tests observe: answers appended as they come, roles read when asked (their `used` grows
    with every call a handler makes)."""

    def __init__(self) -> None:
        self.answers: list[Answer] = []
        self.route_calls: set[RouteCall] = set()
        self._roles: dict[str, FunctionRole] = {}
        # the route a test client is calling, on this thread: (domain, method, resource, table name -> construct id)
        self._serving: contextvars.ContextVar[tuple[str, str, str, dict[str, str]] | None] = contextvars.ContextVar(
            "serving", default=None)

    def watch(self, roles: Mapping[str, FunctionRole]) -> None:
        self._roles.update(roles)

    @contextmanager
    def serving(self, domain: str, method: str, resource: str) -> Iterator[None]:
        """While a route of `domain` is called: its handler's DynamoDB permissions are noted against it (`called`).
        Table names are read from the domain's table specs' environment variables, as the function reads them."""
        specs = getattr(importlib.import_module(f"functions.{domain}.schema"), "TABLES", ()) \
            if importlib.util.find_spec(f"functions.{domain}.schema") else ()
        tables = {os.environ[spec.env_var]: spec.construct_id for spec in specs if spec.env_var in os.environ}
        token = self._serving.set((domain, method, resource, tables))
        try:
            yield
        finally:
            self._serving.reset(token)

    @contextmanager
    def not_serving(self) -> Iterator[None]:
        """Calls that are not the route's (tests/support/iam.py `meanwhile`)."""
        token = self._serving.set(None)
        try:
            yield
        finally:
            self._serving.reset(token)

    def called(self, action: str, resource: str) -> None:
        """A permission a handler's call needed (tests/support/iam.py): noted when a route is being served and it is
        DynamoDB's on one of the domain's tables."""
        serving = self._serving.get()
        if serving is None or not action.startswith("dynamodb:") or ":table/" not in resource:
            return
        domain, method, path, tables = serving
        name, _, index = resource.split(":table/", 1)[1].partition("/index/")
        if name in tables:
            self.route_calls.add(RouteCall(domain, method, path, action.removeprefix("dynamodb:"), tables[name],
                                           index or None))

    def observations(self) -> Observations:
        roles = {handler: RoleUse(role.logical_id, dict(role.principal.grants()), set(role.principal.used))
                 for handler, role in self._roles.items()}
        return Observations(list(self.answers), roles, set(self.route_calls))


RECORDER = Recorder()  # this process's; tests/functional/conftest.py feeds it


@dataclass(frozen=True)
class Check:
    """A check collected in a check module: where it is, and what to import to call it."""

    nodeid: str
    location: tuple[str, int | None, str]
    module: str  # importable name: "tests.functional.test_grants"
    function: str

    def run(self, observations: Observations) -> None:
        getattr(importlib.import_module(self.module), self.function)(observations)


class WholeSuite:
    """The plugin (tests/conftest.py registers it for tests/functional/): see the module's docstring."""

    def __init__(self, directory: Path, check_modules: Collection[str], recorder: Recorder = RECORDER) -> None:
        self.directory, self.check_modules, self.recorder = directory, set(check_modules), recorder
        self.checks: dict[str, Check] = {}
        self.tests: set[str] = set()  # node ids of the directory's other tests, as collected by any process
        self.left_out: list[str] = []  # why the directory was not run whole
        self.finished: set[str] = set()  # node ids whose teardown was reported (to the controller)
        self.lost: list[str] = []  # workers that went down without handing their record over
        self.merged = Observations()

    def _mine(self, item: pytest.Item) -> bool:
        return item.path.is_relative_to(self.directory)

    # Every process: what was collected and what was observed.

    def pytest_deselected(self, items: Iterable[pytest.Item]) -> None:
        deselected = [item.nodeid for item in items if self._mine(item)]
        if deselected:
            self.left_out.append(f"{len(deselected)} of its tests deselected (-k, -m, --deselect)")

    @pytest.hookimpl(trylast=True)  # after the deselection by -k and -m, which are hooks of the same name
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        mine = [item for item in items if self._mine(item)]
        if not mine:
            return
        missing = sorted(p.name for p in self.directory.glob("test_*.py") if p not in {item.path for item in mine})
        if missing:
            self.left_out.append(f"{len(missing)} of its modules not collected, e.g. {missing[0]}")
        checks = [item for item in mine if item.path.name in self.check_modules]
        self.tests.update(item.nodeid for item in mine if item not in checks)
        if config.option.collectonly:
            return
        for item in checks:
            assert isinstance(item, pytest.Function), item
            self.checks[item.nodeid] = Check(item.nodeid, item.location, item.module.__name__, item.originalname)
        items[:] = [item for item in items if item not in checks]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown":
            self.finished.add(report.nodeid)

    def record(self) -> dict[str, Any]:
        return {"checks": [[c.nodeid, list(c.location), c.module, c.function] for c in self.checks.values()],
                "tests": sorted(self.tests), "left_out": self.left_out,
                "observations": self.recorder.observations().to_wire()}

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(session.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: sent to the controller after this hook
            workeroutput[WIRE_KEY] = self.record()

    # The controller (or the one process): merge, then judge.

    def absorb(self, record: Mapping[str, Any]) -> None:
        for nodeid, location, module, function in record["checks"]:
            self.checks.setdefault(nodeid, Check(nodeid, tuple(location), module, function))
        self.tests.update(record["tests"])
        self.left_out.extend(reason for reason in record["left_out"] if reason not in self.left_out)
        self.merged.merge(Observations.from_wire(record["observations"]))

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist's: a worker is done (error: it crashed)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        record = (getattr(node, "workeroutput", None) or {}).get(WIRE_KEY)
        if error is not None or record is None:
            self.lost.append(str(getattr(node.gateway, "id", node)))
        else:
            self.absorb(record)

    def why_not_whole(self) -> tuple[str, str] | None:
        """None when every test of the directory ran and every worker's record arrived, else the checks' outcome and
        why: skipped when tests were left out or did not finish (a run that stopped early fails of its own), failed
        when a worker's record was lost (its tests may all have passed: the checks must not pass unjudged)."""
        if self.left_out:
            return "skipped", "; ".join(self.left_out)
        if self.lost:
            return "failed", f"worker(s) {', '.join(self.lost)} went down before handing over what their tests observed"
        unfinished = self.tests - self.finished
        if unfinished:
            return "skipped", f"{len(unfinished)} of its tests did not finish, e.g. {sorted(unfinished)[0]}"
        return None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        result = yield  # an interrupted run (-x, Ctrl-C) raises here: nothing is judged, as no last test ran
        if not hasattr(session.config, "workerinput"):  # the controller, or a run without xdist
            self.absorb(self.record())
            self.judge(session)
        return result

    def judge(self, session: pytest.Session) -> None:
        why_not = self.why_not_whole()
        checks = sorted(self.checks.values(), key=lambda c: c.nodeid)
        session.testscollected += len(checks)
        for check in checks:
            hook = session.config.hook
            hook.pytest_runtest_logstart(nodeid=check.nodeid, location=check.location)
            for when in ("setup", "call", "teardown"):
                outcome, longrepr, started = "passed", None, time.time()
                if when == "call" and why_not is not None:
                    outcome, reason = why_not
                    reason = f"reads what every test of {self._relative(session)} observed, and not every one ran: " \
                             f"{reason}"
                    longrepr = ((check.location[0], (check.location[1] or 0) + 1, f"Skipped: {reason}")
                                if outcome == "skipped" else f"not judged: {reason}")
                elif when == "call":
                    outcome, longrepr = self._call(check)
                hook.pytest_runtest_logreport(report=pytest.TestReport(
                    check.nodeid, check.location, {check.function: 1}, outcome, longrepr, when,
                    duration=time.time() - started, start=started, stop=time.time()))
            hook.pytest_runtest_logfinish(nodeid=check.nodeid, location=check.location)

    def _call(self, check: Check) -> tuple[str, Any]:
        try:
            check.run(self.merged)
        except pytest.skip.Exception as skipped:
            return "skipped", (check.location[0], (check.location[1] or 0) + 1, f"Skipped: {skipped.msg}")
        except (Exception, pytest.fail.Exception) as error:
            excinfo = pytest.ExceptionInfo.from_exception(error)
            here = Path(__file__)
            excinfo.traceback = excinfo.traceback.filter(lambda entry: Path(entry.path) != here)
            return "failed", excinfo.getrepr(style="long", funcargs=False, truncate_locals=True)
        return "passed", None

    def _relative(self, session: pytest.Session) -> str:
        directory = self.directory
        return str(directory.relative_to(session.config.rootpath) if directory.is_relative_to(session.config.rootpath)
                   else directory)
