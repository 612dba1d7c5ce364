"""tools/cognito_users.py against moto's Cognito and CloudFormation: a user made with `make user` gets an ID token
from `make token STAGE=...` (ADMIN_USER_PASSWORD_AUTH on the CLI client), with its username and groups."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import jwt
import pytest
from moto import mock_aws

from tools import cognito_users

REGION = "us-east-1"
ROOT = Path(__file__).resolve().parents[2]
# As infra/stack.py declares it (tests/infra/test_auth_clients.py sets generated passwords under the template's own).
POLICY = {"PasswordPolicy": {"MinimumLength": 12, "RequireUppercase": True, "RequireLowercase": True,
                             "RequireNumbers": True, "RequireSymbols": True}}


@pytest.fixture
def session(monkeypatch) -> Iterator[boto3.session.Session]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_DEFAULT_REGION": REGION}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    with mock_aws():
        yield boto3.session.Session(region_name=REGION)


@pytest.fixture
def deployed(session) -> dict[str, Any]:
    """A stage "dev" as the stack leaves it: a pool with the groups, an SRP web client, the CLI client, and stack
    Blueprints-dev whose outputs name them."""
    idp = session.client("cognito-idp")
    pool = idp.create_user_pool(PoolName="pool", Policies=POLICY)["UserPool"]["Id"]
    for group in ("admin", "vehicle"):
        idp.create_group(UserPoolId=pool, GroupName=group)
    idp.create_user_pool_client(UserPoolId=pool, ClientName="web",
                                ExplicitAuthFlows=["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"])
    cli = idp.create_user_pool_client(
        UserPoolId=pool, ClientName="cli", ExplicitAuthFlows=["ALLOW_ADMIN_USER_PASSWORD_AUTH",
                                                             "ALLOW_REFRESH_TOKEN_AUTH"],
    )["UserPoolClient"]["ClientId"]
    template = {"Resources": {"Placeholder": {"Type": "AWS::SQS::Queue"}},
                "Outputs": {"UserPoolId": {"Value": pool}, "CliClientId": {"Value": cli}}}
    session.client("cloudformation").create_stack(StackName="Blueprints-dev", TemplateBody=json.dumps(template))
    return {"idp": idp, "pool": pool, "cli": cli}


def claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def test_generated_passwords_meet_the_pools_policy():
    for _ in range(200):
        password = cognito_users.generate_password()
        assert len(password) == cognito_users.PASSWORD_LENGTH
        assert any(c.islower() for c in password) and any(c.isupper() for c in password)
        assert any(c.isdigit() for c in password) and any(c in cognito_users.SYMBOLS for c in password)
    with pytest.raises(ValueError):
        cognito_users.generate_password(11)


def test_the_stage_outputs_name_the_pool_and_the_cli_client(session, deployed):
    pool = cognito_users.stage_pool("dev", session.client("cloudformation"))
    assert pool == cognito_users.StagePool(deployed["pool"], deployed["cli"])
    with pytest.raises(cognito_users.CognitoUsersError, match="no stack Blueprints-prod"):
        cognito_users.stage_pool("prod", session.client("cloudformation"))


def test_a_created_user_is_confirmed_in_its_groups_and_signs_in(session, deployed, tmp_path):
    idp, pool = deployed["idp"], deployed["pool"]
    # Given alice made an admin with a generated password, kept for `token`
    password = cognito_users.generate_password()
    assert cognito_users.create_user(idp, pool, "alice", password, ["admin"], email="alice@example.com") is True
    kept = cognito_users.store_password("dev", "alice", password, tmp_path)
    # Then she is CONFIRMED (not FORCE_CHANGE_PASSWORD) and only the owner may read her password file
    assert idp.admin_get_user(UserPoolId=pool, Username="alice")["UserStatus"] == "CONFIRMED"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    # When `make token STAGE=dev USER=alice` runs without a password
    token = cognito_users.stage_token("dev", "alice", passwords_dir=tmp_path, session=session)
    # Then it is her ID token, with the admin group
    got = claims(token)
    assert (got["token_use"], got["cognito:username"], got["cognito:groups"]) == ("id", "alice", ["admin"])
    assert got["aud"] == deployed["cli"]


def test_a_plain_user_has_no_groups_and_make_user_again_resets_the_password(session, deployed, tmp_path):
    idp, pool = deployed["idp"], deployed["pool"]
    cognito_users.create_user(idp, pool, "bob", "First-password-1")
    assert cognito_users.create_user(idp, pool, "bob", "Second-password-2") is False
    assert "cognito:groups" not in claims(cognito_users.stage_token("dev", "bob", "Second-password-2",
                                                                    passwords_dir=tmp_path, session=session))
    with pytest.raises(cognito_users.CognitoUsersError, match="bob"):
        cognito_users.stage_token("dev", "bob", "First-password-1", passwords_dir=tmp_path, session=session)


def test_token_without_a_password_says_how_to_get_one(session, deployed, tmp_path):
    with pytest.raises(cognito_users.CognitoUsersError, match="make user STAGE=dev USER=carol"):
        cognito_users.stage_token("dev", "carol", passwords_dir=tmp_path, session=session)


def test_the_cli_prints_no_password_and_then_the_token_alone(session, deployed, tmp_path, capsys, caplog,
                                                             monkeypatch):
    monkeypatch.setattr(cognito_users, "_session", lambda: session)
    caplog.set_level(logging.INFO, logger="cognito_users")
    monkeypatch.delenv("PASSWORD", raising=False)
    common = ["--stage", "dev", "--passwords-dir", str(tmp_path)]
    # When `make user` creates zoe (no PASSWORD): the generated password goes to the 0600 file only, never to the
    # terminal (stdout or the log)
    assert cognito_users.main(["user", "--user", "zoe", "--groups", "admin", *common]) == 0
    out = capsys.readouterr()
    password = cognito_users.stored_password("dev", "zoe", tmp_path)
    assert password and password not in out.out + out.err and password not in caplog.text
    assert "password kept in" in caplog.text
    # Then `make token STAGE=dev USER=zoe` prints her ID token alone
    assert cognito_users.main(["token", "--user", "zoe", *common]) == 0
    out = capsys.readouterr()
    assert out.out.count("\n") == 1 and claims(out.out.strip())["cognito:groups"] == ["admin"]
    # And a user that does not exist is an error in the log (stderr), nothing on stdout, exit 1
    assert cognito_users.main(["token", "--user", "nobody", "--password", "Whatever-pass-1", *common]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "no user nobody" in caplog.text


def test_a_challenge_instead_of_tokens_is_an_error_naming_it(session, deployed):
    # Given alice turned on TOTP MFA, so AdminInitiateAuth answers a challenge instead of tokens
    idp = deployed["idp"]
    cognito_users.create_user(idp, deployed["pool"], "alice", "Good-password-1")

    class Challenging:
        exceptions = idp.exceptions

        def admin_initiate_auth(self, **kwargs: Any) -> dict[str, Any]:
            return {"ChallengeName": "SOFTWARE_TOKEN_MFA", "Session": "s"}

    with pytest.raises(cognito_users.CognitoUsersError, match="SOFTWARE_TOKEN_MFA"):
        cognito_users.id_token(Challenging(), deployed["pool"], deployed["cli"], "alice", "Good-password-1")


def test_passwords_are_kept_under_dot_local_by_stage_and_user():
    assert cognito_users.password_file("dev", "alice") == ROOT / ".local" / "cognito" / "dev" / "alice"


@pytest.mark.parametrize(("args", "expected"), [
    (["token", "USER=alice"], "-m local token --user \"alice\""),
    # Without USER= on the command line: alice, never the login name every shell exports as USER
    (["token"], "-m local token --user \"alice\""),
    (["token", "STAGE=dev"], "-m tools.cognito_users token --stage \"dev\" --user \"alice\""),
    (["token", "USER=alice", "STAGE=dev"], "-m tools.cognito_users token --stage \"dev\" --user \"alice\""),
    (["user", "USER=smoke-admin", "STAGE=dev", "GROUPS=admin"],
     "-m tools.cognito_users user --stage \"dev\" --user \"smoke-admin\" --groups \"admin\""),
    (["smoke", "URL=http://127.0.0.1:3000"], "-m tools.smoke --url \"http://127.0.0.1:3000\""),
])
def test_the_make_targets_call_the_tools(args, expected):
    """Without STAGE= on the command line `make token` is the local one; with it, the deployed stage's."""
    env = {k: v for k, v in os.environ.items() if k not in ("STAGE", "MAKEFLAGS", "PASSWORD")} | {"USER": "root"}
    dry = subprocess.run(["make", "-n", "-s", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    (line,) = [line for line in dry.stdout.splitlines() if " -m local " in line or " -m tools." in line]
    assert expected in line, dry.stdout
