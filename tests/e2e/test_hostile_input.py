"""Input a fuzzer sends, over HTTP through the local gateway: JSON errors in the envelope, never a 502 or an HTML
page; percent-encoded path parameters reach the route decoded."""

from __future__ import annotations

import uuid

import pytest

ADMIN = ("admin",)


@pytest.mark.parametrize(("method", "path", "groups"), [
    ("POST", "/contacts/persons", ADMIN),  # an admin route
    ("POST", "/users", ()),  # a route for any signed-in user
])
def test_a_body_that_is_not_utf8_is_400_malformed_json(api, method, path, groups):
    reply = api.call(method, path, groups=groups, data=b"\xb0", headers={"Content-Type": "application/json"})
    assert (reply.status_code, reply.json()["error"]["code"]) == (400, "MALFORMED_JSON"), reply.text


def test_a_body_that_is_not_utf8_from_a_non_admin_is_403(api):
    reply = api.call("POST", "/contacts/persons", data=b"\xb0", headers={"Content-Type": "application/json"})
    assert (reply.status_code, reply.json()["error"]["code"]) == (403, "FORBIDDEN"), reply.text


def test_a_cursor_holding_a_non_ascii_character_is_400(api):
    reply = api.call("GET", "/ecommerce/customers/alice/orders?cursor=x.%E2%98%83")
    assert (reply.status_code, reply.json()["error"]["code"]) == (400, "INVALID_CURSOR"), reply.text


def test_a_well_shaped_cursor_the_api_did_not_sign_is_400_invalid_cursor(api):
    # The description states the shape (schema-valid); only the signature tells: the documented 400 INVALID_CURSOR.
    reply = api.call("GET", "/ecommerce/customers/alice/orders", params={"cursor": "e30." + "A" * 43})
    assert (reply.status_code, reply.json()["error"]["code"]) == (400, "INVALID_CURSOR"), reply.text


def test_trace_is_a_json_route_not_found(api, runtime):
    reply = api.call("TRACE", "/contacts/persons")
    assert (reply.status_code, reply.json()["error"]["code"]) == (404, "ROUTE_NOT_FOUND"), reply.text
    # rendered from the synthesized MISSING_AUTHENTICATION_TOKEN gateway response, as API Gateway renders it
    assert reply.json()["error"]["message"] == f"no route matches TRACE /{runtime.stage}/contacts/persons"
    unknown = api.call("GET", "/contacts/nothing-here")
    assert unknown.json()["error"]["message"] == f"no route matches GET /{runtime.stage}/contacts/nothing-here"


def test_an_email_with_at_and_plus_is_found_encoded_or_not(api):
    user = f"u{uuid.uuid4().hex[:10]}"
    email = f"{user}+news@example.com"
    signed_up = api.call("POST", "/users", user=user, json={"userId": user, "email": email})
    assert signed_up.status_code == 201, signed_up.text
    for path in (email, email.replace("@", "%40").replace("+", "%2B")):
        reply = api.call("GET", f"/users/by-email/{path}", user="root", groups=ADMIN)
        assert (reply.status_code, reply.json()["userId"]) == (200, user), (path, reply.text)


def test_a_url_over_api_gateways_limit_is_414(api):
    # Every operation documents it (functions/shared/openapi.py GATEWAY): the gateway answers before any route.
    reply = api.call("GET", "/contacts/persons", params={"lastName": "x" * 10_300})
    assert (reply.status_code, reply.json()["error"]["code"]) == (414, "BAD_REQUEST"), reply.text
