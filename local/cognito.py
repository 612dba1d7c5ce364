"""Local stand-in for the Cognito user pool: its signing key and the RS256 ID tokens it issues.

Why: the API's methods use a COGNITO_USER_POOLS authorizer and there is no Cognito locally, so the user pool's key pair
is kept in `<repo>/.local/keys/`, and `make token` mints tokens shaped like Cognito ID tokens (same claims, same issuer
format): the functions see the same `requestContext.authorizer.claims` as on AWS. API Gateway's authorizer, which
checks them, is local/apigateway/authorizer.py.
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
from local.cloudformation.resources import USER_POOL_CLIENT_ID, USER_POOL_ID

ISSUER = f"https://cognito-idp.us-east-1.amazonaws.com/{USER_POOL_ID}"
DEFAULT_TTL = 3600
DEFAULT_KEYS_DIR = Path(__file__).resolve().parent.parent / ".local" / "keys"


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
        raise TypeError(f"{path} is not an RSA private key")
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
