"""Voting (seed 002, "Real-time voting"): RawVotes and Votes, the API function, the stream aggregator, grants."""

from __future__ import annotations

from aws_cdk import Duration
from constructs import Construct

from functions.shared.domain import load
from functions.voting.schema import (
    AGGREGATOR_BATCH_SIZE,
    AGGREGATOR_BATCHING_WINDOW_SECONDS,
    BUCKETS_ENV,
    DEFAULT_BUCKETS,
    MAX_BUCKETS,
    RAW_VOTES_TABLE,
    SETTLED_AFTER_ENV,
    TABLES,
    VOTES_TABLE,
)
from infra.constructs.api_domain import ApiDomain, Consumer, Grant, SharedInfra, pattern_grants

# The domain as functions/voting/domain.toml declares it: its routes, and the actions its access patterns need
# (the API function's grants: the functional suite fails on a missing or unused one).
DOMAIN = load("voting")


# The aggregator's event source mapping: batch size and window are declared in functions/voting/schema.py, where
# bench/scale reads them to model the flushes. Big batches and a short batching window keep the writes per vote low
# (a flush writes each changed candidate of each bucket once) while results stay within a second or two.
AGGREGATOR_BATCHING_WINDOW = Duration.seconds(AGGREGATOR_BATCHING_WINDOW_SECONDS)
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


def aggregator() -> Consumer:
    """Votes follows RawVotes (functions/voting/aggregator.py), exactly once per record."""
    return Consumer(
        "Aggregator",
        module="aggregator",
        source=RAW_VOTES_TABLE,
        # The checkpoint read; the transactional updates of aggregates, counters and checkpoint; the ConditionCheck
        # that a poll exists (in a flush, and in a parked record's replay).
        grants=(Grant(VOTES_TABLE, ("GetItem", "UpdateItem", "ConditionCheckItem")),),
        batch_size=AGGREGATOR_BATCH_SIZE,
        max_batching_window=AGGREGATOR_BATCHING_WINDOW,
        max_record_age=AGGREGATOR_MAX_RECORD_AGE,
        timeout=AGGREGATOR_TIMEOUT,
        tumbling_window=AGGREGATOR_TUMBLING_WINDOW,
    )


def voting(scope: Construct, shared: SharedInfra) -> ApiDomain:
    # B of the polls created from now on (functions/voting/schema.py: from a stated peak); a poll keeps its own.
    buckets = int(scope.node.try_get_context("voteBuckets") or DEFAULT_BUCKETS)
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError(f"voteBuckets must be 1..{MAX_BUCKETS}, not {buckets}")
    return ApiDomain(
        scope, "Voting", shared=shared, service="voting", package="functions.voting",
        tables=TABLES, routes=DOMAIN.routes, grants=pattern_grants(DOMAIN, TABLES), consumers=[aggregator()],
        environment={SETTLED_AFTER_ENV: str(int(SETTLED_AFTER.to_seconds())), BUCKETS_ENV: str(buckets)},
    )
