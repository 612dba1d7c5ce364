"""`make dlq`'s listing of an on-failure queue (local/streams/destinations.py `peek`): each message once, and a read
that ends, even when a backlog outlasts the time each received message stays hidden."""

from __future__ import annotations

import json
from typing import Any

from local.streams import destinations


class RedeliveringQueue:
    """An SQS queue whose messages come back once their hiding runs out: here, after `hidden_for` receives (a slow
    lister on a long backlog). Records which messages were made visible again."""

    def __init__(self, count: int, hidden_for: int) -> None:
        self.messages = [{"MessageId": f"m{i}", "ReceiptHandle": f"r{i}", "Body": json.dumps({"n": i}),
                          "Attributes": {"SentTimestamp": str(1000 + i)}} for i in range(count)]
        self.hidden_for, self.receives, self.shown_again = hidden_for, 0, []
        self.next = 0

    def receive_message(self, **kwargs: Any) -> dict[str, Any]:
        self.receives += 1
        if self.receives > 1000:
            raise AssertionError("the listing does not end")
        if self.receives % self.hidden_for == 0:
            self.next = 0  # the first messages' hiding ran out: they are received again
        batch = self.messages[self.next:self.next + kwargs["MaxNumberOfMessages"]]
        self.next += len(batch)
        return {"Messages": batch}

    def change_message_visibility(self, **kwargs: Any) -> None:
        self.shown_again.append(kwargs["ReceiptHandle"])


def test_a_backlog_that_outlasts_the_hiding_is_listed_once_each_in_the_order_sent():
    queue = RedeliveringQueue(count=95, hidden_for=4)  # 3 batches of 10 received, then the first 10 come back
    listed = destinations.peek(queue, "url")
    assert [m["n"] for m in listed] == list(range(30))  # each once, oldest first; the read stopped at the repeat
    assert sorted(queue.shown_again) == sorted(f"r{i}" for i in range(30))


def test_a_queue_read_to_its_end_is_listed_whole():
    queue = RedeliveringQueue(count=25, hidden_for=10_000)
    assert [m["n"] for m in destinations.peek(queue, "url")] == list(range(25))


def test_at_most_peek_limit_messages_are_listed(monkeypatch):
    monkeypatch.setattr(destinations, "PEEK_LIMIT", 20)
    queue = RedeliveringQueue(count=95, hidden_for=10_000)
    assert len(destinations.peek(queue, "url")) == 20
