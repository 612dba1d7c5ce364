"""Local stand-in for the Cognito user pool: RS256 ID tokens signed and verified with a local key.

Why: the API's methods use a COGNITO_USER_POOLS authorizer; locally there is no Cognito, so the
runtime verifies tokens against a key pair kept in `<repo>/.local/keys/` and `make token` mints
tokens shaped like Cognito ID tokens (same claims, same issuer format), so the functions see the
same `requestContext.authorizer.claims` as behind the real API.
"""

from __future__ import annotations

import json
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

from local.resources import USER_POOL_CLIENT_ID, USER_POOL_ID

ISSUER = f"https://cognito-idp.us-east-1.amazonaws.com/{USER_POOL_ID}"
AUDIENCE = USER_POOL_CLIENT_ID
LEEWAY_SECONDS = 2
DEFAULT_TTL = 3600
PRIVATE_KEY_FILE = "private.pem"
JWKS_FILE = "jwks.json"
_SUB_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://blueprints.local/users")


class InvalidToken(Exception):
    """The token must not pass the authorizer (bad signature, expired, wrong use, malformed)."""


def default_keys_dir() -> Path:
    return Path(__file__).resolve().parent.parent / ".local" / "keys"


@dataclass(frozen=True)
class KeyPair:
    private_key: rsa.RSAPrivateKey
    kid: str

    @property
    def public_key(self) -> rsa.RSAPublicKey:
        return self.private_key.public_key()

    def jwks(self) -> dict[str, Any]:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.public_key))
        jwk.update(kid=self.kid, alg="RS256", use="sig")
        return {"keys": [jwk]}


def load_keys(keys_dir: Path | None = None) -> KeyPair:
    """The local key pair, generated on first use (safe if two processes race to create it)."""
    return _load_keys(Path(keys_dir or default_keys_dir()).resolve())


@lru_cache(maxsize=8)
def _load_keys(keys_dir: Path) -> KeyPair:
    private_path = keys_dir / PRIVATE_KEY_FILE
    if not private_path.exists():
        keys_dir.mkdir(parents=True, exist_ok=True)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        fd, tmp = tempfile.mkstemp(dir=keys_dir, prefix=".private-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
        try:
            os.link(tmp, private_path)  # atomic, and fails if another process won the race
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
    key = serialization.load_pem_private_key(private_path.read_bytes(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise InvalidToken(f"{private_path} is not an RSA private key")
    kid = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)["n"][:16]
    pair = KeyPair(private_key=key, kid=kid)
    jwks_path = keys_dir / JWKS_FILE
    jwks = json.dumps(pair.jwks(), indent=2)
    if not jwks_path.exists() or jwks_path.read_text(encoding="utf-8") != jwks:
        tmp_jwks = keys_dir / f".{JWKS_FILE}.{os.getpid()}"
        tmp_jwks.write_text(jwks, encoding="utf-8")
        os.replace(tmp_jwks, jwks_path)
    return pair


def user_sub(user: str) -> str:
    """Stable per username, like a Cognito `sub` for one user of one pool."""
    return str(uuid.uuid5(_SUB_NAMESPACE, user))


def id_token_claims(
    user: str, groups: Iterable[str] = (), ttl: int = DEFAULT_TTL, now: int | None = None
) -> dict[str, Any]:
    """Claims shaped like a Cognito ID token's."""
    issued = int(time.time()) if now is None else int(now)
    claims: dict[str, Any] = {
        "sub": user_sub(user),
        "email_verified": True,
        "iss": ISSUER,
        "cognito:username": user,
        "origin_jti": str(uuid.uuid4()),
        "aud": AUDIENCE,
        "event_id": str(uuid.uuid4()),
        "token_use": "id",
        "auth_time": issued,
        "exp": issued + int(ttl),
        "iat": issued,
        "jti": str(uuid.uuid4()),
        "email": f"{user}@example.com",
    }
    group_list = [g for g in groups if g]
    if group_list:
        claims["cognito:groups"] = group_list
    return claims


def sign(claims: Mapping[str, Any], keys: KeyPair | None = None) -> str:
    keys = keys or load_keys()
    return jwt.encode(dict(claims), keys.private_key, algorithm="RS256", headers={"kid": keys.kid})


def mint_token(
    user: str,
    groups: Iterable[str] = (),
    ttl: int = DEFAULT_TTL,
    *,
    keys_dir: Path | None = None,
    now: int | None = None,
) -> str:
    """A signed Cognito-shaped ID token for `user`, valid for `ttl` seconds."""
    if not user:
        raise ValueError("user must not be empty")
    return sign(id_token_claims(user, groups, ttl, now), load_keys(keys_dir))


def verify_token(token: str, *, keys_dir: Path | None = None) -> dict[str, Any]:
    """Claims of a valid local ID token; `InvalidToken` for anything the authorizer must reject."""
    keys = load_keys(keys_dir)
    try:
        claims = jwt.decode(
            token,
            keys.public_key,
            algorithms=["RS256"],
            issuer=ISSUER,
            leeway=LEEWAY_SECONDS,
            options={"require": ["exp", "iat", "iss", "token_use"], "verify_aud": False},
        )
    except jwt.PyJWTError as exc:
        raise InvalidToken(str(exc)) from exc
    if claims.get("token_use") != "id":
        raise InvalidToken(f"token_use is {claims.get('token_use')!r}, expected 'id'")
    return claims
