"""Sessions example data: the seed's session of dave (its uuid4 token, kept as the seed wrote it), and alice's —
two live sessions and one that expired yesterday (still present: TTL deletes within days; it reads as absent).

Tokens are fixed and each is written on condition that it does not exist: loading twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from functions.sessions.models import Session
from functions.sessions.repository import SessionsRepository
from functions.sessions.schema import DEFAULT_LIFETIME_SECONDS, LIFETIME_ENV
from functions.shared.settings import Settings

DAVE_TOKEN = "0bc6bdf8-6dac-4212-b11a-81f784297c78"  # the seed's example token
ALICE_LAPTOP = "alice-laptop-sgHq3Yd1vQzN2m8KpXw4TbLr6fUe0cJ9aVsy"
ALICE_PHONE = "alice-phone-Wm5nB2xR7kTq9LdZ3vYc8HgJ1sPf4eNu0oAi"
ALICE_EXPIRED = "alice-expired-Qe7Jr2Lm9XcV4bN8tKs1HdWz6yPg3uFo5a"

# token → (username, how long before the load it was created)
SESSIONS = {
    DAVE_TOKEN: ("dave", timedelta(hours=1)),
    ALICE_LAPTOP: ("alice", timedelta(days=2)),
    ALICE_PHONE: ("alice", timedelta(minutes=5)),
    ALICE_EXPIRED: ("alice", timedelta(days=8)),
}


def load(env: Mapping[str, str], now: datetime | None = None) -> None:
    settings = Settings(env)
    repository = SessionsRepository(settings)
    lifetime = timedelta(seconds=settings.integer(LIFETIME_ENV, DEFAULT_LIFETIME_SECONDS))
    now = (now or datetime.now(UTC)).replace(microsecond=0)
    for token, (username, age) in SESSIONS.items():
        created_at = now - age
        # alice's oldest session outlived the seed's 7 days whatever the stage's lifetime: it is the expired one
        expires_at = now - timedelta(days=1) if token == ALICE_EXPIRED else created_at + lifetime
        session = Session(session_token=token, username=username, created_at=created_at, expires_at=expires_at)
        repository.create_session(session, ttl=int(expires_at.timestamp()))  # False: loaded before
