"""A hand-written cloud assembly with stream consumers, and the fake consumer they all run.

Each scenario gets its own table (hash key `PK`, a stream), consumer function and event source
mapping, so tests sharing one runtime do not see each other's records. The consumer appends every
event it receives (with its request id) to its own JSON-lines file and behaves as the records ask:
an image attribute `fail` = "raise" makes it raise, "always" reports the record as failed, "once"
reports it failed the first time it is seen, "sleep" makes it hang for 30 s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CONSUMER = """
import json
import os
import time


def _seen_before(path):
    if not os.path.exists(path):
        return set()
    with open(path) as deliveries:
        return {pk for line in deliveries for pk in json.loads(line)["ids"]}


def handler(event, context):
    path = os.environ["DELIVERIES"]
    records = event["Records"]
    ids = [record["dynamodb"]["Keys"]["PK"]["S"] for record in records]
    before = _seen_before(path)
    with open(path, "a") as deliveries:
        line = {"ids": ids, "event": event, "requestId": context.aws_request_id}
        deliveries.write(json.dumps(line) + "\\n")
    failed = []
    for record, pk in zip(records, ids):
        image = record["dynamodb"].get("NewImage") or record["dynamodb"].get("OldImage") or {}
        mode = image.get("fail", {}).get("S")
        if mode == "raise":
            raise RuntimeError(f"poison {pk}")
        if mode == "sleep":
            time.sleep(30)  # a consumer that hangs past its timeout: the case under test, not a wait
        if mode == "always" or (mode == "once" and pk not in before):
            failed.append(record["dynamodb"]["SequenceNumber"])
    # reported highest first: the runtime must resume at the lowest one anyway
    return {"batchItemFailures": [{"itemIdentifier": sequence} for sequence in reversed(failed)]}
"""


@dataclass(frozen=True)
class Scenario:
    """One table + consumer + mapping; `mapping` holds extra EventSourceMapping properties."""

    name: str
    mapping: Mapping[str, Any] = field(default_factory=dict)
    view_type: str = "NEW_AND_OLD_IMAGES"
    dlq: bool = False
    ttl_attribute: str | None = None
    environment: Mapping[str, Any] = field(default_factory=dict)

    def deliveries(self, root: Path) -> Path:
        return root / f"deliveries-{self.name}.jsonl"


def write_assembly(root: Path, scenarios: list[Scenario]) -> Path:
    """A cloud assembly (manifest + template + one consumer asset) under `root/cdk.out`."""
    outdir = root / "cdk.out"
    package = outdir / "asset.consumer" / "functions"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "fake.py").write_text(CONSUMER)
    resources: dict[str, Any] = {}
    for scenario in scenarios:
        resources.update(_resources(scenario, root))
    (outdir / "App-dev.template.json").write_text(json.dumps({"Resources": resources}))
    manifest = {
        "artifacts": {
            "App-dev": {
                "type": "aws:cloudformation:stack",
                "properties": {"templateFile": "App-dev.template.json"},
            }
        }
    }
    (outdir / "manifest.json").write_text(json.dumps(manifest))
    return outdir


def _resources(scenario: Scenario, root: Path) -> dict[str, Any]:
    name = scenario.name
    table: dict[str, Any] = {
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamViewType": scenario.view_type},
    }
    if scenario.ttl_attribute:
        table["TimeToLiveSpecification"] = {
            "AttributeName": scenario.ttl_attribute,
            "Enabled": True,
        }
    mapping: dict[str, Any] = {
        "EventSourceArn": {"Fn::GetAtt": [f"Table{name}", "StreamArn"]},
        "FunctionName": {"Ref": f"Fn{name}"},
        "StartingPosition": "TRIM_HORIZON",
        **scenario.mapping,
    }
    resources: dict[str, Any] = {
        f"Table{name}": {"Type": "AWS::DynamoDB::Table", "Properties": table},
        f"Fn{name}": {
            "Type": "AWS::Lambda::Function",
            "Properties": {
                "Handler": "functions.fake.handler",
                "Runtime": "python3.13",
                "Timeout": 10,
                "Code": {"S3Bucket": "b", "S3Key": "consumer.zip"},
                "Environment": {
                    "Variables": {
                        "DELIVERIES": str(scenario.deliveries(root)),
                        **scenario.environment,
                    }
                },
            },
            "Metadata": {"aws:asset:path": "asset.consumer"},
        },
        f"Mapping{name}": {"Type": "AWS::Lambda::EventSourceMapping", "Properties": mapping},
    }
    if scenario.dlq:
        resources[f"Dlq{name}"] = {"Type": "AWS::SQS::Queue", "Properties": {}}
        mapping["DestinationConfig"] = {
            "OnFailure": {"Destination": {"Fn::GetAtt": [f"Dlq{name}", "Arn"]}}
        }
    return resources


def deliveries(path: Path) -> list[dict[str, Any]]:
    """Every event the consumer received so far, in order (`ids` and the whole `event`)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def delivered_ids(path: Path) -> list[list[str]]:
    return [delivery["ids"] for delivery in deliveries(path)]
