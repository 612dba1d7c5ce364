"""The OpenAPI description at /docs (functions/shared/openapi.py): what a client reads there is what the API does.

Statuses per route are checked against what the functional suite observed (tests/functional/test_openapi_responses.py),
path names against the synthesized API (tests/infra/test_stack.py); here: the shape every operation shares, and the
constraints the description states agreeing with the validation.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from pydantic import TypeAdapter, ValidationError

from functions.platform.api import every_domain
from functions.shared.cursors import CURSOR_PATTERN, MAX_CURSOR_LENGTH, CursorCodec
from functions.shared.models import DAY_OR_HOUR_PATTERN, DAY_PATTERN, HOUR_PATTERN, MOMENT_PATTERN, JsonInt, stripped
from functions.shared.openapi import ERROR_REF
from tests.support.events import rest_event

platform_app = every_domain()  # every domain's routes, as /docs describes them

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


def test_a_cursor_is_schema_valid_only_in_the_shape_the_api_gives():
    (cursor,) = [
        p for p in SPEC["paths"]["/contacts/persons"]["get"]["parameters"] if p["name"] == "cursor"
    ]
    schema = cursor["schema"]["anyOf"][0]
    assert schema["pattern"] == CURSOR_PATTERN and schema["maxLength"] == MAX_CURSOR_LENGTH
    minted = CursorCodec(b"k" * 32).encode({"PK": "PERSON#1", "n": Decimal(7)}, "contacts.persons?")
    assert re.match(CURSOR_PATTERN, minted)
    for shapeless in ("", "0", "x.y", "e30." + "A" * 42, "e30.." + "A" * 43, "e30." + "A" * 42 + "="):
        assert not re.match(CURSOR_PATTERN, shapeless), shapeless


# What the fuzzer found (docs/adr/0062-schemathesis-fuzzes-the-description.md): each class of input schemathesis
# found refused although the description called it valid (or accepted although invalid) is stated here, once per class.
SCHEMAS = SPEC["components"]["schemas"]


def test_bounds_are_json_schema_words_so_year_0_is_schema_invalid():
    year = SCHEMAS["VehicleIn"]["properties"]["year"]
    assert (year["minimum"], year["maximum"]) == (1886, 2100)
    assert not re.search(r'"(?:ge|le|gt|lt)": ', json.dumps(SPEC))
    assert SCHEMAS["GameIn"]["properties"]["maxPlayers"]["minimum"] == 1


@pytest.mark.parametrize("schema", [f"functions__{domain}__models__{model}" for domain in ("users", "ecommerce")
                                    for model in ("SignUpIn", "EmailChangeIn")])
def test_an_email_states_its_pattern_so_an_empty_one_is_schema_invalid(schema):
    email = SCHEMAS[schema]["properties"]["email"]
    assert not re.match(email["pattern"], "") and not re.match(email["pattern"], "0" * 200)
    assert re.match(email["pattern"], " Bob@Example.com ")  # trimmed and lower-cased, as validation does


def test_strict_numbers_refuse_booleans_and_round_what_dynamodb_cannot_hold():
    from functions.order_entry.models import Cents, HireIn
    from functions.patterns.models import OrderIn

    with pytest.raises(ValidationError):
        TypeAdapter(Cents).validate_python(False)
    with pytest.raises(ValidationError):
        OrderIn.model_validate({"amount": False, "orderedAt": "2000-01-01T00:00:00Z", "status": "PLACED"})
    assert OrderIn.model_validate({"amount": 5e-324, "orderedAt": "2000-01-01T00:00:00Z",
                                   "status": "PLACED"}).amount == 0
    hire = {"employeeId": "1", "name": "Ann", "email": "a@x.io", "jobId": "J", "departmentId": "D",
            "warehouseId": "W", "hireDate": "2026-01-01", "salaryCents": 1, "commissionPct": 2.2250738585072014e-308}
    assert HireIn.model_validate(hire).commission_pct == 0


def test_poll_candidates_are_unique_items_as_validation_wants_them_distinct():
    assert SCHEMAS["PollIn"]["properties"]["candidates"]["uniqueItems"] is True


def test_order_entry_names_and_texts_state_that_spaces_alone_are_not_a_name():
    from functions.order_entry.models import NAME_PATTERN, Name

    assert not re.match(NAME_PATTERN, "   ") and re.match(NAME_PATTERN, " Ann ")
    assert TypeAdapter(Name).validate_python(" Ann ") == "Ann"


@pytest.mark.parametrize(("value", "valid"), [
    ("2026-12-01", True), ("2026-12-01T09", True), ("2026-12-01T24", False), ("2026-02-30", False), ("", False),
])
def test_timeslot_bounds_are_a_day_or_an_hour(value, valid):
    assert bool(re.match(DAY_OR_HOUR_PATTERN, value)) == valid


@pytest.mark.parametrize("value", [
    "2026-12-01", "2026-12-01T09:30", "2026-12-01T09:30:59", "2026-12-01T09:30:59.5Z", "2026-12-01T23:59:59+05:30",
])
def test_every_moment_the_pattern_admits_is_one_fromisoformat_reads(value):
    assert re.match(MOMENT_PATTERN, value)
    datetime.fromisoformat(value.replace("Z", "+00:00"))


@pytest.mark.parametrize("value", ["yesterday", "2026-12-01T09", "2026-12-01T24:00", "2026-12-01T09:30+24:00", ""])
def test_moments_fromisoformat_would_guess_at_are_schema_invalid(value):
    assert not re.match(MOMENT_PATTERN, value)


def test_the_abandoned_carts_day_is_a_real_day_so_an_empty_one_is_schema_invalid():
    (day,) = SPEC["paths"]["/cart/abandoned"]["get"]["parameters"]
    assert day["schema"]["pattern"] == DAY_PATTERN


def test_every_operation_documents_api_gateways_414():
    for method, path, op in OPERATIONS:
        assert op["responses"]["414"]["content"] == ERROR_CONTENT, (method, path)


def test_an_issue_change_needs_a_field_and_none_is_null():
    change = SCHEMAS["IssueChange"]
    assert change["minProperties"] == 1
    assert {p.get("type") for p in change["properties"].values()} == {"string"}  # null is not a change
