"""What `make dlq` lists and `make replay` replays. The on-failure destinations of stream mappings are SQS queues on
moto (the usual tools work), tagged so that `python -m local dlq`, a separate process, finds them; they hold what Lambda
sends when it gives up on a batch: a description, not the records. The records are in the parked-records table
(functions/shared/parked.py), found by its key schema; `replay` asks each consumer to replay its own through the Lambda
API's Invoke, so they are applied by the consumer's code under its role, locally as on AWS. A deployed stage's
queues, table and consumers are found by tools/parked.py (`make dlq STAGE=...`), which passes them in here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from functions.shared.parked import CONSUMERS_PARTITION, DEFAULT_REPLAY_LIMIT, PARKED_TABLE

ON_FAILURE_TAG = "local:on-failure-destination"
PEEK_VISIBILITY = 30  # seconds a message is hidden while listing, if the lister dies midway
PEEK_LIMIT = 1_000  # messages listed per queue at most (a backlog's first thousand: enough to see what failed)
_PARKED_KEYS = [{"AttributeName": a.name, "KeyType": t}
                for a, t in zip(PARKED_TABLE.key_attributes, ("HASH", "RANGE"), strict=True)]


class QueueDestination:
    """An SQS on-failure destination; tags its queue so that `on_failure_messages` finds it."""

    def __init__(self, arn: str, sqs: Any) -> None:
        self.arn, self._sqs = arn, sqs
        self.url: str = sqs.get_queue_url(QueueName=arn.rsplit(":", 1)[-1])["QueueUrl"]
        sqs.tag_queue(QueueUrl=self.url, Tags={ON_FAILURE_TAG: "true"})

    def send(self, record: Mapping[str, Any]) -> None:
        self._sqs.send_message(QueueUrl=self.url, MessageBody=json.dumps(record))


def on_failure_messages(sqs: Any, queue_urls: Iterable[str] | None = None, *,
                        wait_seconds: int = 0) -> dict[str, list[Any]]:
    """Every on-failure queue's messages (parsed JSON bodies, oldest first) by queue ARN. They stay in their queue:
    received with a short visibility timeout and made visible again at once (their receive count goes up).
    `queue_urls`: these queues (a deployed stage's, tools/parked.py); by default every queue tagged as an on-failure
    destination (the local runtime's). `wait_seconds`: SQS long polling (see `peek`)."""
    if queue_urls is None:
        queue_urls = [url for url in _pages(sqs, "list_queues", "QueueUrls")
                      if ON_FAILURE_TAG in (sqs.list_queue_tags(QueueUrl=url).get("Tags") or {})]
    found: dict[str, list[Any]] = {}
    for url in queue_urls:
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        found[arn] = peek(sqs, url, wait_seconds=wait_seconds)
    return found


def peek(sqs: Any, url: str, *, wait_seconds: int = 0) -> list[Any]:
    """All messages of a queue, oldest first, left in the queue. On AWS a short poll (`wait_seconds` 0) samples a
    subset of SQS's servers and may answer nothing while messages wait; a long poll asks them all (SQS Developer
    Guide, "Amazon SQS short and long polling"), and costs its wait once, when the queue has nothing more to give."""
    messages: dict[str, dict[str, Any]] = {}  # by MessageId: a message seen again (its hiding ran out) ends the read
    while len(messages) < PEEK_LIMIT and (batch := sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=PEEK_VISIBILITY, WaitTimeSeconds=wait_seconds,
            AttributeNames=["SentTimestamp"]).get("Messages", [])):
        fresh = [message for message in batch if message["MessageId"] not in messages]
        messages.update((message["MessageId"], message) for message in fresh)
        if len(fresh) < len(batch):
            break
    for message in messages.values():
        sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0)
    ordered = sorted(messages.values(), key=lambda m: int(m.get("Attributes", {}).get("SentTimestamp", 0)))
    return [_body(message["Body"]) for message in ordered]


def parked_records(dynamodb: Any, tables: Iterable[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Every parked record (pending, replayed or superseded), by consumer, in stream order, each with its whole
    stream record: one Query for the consumers' names, then one Query per consumer. Read from the tables with the
    parked-records key schema among `tables` (a deployed stage's, tools/parked.py), by default among all."""
    found: dict[str, list[dict[str, Any]]] = {}
    for table in _pages(dynamodb, "list_tables", "TableNames") if tables is None else tables:
        if dynamodb.describe_table(TableName=table)["Table"]["KeySchema"] != _PARKED_KEYS:
            continue
        for entry in _consumer_items(dynamodb, table, CONSUMERS_PARTITION):
            found.setdefault(entry["position"], []).extend(
                {**{k: item[k] for k in ("position", "status", "errorType", "errorMessage", "parkedAt", "replayedAt")
                    if k in item}, "record": _body(str(item.get("record", "")))}
                for item in _consumer_items(dynamodb, table, entry["position"]))
    return found


def _consumer_items(dynamodb: Any, table: str, consumer: str) -> Iterator[dict[str, Any]]:
    deserializer = TypeDeserializer()
    for item in _pages(dynamodb, "query", "Items", TableName=table, KeyConditionExpression="#c = :c",
                       ConsistentRead=True, ExpressionAttributeNames={"#c": "consumer"},
                       ExpressionAttributeValues={":c": {"S": consumer}}):
        yield {k: deserializer.deserialize(v) for k, v in item.items()}


def replay(lambda_client: Any, function: str | None = None, limit: int = DEFAULT_REPLAY_LIMIT, *,
           functions: Iterable[Mapping[str, Any]] | None = None) -> tuple[dict[str, Any], bool]:
    """Invoke each consumer that parks records (its environment names the parked-records table), or the one named
    (`function`: its name, ARN, or a part of its name), with `{"replay": {"limit", "after"}}` until it has been
    through all its pending records. The consumers are chosen among `functions` (configurations as Lambda's
    GetFunctionConfiguration answers them: a deployed stage's, tools/parked.py), by default among all that
    ListFunctions answers (the local runtime's). Returns, by function name, the summed outcome, and whether every
    invocation succeeded."""
    candidates = _pages(lambda_client, "list_functions", "Functions") if functions is None else functions
    consumers = [f for f in candidates if is_consumer(f)]
    if function:
        consumers = [f for f in consumers if function in (f["FunctionName"], f["FunctionArn"])
                     or function.lower() in f["FunctionName"].lower()]
        if not consumers:
            raise ValueError(f"no stream consumer that parks records matches {function!r}")
    results: dict[str, Any] = {}
    ok = True  # every invocation succeeded
    for config in consumers:
        total: dict[str, Any] = {}
        after: str | None = None
        while True:
            payload = {"replay": {"limit": limit, **({"after": after} if after else {})}}
            response = lambda_client.invoke(FunctionName=config["FunctionArn"], Payload=json.dumps(payload).encode())
            body = _body(response["Payload"].read().decode() or "null")
            if response.get("FunctionError"):
                total["error"], ok = body, False
                break
            for key, value in body.items():  # counts add up, lists concatenate
                if isinstance(value, (int, list)) and not isinstance(value, bool) and key != "next":
                    total[key] = total.get(key, type(value)()) + value
                elif key != "next":
                    total[key] = value
            after = body.get("next")
            if not after:
                break
        results[config["FunctionName"]] = total
    return results, ok


def is_consumer(configuration: Mapping[str, Any]) -> bool:
    """A function that parks records: its environment names the parked-records table."""
    return PARKED_TABLE.env_var in ((configuration.get("Environment") or {}).get("Variables") or {})


def _pages(client: Any, operation: str, key: str, **request: Any) -> Iterator[Any]:
    for page in client.get_paginator(operation).paginate(**request):
        yield from page.get(key, [])


def _body(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
