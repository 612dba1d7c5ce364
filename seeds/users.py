"""The seed's two users (seed 002, "1:1 relationships or key-values"): bob and fred, written through the repository
(same transaction as a sign-up, so their emails are reserved too). Loading twice changes nothing: a sign-up of a
user already stored is found, not written again."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from functions.shared.errors import ConflictError
from functions.shared.settings import Settings
from functions.users.models import User
from functions.users.repository import UsersRepository

USERS = [
    User(user_id="bob", email="bob@gmail.com", join_date=date(2011, 11, 15)),
    User(user_id="fred", email="fred@yahoo.com", join_date=date(2011, 12, 1)),
]


def load(env: Mapping[str, str]) -> None:
    repository = UsersRepository(Settings(env))
    for user in USERS:
        try:
            repository.sign_up(user)
        except ConflictError:
            pass  # someone took the email since (make run keeps nothing, but a shared table might)
