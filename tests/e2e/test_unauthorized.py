"""Every route that needs a token, as the local API Gateway answers without a good one: 401 UNAUTHORIZED whose
message says why (no token, not a JWT, bad signature, expired and when, wrong audience) and how to get one, with an
RFC 6750 `WWW-Authenticate` challenge. The routes come from the OpenAPI description /docs serves."""

from __future__ import annotations

import re
import time

import jwt
import pytest

from local.cognito import id_token_claims, load_keys, sign

HOW = "make token USER=<name> prints one for make run"


@pytest.fixture(scope="module")
def operations(api) -> list[tuple[str, str]]:
    description = api.call("GET", "/docs?format=json", user=None).json()
    return [(method.upper(), re.sub(r"{\w+}", "x1", path)) for path, ops in description["paths"].items()
            for method, op in ops.items() if op.get("security") != []]


def test_every_route_says_why_a_request_without_a_good_token_is_refused(api, operations):
    expired = sign(id_token_claims("alice", ttl=60, now=int(time.time()) - 3600), load_keys(api.keys_dir))
    expired_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(jwt.decode(expired, options={
        "verify_signature": False})["exp"]))
    cases = [
        (None, "no ID token", 'Bearer realm="blueprints"'),
        ("not-a-jwt", "the token is not a JWT", 'error="invalid_token"'),
        (expired, f"the token expired at {expired_at}", f'error_description="the token expired at {expired_at}"'),
        (sign({**id_token_claims("alice"), "aud": "another-app"}, load_keys(api.keys_dir)), "wrong audience",
         'error="invalid_token"'),
    ]
    assert len(operations) >= 100
    for method, path in operations:
        for token, why, challenge in cases:
            reply = api.call(method, path, user=None, token=token, json={} if method in ("POST", "PUT") else None)
            assert reply.status_code == 401, (method, path, reply.text)
            error = reply.json()["error"]
            assert error["code"] == "UNAUTHORIZED" and error["message"].startswith(why), (method, path, error)
            assert HOW in error["message"]
            assert challenge in reply.headers["WWW-Authenticate"], (method, path, reply.headers)
