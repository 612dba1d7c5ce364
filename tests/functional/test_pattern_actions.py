"""Each access pattern's `actions` (functions/<domain>/domain.toml) are what its handlers call, both ways.

The function's grants are the union of its patterns' actions, and test_grants.py proves the union; this proves each
row: a handler called through the test client (`Client.call`) may use only the DynamoDB actions, on the tables and
indexes, that the pattern declaring it names, and each action a pattern names is used by some test of its handlers.
So the page's pattern table (rendered from the rows) says what each route really does.

A whole-suite check (tests/support/whole_suite.py): judged once every functional test has run, on whichever worker.
"""

from __future__ import annotations

from collections import defaultdict

from functions.shared.domain import load, names
from tests.support.whole_suite import Observations

Target = tuple[str, str, str | None]  # (action, table construct id, index)


def _declared() -> dict[tuple[str, str, str], tuple[str, set[Target]]]:
    """(domain, method, path) -> (the pattern declaring its handler, what that pattern's actions allow)."""
    declared = {}
    for domain in names():
        spec = load(domain)
        by_handler = {handler: pattern for pattern, handlers in spec.handlers.items() for handler in handlers}
        for route in spec.routes:
            pattern = by_handler.get(route.name)
            if pattern is None:
                continue
            allowed = {(action, access.table, access.index) for access in spec.access[pattern]
                       for action in access.actions}
            declared[(domain, route.method, route.path)] = (pattern, allowed)
    return declared


def test_each_handler_calls_only_what_its_pattern_declares(observations: Observations):
    declared = _declared()
    undeclared = sorted(
        f"{call.domain}: {call.method} {call.resource} ({declared[key][0]!r}) called {call.action} on "
        f"{call.table}{'/' + call.index if call.index else ''}"
        for call in observations.route_calls
        if (key := (call.domain, call.method, call.resource)) in declared
        and (call.action, call.table, call.index) not in declared[key][1]
    )
    assert undeclared == [], "calls their pattern's `actions` do not name (add them to the row):\n" + "\n".join(
        undeclared)


def test_each_action_a_pattern_names_is_used_by_a_test_of_its_handlers(observations: Observations):
    used: dict[tuple[str, str], set[Target]] = defaultdict(set)
    declared = _declared()
    for call in observations.route_calls:
        key = (call.domain, call.method, call.resource)
        if key in declared:
            used[(call.domain, declared[key][0])].add((call.action, call.table, call.index))
    unused = []
    for domain in names():
        spec = load(domain)
        for pattern, accesses in spec.access.items():
            for access in accesses:
                for action in access.actions:
                    if (action, access.table, access.index) not in used[(domain, pattern)]:
                        where = f"{access.table}/{access.index}" if access.index else access.table
                        unused.append(f"{domain}: {pattern!r} names {action} on {where}")
    assert unused == [], "actions a pattern names that no test of its handlers used (remove, or test):\n" + (
        "\n".join(unused))
