"""Messaging example data: the seed's four messages (slide "Solution v.2"), under the seed's MsgIds, with bodies of a
few KB (the bulk the Inbox and Outbox indexes leave out) and, for one, attachment metadata.

Users are the local runtime's (`make token USER=david`): the seed's David, Alice, Bob and Carol are `david`,
`alice`, `bob` and `carol`, so a token for `david` reads David's inbox, newest first: 3kf8 (2014-10-03, from Alice),
then afed (2014-10-02, from Bob). The seed shows days only; the times of day here are made up.
Loading twice changes nothing: a message whose MsgId exists is skipped (the Put is conditional).
"""

from __future__ import annotations

from collections.abc import Mapping

from functions.messaging.models import Attachment, Message
from functions.messaging.repository import MessagingRepository
from functions.shared.errors import ConflictError
from functions.shared.settings import Settings


def _body(greeting: str, topic: str, sign_off: str, paragraphs: int = 8) -> str:
    """A plain-text body of a few KB: a greeting, numbered paragraphs about `topic`, a signature."""
    paragraph = (
        f"About {topic}: I went through the notes again this morning and wrote down what we agreed, what is still "
        "open and who looks after each part. Nothing here is urgent, but I would rather we settle it before the "
        "next round of meetings fills the calendar again, so please read it when you have a quiet moment and tell "
        "me where I got it wrong. If it is easier to talk it over, I am free most afternoons this week."
    )
    parts = [greeting] + [f"{n}. {paragraph}" for n in range(1, paragraphs + 1)] + [sign_off]
    return "\n\n".join(parts)


AFED = Message(
    msg_id="afed", sender="bob", recipient="david", date="2014-10-02T09:14:00.000Z", subject="Hi! Lunch on Friday?",
    body=_body("Hi David,", "lunch on Friday and the new office", "Cheers,\nBob"),
)
KF8 = Message(
    msg_id="3kf8", sender="alice", recipient="david", date="2014-10-03T16:42:00.000Z",
    subject="RE: The quarterly numbers",
    body=_body("David,", "the quarterly numbers", "Best,\nAlice", paragraphs=10),
    attachments=[Attachment(name="q3-report.pdf", size=482_133, content_type="application/pdf")],
)
D2B = Message(
    msg_id="9d2b", sender="bob", recipient="alice", date="2014-09-28T11:05:00.000Z",
    subject="FW: Ok, here is the itinerary",
    body=_body("Alice,", "the itinerary for the trip", "Bob", paragraphs=6),
)
CT7R = Message(
    msg_id="ct7r", sender="carol", recipient="alice", date="2014-10-01T08:30:00.000Z", subject="Hi! Long time no see",
    body=_body("Hi Alice!", "catching up after the summer", "Love,\nCarol", paragraphs=5),
)
MESSAGES = (AFED, KF8, D2B, CT7R)


def load(env: Mapping[str, str]) -> None:
    repository = MessagingRepository(Settings(env))
    for message in MESSAGES:
        try:
            repository.put_message(message)
        except ConflictError:
            continue  # loaded before
