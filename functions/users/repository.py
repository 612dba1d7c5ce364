"""Users table access: one method per access pattern, the only module here that talks to DynamoDB (docs/users.md).

The email rule is enforced by DynamoDB, never by a read in Python: every write of a user's email is one
TransactWriteItems with the email markers (functions/users/schema.py), each action conditioned, so two sign-ups
with one email cannot both commit, and a freed email is free in the same commit that frees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Key

from functions.shared import ddb
from functions.shared.errors import ConflictError, ThrottledError
from functions.shared.settings import Settings, TableName
from functions.users import models
from functions.users.schema import (
    EMAIL,
    JOIN_DATE,
    OWNER_ID,
    USER_ID,
    USERS_EMAIL_INDEX,
    USERS_TABLE,
    email_marker_key,
)


@dataclass(frozen=True)
class SignUp:
    """What a sign-up found: the user it created, or (created False) the user already stored under that id."""

    user: models.User
    created: bool


class UsersRepository:
    users = TableName(USERS_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def sign_up(self, user: models.User) -> SignUp:
        """Sign up: TransactWriteItems of Put user `attribute_not_exists(UserId)` and Put email marker
        `attribute_not_exists(UserId)`.

        The user id taken: returns the stored user (from the cancelled Put's ALL_OLD) for the service to tell a retry
        from a conflict. The email taken: 409 EMAIL_TAKEN. Decided by the failed action's name."""
        actions = [
            ("user", {
                "Put": {
                    "TableName": self.users,
                    "Item": _user_item(user),
                    "ConditionExpression": "attribute_not_exists(#id)",
                    "ExpressionAttributeNames": {"#id": USER_ID},
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                }
            }),
            ("email", self._reserve(user.email, user.user_id)),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return SignUp(user, created=True)
        if failed.name == "user":  # the first action: its ALL_OLD item is the stored user
            existing = _user_of(failed.item) if failed.item else self.get_user(user.user_id, consistent=True)
            if existing is None:  # deleted since: nothing is known to conflict any more
                raise ThrottledError("the user changed meanwhile; retry") from failed.error
            return SignUp(existing, created=False)
        raise ConflictError(f"{user.email} is another user's email", code="EMAIL_TAKEN") from failed.error

    def get_user(self, user_id: str, *, consistent: bool = False) -> models.User | None:
        """Get a user by id: GetItem `UserId = :id`."""
        item = ddb.table(self.users).get_item(Key={USER_ID: user_id}, ConsistentRead=consistent).get("Item")
        return None if item is None else _user_of(item)

    def user_by_email(self, normalized_email: str) -> models.User | None:
        """Get a user by email: Query UsersEmailIndex `Email = :email` (eventually consistent, as every GSI read).

        Emails are unique in the table, so the answer is one item; for the instant an email moves from one user to
        another the index may still hold both, and the first is returned."""
        response = ddb.table(self.users).query(
            IndexName=USERS_EMAIL_INDEX, KeyConditionExpression=Key(EMAIL).eq(normalized_email), Limit=2
        )
        items = response.get("Items", [])
        return _user_of(items[0]) if items else None

    def change_email(self, user: models.User, new_email: str) -> models.User | None:
        """Change a user's email: TransactWriteItems of Update user `Email = :old` (the email we read: optimistic),
        Delete the old marker `OwnerId = :user`, Put the new marker `attribute_not_exists(UserId)`.

        Returns the changed user; None when the user changed or went away since `user` was read (read again and
        retry); 409 EMAIL_TAKEN when the new email is another user's."""
        actions = [
            ("user", {
                "Update": {
                    "TableName": self.users,
                    "Key": {USER_ID: user.user_id},
                    "UpdateExpression": "SET #email = :new",
                    "ConditionExpression": "#email = :old",
                    "ExpressionAttributeNames": {"#email": EMAIL},
                    "ExpressionAttributeValues": {":new": new_email, ":old": user.email},
                }
            }),
            ("old_email", self._release(user.email, user.user_id)),
            ("new_email", self._reserve(new_email, user.user_id)),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return user.model_copy(update={"email": new_email})
        if "user" in failed.names:
            return None
        if "new_email" in failed.names:
            raise ConflictError(f"{new_email} is another user's email", code="EMAIL_TAKEN") from failed.error
        raise _marker_missing(user) from failed.error

    def delete_user(self, user: models.User) -> bool:
        """Delete a user and free its email: TransactWriteItems of Delete user `Email = :email` (as read) and Delete
        its marker `OwnerId = :user`. False when the user changed or went away since it was read."""
        actions = [
            ("user", {
                "Delete": {
                    "TableName": self.users,
                    "Key": {USER_ID: user.user_id},
                    "ConditionExpression": "#email = :email",
                    "ExpressionAttributeNames": {"#email": EMAIL},
                    "ExpressionAttributeValues": {":email": user.email},
                }
            }),
            ("email", self._release(user.email, user.user_id)),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return True
        if "user" in failed.names:
            return False
        raise _marker_missing(user) from failed.error

    def _reserve(self, normalized_email: str, user_id: str) -> dict[str, Any]:
        """Put the email's marker if no one holds it (no `Email` attribute: markers stay out of the index)."""
        return {
            "Put": {
                "TableName": self.users,
                "Item": {**email_marker_key(normalized_email), OWNER_ID: user_id},
                "ConditionExpression": "attribute_not_exists(#id)",
                "ExpressionAttributeNames": {"#id": USER_ID},
            }
        }

    def _release(self, normalized_email: str, user_id: str) -> dict[str, Any]:
        """Delete the email's marker if this user holds it."""
        return {
            "Delete": {
                "TableName": self.users,
                "Key": email_marker_key(normalized_email),
                "ConditionExpression": "#owner = :user",
                "ExpressionAttributeNames": {"#owner": OWNER_ID},
                "ExpressionAttributeValues": {":user": user_id},
            }
        }


# --- helpers --------------------------------------------------------------------------------------------

def _user_item(user: models.User) -> dict[str, str]:
    """A user as the seed stores it: UserId, Email (normalized: the index key), JoinDate (YYYY-MM-DD)."""
    return {USER_ID: user.user_id, EMAIL: user.email, JOIN_DATE: user.join_date.isoformat()}


def _user_of(item: Mapping[str, Any]) -> models.User:
    return models.User(user_id=item[USER_ID], email=item[EMAIL], join_date=item[JOIN_DATE])


def _marker_missing(user: models.User) -> ConflictError:
    """A user whose email marker is not theirs: only a write around this repository can cause it."""
    return ConflictError(
        f"the email of {user.user_id} is not reserved to them; an operator must repair it", code="EMAIL_MARKER_MISMATCH"
    )
