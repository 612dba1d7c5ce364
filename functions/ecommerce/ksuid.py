"""KSUIDs (github.com/segmentio/ksuid), the seed's order ids: 4 bytes of seconds since 2014-05-13 16:53:20 UTC, then
16 random bytes, written in base62 (0-9A-Za-z, ASCII order) padded to 27 characters. Ids of later seconds sort after
earlier ones as plain strings, so a sort key made of them lists orders by time; ids of one second are in random order.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
EPOCH = 1_400_000_000
LENGTH = 27
PAYLOAD_BYTES = 16
PATTERN = r"^[0-9A-Za-z]{27}$"
_MAX_SECONDS = 2**32 - 1


def encode(value: int) -> str:
    """`value` (< 2**160) in base62, left-padded with "0" to 27 characters."""
    digits: list[str] = []
    while value:
        value, remainder = divmod(value, 62)
        digits.append(ALPHABET[remainder])
    return "".join(reversed(digits)).rjust(LENGTH, ALPHABET[0])


def decode(text: str) -> int:
    value = 0
    for char in text:
        value = value * 62 + ALPHABET.index(char)
    return value


def new(now: datetime, payload: bytes | None = None) -> str:
    """A KSUID for the instant `now` (seconds kept), with a random payload unless one is given."""
    seconds = int(now.timestamp()) - EPOCH
    if not 0 <= seconds <= _MAX_SECONDS:
        raise ValueError("a KSUID covers 2014-05-13 to 2150")
    payload = secrets.token_bytes(PAYLOAD_BYTES) if payload is None else payload
    return encode((seconds << (8 * PAYLOAD_BYTES)) | int.from_bytes(payload, "big"))


def timestamp(ksuid: str) -> datetime:
    """The second a KSUID was made."""
    return datetime.fromtimestamp((decode(ksuid) >> (8 * PAYLOAD_BYTES)) + EPOCH, tz=UTC)
