"""API Gateway's Cognito user pool authorizer (COGNITO_USER_POOLS): the token from the method's identity source header,
checked as API Gateway checks an ID token (signature by the pool's key, issuer, audience, expiry, `token_use`), its
claims then handed to the integration. The pool and its tokens: local/cognito.py.

API Gateway answers any refusal with "Unauthorized"; locally `InvalidToken` says why (README, "Who may call what").
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jwt

from local.cloudformation.resources import USER_POOL_CLIENT_ID
from local.cognito import ISSUER, load_keys

LEEWAY_SECONDS = 2


class InvalidToken(Exception):
    """The token must not pass the authorizer. `reason` is one of REASONS; the message says what, in words a person
    can act on (no quotes or backslashes: it goes into a JSON template and a WWW-Authenticate header as is)."""

    def __init__(self, message: str, reason: str = "malformed"):
        super().__init__(message)
        self.reason = reason


REASONS = ("missing", "malformed", "bad signature", "expired", "wrong audience", "wrong issuer", "not an ID token")


def bearer_token(value: str | None) -> str:
    """The token in the identity source header's value, with or without its `Bearer ` scheme ("" if none)."""
    value = (value or "").strip()
    return value[7:].strip() if value[:7].lower() == "bearer " else value


def www_authenticate(error: InvalidToken) -> str:
    """RFC 6750 section 3: no error code when the request had no token at all, `invalid_token` otherwise."""
    if error.reason == "missing":
        return 'Bearer realm="blueprints"'
    return f'Bearer realm="blueprints", error="invalid_token", error_description="{error}"'


def verify_token(token: str, *, keys_dir: Path | None = None) -> dict[str, Any]:
    """Claims of a valid local ID token; `InvalidToken` naming why for anything the authorizer must reject."""
    if not token:
        raise InvalidToken("no ID token: send the header Authorization: Bearer <ID token>", "missing")
    try:
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"the token is not a JWT (three base64url parts): {_plain(exc)}", "malformed") from exc
    try:
        public_key = load_keys(keys_dir).public_key
    except TypeError as exc:  # the pool's key file is not an RSA key: no token can pass
        raise InvalidToken(str(exc)) from exc
    try:
        claims = jwt.decode(token, public_key, algorithms=["RS256"], issuer=ISSUER, audience=USER_POOL_CLIENT_ID,
                            leeway=LEEWAY_SECONDS, options={"require": ["exp", "iat", "iss", "token_use"]})
    except jwt.ExpiredSignatureError as exc:
        expired = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(unverified.get("exp", 0))))
        raise InvalidToken(f"the token expired at {expired}", "expired") from exc
    except jwt.InvalidSignatureError as exc:
        raise InvalidToken("bad signature: the token was not signed by this user pool", "bad signature") from exc
    except jwt.InvalidAudienceError as exc:
        raise InvalidToken(f"wrong audience: the token was issued to the client {_plain(unverified.get('aud'))}, "
                           "not to this API's", "wrong audience") from exc
    except jwt.InvalidIssuerError as exc:
        raise InvalidToken(f"wrong issuer: the token comes from {_plain(unverified.get('iss'))}, not this user pool",
                           "wrong issuer") from exc
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"the token is malformed: {_plain(exc)}", "malformed") from exc
    if claims.get("token_use") != "id":
        raise InvalidToken(f"not an ID token: token_use is {_plain(claims.get('token_use'))}, expected id",
                           "not an ID token")
    return claims


def _plain(value: Any) -> str:
    """A value for a message that goes into a JSON template and a WWW-Authenticate header as is: only the characters
    RFC 6750 allows in error_description (%x20-21 / %x23-5B / %x5D-7E), anything else as `?`."""
    return "".join(c if 0x20 <= ord(c) <= 0x7E and c not in '"\\' else "?" for c in str(value))
