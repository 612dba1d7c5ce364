"""Client input that used to crash the shared resolver (a 502) is a 4xx with the error envelope, after the refusals
that come first (413, 415, 401, 403). No AWS: a resolver with one admin route and one route for any signed-in user."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from functions.shared.http import MAX_BODY_BYTES, DomainRouter, Resolver, build_resolver
from functions.shared.routes import ADMIN, Route, Routes
from tests.support.events import claims_for, rest_event


class Thing(BaseModel):
    name: str = Field(min_length=1)
    size: int = 0


def resolver() -> Resolver:
    app = build_resolver()
    router = DomainRouter(Routes("things", put_thing=Route("PUT", "/things/{thing_id}", group=ADMIN),
                                 note=Route("POST", "/things/{thing_id}/notes")))

    @router.serve
    def put_thing(thing_id: str, thing: Thing) -> dict:
        return {"id": thing_id}

    @router.serve
    def note(thing_id: str, thing: Thing) -> dict:
        return {"id": thing_id, "name": thing.name}

    app.include_router(router)
    return app


ROUTES = {"admin route": ("PUT", "/things/1", "/things/{thing_id}"),
          "user route": ("POST", "/things/1/notes", "/things/{thing_id}/notes")}
DEEP = "[" * 30_000 + "]" * 30_000  # thousands deep, inside the 64 KB limit
HOSTILE_BODIES = {
    "not UTF-8": b"\xb0",
    "not UTF-8 after valid JSON": b'{"name": "caf\xe9"}',
    "nested thousands deep": DEEP,
    "nested inside an object": '{"name": ' + DEEP + "}",
    "an integer of 5000 digits": '{"name": "a", "size": ' + "7" * 5000 + "}",
}


def call(method: str, path: str, resource: str, *, body: str | bytes, groups: tuple[str, ...]) -> tuple[int, dict]:
    # bytes that are not UTF-8 arrive base64-encoded, as the gateway's event builder encodes them
    event = rest_event(method, path, resource=resource, raw_body=body, claims=claims_for("bob", groups))
    response = resolver().resolve(event, None)
    return response["statusCode"], json.loads(response["body"])


def test_the_hostile_bodies_fit_under_the_size_limit():
    assert all(len(b if isinstance(b, bytes) else b.encode()) <= MAX_BODY_BYTES for b in HOSTILE_BODIES.values())


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body", HOSTILE_BODIES)
def test_an_unreadable_body_is_400_malformed_json(route, body):
    method, path, resource = ROUTES[route]
    status, answer = call(method, path, resource, body=HOSTILE_BODIES[body], groups=("admin",))
    assert status == 400, answer
    assert answer["error"]["code"] == "MALFORMED_JSON" and answer["error"]["message"]


@pytest.mark.parametrize("body", HOSTILE_BODIES)
def test_a_non_admin_is_403_first_whatever_the_body(body):
    method, path, resource = ROUTES["admin route"]
    assert call(method, path, resource, body=HOSTILE_BODIES[body], groups=()) == (
        403, {"error": {"code": "FORBIDDEN", "message": "this action needs the 'admin' group"}})


def test_a_readable_utf8_body_still_reaches_the_route():
    method, path, resource = ROUTES["user route"]
    assert call(method, path, resource, body='{"name": "café"}', groups=()) == (200, {"id": "1", "name": "café"})


@pytest.mark.parametrize(("raw", "decoded"), [("a%40b.com", "a@b.com"), ("a%2Bb%40c.com", "a+b@c.com"),
                                              ("a+b@c.com", "a+b@c.com"), ("a%2Fb", "a/b"), ("50%25", "50%")])
def test_a_percent_encoded_path_parameter_reaches_the_route_decoded(raw, decoded):
    # API Gateway REST keeps the path percent-encoded in `event.path`, where Powertools reads parameters from
    event = rest_event("POST", f"/things/{raw}/notes", resource="/things/{thing_id}/notes", body={"name": "n"},
                       claims=claims_for("bob"))
    response = resolver().resolve(event, None)
    assert (response["statusCode"], json.loads(response["body"])["id"]) == (200, decoded)


def test_every_domain_serves_through_the_shared_resolver():
    apis = sorted(Path("functions").glob("*/api.py"))
    assert len(apis) >= 12
    for path in apis:
        module = importlib.import_module(f"functions.{path.parent.name}.api")
        assert isinstance(module.app, Resolver), path


def test_a_route_the_function_does_not_serve_names_the_method_and_path():
    # As API Gateway's MISSING_AUTHENTICATION_TOKEN template says it (infra/constructs/rest_api.py): with the stage
    event = rest_event("DELETE", "/things/a/notes", resource="/things/{thing_id}/notes", claims=claims_for("bob"))
    response = resolver().resolve(event, None)
    assert response["statusCode"] == 404
    assert json.loads(response["body"])["error"] == {"code": "ROUTE_NOT_FOUND",
                                                     "message": "no route matches DELETE /dev/things/a/notes"}
