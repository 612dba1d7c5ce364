"""Event source mappings from the template, and stream records in the shape Lambda delivers them."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from local.cloudformation.resources import FUNCTION_TYPE, StackResources, TableInfo
from local.cloudformation.template import TemplateError
from local.dynamodb.ttl import TTL_IDENTITY, swept
from local.streams.filters import FilterCriteria, FilterError, criteria_of

log = logging.getLogger("local.streams")

MAPPING_TYPE = "AWS::Lambda::EventSourceMapping"
# What is read below; any other property (Enabled, ParallelizationFactor...) fails the start.
_PROPERTIES = {"EventSourceArn", "FunctionName", "StartingPosition", "BatchSize", "MaximumBatchingWindowInSeconds",
               "FunctionResponseTypes", "MaximumRetryAttempts", "BisectBatchOnFunctionError",
               "MaximumRecordAgeInSeconds", "DestinationConfig", "TumblingWindowInSeconds", "FilterCriteria"}


@dataclass(frozen=True)
class MappingSpec:
    """One `AWS::Lambda::EventSourceMapping` on a table's stream, its properties resolved ([PARAMS] defaults)."""
    id: str  # "<Stack>/<LogicalId>"
    function: str  # what `Functions` knows the consumer by: "<Stack>/<LogicalId>"
    function_arn: str
    table: TableInfo
    batch_size: int = 100
    starting_position: str = "LATEST"
    batching_window: float = 0.0
    report_item_failures: bool = False
    max_retries: int = -1  # [PARAMS] "-1 means infinite: failed records are retried until the record expires"
    bisect: bool = False
    max_record_age: float = -1  # seconds; [PARAMS] -1 "means infinite" too
    on_failure: str | None = None  # an SQS queue ARN
    tumbling_window: int = 0  # seconds; 0: no window (and no shardId, state or window in the event)
    filters: FilterCriteria = FilterCriteria()  # none: every record is delivered (filters.py)

    @property
    def stream_arn(self) -> str:
        if not self.table.stream_arn:  # mapping_specs takes tables with a stream only
            raise TemplateError(f"{self.id}: table {self.table.logical_id} has no stream")
        return self.table.stream_arn

    @property
    def function_label(self) -> str:
        """The consumer's short name for log lines: its logical id."""
        return self.function.rsplit("/", 1)[-1]


def mapping_specs(resources: StackResources, streams: Mapping[str, TableInfo]) -> list[MappingSpec]:
    """The stack's mappings whose source is one of `streams` (stream ARN -> table); a mapping on any other source
    (SQS, Kinesis, Kafka) is not emulated and gets a warning."""
    specs = []
    for logical_id, resource in resources.stack.resources_of_type(MAPPING_TYPE).items():
        raw: Mapping[str, Any] = resource.get("Properties", {})
        where = f"{resources.stack.name}/{logical_id}.Properties"
        if set(raw) - _PROPERTIES:
            raise TemplateError(f"{where}: {', '.join(sorted(set(raw) - _PROPERTIES))} not emulated locally")
        props = resources.resolver.resolve(dict(raw), where)
        table = streams.get(str(props.get("EventSourceArn")))
        if table is None:
            log.warning("%s: source %s is not a table stream of the app; not emulated", where,
                        props.get("EventSourceArn"))
            continue
        target = raw.get("FunctionName")
        ref = target.get("Ref") if isinstance(target, Mapping) else None
        if not (isinstance(ref, str) and resources.stack.resources.get(ref, {}).get("Type") == FUNCTION_TYPE):
            raise TemplateError(f"{where}.FunctionName: must be a Ref to a function of the same stack")
        position, window = str(props.get("StartingPosition", "LATEST")), int(props.get("TumblingWindowInSeconds", 0))
        destination = ((props.get("DestinationConfig") or {}).get("OnFailure") or {}).get("Destination")
        if position not in ("LATEST", "TRIM_HORIZON"):
            raise TemplateError(f"{where}.StartingPosition: {position!r} is not valid for DynamoDB")
        if destination and str(destination).split(":")[2:3] != ["sqs"]:
            raise TemplateError(f"{where}.DestinationConfig: only an SQS on-failure destination is emulated")
        try:
            filters = criteria_of(props.get("FilterCriteria"), f"{where}.FilterCriteria")
        except FilterError as error:
            raise TemplateError(str(error)) from None
        specs.append(MappingSpec(
            id=f"{resources.stack.name}/{logical_id}", function=f"{resources.stack.name}/{ref}",
            function_arn=resources.get_att(ref, "Arn"), table=table,
            batch_size=int(props.get("BatchSize", 100)),
            starting_position=position, batching_window=float(props.get("MaximumBatchingWindowInSeconds", 0)),
            report_item_failures="ReportBatchItemFailures" in (props.get("FunctionResponseTypes") or []),
            max_retries=int(props.get("MaximumRetryAttempts", -1)),
            bisect=str(props.get("BisectBatchOnFunctionError")).lower() == "true",
            max_record_age=float(props.get("MaximumRecordAgeInSeconds", -1)),
            on_failure=str(destination) if destination else None, tumbling_window=window, filters=filters))
    return specs


@dataclass(frozen=True)
class StreamRecord:
    """A record as the consumer receives it, plus what the poller needs beside it."""
    sequence: int
    arrival: float  # ApproximateCreationDateTime, epoch seconds with moto's millisecond precision
    size: int  # bytes of the record in the event
    event: dict[str, Any]

    @property
    def sequence_number(self) -> str:
        return str(self.event["dynamodb"]["SequenceNumber"])


def lambda_record(raw: Mapping[str, Any], *, stream_arn: str, region: str) -> StreamRecord:
    """A GetRecords record (as boto3 returns it) in the shape Lambda delivers: ApproximateCreationDateTime in epoch
    seconds (boto3 parses it into a datetime); eventVersion 1.1, the region and eventSourceARN filled in (moto says
    1.0, always us-east-1, and omits the ARN)."""
    source = raw["dynamodb"]
    created = source.get("ApproximateCreationDateTime")
    arrival = created.timestamp() if isinstance(created, datetime) else float(created or 0)
    dynamodb = {"ApproximateCreationDateTime": float(int(arrival)), **{
        k: source[k] for k in ("Keys", "NewImage", "OldImage", "SequenceNumber", "SizeBytes", "StreamViewType")
        if k in source}}
    event = {"eventID": raw["eventID"], "eventName": raw["eventName"], "eventVersion": "1.1",
             "eventSource": "aws:dynamodb", "awsRegion": region, "dynamodb": dynamodb, "eventSourceARN": stream_arn}
    table_name = stream_arn.split(":table/", 1)[-1].split("/stream/", 1)[0]
    if raw["eventName"] == "REMOVE" and (table_name, source.get("Keys") or {}) in swept:
        event["userIdentity"] = dict(TTL_IDENTITY)  # a TTL deletion, as DynamoDB streams it
    return StreamRecord(int(source["SequenceNumber"]), arrival, len(json.dumps(event)), event)
