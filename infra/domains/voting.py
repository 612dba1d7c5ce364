"""Voting (seed 002, "Real-time voting"): RawVotes and Votes, the API function, the stream aggregator, grants."""

from __future__ import annotations

from aws_cdk import Duration
from constructs import Construct

from functions.voting.routes import ROUTES
from functions.voting.schema import (
    DEFAULT_SEGMENTS,
    RAW_VOTES_TABLE,
    SEGMENTS_ENV,
    SETTLED_AFTER_ENV,
    TABLES,
    VOTES_TABLE,
)
from infra.constructs.api_domain import ApiDomain, Consumer, Grant, SharedInfra

# Exactly what functions/voting/repository.py calls for the API, table by table.
GRANTS = [
    Grant(RAW_VOTES_TABLE, ("GetItem", "UpdateItem", "Query")),  # ballots; the recount's Query
    Grant(VOTES_TABLE, ("GetItem", "PutItem", "Query", "UpdateItem")),  # polls, results, the correction
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


def aggregator(segments: int) -> Consumer:
    """Votes follows RawVotes (functions/voting/aggregator.py), exactly once per record."""
    return Consumer(
        "Aggregator",
        module="aggregator",
        source=RAW_VOTES_TABLE,
        # The checkpoint read; the transactional updates of aggregates, counters and checkpoint; the ConditionCheck
        # that a poll exists (in a flush, and in a parked record's replay).
        grants=(Grant(VOTES_TABLE, ("GetItem", "UpdateItem", "ConditionCheckItem")),),
        environment={SEGMENTS_ENV: str(segments)},
        batch_size=AGGREGATOR_BATCH_SIZE,
        max_batching_window=AGGREGATOR_BATCHING_WINDOW,
        max_record_age=AGGREGATOR_MAX_RECORD_AGE,
        timeout=AGGREGATOR_TIMEOUT,
        tumbling_window=AGGREGATOR_TUMBLING_WINDOW,
    )


def voting(scope: Construct, shared: SharedInfra) -> ApiDomain:
    segments = int(scope.node.try_get_context("voteSegments") or DEFAULT_SEGMENTS)
    if not 1 <= segments <= 64:
        raise ValueError(f"voteSegments must be 1..64, not {segments}")
    return ApiDomain(
        scope, "Voting", shared=shared, service="voting", package="functions.voting",
        tables=TABLES, routes=ROUTES, grants=GRANTS, consumers=[aggregator(segments)],
        environment={SETTLED_AFTER_ENV: str(int(SETTLED_AFTER.to_seconds()))},
    )
