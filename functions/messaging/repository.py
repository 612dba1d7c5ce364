"""Messaging: the only module that talks to DynamoDB, one method per access pattern (docs/messaging.md).

A message is one item of the Messages table, keyed by `MsgId`, with the seed's attribute names. The inbox and the
outbox are Queries of the `Inbox` / `Outbox` GSIs, which hold only the headers (functions/messaging/schema.py): a
page of 50 headers reads ~6 KB, whatever the size of the bodies.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError

from functions.messaging import models
from functions.messaging.schema import INBOX_INDEX, MESSAGES_TABLE, OUTBOX_INDEX
from functions.shared import ddb
from functions.shared.errors import ConflictError
from functions.shared.pages import Page, StartKey, query_page, read_page
from functions.shared.settings import Settings, TableName

# --- stored items -----------------------------------------------------------------------------------

def message_key(msg_id: str) -> dict[str, str]:
    return {"MsgId": msg_id}


def message_item(message: models.Message) -> dict[str, Any]:
    """A message as stored: the headers, the body and the attachments' metadata (PascalCase, as the seed names them)."""
    item: dict[str, Any] = {
        **message_key(message.msg_id),
        "Recipient": message.recipient,
        "Sender": message.sender,
        "Date": message.date,
        "Subject": message.subject,
        "Body": message.body,
    }
    if message.attachments:
        item["Attachments"] = [
            {"Name": a.name, "Size": a.size, "ContentType": a.content_type} for a in message.attachments
        ]
    return item


def header_from(item: dict[str, Any]) -> models.MessageHeader:
    """The headers of a stored item or of an index item (which has nothing else)."""
    return models.MessageHeader(
        msg_id=item["MsgId"], sender=item["Sender"], recipient=item["Recipient"], date=item["Date"],
        subject=item["Subject"],
    )


def message_from(item: dict[str, Any]) -> models.Message:
    return models.Message(
        **header_from(item).model_dump(),
        body=item.get("Body", ""),
        attachments=[
            models.Attachment(name=a["Name"], size=int(a["Size"]), content_type=a["ContentType"])
            for a in item.get("Attachments", [])
        ],
    )


def inbox_query(recipient: str) -> dict[str, Any]:
    """The inbox's Query (newest first), for the repository and for `make bench` (its items' size is its cost)."""
    return {"IndexName": INBOX_INDEX, "KeyConditionExpression": Key("Recipient").eq(recipient),
            "ScanIndexForward": False}


def outbox_query(sender: str) -> dict[str, Any]:
    return {"IndexName": OUTBOX_INDEX, "KeyConditionExpression": Key("Sender").eq(sender), "ScanIndexForward": False}


# --- the repository ---------------------------------------------------------------------------------

class MessagingRepository:
    messages = TableName(MESSAGES_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def put_message(self, message: models.Message) -> models.Message:
        """Send: PutItem of a new message, `attribute_not_exists(MsgId)` (an id is never reused or overwritten)."""
        try:
            ddb.put_new(ddb.table(self.messages), message_item(message), "attribute_not_exists(MsgId)")
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            raise ConflictError(f"message {message.msg_id} exists", code="MESSAGE_ID_TAKEN") from error
        return message

    def get_message(self, msg_id: str) -> models.Message | None:
        """A whole message: GetItem on `MsgId`."""
        item = ddb.table(self.messages).get_item(Key=message_key(msg_id)).get("Item")
        return None if item is None else message_from(item)

    def inbox_of(self, recipient: str, *, limit: int, start_key: StartKey) -> Page:
        """The inbox: Query `Inbox` `Recipient = :me`, newest first (`ScanIndexForward=False`), headers only."""
        return self._headers(limit, start_key, **inbox_query(recipient))

    def outbox_of(self, sender: str, *, limit: int, start_key: StartKey) -> Page:
        """The outbox: Query `Outbox` `Sender = :me`, newest first, headers only."""
        return self._headers(limit, start_key, **outbox_query(sender))

    def inbox_index_items(self, recipient: str, *, limit: int) -> list[dict[str, Any]]:
        """For `make bench`: the first page of the inbox as DynamoDB returns it (one Query on `Inbox`), raw index items
        whose size (functions/shared/capacity.py `item_size`) is what the page costs."""
        return query_page(ddb.table(self.messages).query, limit=limit, start_key=None, **inbox_query(recipient)).items

    def _headers(self, limit: int, start_key: StartKey, **query: Any) -> Page:
        return read_page(ddb.table(self.messages).query, header_from, limit=limit, start_key=start_key, **query)
