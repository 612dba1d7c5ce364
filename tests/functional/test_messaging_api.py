"""Messaging (seed 002): handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from functions.messaging import api
from functions.messaging.models import MAX_BODY_BYTES
from functions.messaging.repository import message_item
from functions.messaging.schema import (
    HEADER_ATTRIBUTES,
    INBOX_INDEX,
    MESSAGES_TABLE,
    OUTBOX_INDEX,
)
from functions.shared.capacity import item_size, read_units
from functions.shared.http import MAX_BODY_BYTES as MAX_REQUEST_BYTES
from seeds import messaging as seed
from tests.functional.conftest import Client, client_for, error, fresh_tables, ok

MESSAGES = "/messaging/messages"
INBOX = "/messaging/inbox"
OUTBOX = "/messaging/outbox"
T0 = datetime(2026, 12, 1, 9, 0, 0, 123000, tzinfo=UTC)
ATTACHMENT = {"name": "plan.pdf", "size": 48213, "contentType": "application/pdf"}


class Clock:
    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now


table = fresh_tables(api, MESSAGES_TABLE, name="table")  # the table's name
client = client_for(api, "table")


@pytest.fixture
def clock(client) -> Clock:
    clock = Clock(T0)
    api.service().clock = clock
    return clock


@pytest.fixture
def seeded(client, table) -> Client:
    seed.load({MESSAGES_TABLE.env_var: table})
    return client


def stored(table: str) -> list[dict[str, Any]]:
    """Every stored message, read test-side (its own client: not the code under test, not under its role)."""
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


def header(message) -> dict[str, str]:
    return {"msgId": message.msg_id, "sender": message.sender, "recipient": message.recipient,
            "date": message.date, "subject": message.subject}


def send(client, sender: str, recipient: str, subject: str = "Hello", body: str = "Hi there", **kwargs):
    return client.call("POST", MESSAGES, body={"recipient": recipient, "subject": subject, "body": body, **kwargs.pop("extra", {})},
                       user=sender, **kwargs)


# --- the seed's questions ----------------------------------------------------------------------------------

def test_davids_inbox_from_the_seed_is_newest_first(seeded):
    page = ok(seeded.call("GET", INBOX, user="david"))
    assert page == {"items": [header(seed.KF8), header(seed.AFED)], "nextCursor": None}


def test_outboxes_from_the_seed_are_newest_first(seeded):
    assert ok(seeded.call("GET", OUTBOX, user="bob"))["items"] == [header(seed.AFED), header(seed.D2B)]
    assert ok(seeded.call("GET", INBOX, user="alice"))["items"] == [header(seed.CT7R), header(seed.D2B)]
    assert ok(seeded.call("GET", OUTBOX, user="david"))["items"] == []


def test_the_inbox_is_one_query_on_the_inbox_index_returning_only_headers(seeded, calls):
    # When David opens his inbox
    ok(seeded.call("GET", INBOX, user="david"))
    # Then DynamoDB answered one Query on the Inbox index, newest first, 50 at most
    assert calls.names() == ["Query"]
    ((params, response),) = calls.of("Query")
    assert params["IndexName"] == INBOX_INDEX and params["ScanIndexForward"] is False and params["Limit"] == 50
    assert "FilterExpression" not in params
    # And the index items are headers only: no Body, no Attachments (the projection is what makes the 1 RCU page)
    assert [sorted(item) for item in response["Items"]] == [sorted(HEADER_ATTRIBUTES)] * 2


def test_the_outbox_is_one_query_on_the_outbox_index_returning_only_headers(seeded, calls):
    ok(seeded.call("GET", OUTBOX, user="bob"))
    ((params, response),) = calls.of("Query")
    assert calls.names() == ["Query"]
    assert params["IndexName"] == OUTBOX_INDEX and params["ScanIndexForward"] is False
    assert [sorted(item) for item in response["Items"]] == [sorted(HEADER_ATTRIBUTES)] * 2


def test_a_page_of_50_headers_reads_one_unit_where_the_bodies_would_read_25(client, table, calls):
    # Given 60 messages of ~4 KB each to erin (written straight to the table: only the read is measured)
    messages = boto3.resource("dynamodb").Table(table)
    with messages.batch_writer() as batch:
        for n in range(60):
            batch.put_item(Item={"MsgId": f"m{n:03d}", "Recipient": "erin", "Sender": "frank",
                                 "Date": f"2026-11-{1 + n % 28:02d}T10:00:{n % 60:02d}.000Z",
                                 "Subject": f"Weekly report {n}", "Body": "x" * 4000})
    # When erin reads her inbox
    page = ok(client.call("GET", INBOX, user="erin"))
    # Then one Query read 50 header items of ~100 B: 1 RCU, eventually consistent, as the seed computes
    ((_, response),) = calls.of("Query")
    assert len(page["items"]) == len(response["Items"]) == 50
    sizes = [item_size(item) for item in response["Items"]]
    assert max(sizes) < 128 and read_units(sizes) == 1.0
    # And the same 50 messages read whole (Solution v.1) would cost 25 times that
    whole = [item_size(messages.get_item(Key={"MsgId": item["MsgId"]})["Item"]) for item in response["Items"]]
    assert read_units(whole) >= 25


def test_the_bench_reads_the_same_index_items(seeded):
    items = api.service().repository.inbox_index_items("david", limit=50)
    assert [item["MsgId"] for item in items] == ["3kf8", "afed"]
    assert all(set(item) == set(HEADER_ATTRIBUTES) for item in items)
    assert read_units(item_size(item) for item in items) == 0.5


# --- send ---------------------------------------------------------------------------------------------------

def test_send_answers_201_with_the_headers_and_reaches_both_boxes(client, table, clock):
    # When alice sends david a message with an attachment
    reply = send(client, "alice", "david", subject="  Plans  ", body="Shall we?", extra={"attachments": [ATTACHMENT]})
    sent = ok(reply, 201)
    # Then she gets its headers: a new id, her as the sender, now as the date
    assert sent == {"msgId": sent["msgId"], "sender": "alice", "recipient": "david",
                    "date": "2026-12-01T09:00:00.123Z", "subject": "Plans"}
    # And it is in david's inbox and her outbox, and whole for both of them
    assert ok(client.call("GET", INBOX, user="david"))["items"] == [sent]
    assert ok(client.call("GET", OUTBOX, user="alice"))["items"] == [sent]
    whole = {**sent, "body": "Shall we?", "attachments": [ATTACHMENT]}
    for reader in ("alice", "david"):
        assert ok(client.call("GET", f"{MESSAGES}/{sent['msgId']}", user=reader)) == whole
    (item,) = stored(table)
    assert item["Body"] == "Shall we?" and item["Attachments"] == [{"Name": "plan.pdf", "Size": 48213,
                                                                    "ContentType": "application/pdf"}]


def test_messages_sharing_a_date_are_all_kept_and_newest_come_first(client, clock):
    sent = []
    for n, step in enumerate((0, 0, 1, 1, 2)):  # two pairs share a Date to the millisecond
        clock.now = T0 + timedelta(seconds=step)
        sent.append(ok(send(client, "bob", "carol", subject=f"n{n}"), 201))
    subjects = [m["subject"] for m in ok(client.call("GET", INBOX, user="carol"))["items"]]
    assert len(subjects) == 5 and subjects[0] == "n4" and set(subjects[1:3]) == {"n2", "n3"}
    assert set(subjects[3:]) == {"n0", "n1"}


def test_inbox_pages_cover_every_message_once_and_their_cursor_is_bound_to_the_caller_and_box(client, clock):
    # Given 5 messages to carol, 2 of them with the same Date
    for n in range(5):
        clock.now = T0 + timedelta(seconds=min(n, 3))
        send(client, "bob", "carol", subject=f"n{n}")
    # When carol reads her inbox 2 by 2
    seen, cursors = [], [None]
    while True:
        url = f"{INBOX}?limit=2" + (f"&cursor={cursors[-1]}" if cursors[-1] else "")
        page = ok(client.call("GET", url, user="carol"))
        seen += [m["msgId"] for m in page["items"]]
        if page["nextCursor"] is None:
            break
        cursors.append(page["nextCursor"])
    # Then she saw each message once, newest first, in 3 pages
    assert len(seen) == len(set(seen)) == 5 and len(cursors) == 3
    first_cursor = cursors[1]
    # And her cursor is worth nothing to someone else, or for her outbox
    assert error(client.call("GET", f"{INBOX}?limit=2&cursor={first_cursor}", user="dave")) == (400, "INVALID_CURSOR")
    assert error(client.call("GET", f"{OUTBOX}?limit=2&cursor={first_cursor}", user="carol")) == (400, "INVALID_CURSOR")


def test_page_size_is_50_by_default_and_at_most_100(seeded):
    assert seeded.call("GET", f"{INBOX}?limit=100", user="david").status == 200
    for bad in ("0", "101", "ten"):
        reply = seeded.call("GET", f"{INBOX}?limit={bad}", user="david")
        assert error(reply) == (400, "VALIDATION_FAILED") and reply.body["error"]["details"][0]["field"] == "query.limit"


# --- who reads ------------------------------------------------------------------------------------------

def test_only_the_sender_and_the_recipient_read_a_message_anyone_else_gets_404(seeded):
    whole = {**header(seed.KF8), "body": seed.KF8.body,
             "attachments": [{"name": "q3-report.pdf", "size": 482133, "contentType": "application/pdf"}]}
    assert ok(seeded.call("GET", f"{MESSAGES}/3kf8", user="alice")) == whole
    assert ok(seeded.call("GET", f"{MESSAGES}/3kf8", user="david")) == whole
    unknown = seeded.call("GET", f"{MESSAGES}/zzzz", user="carol")
    assert error(unknown) == (404, "MESSAGE_NOT_FOUND")
    # Someone else, even an admin, gets exactly the answer of an id that does not exist: ids cannot be probed
    for reader, groups in (("carol", ()), ("root", ("admin",))):
        other = seeded.call("GET", f"{MESSAGES}/3kf8", user=reader, groups=groups)
        assert error(other) == (404, "MESSAGE_NOT_FOUND")
        assert other.body["error"]["message"] == unknown.body["error"]["message"].replace("zzzz", "3kf8")


def test_signed_out_callers_get_401(seeded):
    for method, url in (("GET", INBOX), ("GET", OUTBOX), ("GET", f"{MESSAGES}/afed")):
        assert error(seeded.call(method, url, user=None)) == (401, "UNAUTHORIZED")
    assert error(send(seeded, None, "david")) == (401, "UNAUTHORIZED")


# --- bad input ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"subject": "s", "body": "b"}, "body.recipient"),
        ({"recipient": "da vid", "subject": "s", "body": "b"}, "body.recipient"),
        ({"recipient": "david", "subject": "   ", "body": "b"}, "body.subject"),
        ({"recipient": "david", "subject": "s" * 201, "body": "b"}, "body.subject"),
        ({"recipient": "david", "subject": "s", "body": "é" * (MAX_BODY_BYTES // 2 + 1)}, "body.body"),
        ({"recipient": "david", "subject": "s", "body": "b", "attachments": [ATTACHMENT] * 11}, "body.attachments"),
        ({"recipient": "david", "subject": "s", "body": "b", "attachments": [{**ATTACHMENT, "size": -1}]},
         "body.attachments.0.size"),
        ({"recipient": "david", "subject": "s", "body": "b", "attachments": [{**ATTACHMENT, "size": "12"}]},
         "body.attachments.0.size"),
        ({"recipient": "david", "subject": "s", "body": "b", "attachments": [{**ATTACHMENT, "contentType": "pdf"}]},
         "body.attachments.0.contentType"),
        ({"recipient": "david", "subject": "s", "body": "b", "sender": "mallory"}, "body.sender"),
    ],
)
def test_bad_input_is_400_and_writes_nothing(client, table, body, field):
    reply = client.call("POST", MESSAGES, body=body, user="alice")
    assert error(reply) == (400, "VALIDATION_FAILED")
    assert field in [d["field"] for d in reply.body["error"]["details"]]
    assert stored(table) == []


def test_a_body_at_the_cap_is_sent_and_the_request_over_64_kb_is_413_unread(client, table):
    at_cap = "é" * (MAX_BODY_BYTES // 2)  # 2 bytes each in UTF-8: exactly the cap, 3 times that as JSON (\u00e9)
    assert send(client, "alice", "david", body=at_cap).status == 201
    too_big = send(client, "alice", "david", body="x" * (MAX_REQUEST_BYTES + 1))
    assert error(too_big) == (413, "PAYLOAD_TOO_LARGE")
    assert len(stored(table)) == 1


def test_a_malformed_message_id_is_400(client):
    reply = client.call("GET", f"{MESSAGES}/not.an.id", user="alice")
    assert error(reply) == (400, "VALIDATION_FAILED")


# --- idempotent retries ---------------------------------------------------------------------------------

def test_a_retry_with_the_same_idempotency_key_sends_once(client, table):
    key = {"Idempotency-Key": "send-1"}
    first = send(client, "alice", "david", headers=key)
    again = send(client, "alice", "david", headers=key)
    assert first.status == again.status == 201 and again.body == first.body
    assert [m["msgId"] for m in ok(client.call("GET", INBOX, user="david"))["items"]] == [first.body["msgId"]]
    # The same key with another message is refused and sends nothing
    other = send(client, "alice", "david", body="something else", headers=key)
    assert error(other) == (409, "IDEMPOTENCY_KEY_REUSED")
    # Without a key every POST sends
    send(client, "alice", "david")
    send(client, "alice", "david")
    assert len(stored(table)) == 3


def test_a_send_never_overwrites_a_message_and_a_failed_send_is_not_remembered(seeded, table):
    # Given an id generator that hands out a taken id (afed, Bob's message to David)
    service = api.service()
    ids = iter(["afed", "fresh-id"])
    service.new_id = lambda: next(ids)
    key = {"Idempotency-Key": "send-2"}
    # When alice sends, the Put's condition refuses to overwrite afed
    clash = send(seeded, "alice", "carol", subject="Mine now", headers=key)
    assert error(clash) == (409, "MESSAGE_ID_TAKEN")
    assert ok(seeded.call("GET", f"{MESSAGES}/afed", user="david"))["subject"] == seed.AFED.subject
    # And her retry with the same key runs again (the failure was forgotten) and sends once
    retry = send(seeded, "alice", "carol", subject="Mine now", headers=key)
    assert ok(retry, 201)["msgId"] == "fresh-id"
    assert len(stored(table)) == len(seed.MESSAGES) + 1


def test_loading_the_seed_twice_changes_nothing(seeded, table):
    before = sorted(stored(table), key=lambda item: item["MsgId"])
    seed.load({MESSAGES_TABLE.env_var: table})
    assert sorted(stored(table), key=lambda item: item["MsgId"]) == before
    assert {item["MsgId"]: item for item in before} == {m.msg_id: message_item(m) for m in seed.MESSAGES}
