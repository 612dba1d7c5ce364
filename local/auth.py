"""Local stand-in for the Cognito user pool: RS256 ID tokens signed and verified with a local key.

Why: the API's methods use a COGNITO_USER_POOLS authorizer and there is no Cognito locally, so the runtime verifies
tokens against a key pair kept in `<repo>/.local/keys/`, and `make token` mints tokens shaped like Cognito ID tokens
(same claims, same issuer format): the functions see the same `requestContext.authorizer.claims` as on AWS.
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from functions.shared.identity import user_sub
from local.resources import USER_POOL_CLIENT_ID, USER_POOL_ID

ISSUER = f"https://cognito-idp.us-east-1.amazonaws.com/{USER_POOL_ID}"
LEEWAY_SECONDS = 2
DEFAULT_TTL = 3600
DEFAULT_KEYS_DIR = Path(__file__).resolve().parent.parent / ".local" / "keys"


class InvalidToken(Exception):
    """The token must not pass the authorizer. `reason` is one of REASONS; the message says what, in words a person
    can act on (no quotes or backslashes: it goes into a JSON template and a WWW-Authenticate header as is)."""

    def __init__(self, message: str, reason: str = "malformed"):
        super().__init__(message)
        self.reason = reason


REASONS = ("missing", "malformed", "bad signature", "expired", "wrong audience", "wrong issuer", "not an ID token")


def www_authenticate(error: InvalidToken) -> str:
    """RFC 6750 section 3: no error code when the request had no token at all, `invalid_token` otherwise."""
    if error.reason == "missing":
        return 'Bearer realm="blueprints"'
    return f'Bearer realm="blueprints", error="invalid_token", error_description="{error}"'


@dataclass(frozen=True)
class KeyPair:
    private_key: rsa.RSAPrivateKey
    kid: str

    @property
    def public_key(self) -> rsa.RSAPublicKey:
        return self.private_key.public_key()


def load_keys(keys_dir: Path | None = None) -> KeyPair:
    """The local key pair, generated on first use (safe if two processes race to create it)."""
    return _load_keys(Path(keys_dir or DEFAULT_KEYS_DIR).resolve())


@lru_cache(maxsize=8)
def _load_keys(keys_dir: Path) -> KeyPair:
    path = keys_dir / "private.pem"
    if not path.exists():
        keys_dir.mkdir(parents=True, exist_ok=True)
        generated = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        fd, tmp = tempfile.mkstemp(dir=keys_dir, prefix=".private-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(generated.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
        try:
            os.link(tmp, path)  # atomic, and fails if another process won the race
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise InvalidToken(f"{path} is not an RSA private key")
    return KeyPair(key, kid=jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)["n"][:16])


def id_token_claims(user: str, groups: Iterable[str] = (), ttl: int = DEFAULT_TTL,
                    now: int | None = None) -> dict[str, Any]:
    """Claims shaped like a Cognito ID token's (the `sub` of functions/shared/identity.py, which the functional tests
    and the example data use too)."""
    issued = int(time.time()) if now is None else int(now)
    claims: dict[str, Any] = {
        "sub": user_sub(user), "email_verified": True, "iss": ISSUER, "cognito:username": user,
        "origin_jti": str(uuid.uuid4()), "aud": USER_POOL_CLIENT_ID, "event_id": str(uuid.uuid4()),
        "token_use": "id", "auth_time": issued, "exp": issued + int(ttl), "iat": issued, "jti": str(uuid.uuid4()),
        "email": f"{user}@example.com",
    }
    groups = [g for g in groups if g]
    if groups:
        claims["cognito:groups"] = groups
    return claims


def sign(claims: Mapping[str, Any], keys: KeyPair | None = None) -> str:
    keys = keys or load_keys()
    return jwt.encode(dict(claims), keys.private_key, algorithm="RS256", headers={"kid": keys.kid})


def mint_token(user: str, groups: Iterable[str] = (), ttl: int = DEFAULT_TTL, *, keys_dir: Path | None = None,
               now: int | None = None) -> str:
    """A signed Cognito-shaped ID token for `user`, valid for `ttl` seconds."""
    if not user:
        raise ValueError("user must not be empty")
    return sign(id_token_claims(user, groups, ttl, now), load_keys(keys_dir))


def verify_token(token: str, *, keys_dir: Path | None = None) -> dict[str, Any]:
    """Claims of a valid local ID token; `InvalidToken` naming why for anything the authorizer must reject."""
    if not token:
        raise InvalidToken("no ID token: send the header Authorization: Bearer <ID token>", "missing")
    try:
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as exc:
        raise InvalidToken(f"the token is not a JWT (three base64url parts): {_plain(exc)}", "malformed") from exc
    try:
        claims = jwt.decode(token, load_keys(keys_dir).public_key, algorithms=["RS256"], issuer=ISSUER,
                            audience=USER_POOL_CLIENT_ID, leeway=LEEWAY_SECONDS,
                            options={"require": ["exp", "iat", "iss", "token_use"]})
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
