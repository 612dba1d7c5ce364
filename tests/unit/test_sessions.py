"""Sessions' pure logic: tokens, expiry, and the item ↔ model mapping onto the seed's attribute names."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from functions.sessions.models import TOKEN_PATTERN, Session
from functions.sessions.repository import StoredSession, session_item, stored_session
from functions.sessions.service import new_token


def test_tokens_are_256_random_bits_url_safe_and_accepted_by_the_routes():
    tokens = {new_token() for _ in range(200)}
    assert len(tokens) == 200
    assert all(len(t) == 43 and re.fullmatch(TOKEN_PATTERN, t) for t in tokens)


def test_a_session_has_expired_when_its_ttl_is_now_or_past():
    session = Session(session_token="t" * 43, username="dave", created_at=datetime(2026, 1, 1, tzinfo=UTC),
                      expires_at=datetime(2026, 1, 8, tzinfo=UTC))
    stored = StoredSession(session=session, ttl=1000)
    assert not stored.expired(999)
    assert stored.expired(1000) and stored.expired(1001)


def test_items_keep_the_seeds_attribute_names_and_read_back_as_written():
    created = datetime(2026, 11, 23, 7, 0, tzinfo=UTC)
    session = Session(session_token="0bc6bdf8-6dac-4212-b11a-81f784297c78", username="dave", created_at=created,
                      expires_at=created + timedelta(days=7))
    item = session_item(session, ttl=int((created + timedelta(days=7)).timestamp()))
    assert item == {
        "SessionToken": "0bc6bdf8-6dac-4212-b11a-81f784297c78", "Username": "dave",
        "CreatedAt": "2026-11-23T07:00:00+00:00", "ExpiresAt": "2026-11-30T07:00:00+00:00", "TTL": 1796022000,
    }
    assert stored_session(item) == StoredSession(session=session, ttl=1796022000)
