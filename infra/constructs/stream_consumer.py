"""A Lambda function consuming a table's DynamoDB stream, with the failure handling Lambda does not default to.

Lambda's event source mapping defaults retry a failing batch until its records are 24 h old, blocking the shard
(docs/adr/0016-stream-consumer-construct-bounded-failure-policy.md). Every consumer here instead gets:
- `report_batch_item_failures`: the handler (Powertools BatchProcessor) names the first failed record and Lambda
  resumes from it, so one bad record does not replay the whole batch forever;
- `bisect_batch_on_error`: a batch whose invocation fails is split in halves to isolate the poison record;
- bounded `retry_attempts` and `max_record_age`;
- an SQS on-failure destination (the DLQ, `enforce_ssl`, 14 days retention) that receives the description of
  every batch given up on, so nothing is skipped silently.
Records after a failed one are redelivered, so every consumer write must be safe to repeat.
With ReportBatchItemFailures, a record that always fails is not isolated by bisecting (Lambda bisects only when the
invocation fails) and, once the retries are spent, costs every record after it in its batch, while the DLQ gets only
metadata (Lambda Developer Guide, "Configuring partial batch response with DynamoDB and Lambda", "Retaining
discarded records for a DynamoDB event source in Lambda"; docs/adr/0032-consumers-park-permanent-failures.md).
So each consumer parks such records itself in the shared parked-records table
(functions/shared/parked.py), and gets exactly the grants that takes: PutItem (park), Query and UpdateItem (replay).
A `tumbling_window` is the only way Lambda tells a DynamoDB stream consumer which shard a batch came from
(`shardId` in the event; it also pins the parallelization factor to 1): consumers that checkpoint per shard use it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from functions.shared.schema import PARKED_TABLE
from infra.constructs.api_function import ApiFunction, SharedCode
from infra.constructs.nag import acknowledge
from infra.constructs.spec_table import SpecTable

DEFAULT_RETRY_ATTEMPTS = 5
DEFAULT_MAX_RECORD_AGE = Duration.hours(6)
DEFAULT_BATCHING_WINDOW = Duration.seconds(0)
DEFAULT_TIMEOUT = Duration.seconds(30)
# What functions/shared/parked.py calls on the parked-records table: PutItem (park), Query (the pending ones),
# UpdateItem (mark replayed, alone or as an Update inside a replay's TransactWriteItems).
PARKED_ACTIONS = ["PutItem", "Query", "UpdateItem"]


class StreamConsumer(Construct):
    """`function` reads `table`'s stream; failed batches end in `dead_letter_queue`.

    `filters` are Lambda event filter patterns (dicts, as in the AWS docs), applied before invocation.
    The function's role gets the stream read actions (from the event source), SendMessage on the DLQ and
    PARKED_ACTIONS on `parked` (its name in the environment); grant it the table actions its code uses yourself.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        table: SpecTable,
        parked: SpecTable,
        shared: SharedCode,
        handler: str,
        service: str,
        environment: Mapping[str, str],
        removal_policy: RemovalPolicy,
        batch_size: int = 100,
        max_batching_window: Duration = DEFAULT_BATCHING_WINDOW,
        retry_attempts: int = DEFAULT_RETRY_ATTEMPTS,
        max_record_age: Duration = DEFAULT_MAX_RECORD_AGE,
        filters: Sequence[Mapping[str, Any]] = (),
        timeout: Duration = DEFAULT_TIMEOUT,
        tumbling_window: Duration | None = None,
    ):
        super().__init__(scope, construct_id)
        if table.spec.stream_view is None:
            raise ValueError(f"{table.spec.construct_id} has no stream: set stream_view in its TableSpec")
        if not 0 <= retry_attempts <= 10_000:
            raise ValueError("retry_attempts must be bounded (0..10000)")
        self.dead_letter_queue = sqs.Queue(
            self,
            "DeadLetterQueue",
            enforce_ssl=True,
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            retention_period=Duration.days(14),
            removal_policy=removal_policy,
        )
        acknowledge(self.dead_letter_queue, "AwsSolutions-SQS3",
                    "This queue is the on-failure destination (DLQ) of a stream consumer; it needs no DLQ of its own.")
        self.lambda_function = ApiFunction(
            self,
            "Consumer",
            shared=shared,
            handler=handler,
            service=service,
            environment={**environment, PARKED_TABLE.env_var: parked.table.table_name},
            removal_policy=removal_policy,
            timeout=timeout,
        )
        self.function: lambda_.Function = self.lambda_function.function
        parked.grant(self.function, PARKED_ACTIONS)
        self.event_source = sources.DynamoEventSource(
            table.table,
            starting_position=lambda_.StartingPosition.TRIM_HORIZON,
            batch_size=batch_size,
            max_batching_window=max_batching_window,
            bisect_batch_on_error=True,
            retry_attempts=retry_attempts,
            max_record_age=max_record_age,
            report_batch_item_failures=True,
            on_failure=sources.SqsDlq(self.dead_letter_queue),
            filters=[lambda_.FilterCriteria.filter(dict(pattern)) for pattern in filters] or None,
            tumbling_window=tumbling_window,
        )
        self.function.add_event_source(self.event_source)
