"""Local Cognito-like ID tokens: minted by `make token`, verified by the local authorizer."""

from __future__ import annotations

import base64
import json
import time
import uuid
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from local.__main__ import main
from local.apigateway.authorizer import InvalidToken, verify_token
from local.cognito import ISSUER, id_token_claims, load_keys, mint_token, sign, user_sub


@pytest.fixture
def keys_dir(tmp_path: Path) -> Path:
    return tmp_path / "keys"


def test_minted_token_verifies_with_cognito_id_token_claims(keys_dir: Path) -> None:
    token = mint_token("alice", ["admin", "vehicle"], 600, keys_dir=keys_dir)
    claims = verify_token(token, keys_dir=keys_dir)
    assert claims["cognito:username"] == "alice"
    assert claims["cognito:groups"] == ["admin", "vehicle"]
    assert claims["token_use"] == "id"
    assert claims["iss"] == ISSUER == "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_local"
    assert claims["email"] == "alice@example.com" and claims["email_verified"] is True
    assert claims["sub"] == user_sub("alice") == str(uuid.UUID(claims["sub"]))
    assert claims["exp"] - claims["iat"] == 600
    assert claims["auth_time"] == claims["iat"]
    assert claims["aud"]
    assert jwt.get_unverified_header(token)["alg"] == "RS256"


def test_sub_is_stable_per_user_and_groups_are_omitted_when_empty(keys_dir: Path) -> None:
    first = verify_token(mint_token("bob", keys_dir=keys_dir), keys_dir=keys_dir)
    second = verify_token(mint_token("bob", [], keys_dir=keys_dir), keys_dir=keys_dir)
    assert first["sub"] == second["sub"] != user_sub("alice")
    assert "cognito:groups" not in first


def test_the_key_pair_is_kept_on_disk_and_signs_with_its_kid(keys_dir: Path) -> None:
    keys = load_keys(keys_dir)
    assert (keys_dir / "private.pem").read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    token = mint_token("carol", keys_dir=keys_dir)
    assert jwt.get_unverified_header(token)["kid"] == keys.kid
    assert jwt.decode(token, keys.public_key, algorithms=["RS256"], options={"verify_aud": False})


def test_expired_token_is_rejected(keys_dir: Path) -> None:
    token = mint_token("alice", ttl=60, keys_dir=keys_dir, now=int(time.time()) - 120)
    with pytest.raises(InvalidToken, match="expired"):
        verify_token(token, keys_dir=keys_dir)


def test_tampered_token_is_rejected(keys_dir: Path) -> None:
    token = mint_token("alice", keys_dir=keys_dir)
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["cognito:groups"] = ["admin"]
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    with pytest.raises(InvalidToken):
        verify_token(f"{header}.{forged}.{signature}", keys_dir=keys_dir)


def test_token_signed_by_another_key_is_rejected(keys_dir: Path) -> None:
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    token = jwt.encode(id_token_claims("alice"), other, algorithm="RS256")
    with pytest.raises(InvalidToken):
        verify_token(token, keys_dir=keys_dir)


def test_access_token_is_rejected(keys_dir: Path) -> None:
    claims = id_token_claims("alice")
    claims["token_use"] = "access"
    with pytest.raises(InvalidToken, match="token_use"):
        verify_token(sign(claims, load_keys(keys_dir)), keys_dir=keys_dir)


def test_wrong_issuer_is_rejected(keys_dir: Path) -> None:
    claims = id_token_claims("alice")
    claims["iss"] = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_other"
    with pytest.raises(InvalidToken):
        verify_token(sign(claims, load_keys(keys_dir)), keys_dir=keys_dir)


@pytest.mark.parametrize("token", ["", "garbage", "a.b.c"])
def test_malformed_tokens_are_rejected(keys_dir: Path, token: str) -> None:
    with pytest.raises(InvalidToken):
        verify_token(token, keys_dir=keys_dir)


def test_token_command_prints_only_the_token(
    keys_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("local.cognito.DEFAULT_KEYS_DIR", keys_dir)
    assert main(["token", "--user", "alice", "--groups", "admin, vehicle", "--ttl", "120"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    claims = verify_token(out.strip(), keys_dir=keys_dir)
    assert claims["cognito:groups"] == ["admin", "vehicle"]
    assert claims["exp"] - claims["iat"] == 120


@pytest.mark.parametrize(("token", "reason", "says"), [
    ("", "missing", "no ID token"),
    ("not-a-jwt", "malformed", "not a JWT"),
])
def test_a_token_refused_before_its_signature_says_why(keys_dir, token, reason, says):
    with pytest.raises(InvalidToken, match=says) as refused:
        verify_token(token, keys_dir=keys_dir)
    assert refused.value.reason == reason


def test_each_refusal_names_its_reason_in_words_a_json_template_and_a_header_can_carry(keys_dir, tmp_path):
    from local.apigateway.authorizer import www_authenticate

    good = id_token_claims("alice")
    other_keys = tmp_path / "other"
    cases = {
        "expired": sign({**id_token_claims("alice", ttl=60, now=1_700_000_000)}, load_keys(keys_dir)),
        "bad signature": sign(good, load_keys(other_keys)),
        "wrong audience": sign({**good, "aud": "another-client"}, load_keys(keys_dir)),
        "wrong issuer": sign({**good, "iss": "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_other"},
                             load_keys(keys_dir)),
        "not an ID token": sign({**good, "token_use": "access"}, load_keys(keys_dir)),
    }
    for reason, token in cases.items():
        with pytest.raises(InvalidToken) as refused:
            verify_token(token, keys_dir=keys_dir)
        assert refused.value.reason == reason, (reason, str(refused.value))
        assert '"' not in str(refused.value) and "\\" not in str(refused.value)
        assert www_authenticate(refused.value).startswith('Bearer realm="blueprints", error="invalid_token"')
    with pytest.raises(InvalidToken, match="expired at 2023-11-14T22:14:20Z"):
        verify_token(cases["expired"], keys_dir=keys_dir)
