"""The user pool's two app clients: SRP for apps, ADMIN_USER_PASSWORD_AUTH for the terminal, no OAuth on either."""

from __future__ import annotations

from typing import Any

import pytest


def clients(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The AWS::Cognito::UserPoolClient resources' properties by logical id without CDK's hash suffix."""
    return {k[:-8]: v["Properties"] for k, v in raw["Resources"].items() if v["Type"] == "AWS::Cognito::UserPoolClient"}


def test_the_pool_has_a_web_client_for_srp_and_a_cli_client_for_admin_password_auth(dev):
    found = clients(dev.parent)
    assert set(found) == {"UserPoolWebClient", "UserPoolCliClient"}
    assert found["UserPoolWebClient"]["ExplicitAuthFlows"] == ["ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]
    assert found["UserPoolCliClient"]["ExplicitAuthFlows"] == ["ALLOW_ADMIN_USER_PASSWORD_AUTH",
                                                               "ALLOW_REFRESH_TOKEN_AUTH"]
    for props in found.values():
        assert props["GenerateSecret"] is False  # admin-initiate-auth without a SECRET_HASH


def test_neither_client_allows_oauth_flows_or_callback_urls(dev, prod):
    for synth in (dev, prod):
        for name, props in clients(synth.parent).items():
            oauth = {k for k in props if k.startswith(("AllowedOAuth", "CallbackURLs", "LogoutURLs",
                                                       "DefaultRedirectURI"))}
            assert oauth <= {"AllowedOAuthFlowsUserPoolClient"}, (name, oauth)
            assert props.get("AllowedOAuthFlowsUserPoolClient", False) is False, name


def test_the_stack_outputs_name_the_pool_and_both_clients(dev):
    """tools/cognito_users.py finds the pool and the CLI client of a stage by these outputs (DescribeStacks)."""
    outputs = dev.parent["Outputs"]
    assert outputs["UserPoolId"]["Value"]["Ref"].startswith("UserPool")
    assert outputs["CliClientId"]["Value"]["Ref"].startswith("UserPoolCliClient")
    assert outputs["UserPoolClientId"]["Value"]["Ref"].startswith("UserPoolWebClient")


def test_make_user_generates_passwords_the_deployed_pools_policy_accepts(dev, monkeypatch):
    """Generated passwords are set on a moto pool created with the template's own password policy."""
    import boto3
    from moto import mock_aws

    from tools.cognito_users import create_user, generate_password

    (pool,) = [r["Properties"] for r in dev.parent["Resources"].values() if r["Type"] == "AWS::Cognito::UserPool"]
    policy = pool["Policies"]["PasswordPolicy"]
    assert policy["MinimumLength"] >= 12
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    with mock_aws():
        idp = boto3.client("cognito-idp", region_name="us-east-1")
        pool_id = idp.create_user_pool(PoolName="p", Policies={"PasswordPolicy": policy})["UserPool"]["Id"]
        with pytest.raises(idp.exceptions.InvalidPasswordException):  # the policy is in force
            create_user(idp, pool_id, "weak", "alllowercase-but-long")
        for n in range(50):
            create_user(idp, pool_id, f"user{n}", generate_password())
            assert idp.admin_get_user(UserPoolId=pool_id, Username=f"user{n}")["UserStatus"] == "CONFIRMED"
