"""The OpenAPI description at /docs (functions/shared/openapi.py): what a client reads there is what the API does.

Statuses per route are checked against what the functional suite observed (tests/functional/test_openapi_responses.py),
path names against the synthesized API (tests/infra/test_stack.py); here: the shape every operation shares, and the
constraints the description states agreeing with the validation.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest
from pydantic import TypeAdapter, ValidationError

from functions.platform.api import app as platform_app
from functions.shared.models import DAY_PATTERN, HOUR_PATTERN, JsonInt, stripped
from functions.shared.openapi import ERROR_REF
from tests.support.events import rest_event

SPEC = json.loads(platform_app.get_openapi_json_schema())
OPERATIONS = [
    (method.upper(), path, op) for path, ops in SPEC["paths"].items() for method, op in ops.items()
]
ERROR_CONTENT = {"application/json": {"schema": {"$ref": ERROR_REF}}}


def test_no_operation_documents_422_or_powertools_validation_schemas():
    assert not [(m, p) for m, p, op in OPERATIONS if "422" in op["responses"]]
    assert not {"HTTPValidationError", "ValidationError"} & set(SPEC["components"]["schemas"])
    assert set(SPEC["components"]["schemas"]["Error"]["properties"]) == {"error"}


def test_every_operation_needs_the_bearer_token_and_documents_the_uniform_errors():
    assert SPEC["security"] == [{"bearer": []}]
    assert SPEC["components"]["securitySchemes"]["bearer"] | {"description": ""} == {
        "type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "",
    }
    for method, path, op in OPERATIONS:
        for status in ("401", "429", "503"):
            assert op["responses"][status]["content"] == ERROR_CONTENT, (method, path, status)


@pytest.mark.parametrize(("method", "path", "op"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS])
def test_each_operation_documents_the_errors_its_inputs_can_cause(method, path, op):
    responses = op["responses"]
    assert any(s.startswith("2") for s in responses), "a success is documented"
    errors = {s for s in responses if s >= "400"}
    assert all(responses[s]["content"] == ERROR_CONTENT for s in errors)
    assert all(re.match(rf"^{s} [A-Z_]+", responses[s]["description"]) for s in errors), "descriptions name the codes"
    if "requestBody" in op:
        assert {"400", "413", "415"} <= errors
    if op.get("parameters"):
        assert "400" in errors
    if any(p["name"] == "Idempotency-Key" for p in op.get("parameters", [])):
        assert "IDEMPOTENCY_KEY_REUSED" in responses["409"]["description"]
    if "204" in responses:
        assert "content" not in responses["204"]


def test_routes_for_admins_document_403():
    admin_routes = [
        (route.method, route.openapi_path) for route in platform_app._static_routes + platform_app._dynamic_routes
        if any(getattr(m, "required_group", None) == "admin" for m in route.middlewares or ())
    ]
    assert len(admin_routes) > 5
    described = {(m, p): op for m, p, op in OPERATIONS}
    for method, path in admin_routes:
        op = described[(method, re.sub(r"{(\w+)}", lambda g: "{" + _camel(g.group(1)) + "}", path))]
        assert "403 FORBIDDEN: needs the 'admin' group" in op["responses"]["403"]["description"]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def test_summaries_say_what_the_route_does_not_where_it_is():
    for method, path, op in OPERATIONS:
        summary = op.get("summary", "")
        assert summary and method not in summary.split() and "/" not in summary, (method, path, summary)
    assert len({op["summary"] for _, _, op in OPERATIONS}) > len(OPERATIONS) * 0.8  # not one phrase for all


def test_swagger_ui_keeps_the_token_it_was_given():
    event = rest_event("GET", "/docs", resource="/docs", claims=None)
    page = platform_app.resolve(event, None)
    assert page["statusCode"] == 200
    assert "persistAuthorization: true" in page["body"]


# --- constraints the description states are the ones validation applies -------------------------------------

def test_the_day_and_hour_patterns_accept_exactly_the_calendar():
    day_pattern, hour_pattern = re.compile(DAY_PATTERN), re.compile(HOUR_PATTERN)
    candidates = [f"{y:04d}-{m:02d}-{d:02d}" for y in (0, 1, 4, 100, 1900, 2000, 2024, 2026, 2100, 2400, 9999)
                  for m in range(14) for d in range(33)]
    for text in candidates:
        assert bool(day_pattern.match(text)) == _is_day(text), text
    assert hour_pattern.match("2024-02-29T23") and not hour_pattern.match("2024-02-29T24")
    assert not hour_pattern.match("0000-00-00T00") and not hour_pattern.match("2026-02-29T00")
    day = date(2024, 1, 1)
    assert all(day_pattern.match((day + timedelta(n)).isoformat()) for n in range(800))


def _is_day(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def test_an_integer_given_as_a_whole_float_is_that_integer_and_nothing_else_is():
    integer = TypeAdapter(JsonInt)
    assert integer.validate_json("1944.0") == 1944
    assert integer.json_schema() == {"type": "integer"}
    for refused in ('"1944"', "true", "1944.5"):
        with pytest.raises(ValidationError):
            TypeAdapter(_strict(JsonInt)).validate_json(refused)


def _strict(kind):
    from typing import Annotated

    from pydantic import Field

    return Annotated[kind, Field(strict=True)]


@pytest.mark.parametrize(("min_length", "text", "valid"), [
    (1, "   ", False), (1, " a ", True), (2, " a ", False), (2, " a b ", True), (3, "ab ", False), (3, " a b", True),
])
def test_stripped_text_states_in_its_pattern_what_validation_refuses(min_length, text, valid):
    kind = stripped(min_length, 50)
    schema = TypeAdapter(kind).json_schema()
    states_valid = len(text) >= schema["minLength"] and re.search(schema["pattern"], text) is not None
    try:
        TypeAdapter(kind).validate_python(text)
        accepted = True
    except ValidationError:
        accepted = False
    assert states_valid == accepted == valid


def test_an_empty_cursor_is_schema_invalid_as_it_is_refused():
    (cursor,) = [
        p for p in SPEC["paths"]["/contacts/persons"]["get"]["parameters"] if p["name"] == "cursor"
    ]
    assert cursor["schema"]["anyOf"][0]["minLength"] == 1
