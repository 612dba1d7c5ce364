"""Sessions: the only module that talks to DynamoDB, one method per access pattern (docs/sessions.md).

The table keeps the seed's attribute names (`SessionToken`, `Username`, `CreatedAt`, `ExpiresAt`, `TTL`); they are
mapped to the API's model here. Every read compares `TTL` with the clock: DynamoDB deletes expired items only
within days, and until then an expired session must read as absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.sessions import models
from functions.sessions.schema import (
    CREATED_AT,
    EXPIRES_AT,
    SESSION_TABLE,
    TOKEN,
    TTL,
    USER_INDEX,
    USERNAME,
)
from functions.shared import ddb
from functions.shared.pages import Page, StartKey
from functions.shared.settings import Settings, TableName

# Keys read from UserIndex per Query when ending all of a user's sessions (KEYS_ONLY items are small).
DELETE_PAGE_SIZE = 100


@dataclass(frozen=True)
class StoredSession:
    session: models.Session
    ttl: int  # epoch seconds

    def expired(self, now_epoch: int) -> bool:
        return self.ttl <= now_epoch


def session_item(session: models.Session, ttl: int) -> dict[str, Any]:
    return {
        TOKEN: session.session_token,
        USERNAME: session.username,
        CREATED_AT: session.created_at.isoformat(),
        EXPIRES_AT: session.expires_at.isoformat(),
        TTL: ttl,
    }


def stored_session(item: Mapping[str, Any]) -> StoredSession:
    session = models.Session(
        session_token=item[TOKEN],
        username=item[USERNAME],
        created_at=datetime.fromisoformat(item[CREATED_AT]),
        expires_at=datetime.fromisoformat(item[EXPIRES_AT]),
    )
    return StoredSession(session=session, ttl=int(item[TTL]))


def token_key(token: str) -> dict[str, str]:
    return {TOKEN: token}


class SessionsRepository:
    sessions = TableName(SESSION_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def create_session(self, session: models.Session, ttl: int) -> bool:
        """Create a session: PutItem with `attribute_not_exists(SessionToken)` (the seed's uniqueness condition).
        False: that token is taken already (nothing was written)."""
        try:
            ddb.put_new(ddb.table(self.sessions), session_item(session, ttl), "attribute_not_exists(#token)",
                        ExpressionAttributeNames={"#token": TOKEN})
        except ClientError as error:
            if ddb.error_code(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def get_session(self, token: str) -> StoredSession | None:
        """Get a session: GetItem `SessionToken = :token`, strongly consistent (a session is used right after it
        is created). The caller decides whether it has expired (its `ttl`)."""
        item = ddb.table(self.sessions).get_item(Key=token_key(token), ConsistentRead=True).get("Item")
        return None if item is None else stored_session(item)

    def delete_session(self, token: str, owner: str | None, now_epoch: int) -> bool:
        """Delete one session: DeleteItem `SessionToken = :token`; for an `owner`, on condition
        `attribute_not_exists(SessionToken) OR Username = :owner OR TTL <= :now` (absent, or expired and not yet
        deleted by TTL, which every read treats as absent: nothing to keep). False: the session is another user's,
        live, and stays."""
        request: dict[str, Any] = {"Key": token_key(token)}
        if owner is not None:
            request.update(
                ConditionExpression="attribute_not_exists(#token) OR #username = :owner OR #ttl <= :now",
                ExpressionAttributeNames={"#token": TOKEN, "#username": USERNAME, "#ttl": TTL},
                ExpressionAttributeValues={":owner": owner, ":now": now_epoch},
            )
        try:
            ddb.table(self.sessions).delete_item(**request)
        except ClientError as error:
            if ddb.error_code(error) == "ConditionalCheckFailedException":
                return False
            raise
        return True

    def sessions_of(self, username: str, *, limit: int, start_key: StartKey, now_epoch: int) -> Page:
        """A user's sessions, one page: Query UserIndex `Username = :username` (KEYS_ONLY: tokens), then
        BatchGetItem of that page's tokens for their times. Sessions expired or deleted since the index saw them
        are left out, so a page can be shorter than `limit` while the cursor goes on."""
        request: dict[str, Any] = {
            "IndexName": USER_INDEX, "KeyConditionExpression": Key(USERNAME).eq(username), "Limit": limit,
        }
        if start_key:
            request["ExclusiveStartKey"] = start_key
        response = ddb.table(self.sessions).query(**request)
        tokens = [str(item[TOKEN]) for item in response.get("Items", [])]
        found = {item[TOKEN]: stored_session(item)
                 for item in ddb.batch_get(self.sessions, [token_key(t) for t in tokens])}
        live = [found[t].session for t in tokens
                if t in found and found[t].session.username == username and not found[t].expired(now_epoch)]
        return Page(items=[s.model_dump(by_alias=True, mode="json") for s in live],
                    last_key=response.get("LastEvaluatedKey"))

    def delete_sessions_of(self, username: str) -> int:
        """End every session of a user: Query UserIndex `Username = :username` page by page, each page's tokens
        deleted by BatchWriteItem in chunks of 25, UnprocessedItems retried with backoff (bounded). Safe to
        repeat: deleting an absent key is a no-op. Returns how many keys the index listed."""
        table = ddb.table(self.sessions)
        request: dict[str, Any] = {
            "IndexName": USER_INDEX, "KeyConditionExpression": Key(USERNAME).eq(username),
            "Limit": DELETE_PAGE_SIZE,
        }
        listed = 0
        while True:
            response = table.query(**request)
            tokens = [str(item[TOKEN]) for item in response.get("Items", [])]
            ddb.batch_delete(self.sessions, [token_key(token) for token in tokens])  # 25 a call, unprocessed retried
            listed += len(tokens)
            last_key = response.get("LastEvaluatedKey")
            if not last_key:
                return listed
            request["ExclusiveStartKey"] = last_key
