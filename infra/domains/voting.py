"""Voting (seed 002, "Real-time voting"): RawVotes and Votes, the API function, the stream aggregator, grants."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from constructs import Construct

from functions.shared.idempotency import IDEMPOTENCY_TABLE
from functions.voting.schema import (
    DEFAULT_SEGMENTS,
    RAW_VOTES_TABLE,
    SEGMENTS_ENV,
    SETTLED_AFTER_ENV,
    VOTES_TABLE,
)
from infra.constructs.api_function import ApiFunction, SharedCode
from infra.constructs.rest_api import BlueprintsApi, Route
from infra.constructs.spec_table import IDEMPOTENCY_ACTIONS, SpecTable
from infra.constructs.stream_consumer import StreamConsumer

PREFIX = "/voting/polls/{pollId}"
ROUTES = [
    Route("PUT", PREFIX),
    Route("GET", PREFIX),
    Route("POST", f"{PREFIX}/votes"),
    Route("GET", f"{PREFIX}/votes/me"),
    Route("PUT", f"{PREFIX}/votes/me"),
    Route("DELETE", f"{PREFIX}/votes/me"),
    Route("GET", f"{PREFIX}/results"),
    Route("POST", f"{PREFIX}/recount"),
]

# The aggregator's event source mapping. Big batches and a short batching window keep the writes per vote low
# (a flush costs one write per distinct candidate) while results stay within a second or two of the votes.
AGGREGATOR_BATCH_SIZE = 500
AGGREGATOR_BATCHING_WINDOW = Duration.seconds(1)
AGGREGATOR_TIMEOUT = Duration.seconds(30)
AGGREGATOR_MAX_RECORD_AGE = Duration.hours(6)
# Only for the `shardId` Lambda then puts in each event (the state is unused): the longest window means the
# fewest extra (final, empty) invocations, one per shard every 15 minutes.
AGGREGATOR_TUMBLING_WINDOW = Duration.minutes(15)
# After this long without a change to a poll, no stream record of it can still be applied (records older than the
# maximum age are never delivered; one being processed ends within the timeout): the recount may then correct.
CLOCK_SKEW_MARGIN = Duration.minutes(5)
SETTLED_AFTER = Duration.seconds(
    AGGREGATOR_MAX_RECORD_AGE.to_seconds() + AGGREGATOR_TIMEOUT.to_seconds() + CLOCK_SKEW_MARGIN.to_seconds()
)


class VotingDomain(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        api: BlueprintsApi,
        shared: SharedCode,
        idempotency: SpecTable,
        parked: SpecTable,
        removal_policy: RemovalPolicy,
        deletion_protection: bool,
    ):
        super().__init__(scope, construct_id)
        segments = int(self.node.try_get_context("voteSegments") or DEFAULT_SEGMENTS)
        if not 1 <= segments <= 64:
            raise ValueError(f"voteSegments must be 1..64, not {segments}")
        self.raw_votes = SpecTable(
            self, RAW_VOTES_TABLE, removal_policy=removal_policy, deletion_protection=deletion_protection
        )
        self.votes = SpecTable(self, VOTES_TABLE, removal_policy=removal_policy, deletion_protection=deletion_protection)
        tables = {
            RAW_VOTES_TABLE.env_var: self.raw_votes.table.table_name,
            VOTES_TABLE.env_var: self.votes.table.table_name,
        }
        self.api_function = ApiFunction(
            self,
            "Api",
            shared=shared,
            handler="functions.voting.api.lambda_handler",
            service="voting",
            removal_policy=removal_policy,
            environment={
                **tables,
                IDEMPOTENCY_TABLE.env_var: idempotency.table.table_name,
                SETTLED_AFTER_ENV: str(int(SETTLED_AFTER.to_seconds())),
            },
        ).function
        # Exactly what functions/voting/repository.py calls for the API, table by table.
        fn = self.api_function
        self.raw_votes.grant(fn, ["GetItem", "UpdateItem", "Query"])  # ballots; the recount's Query
        self.votes.grant(fn, ["GetItem", "PutItem", "Query", "UpdateItem"])  # polls, results, the correction
        idempotency.grant(fn, IDEMPOTENCY_ACTIONS)
        api.add_routes(fn, ROUTES)

        # Votes follows RawVotes (functions/voting/aggregator.py), exactly once per record.
        self.aggregator = StreamConsumer(
            self,
            "Aggregator",
            table=self.raw_votes,
            parked=parked,
            shared=shared,
            handler="functions.voting.aggregator.lambda_handler",
            service="voting",
            environment={**tables, SEGMENTS_ENV: str(segments)},
            removal_policy=removal_policy,
            batch_size=AGGREGATOR_BATCH_SIZE,
            max_batching_window=AGGREGATOR_BATCHING_WINDOW,
            max_record_age=AGGREGATOR_MAX_RECORD_AGE,
            timeout=AGGREGATOR_TIMEOUT,
            tumbling_window=AGGREGATOR_TUMBLING_WINDOW,
        )
        # The checkpoint read; the transactional updates of aggregates, counters and checkpoint; the ConditionCheck
        # that a poll exists (in a flush, and in a parked record's replay).
        self.votes.grant(self.aggregator.function, ["GetItem", "UpdateItem", "ConditionCheckItem"])
