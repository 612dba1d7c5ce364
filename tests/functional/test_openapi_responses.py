"""/docs tells the truth about statuses: what every functional test observed is what the OpenAPI description says.

Whole-suite checks (tests/support/whole_suite.py): called once, when every functional test has run (on whichever
worker), with every `Client.call` answer of the suite merged, by API Gateway resource; skipped, saying why, when not
every one ran.
Both ways, per operation: every status a test got is documented; every status that only some routes give (success,
400, 403, 404, 409, a domain's own 413) was got by some test. A route declaring an error it cannot give, or giving
one it does not declare (its `responses=` in functions/<domain>/api.py), fails here.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from typing import Any

from functions.platform.api import every_domain
from functions.shared.openapi import AUTHENTICATED, GATEWAY, WITH_BODY, WITH_IDEMPOTENCY_KEY
from tests.support.whole_suite import Answer, Observations

# Statuses every authenticated route (or every route with a body) documents alike, from one mechanism each: proven
# once by these tests rather than on every route.
UNIFORM = {
    401: "test_authorization_before_validation.py::test_a_signed_out_caller_is_still_401_first; "
    "tests/unit/test_authorization_order.py (the Resolver refuses before any route)",
    413: "test_contacts_api.py::test_oversized_body_is_413, test_messaging_api.py (the Resolver, before any route)",
    415: "test_contacts_api.py::test_form_body_is_415_and_writes_nothing (the Resolver, before any route)",
    429: "test_cart_api.py, test_sessions_api.py, test_users_api.py: THROTTLED from ddb.translate_client_error",
    503: "test_contacts_api.py::test_a_database_outage_is_503_service_unavailable (ddb.translate_client_error)",
    414: "tests/e2e/test_hostile_input.py::test_a_url_over_api_gateways_limit_is_414 (the gateway, before any route)",
}
assert set(UNIFORM) == set(AUTHENTICATED) | (set(WITH_BODY) - {400}) | set(GATEWAY)
# A status a route documents only for a mechanism every such route shares (described alike): proven once too.
SHARED = {
    WITH_IDEMPOTENCY_KEY[409]: "test_contacts_api.py, test_messaging_api.py, test_connected_car_api.py, "
    "test_voting_api.py: IDEMPOTENCY_KEY_REUSED from functions/shared/idempotency.py create_once",
}


def spec_operations() -> dict[tuple[str, str], dict[str, Any]]:
    """Every operation /docs describes: every domain's routes included here, not by whichever test ran before (on
    xdist's controller, which calls these checks, no test module was imported)."""
    spec = json.loads(every_domain().get_openapi_json_schema())
    return {(method.upper(), path): op for path, ops in spec["paths"].items() for method, op in ops.items()}


def documented() -> dict[tuple[str, str], set[int]]:
    return {key: {int(status) for status in op["responses"]} for key, op in spec_operations().items()}


def observed(answers: Sequence[Answer], operations: Collection[tuple[str, str]]) -> dict[tuple[str, str], set[int]]:
    """Statuses got per operation. Calls to no operation (a path no route has: API Gateway answers those itself)
    are left out; tests/infra/test_stack.py checks that the operations are the API's routes."""
    seen: dict[tuple[str, str], set[int]] = defaultdict(set)
    for answer in answers:
        if (answer.method, answer.resource) in operations:
            seen[(answer.method, answer.resource)].add(answer.status)
    return seen


def codes(answers: Sequence[Answer], method: str, path: str, status: int) -> list[str]:
    return sorted({a.code or "-" for a in answers if (a.method, a.resource, a.status) == (method, path, status)})


def test_every_status_a_test_got_is_documented(observations: Observations):
    docs = documented()
    seen = observed(observations.answers, docs)
    undocumented = sorted(
        f"{method} {path}: {status} {codes(observations.answers, method, path, status)}"
        for (method, path), statuses in seen.items()
        for status in sorted(statuses - docs[(method, path)])
    )
    assert undocumented == [], "answers /docs does not mention (declare them in the route's responses=):\n" + (
        "\n".join(undocumented)
    )


def test_every_error_code_a_test_got_is_named_by_its_status_description(observations: Observations):
    operations = spec_operations()
    unnamed = sorted({
        f"{answer.method} {answer.resource}: {answer.status} {answer.code}"
        for answer in observations.answers
        if (answer.method, answer.resource) in operations and answer.status >= 400
        and answer.code not in operations[(answer.method, answer.resource)]["responses"].get(str(answer.status), {})
        .get("description", "")
    })
    assert unnamed == [], "error codes /docs does not name (add them to the route's responses= description):\n" + (
        "\n".join(unnamed)
    )


def test_every_route_specific_status_documented_was_got_by_some_test(observations: Observations):
    operations = spec_operations()
    seen = observed(observations.answers, operations)
    unexercised = sorted(
        f"{method} {path}: {status}"
        for (method, path), op in operations.items()
        for status, response in op["responses"].items()
        if int(status) not in UNIFORM and response["description"] not in SHARED
        and int(status) not in seen.get((method, path), set())
    )
    assert unexercised == [], "documented answers no functional test got (test them, or drop the declaration):\n" + (
        "\n".join(unexercised)
    )
