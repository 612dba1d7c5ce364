"""The shared resolver's refusals, in order: 413, 415, 401, 403, then Powertools' validation (400). No AWS."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from functions.shared.auth import admin_only, require_group
from functions.shared.http import MAX_BODY_BYTES, DomainRouter, build_resolver
from functions.shared.routes import ADMIN, Route, Routes
from tests.support.events import claims_for, rest_event


class Thing(BaseModel):
    name: str = Field(min_length=1)


def resolver(*, public: bool = False):
    app = build_resolver(public=public)
    router = DomainRouter(Routes(
        "things",
        put_thing=Route("PUT", "/things/{thing_id}", group=ADMIN),
        note=Route("POST", "/things/{thing_id}/notes"),
        put_special=Route("PUT", "/things/special", group="editors"),
    ))

    @router.serve
    def put_thing(thing_id: str, thing: Thing) -> dict:
        return {"id": thing_id, **thing.model_dump()}

    @router.serve
    def note(thing_id: str, thing: Thing) -> dict:
        return {"id": thing_id}

    @router.serve
    def put_special(thing: Thing) -> dict:  # static: matched before the dynamic /things/<thing_id>
        return {"special": True}

    def wrapped(app, next_middleware):  # carries no `required_group`: only the middleware itself refuses
        return admin_only(app, next_middleware)

    @app.put("/legacy/<thing_id>", middlewares=[wrapped])
    def put_legacy(thing_id: str, thing: Thing) -> dict:
        return {"id": thing_id}

    app.include_router(router)
    return app


def call(app, method: str, path: str, resource: str, *, body=None, raw_body=None, groups=(), user="bob",
         content_type: str | None = None) -> tuple[int, dict]:
    event = rest_event(method, path, resource=resource, body=body, raw_body=raw_body,
                       claims=None if user is None else claims_for(user, groups))
    if content_type is not None:
        event["headers"]["Content-Type"] = content_type
        event["multiValueHeaders"] = {**(event.get("multiValueHeaders") or {}), "Content-Type": [content_type]}
    response = app.resolve(event, None)
    return response["statusCode"], json.loads(response["body"])


FORBIDDEN = {"error": {"code": "FORBIDDEN", "message": "this action needs the 'admin' group"}}


def test_require_group_marks_its_middleware():
    assert admin_only.required_group == "admin"
    assert require_group("editors").required_group == "editors"


@pytest.mark.parametrize("body", [{"name": "ok"}, {"name": ""}, {"other": 1}, {}])
def test_non_member_is_403_whatever_the_body(body):
    assert call(resolver(), "PUT", "/things/1", "/things/{thing_id}", body=body) == (403, FORBIDDEN)


def test_non_member_with_malformed_json_is_403():
    assert call(resolver(), "PUT", "/things/1", "/things/{thing_id}", raw_body="{") == (403, FORBIDDEN)


def test_member_still_gets_validation_then_success():
    app = resolver()
    status, body = call(app, "PUT", "/things/1", "/things/{thing_id}", body={"name": ""}, groups=("admin",))
    assert (status, body["error"]["code"]) == (400, "VALIDATION_FAILED")
    assert call(app, "PUT", "/things/1", "/things/{thing_id}", body={"name": "a"}, groups=("admin",)) == (
        200, {"id": "1", "name": "a"})


def test_the_early_403_is_the_middlewares_403():
    # The route whose middleware is not marked is refused by the middleware itself (after validation):
    # a valid body there shows what ForbiddenError has always produced.
    by_middleware = call(resolver(), "PUT", "/legacy/1", "/legacy/{thing_id}", body={"name": "a"})
    assert by_middleware == (403, FORBIDDEN)


def test_413_415_and_401_come_before_403():
    app = resolver()
    oversized = '{"name": "' + "x" * MAX_BODY_BYTES + '"}'
    assert call(app, "PUT", "/things/1", "/things/{thing_id}", raw_body=oversized)[0] == 413
    assert call(app, "PUT", "/things/1", "/things/{thing_id}", raw_body="name=x",
                content_type="application/x-www-form-urlencoded")[0] == 415
    assert call(app, "PUT", "/things/1", "/things/{thing_id}", body={}, user=None)[0] == 401


def test_a_public_resolver_still_asks_a_signed_out_caller_to_sign_in_on_a_group_route():
    status, body = call(resolver(public=True), "PUT", "/things/1", "/things/{thing_id}", body={}, user=None)
    assert (status, body["error"]["code"]) == (401, "UNAUTHORIZED")


def test_the_route_powertools_matches_decides_the_group():
    app = resolver()
    # the static route wins over the dynamic one, as in Powertools: its group is 'editors', not 'admin'
    status, body = call(app, "PUT", "/things/special", "/things/special", body={}, groups=("admin",))
    assert (status, body["error"]["message"]) == (403, "this action needs the 'editors' group")
    assert call(app, "PUT", "/things/special", "/things/special", body={"name": "a"}, groups=("editors",))[0] == 200
    # another method on the same path has no group: validation answers
    status, body = call(app, "POST", "/things/1/notes", "/things/{thing_id}/notes", body={})
    assert (status, body["error"]["code"]) == (400, "VALIDATION_FAILED")
    # no route at all: 404, not 403
    assert call(app, "DELETE", "/things/1", "/things/{thing_id}")[0] == 404
