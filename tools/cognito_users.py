"""Users and ID tokens of a deployed stage's user pool, from a terminal: `make user` and `make token STAGE=...`.

Why: the web client signs in with SRP, which the AWS CLI cannot do, and `admin-create-user` leaves a user in
FORCE_CHANGE_PASSWORD. This tool uses the Cognito admin APIs with the caller's AWS credentials instead: it creates a
user with a permanent password (AdminCreateUser with MessageAction=SUPPRESS, AdminSetUserPassword Permanent=true,
AdminAddUserToGroup) and signs in with ADMIN_USER_PASSWORD_AUTH (AdminInitiateAuth) on the stack's CLI client, the
only client that allows that flow.
https://docs.aws.amazon.com/cognito/latest/developerguide/how-to-create-user-accounts.html
https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-authentication-flow-methods.html

The pool and client ids come from the stack's CloudFormation outputs (`Blueprints-<stage>`: UserPoolId,
CliClientId). The password `user` sets is kept in `.local/cognito/<stage>/<user>` (mode 0600), never printed, so
that `token` finds it; PASSWORD (environment) or --password overrides both. stdout carries only the token (`token`);
logs go to stderr. The caller's AWS credentials need cloudformation:DescribeStacks
and cognito-idp:AdminCreateUser, AdminSetUserPassword, AdminAddUserToGroup (`user`) or AdminInitiateAuth (`token`).
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import string
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("cognito_users")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PASSWORDS_DIR = ROOT / ".local" / "cognito"
# The pool's policy (infra/stack.py): at least 12 characters with digits, upper and lower case letters and symbols.
# Symbols from Cognito's accepted set that need no quoting in a shell or a Makefile.
# https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-policies.html
SYMBOLS = "-_.,:+=@%^"
PASSWORD_LENGTH = 20


class CognitoUsersError(Exception):
    """Something the caller must fix (no stack, no password, a challenge this tool cannot answer)."""


@dataclass(frozen=True)
class StagePool:
    user_pool_id: str
    cli_client_id: str


def stack_name(stage: str) -> str:
    return f"Blueprints-{stage}"


def stage_pool(stage: str, cloudformation: Any) -> StagePool:
    """The user pool and CLI client ids of a deployed stage, from its stack's outputs (DescribeStacks)."""
    from botocore.exceptions import ClientError

    try:
        (stack,) = cloudformation.describe_stacks(StackName=stack_name(stage))["Stacks"]
    except ClientError as exc:
        reason = exc.response["Error"].get("Message", exc)
        raise CognitoUsersError(f"no stack {stack_name(stage)} in this account and region ({reason}): "
                                f"deploy it with make deploy STAGE={stage}") from exc
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
    missing = [key for key in ("UserPoolId", "CliClientId") if key not in outputs]
    if missing:
        raise CognitoUsersError(f"stack {stack_name(stage)} has no output {', '.join(missing)}: "
                                f"redeploy it with make deploy STAGE={stage}")
    return StagePool(outputs["UserPoolId"], outputs["CliClientId"])


def generate_password(length: int = PASSWORD_LENGTH) -> str:
    """A random password that meets the pool's policy: one of each required class, the rest from all of them."""
    if length < 12:
        raise ValueError("the pool's policy needs at least 12 characters")
    classes = (string.ascii_lowercase, string.ascii_uppercase, string.digits, SYMBOLS)
    chars = [secrets.choice(c) for c in classes]
    chars += [secrets.choice("".join(classes)) for _ in range(length - len(chars))]
    secrets.SystemRandom().shuffle(chars)
    return "".join(chars)


def create_user(idp: Any, user_pool_id: str, username: str, password: str, groups: Iterable[str] = (), *,
                email: str | None = None) -> bool:
    """Creates `username` with a permanent `password` (no invitation message) in `groups`; an existing user gets the
    new password and the groups. Returns whether the user was created."""
    attributes = [{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}] if email else []
    try:
        idp.admin_create_user(UserPoolId=user_pool_id, Username=username, MessageAction="SUPPRESS",
                              UserAttributes=attributes)
        created = True
    except idp.exceptions.UsernameExistsException:
        log.info("user %s exists: setting a new password", username)
        created = False
    # Without this the user stays in FORCE_CHANGE_PASSWORD and AdminInitiateAuth answers a NEW_PASSWORD_REQUIRED
    # challenge instead of tokens.
    idp.admin_set_user_password(UserPoolId=user_pool_id, Username=username, Password=password, Permanent=True)
    for group in groups:
        idp.admin_add_user_to_group(UserPoolId=user_pool_id, Username=username, GroupName=group)
    return created


def id_token(idp: Any, user_pool_id: str, client_id: str, username: str, password: str) -> str:
    """The ID token of a sign-in with ADMIN_USER_PASSWORD_AUTH (the API's authorizer reads ID tokens)."""
    try:
        reply = idp.admin_initiate_auth(UserPoolId=user_pool_id, ClientId=client_id,
                                        AuthFlow="ADMIN_USER_PASSWORD_AUTH",
                                        AuthParameters={"USERNAME": username, "PASSWORD": password})
    except idp.exceptions.NotAuthorizedException as exc:
        raise CognitoUsersError(f"{username}: {exc.response['Error'].get('Message')} (a wrong PASSWORD, or a "
                                f"password set by make user for another stage?)") from exc
    except idp.exceptions.UserNotFoundException as exc:
        raise CognitoUsersError(f"no user {username} in pool {user_pool_id}: create it with make user") from exc
    if "ChallengeName" in reply:
        raise CognitoUsersError(f"{username}: Cognito asks for {reply['ChallengeName']}, which this tool does not "
                                "answer (set a permanent password with make user; sign in with MFA from an app)")
    return reply["AuthenticationResult"]["IdToken"]


def password_file(stage: str, username: str, directory: Path | None = None) -> Path:
    return Path(directory or DEFAULT_PASSWORDS_DIR) / stage / username


def store_password(stage: str, username: str, password: str, directory: Path | None = None) -> Path:
    """Keeps the password for `token`, readable by the owner only (created with mode 0600, never wider)."""
    path = password_file(stage, username, directory)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(password + "\n")
    os.replace(tmp, path)
    return path


def stored_password(stage: str, username: str, directory: Path | None = None) -> str | None:
    path = password_file(stage, username, directory)
    return path.read_text().strip() if path.exists() else None


def stage_token(stage: str, username: str, password: str | None = None, *, passwords_dir: Path | None = None,
                session: Any = None) -> str:
    """An ID token of `username` on the deployed `stage`: the password given, else the one `make user` stored."""
    password = password or stored_password(stage, username, passwords_dir)
    if not password:
        raise CognitoUsersError(f"no password for {username} on stage {stage}: pass PASSWORD=..., or create the "
                                f"user with make user STAGE={stage} USER={username}")
    session = session or _session()
    pool = stage_pool(stage, session.client("cloudformation"))
    return id_token(session.client("cognito-idp"), pool.user_pool_id, pool.cli_client_id, username, password)


def _session() -> Any:
    from tools.region import session

    return session()  # AWS_REGION, then AWS_DEFAULT_REGION, then the profile: as `make deploy` (tools/region.py)


def _user(args: argparse.Namespace) -> int:
    session = _session()
    pool = stage_pool(args.stage, session.client("cloudformation"))
    password = args.password or generate_password()
    groups = [g.strip() for g in (args.groups or "").split(",") if g.strip()]
    created = create_user(session.client("cognito-idp"), pool.user_pool_id, args.user, password, groups,
                          email=args.email)
    path = store_password(args.stage, args.user, password, args.passwords_dir)
    log.info("%s %s in %s%s; password kept in %s (mode 0600) for make token STAGE=%s USER=%s",
             "created" if created else "updated", args.user, pool.user_pool_id,
             f" (groups: {', '.join(groups)})" if groups else "", path, args.stage, args.user)
    return 0  # the password is in the 0600 file only: never on a terminal, in a scrollback or a CI log


def _token(args: argparse.Namespace) -> int:
    print(stage_token(args.stage, args.user, args.password, passwords_dir=args.passwords_dir))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.cognito_users", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, handler, summary in (("user", _user, "create (or reset) a user with a permanent password"),
                                   ("token", _token, "print an ID token of a deployed stage's user")):
        command = commands.add_parser(name, help=summary)
        command.add_argument("--stage", required=True, help="the deployed stage (stack Blueprints-<stage>)")
        command.add_argument("--user", required=True)
        command.add_argument("--password", default=os.environ.get("PASSWORD") or None,
                             help="default: $PASSWORD; `user` generates one, `token` reads the one `user` kept")
        command.add_argument("--passwords-dir", type=Path, default=None, help=f"default {DEFAULT_PASSWORDS_DIR}")
        command.set_defaults(handler=handler)
    user = commands.choices["user"]
    user.add_argument("--groups", default="", help="comma-separated, e.g. admin")
    user.add_argument("--email", default=None, help="set as the user's verified email (sign-in alias)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return args.handler(args)
    except (CognitoUsersError, ValueError) as exc:
        log.error("%s", exc)
    except (BotoCoreError, ClientError) as exc:  # no credentials, no region, access denied...
        log.error("AWS: %s", exc)
    return 1


if __name__ == "__main__":
    sys.exit(main())
