"""Messaging over HTTP on the local runtime: the seed's inbox and outbox, reading a message, sending with retries,
paging, and the size limits. The tests that send use fresh usernames, so the seed's boxes stay as the seed has them."""

from __future__ import annotations

import uuid

import pytest

from functions.messaging.models import MAX_BODY_BYTES
from seeds import messaging as seed

BASE = "/messaging"


def header(message) -> dict[str, str]:
    return {"msgId": message.msg_id, "sender": message.sender, "recipient": message.recipient,
            "date": message.date, "subject": message.subject}


def fresh_user(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


def send(api, sender: str, recipient: str, subject: str = "Hello", body: str = "Hi!", **kwargs):
    return api.call("POST", f"{BASE}/messages", user=sender,
                    json={"recipient": recipient, "subject": subject, "body": body}, **kwargs)


@pytest.fixture
def pair():
    return fresh_user("sender"), fresh_user("recipient")


# --- the seed's examples ---------------------------------------------------------------------------------

def test_davids_inbox_from_the_seed_is_newest_first(api):
    reply = api.call("GET", f"{BASE}/inbox", user="david")
    assert reply.status_code == 200, reply.text
    assert reply.json() == {"items": [header(seed.KF8), header(seed.AFED)], "nextCursor": None}


def test_the_seeds_other_boxes(api):
    assert api.call("GET", f"{BASE}/inbox", user="alice").json()["items"] == [header(seed.CT7R), header(seed.D2B)]
    assert api.call("GET", f"{BASE}/outbox", user="bob").json()["items"] == [header(seed.AFED), header(seed.D2B)]
    assert api.call("GET", f"{BASE}/outbox", user="carol").json()["items"] == [header(seed.CT7R)]


def test_a_seed_message_is_read_whole_by_its_sender_and_recipient_only(api):
    for reader in ("alice", "david"):
        reply = api.call("GET", f"{BASE}/messages/3kf8", user=reader)
        assert reply.status_code == 200, reply.text
        message = reply.json()
        assert message["body"] == seed.KF8.body and len(message["body"].encode()) > 4000  # the bulk, a few KB
        assert message["attachments"] == [{"name": "q3-report.pdf", "size": 482133, "contentType": "application/pdf"}]
    for reader in ("bob", "carol"):
        reply = api.call("GET", f"{BASE}/messages/3kf8", user=reader)
        assert (reply.status_code, reply.json()["error"]["code"]) == (404, "MESSAGE_NOT_FOUND")


# --- sending -----------------------------------------------------------------------------------------------

def test_a_sent_message_reaches_the_recipients_inbox_and_the_senders_outbox_newest_first(api, pair):
    sender, recipient = pair
    sent = []
    for n in range(3):
        reply = send(api, sender, recipient, subject=f"n{n}", body=f"body {n}")
        assert reply.status_code == 201, reply.text
        sent.append(reply.json())
    assert [m["sender"] for m in sent] == [sender] * 3
    inbox = api.call("GET", f"{BASE}/inbox", user=recipient).json()["items"]
    outbox = api.call("GET", f"{BASE}/outbox", user=sender).json()["items"]
    assert {m["msgId"] for m in inbox} == {m["msgId"] for m in outbox} == {m["msgId"] for m in sent}
    assert [m["date"] for m in inbox] == sorted((m["date"] for m in sent), reverse=True)
    assert "body" not in inbox[0]  # headers only
    whole = api.call("GET", f"{BASE}/messages/{sent[0]['msgId']}", user=recipient).json()
    assert whole == {**sent[0], "body": "body 0", "attachments": []}
    assert api.call("GET", f"{BASE}/messages/{sent[0]['msgId']}", user=fresh_user("other")).status_code == 404


def test_a_retried_send_with_the_same_idempotency_key_sends_once(api, pair):
    sender, recipient = pair
    key = {"Idempotency-Key": f"send-{uuid.uuid4().hex}"}
    first = send(api, sender, recipient, headers=dict(key))
    again = send(api, sender, recipient, headers=dict(key))
    assert first.status_code == again.status_code == 201 and again.json() == first.json()
    assert [m["msgId"] for m in api.call("GET", f"{BASE}/inbox", user=recipient).json()["items"]] == [first.json()["msgId"]]


def test_the_inbox_pages_with_its_signed_cursor(api, pair):
    sender, recipient = pair
    for n in range(5):
        assert send(api, sender, recipient, subject=f"n{n}").status_code == 201
    seen, cursor = [], None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = api.call("GET", f"{BASE}/inbox", user=recipient, params=params).json()
        seen += [m["msgId"] for m in page["items"]]
        cursor = page["nextCursor"]
        if cursor is None:
            break
        stolen = api.call("GET", f"{BASE}/inbox", user="david", params={"limit": 2, "cursor": cursor})
        assert (stolen.status_code, stolen.json()["error"]["code"]) == (400, "INVALID_CURSOR")
    assert len(seen) == len(set(seen)) == 5


# --- limits and refusals ---------------------------------------------------------------------------------

def test_a_body_over_the_cap_is_400_and_a_request_over_64_kb_is_413(api, pair):
    sender, recipient = pair
    over_cap = send(api, sender, recipient, body="x" * (MAX_BODY_BYTES + 1))
    assert (over_cap.status_code, over_cap.json()["error"]["code"]) == (400, "VALIDATION_FAILED")
    too_big = send(api, sender, recipient, body="x" * (64 * 1024))
    assert too_big.status_code == 413
    assert api.call("GET", f"{BASE}/inbox", user=recipient).json()["items"] == []


def test_signed_out_callers_get_401(api):
    assert api.call("GET", f"{BASE}/inbox", user=None).status_code == 401
    assert send(api, None, "david").status_code == 401
