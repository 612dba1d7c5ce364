"""Users API (seed 002, "1:1 relationships or key-values"): sign up, get by id, get by email, change email, delete."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response

from functions.shared import kit
from functions.users import models
from functions.users.repository import UsersRepository
from functions.users.service import UsersService

router = kit.DomainRouter.of(__file__)


service = kit.service(UsersService, UsersRepository)
Service = Annotated[UsersService, kit.Depends(service)]


@router.serve
def sign_up(request: models.SignUpIn, svc: Service, caller: kit.Caller) -> Response[models.User]:
    """Sign up a user with a unique email."""
    svc.require_self_or_admin(caller, request.user_id)
    result = svc.sign_up(request)
    return kit.created(result.created, result.user, metric="UserSignedUp")


# The user themself or an admin: a user's email is personal data, and user ids are guessable usernames.
@router.serve
def get_user(user_id: models.UserIdPath, svc: Service, caller: kit.Caller) -> models.User:
    """Read a user."""
    svc.require_self_or_admin(caller, user_id)
    return svc.get_user(user_id)


# Admins only: "whose is this email?" across every account is an enumeration oracle.
@router.serve
def user_by_email(email: models.EmailPath, svc: Service) -> models.User:
    """Find a user by email."""
    return svc.user_by_email(email)


@router.serve
def change_email(user_id: models.UserIdPath, change: models.EmailChangeIn, svc: Service,
                 caller: kit.Caller) -> models.User:
    """Change a user's email, keeping it unique."""
    svc.require_self_or_admin(caller, user_id)
    return svc.change_email(user_id, change.email)


@router.serve
def delete_user(user_id: models.UserIdPath, svc: Service, caller: kit.Caller) -> Response[None]:
    """Delete a user and free their email."""
    svc.require_self_or_admin(caller, user_id)
    svc.delete_user(user_id)
    return Response(status_code=204)


app, lambda_handler = kit.serve(router)
