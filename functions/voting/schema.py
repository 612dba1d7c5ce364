"""The voting tables (seed 002, "Real-time voting": v1 write sharding, v2 aggregation with Streams).

RawVotes records each voter's ballot and de-duplicates: one item per (poll, voter), written only by the API with
conditions, streamed with old and new images. A withdrawal keeps the item as a tombstone (no `candidate`), so
`version` — bumped by every write — never goes back: the sum of a poll's versions is the number of changes ever
accepted for it, which the recount compares with the number the aggregator applied.

Votes holds, per poll (one item collection, so results are one Query):
- the poll definition (`sk = "#poll"`), immutable once created;
- the aggregate segments (`sk = "TOTAL#<candidate>#<segment>"`, attributes `candidate`, `votes`), written only by
  the stream aggregator (and a recount's correction); N segments per candidate spread a hot candidate's aggregate
  writes over N items (seed 002's A_1, A_2), and results sum them;
- the applied-change counters (`sk = "APPLIED#<segment>"`, attribute `changes`): how many RawVotes changes (sum
  of version increments) the aggregator has applied, in the same transactions as their deltas;
and, under their own partition keys, the aggregator's per-shard checkpoints (`pollId = "SHARD#<stream>#<shard>"`,
`sk = "#checkpoint"`, expiring by TTL two days after their last flush), which poll ids cannot collide with (they
never contain "#").
"""

from __future__ import annotations

import math

from functions.shared.table_spec import KeyAttribute, TableSpec

RAW_VOTES_TABLE = TableSpec(
    "RawVotesTable",
    partition_key=KeyAttribute("pollId"),
    sort_key=KeyAttribute("userId"),
    # The aggregator computes deltas from what a write changed: the old and the new candidate.
    stream_view="NEW_AND_OLD_IMAGES",
)

VOTES_TABLE = TableSpec(
    "VotesTable",
    partition_key=KeyAttribute("pollId"),
    sort_key=KeyAttribute("sk"),
    # Only checkpoints carry it: a shard's records stay in the stream for 24 h, so two days after its last flush
    # a checkpoint can never be needed again (shards roll over every few hours; this keeps them from piling up).
    ttl_attribute="expiresAt",
)

TABLES = (RAW_VOTES_TABLE, VOTES_TABLE)

SEGMENTS_ENV = "VOTE_SEGMENTS"
SETTLED_AFTER_ENV = "VOTE_SETTLED_AFTER_SECONDS"

POLL_SK = "#poll"
TOTAL_PREFIX = "TOTAL#"
APPLIED_PREFIX = "APPLIED#"
CHECKPOINT_SK = "#checkpoint"
CHECKPOINT_PREFIX = "SHARD#"
SEQUENCE_DIGITS = 40  # sequence numbers are 21..40 digits (Streams API Reference, "StreamRecord"), a Number 38
CHECKPOINT_RETENTION_SECONDS = 2 * 24 * 3600

# Aggregate segments per candidate, from seed 004's formula adapted to writes:
#   N = ceil(peak aggregate writes/s to one candidate x WCU per write x headroom / 1,000 WCU/s per item)
# An aggregate write is one transactional update of a <1 KB item: 2 WCU. A candidate gets at most one write per
# flush, and a stream shard flushes about once per invocation (up to ~10 invocations/s when it is saturated).
# With 100 shards busy at once: 100 x 10 = 1,000 writes/s x 2 WCU = 2,000 WCU/s / 1,000 = 2, x 2 headroom = 4.
# Segments also spread concurrent flushes of one candidate over N items, so their transactions conflict less
# often. Change it with `-c voteSegments=N` (no migration: results sum whatever segments exist).
PEAK_FLUSHES_PER_SECOND = 1_000
WCU_PER_AGGREGATE_WRITE = 2
ITEM_WCU_PER_SECOND = 1_000
HEADROOM = 2.0


def segments_for(peak_flushes_per_second: int = PEAK_FLUSHES_PER_SECOND, headroom: float = HEADROOM) -> int:
    """N for a peak rate of aggregate writes to one candidate (seed 004's N = required IO / partition rate)."""
    needed = peak_flushes_per_second * WCU_PER_AGGREGATE_WRITE / ITEM_WCU_PER_SECOND
    return max(1, math.ceil(needed * headroom))


DEFAULT_SEGMENTS = segments_for()  # 4


def total_sk(candidate: str, segment: int) -> str:
    return f"{TOTAL_PREFIX}{candidate}#{segment}"


def applied_sk(segment: int) -> str:
    return f"{APPLIED_PREFIX}{segment}"


def checkpoint_pk(stream_arn: str, shard_id: str) -> str:
    return f"{CHECKPOINT_PREFIX}{stream_arn}#{shard_id}"


def padded_sequence(sequence_number: str) -> str:
    """A stream sequence number as a fixed-width string, so that string order is numeric order."""
    if not sequence_number.isdigit() or len(sequence_number) > SEQUENCE_DIGITS:
        raise ValueError(f"not a stream sequence number: {sequence_number!r}")
    return sequence_number.zfill(SEQUENCE_DIGITS)
