"""Messaging's pure logic: the stored Date's format and order, the body cap in bytes, items to models and back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from functions.messaging.models import MAX_BODY_BYTES, Attachment, Message, MessageIn
from functions.messaging.repository import header_from, message_from, message_item
from functions.messaging.schema import HEADER_ATTRIBUTES
from functions.messaging.service import message_date

MESSAGE = Message(msg_id="afed", sender="bob", recipient="david", date="2014-10-02T09:14:00.000Z", subject="Hi!",
                  body="Hello David", attachments=[Attachment(name="a.txt", size=12, content_type="text/plain")])


def test_dates_are_utc_with_milliseconds_and_a_fixed_width():
    assert message_date(datetime(2014, 10, 2, 9, 14, 0, 999999, tzinfo=UTC)) == "2014-10-02T09:14:00.999Z"
    assert message_date(datetime(2014, 10, 2, 9, 14, tzinfo=UTC)) == "2014-10-02T09:14:00.000Z"
    # an offset is converted, not dropped
    assert message_date(datetime(2014, 10, 2, 11, 14, tzinfo=timezone(timedelta(hours=2)))) == "2014-10-02T09:14:00.000Z"


def test_string_order_of_dates_is_time_order():
    start = datetime(2014, 12, 31, 23, 59, 59, 998000, tzinfo=UTC)
    moments = [start + timedelta(milliseconds=n) for n in (0, 1, 2, 1000, 86_400_000)]
    dates = [message_date(m) for m in moments]
    assert sorted(dates) == dates and len({len(d) for d in dates}) == 1


def test_the_body_cap_counts_utf8_bytes_not_characters():
    MessageIn(recipient="david", subject="s", body="€" * (MAX_BODY_BYTES // 3))  # 3 bytes each: at the cap
    with pytest.raises(ValidationError, match="bytes of UTF-8"):
        MessageIn(recipient="david", subject="s", body="€" * (MAX_BODY_BYTES // 3 + 1))
    with pytest.raises(ValidationError):
        MessageIn(recipient="david", subject="s", body="x" * (MAX_BODY_BYTES + 1))


def test_a_message_is_stored_with_the_seeds_attribute_names_and_read_back_whole():
    item = message_item(MESSAGE)
    assert item == {"MsgId": "afed", "Recipient": "david", "Sender": "bob", "Date": "2014-10-02T09:14:00.000Z",
                    "Subject": "Hi!", "Body": "Hello David",
                    "Attachments": [{"Name": "a.txt", "Size": 12, "ContentType": "text/plain"}]}
    assert message_from(item) == MESSAGE
    without = message_item(MESSAGE.model_copy(update={"attachments": []}))
    assert "Attachments" not in without and message_from(without).attachments == []


def test_an_index_item_is_exactly_a_header():
    index_item = {name: message_item(MESSAGE)[name] for name in HEADER_ATTRIBUTES}
    assert header_from(index_item).model_dump() == {"msg_id": "afed", "sender": "bob", "recipient": "david",
                                                    "date": "2014-10-02T09:14:00.000Z", "subject": "Hi!"}
