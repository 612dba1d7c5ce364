"""`make dlq STAGE=<stage>` and `make replay STAGE=<stage> [FUNCTION=...]`: what a deployed stage's stream consumers
gave up on and parked, and the parked records replayed, with your AWS credentials. Without STAGE= the same commands
read the local runtime (`python -m local dlq | replay`); both print the same JSON, from the same code
(local/streams/destinations.py).

Only the stage's own resources, found through its stack (tools/stage.py;
docs/adr/0118-operator-tools-find-a-stage-by-its-stack.md), so another stage in the account and region is never read
nor invoked:
- its consumers: the stage's functions whose environment names the parked-records table;
- their on-failure queues: the `OnFailure` destinations of those consumers' event source mappings
  (ListEventSourceMappings), and no other queue of the account or the stack;
- the parked records: the table that environment names (one Query for the consumers, one per consumer);
- replay: each consumer (or the one FUNCTION names: name, ARN or a part of its name) invoked through Lambda's Invoke,
  RequestResponse, with `{"replay": {"limit", "after"}}` until it has been through its pending records. The consumer
  applies them with its own rules under its own role (functions/shared/parked.py), a record once however often.

The messages stay in their queues (received with a 30 s visibility timeout, released at once: their receive count
goes up). The region is tools/region.py's (AWS_REGION, AWS_DEFAULT_REGION, the profile), said on stderr. Your
credentials need cloudformation:ListStackResources, lambda:GetFunctionConfiguration, ListEventSourceMappings and
InvokeFunction (replay), sqs:GetQueueUrl, GetQueueAttributes, ReceiveMessage and ChangeMessageVisibility, and
dynamodb:DescribeTable and Query on the parked-records table.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from functions.shared.parked import DEFAULT_REPLAY_LIMIT
from functions.shared.schema import PARKED_TABLE
from local.streams import destinations as dlq
from tools import stage as stages

log = logging.getLogger("parked")

LONG_POLL_SECONDS = 1  # SQS long polling: every server is asked (a short poll samples some and may miss messages)
INVOKE_READ_TIMEOUT = 900  # seconds: Lambda's longest timeout, so that a slow replay is waited for, not retried


def consumers(configurations: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The functions that park records (local/streams/destinations.py's rule)."""
    return [c for c in configurations if dlq.is_consumer(c)]


def on_failure_queues(lambda_client: Any, sqs: Any, configurations: Iterable[Mapping[str, Any]]) -> list[str]:
    """The URLs of the SQS queues the consumers' event source mappings send what they give up on."""
    arns: list[str] = []
    for configuration in consumers(configurations):
        for page in lambda_client.get_paginator("list_event_source_mappings").paginate(
                FunctionName=configuration["FunctionName"]):
            for mapping in page["EventSourceMappings"]:
                arn = ((mapping.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination", "")
                if arn.split(":")[2:3] == ["sqs"] and arn not in arns:
                    arns.append(arn)
    urls = []
    for arn in arns:
        account, name = arn.split(":")[4], arn.split(":")[5]
        urls.append(sqs.get_queue_url(QueueName=name, QueueOwnerAWSAccountId=account)["QueueUrl"])
    return urls


def stage_dlq(session: Any, stage: str) -> dict[str, Any]:
    """`make dlq STAGE=...`: {"onFailureQueues": {queue ARN: [messages]}, "parkedRecords": {consumer: [records]}}."""
    configurations = stages.functions(session, stage)
    sqs = session.client("sqs")
    queues = on_failure_queues(session.client("lambda"), sqs, configurations)
    table = stages.variable(consumers(configurations), PARKED_TABLE.env_var)
    return {"onFailureQueues": dlq.on_failure_messages(sqs, queues, wait_seconds=LONG_POLL_SECONDS),
            "parkedRecords": dlq.parked_records(session.client("dynamodb"), [table] if table else [])}


def stage_replay(session: Any, stage: str, function: str | None = None,
                 limit: int = DEFAULT_REPLAY_LIMIT) -> tuple[dict[str, Any], bool]:
    """`make replay STAGE=...`: the stage's consumers (or the one named) replay their pending records."""
    from botocore.config import Config

    configurations = stages.functions(session, stage)
    client = session.client("lambda", config=Config(read_timeout=INVOKE_READ_TIMEOUT))
    return dlq.replay(client, function, limit, functions=consumers(configurations))


def _session() -> Any:
    from tools.region import session

    return session()  # AWS_REGION, then AWS_DEFAULT_REGION, then the profile, said on stderr (tools/region.py)


def _dlq(args: argparse.Namespace) -> int:
    print(json.dumps(stage_dlq(_session(), args.stage), indent=2, default=str))
    return 0


def _replay(args: argparse.Namespace) -> int:
    results, ok = stage_replay(_session(), args.stage, args.function, args.limit)
    print(json.dumps(results, indent=2, default=str))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.parked", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("dlq", help="print the stage's on-failure queues and parked records (JSON)")
    listing.set_defaults(handler=_dlq)
    replay = commands.add_parser("replay", help="replay the records the stage's consumers parked (JSON)")
    replay.add_argument("--function", default=None, help="only this consumer (name, ARN or part of its name)")
    replay.add_argument("--limit", type=int, default=DEFAULT_REPLAY_LIMIT,
                        help=f"records per invocation (default {DEFAULT_REPLAY_LIMIT})")
    replay.set_defaults(handler=_replay)
    for command in (listing, replay):
        command.add_argument("--stage", required=True, help="the deployed stage (stack Blueprints-<stage>)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return int(args.handler(args))
    except (stages.StageError, ValueError) as exc:  # no stack; no consumer matches FUNCTION
        log.error("%s", exc)
    except (BotoCoreError, ClientError) as exc:  # no credentials, no region, access denied...
        log.error("AWS: %s", exc)
    return 1


if __name__ == "__main__":
    sys.exit(main())
