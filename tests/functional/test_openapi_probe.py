"""A probe of every operation /docs describes, built from the description alone: what it calls invalid is refused as
it says, under the name it gives, and what it reserves for a group is refused to others.

For each parameter a request could get wrong (functions/shared/openapi.py `can_be_invalid`), one request breaks that
parameter only as the description allows: a missing required query parameter or header, a value outside the pattern,
the lengths, the bounds or the choices, or of another type. The answer must be 400 VALIDATION_FAILED naming that
parameter as the description names it (`path.personId`). The calls go through the platform function, which serves
every domain's routes, as the local runtime's /docs "Try it out" would; validation refuses before any AWS call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote

import pytest
from moto import mock_aws

from functions.platform import api as platform_api
from functions.shared.domain import load as load_domain
from functions.shared.domain import names as domain_names
from functions.shared.cursors import CURSOR_FIELD
from functions.shared.openapi import api_gateway_path, can_be_invalid, required_groups
from tests.functional.conftest import Client

SPEC = json.loads(platform_api.every_domain().get_openapi_json_schema())
OPERATIONS = [(method.upper(), path, op) for path, ops in SPEC["paths"].items() for method, op in ops.items()]
PROBES = [
    (method, path, op, parameter)
    for method, path, op in OPERATIONS
    for parameter in op.get("parameters", [])
    if can_be_invalid(parameter)
]
ROUTES = {
    (route.method, api_gateway_path(route.openapi_path)): route
    for route in platform_api.every_domain()._static_routes + platform_api.every_domain()._dynamic_routes
}
GROUP_ROUTES = [(method, path) for method, path, _ in OPERATIONS if required_groups(ROUTES[(method, path)])]
# Fills the parameters a probe does not break: validation reports every broken one, so they need not be valid.
FILLER = "x1"


def _api_resources() -> list[str]:
    """Every domain's API Gateway resources, as each functions/<domain>/domain.toml declares its routes."""
    return [route.path for name in domain_names() for route in load_domain(name).routes]


@pytest.fixture(scope="module")
def api() -> Iterator[Client]:
    """One moto for the module: validation and the group check refuse before any AWS call (none is expected)."""
    with mock_aws():
        yield Client(platform_api.lambda_handler, _api_resources())


def invalid_value(parameter: dict[str, Any]) -> str | None:
    """A value the description says is invalid for `parameter` (URL-encoded), or None to leave it out."""
    if parameter.get("required") and parameter["in"] != "path":
        return None
    schema = parameter["schema"]
    (kind,) = [k for k in schema.get("anyOf", [schema]) if k.get("type") != "null"] or [schema]
    if "enum" in kind or "const" in kind:
        return "not-a-choice"
    if kind.get("type") in ("integer", "number", "boolean"):
        return "x"
    too_long = kind.get("maxLength", 0) + 1
    candidates = ["~", "%23", "%20", "-", "0", "1" * too_long, "x" * too_long]
    if kind.get("minLength", 0) > 1:
        candidates.append("x" * (kind["minLength"] - 1))
    if kind.get("format") == "date":
        candidates.append("2026-02-30")
    for candidate in candidates:
        if _breaks(kind, unquote(candidate)):
            return candidate
    raise AssertionError(f"no invalid value found for {parameter['name']}: {kind}")


def _breaks(kind: dict[str, Any], value: str) -> bool:
    return (
        ("pattern" in kind and re.search(kind["pattern"], value) is None)
        or len(value) > kind.get("maxLength", len(value))
        or len(value) < kind.get("minLength", 0)
        or kind.get("format") == "date" and value == "2026-02-30"
    )


def probe_request(path: str, op: dict[str, Any], broken: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The URL and headers of a request where only `broken` is invalid (or missing)."""
    value = invalid_value(broken)
    query: list[str] = []
    headers: dict[str, str] = {}
    url = path
    for parameter in op.get("parameters", []):
        name, where = parameter["name"], parameter["in"]
        given = value if parameter is broken else FILLER
        if where == "path":
            url = url.replace("{" + name + "}", given or FILLER)
        elif given is not None and (parameter is broken or parameter.get("required")):
            if where == "query":
                query.append(f"{quote(name)}={given}")
            elif where == "header":
                headers[name] = unquote(given)
    return url + ("?" + "&".join(query) if query else ""), headers


@pytest.mark.parametrize(
    ("method", "path", "op", "parameter"), PROBES, ids=[f"{m} {p} {x['in']}.{x['name']}" for m, p, _, x in PROBES],
)
def test_an_input_the_description_calls_invalid_is_a_400_naming_it(api, method, path, op, parameter):
    url, headers = probe_request(path, op, parameter)
    body = {} if "requestBody" in op else None
    reply = api.call(method, url, body=body, headers=headers, groups=("admin", "vehicle"))
    assert reply.status == 400, (url, reply.body)
    # A cursor off its shape, when it is all that is wrong, is refused under the one code every cursor the list did
    # not give gets (functions/shared/cursors.py); anything else (fillers of other parameters may be invalid too)
    # under VALIDATION_FAILED.
    only_the_cursor = {d["field"] for d in reply.body["error"]["details"]} == {CURSOR_FIELD}
    expected = "INVALID_CURSOR" if only_the_cursor else "VALIDATION_FAILED"
    assert reply.body["error"]["code"] == expected, (url, reply.body)
    fields = {d["field"].lower() for d in reply.body["error"]["details"]}
    assert f"{parameter['in']}.{parameter['name']}".lower() in fields, (url, fields)


BODY_OPERATIONS = [(method, path) for method, path, op in OPERATIONS if "requestBody" in op]


@pytest.mark.parametrize(("method", "path"), BODY_OPERATIONS, ids=[f"{m} {p}" for m, p in BODY_OPERATIONS])
def test_a_body_that_is_not_the_documented_object_is_a_400(api, method, path):
    url = re.sub(r"{\w+}", FILLER, path)
    reply = api.call(method, url, body=[], groups=("admin", "vehicle"))
    assert (reply.status, reply.body["error"]["code"]) == (400, "VALIDATION_FAILED"), (url, reply.body)
    assert any(d["field"].startswith("body") for d in reply.body["error"]["details"])


def test_every_operation_documenting_a_400_for_its_inputs_is_probed():
    probed = {(m, p) for m, p, _, _ in PROBES} | set(BODY_OPERATIONS)
    documented = {(m, p) for m, p, op in OPERATIONS
                  if "details name the fields" in op["responses"].get("400", {}).get("description", "")}
    assert documented == probed
    # and every operation documents the unknown query parameter's 400 (probed below on each)
    assert all("does not take" in op["responses"]["400"]["description"] for _, _, op in OPERATIONS)


@pytest.mark.parametrize(("method", "path"), GROUP_ROUTES, ids=[f"{m} {p}" for m, p in GROUP_ROUTES])
def test_a_route_for_a_group_is_403_to_others_as_documented(api, method, path):
    url = re.sub(r"{\w+}", FILLER, path)
    reply = api.call(method, url, body={} if method in ("POST", "PUT", "PATCH") else None, groups=())
    assert (reply.status, reply.body["error"]["code"]) == (403, "FORBIDDEN")
    (group,) = required_groups(ROUTES[(method, path)])
    assert f"needs the '{group}' group" in SPEC["paths"][path][method.lower()]["responses"]["403"]["description"]


def misspelt(op: dict[str, Any]) -> str:
    """A query parameter the operation does not take: its first query parameter's name in lower case with a letter
    dropped (`lastName` -> `lastnme`), or a made-up one where it takes none."""
    names = [p["name"] for p in op.get("parameters", []) if p["in"] == "query"]
    return (names[0].lower()[:-2] + names[0][-1].lower()) if names and len(names[0]) > 2 else "limt"


@pytest.mark.parametrize(("method", "path", "op"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS])
def test_a_query_parameter_the_route_does_not_take_is_a_400_naming_it(api, method, path, op):
    """Not ignored: `?lastname=Smith` would otherwise answer every person, `?limt=2` the whole list. Refused before
    the route's own parameters are checked, whatever else is wrong with the request."""
    name = misspelt(op)
    url = re.sub(r"{\w+}", FILLER, path) + f"?{name}=1"
    reply = api.call(method, url, body={} if "requestBody" in op else None, groups=("admin", "vehicle"))
    assert (reply.status, reply.body["error"]["code"]) == (400, "VALIDATION_FAILED"), (url, reply.body)
    assert [d["field"] for d in reply.body["error"]["details"]] == [f"query.{name}"]
    assert f"unknown query parameter(s): {name}" in reply.body["error"]["message"]
    assert "400" in op["responses"], "the description says the operation can answer 400"
