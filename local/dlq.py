"""On-failure destinations of stream event source mappings: SQS queues on the local endpoint.

Why a module: when a mapping gives up on a batch, Lambda sends a description of it (not the records)
to the mapping's on-failure destination. Locally that is the template's queue on moto, so the usual
tools (`aws sqs receive-message`) work, and `python -m local dlq` / `Runtime.dlq_messages()` can
list what is there without consuming it. Destination queues are tagged so that the CLI, a separate
process that only knows the endpoint, finds them among all queues.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

ON_FAILURE_TAG = "local:on-failure-destination"
PEEK_VISIBILITY = 30  # seconds a message is hidden while listing, if the lister dies midway


class QueueDestination:
    """An SQS on-failure destination; tags its queue so that `on_failure_messages` finds it."""

    def __init__(self, arn: str, sqs: Any) -> None:
        self.arn = arn
        self._sqs = sqs
        self.url: str = sqs.get_queue_url(QueueName=arn.rsplit(":", 1)[-1])["QueueUrl"]
        sqs.tag_queue(QueueUrl=self.url, Tags={ON_FAILURE_TAG: "true"})

    def send(self, record: Mapping[str, Any]) -> None:
        self._sqs.send_message(QueueUrl=self.url, MessageBody=json.dumps(record))


def is_queue_arn(arn: str) -> bool:
    return arn.startswith("arn:") and arn.split(":")[2:3] == ["sqs"]


def on_failure_messages(sqs: Any) -> dict[str, list[Any]]:
    """Every on-failure queue's messages (parsed JSON bodies, oldest first) by queue ARN.

    Messages stay in their queue: they are received with a short visibility timeout and made
    visible again at once (their ApproximateReceiveCount goes up, nothing else changes).
    """
    found: dict[str, list[Any]] = {}
    for url in _queue_urls(sqs):
        tags = sqs.list_queue_tags(QueueUrl=url).get("Tags") or {}
        if ON_FAILURE_TAG not in tags:
            continue
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        found[arn] = peek(sqs, url)
    return found


def peek(sqs: Any, url: str) -> list[Any]:
    """All messages of a queue, oldest first, left in the queue."""
    messages: list[dict[str, Any]] = []
    while True:
        batch = sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=10,
            VisibilityTimeout=PEEK_VISIBILITY,
            AttributeNames=["SentTimestamp"],
        ).get("Messages", [])
        if not batch:
            break
        messages.extend(batch)
    for message in messages:
        sqs.change_message_visibility(
            QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
        )
    messages.sort(key=lambda m: int(m.get("Attributes", {}).get("SentTimestamp", 0)))
    return [_body(message["Body"]) for message in messages]


def _queue_urls(sqs: Any) -> list[str]:
    urls: list[str] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = sqs.list_queues(**kwargs)
        urls.extend(page.get("QueueUrls", []))
        if not page.get("NextToken"):
            return urls
        kwargs["NextToken"] = page["NextToken"]


def _body(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


__all__ = ["ON_FAILURE_TAG", "QueueDestination", "is_queue_arn", "on_failure_messages", "peek"]
