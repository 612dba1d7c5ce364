"""On-failure destinations of stream event source mappings (SQS queues on the local endpoint), and the records the
consumers parked themselves: what `make dlq` lists and `make replay` replays.

Why a module: when a mapping gives up on a batch, Lambda sends a description of it (not the records)
to the mapping's on-failure destination. Locally that is the template's queue on moto, so the usual
tools (`aws sqs receive-message`) work, and `python -m local dlq` / `Runtime.dlq_messages()` can
list what is there without consuming it. Destination queues are tagged so that the CLI, a separate
process that only knows the endpoint, finds them among all queues.

The records themselves are in the parked-records table (functions/shared/parked.py): `parked_records` finds it by
its key schema and lists it with one Query for the consumers' names, then one Query per consumer. `replay` asks
each consumer to replay its own (the Lambda API's Invoke, served by the runtime: local/lambda_api.py), so the
records are applied by the consumer's code under its role, locally as on AWS.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from functions.shared.parked import CONSUMERS_PARTITION, DEFAULT_REPLAY_LIMIT, PARKED_TABLE

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


# --- parked records ----------------------------------------------------------------------------------------------

_PARKED_KEYS = [{"AttributeName": a.name, "KeyType": t} for a, t in zip(PARKED_TABLE.key_attributes, ("HASH", "RANGE"))]


def parked_tables(dynamodb: Any) -> list[str]:
    """The tables with the parked-records key schema (consumer, position)."""
    names: list[str] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = dynamodb.list_tables(**kwargs)
        for name in page.get("TableNames", []):
            if dynamodb.describe_table(TableName=name)["Table"]["KeySchema"] == _PARKED_KEYS:
                names.append(name)
        if not page.get("LastEvaluatedTableName"):
            return names
        kwargs["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def parked_records(dynamodb: Any) -> dict[str, list[dict[str, Any]]]:
    """Every parked record (pending, replayed or superseded), by consumer, in stream order, each with its whole
    stream record: one Query for the consumers' names, then one Query per consumer."""
    found: dict[str, list[dict[str, Any]]] = {}
    for table in parked_tables(dynamodb):
        for entry in _query(dynamodb, table, CONSUMERS_PARTITION):
            consumer = entry["position"]
            found.setdefault(consumer, []).extend(_parked(item) for item in _query(dynamodb, table, consumer))
    return found


def _query(dynamodb: Any, table: str, consumer: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    request: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": "#c = :c",
        "ExpressionAttributeNames": {"#c": "consumer"},
        "ExpressionAttributeValues": {":c": {"S": consumer}},
        "ConsistentRead": True,
    }
    deserializer = TypeDeserializer()
    while True:
        page = dynamodb.query(**request)
        items += [{k: deserializer.deserialize(v) for k, v in item.items()} for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return items
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def _parked(item: Mapping[str, Any]) -> dict[str, Any]:
    shown = {key: item[key] for key in ("position", "status", "errorType", "errorMessage", "parkedAt", "replayedAt")
             if key in item}
    return {**shown, "record": _body(str(item.get("record", "")))}


def replay(
    lambda_client: Any, function: str | None = None, limit: int = DEFAULT_REPLAY_LIMIT
) -> tuple[dict[str, Any], bool]:
    """Invoke each consumer that parks records (its environment names the parked-records table), or the one named
    (`function`: its name, ARN, or a part of its name), with `{"replay": {"limit", "after"}}` until it has been
    through all its pending records. Returns, by function name, the summed outcome, and whether every invocation
    succeeded."""
    consumers = [f for f in _functions(lambda_client) if PARKED_TABLE.env_var in _variables(f)]
    if function:
        consumers = [f for f in consumers
                     if function in (f["FunctionName"], f["FunctionArn"]) or function.lower() in f["FunctionName"].lower()]
        if not consumers:
            raise ValueError(f"no stream consumer that parks records matches {function!r}")
    results: dict[str, Any] = {}
    ok = True
    for config in consumers:
        name = config["FunctionName"]
        total: dict[str, Any] = {}
        after: str | None = None
        while True:
            payload = {"replay": {"limit": limit, **({"after": after} if after else {})}}
            response = lambda_client.invoke(FunctionName=config["FunctionArn"], Payload=json.dumps(payload).encode())
            body = _body(response["Payload"].read().decode() or "null")
            if response.get("FunctionError"):
                total["error"], ok = body, False
                break
            _add(total, body)
            after = body.get("next")
            if not after:
                break
        results[name] = total
    return results, ok


def _functions(lambda_client: Any) -> list[dict[str, Any]]:
    functions: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = lambda_client.list_functions(**kwargs)
        functions += page.get("Functions", [])
        if not page.get("NextMarker"):
            return functions
        kwargs["Marker"] = page["NextMarker"]


def _variables(config: Mapping[str, Any]) -> Mapping[str, str]:
    return (config.get("Environment") or {}).get("Variables") or {}


def _add(total: dict[str, Any], page: Mapping[str, Any]) -> None:
    for key, value in page.items():
        if key == "next":
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            total[key] = total.get(key, 0) + value
        elif isinstance(value, list):
            total[key] = total.get(key, []) + value
        else:
            total[key] = value


__all__ = [
    "ON_FAILURE_TAG",
    "QueueDestination",
    "is_queue_arn",
    "on_failure_messages",
    "parked_records",
    "parked_tables",
    "peek",
    "replay",
]
