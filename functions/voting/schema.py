"""The voting tables (seed 002, "Real-time voting": v1 write sharding, v2 aggregation with Streams), with no poll's
ballots or aggregates under one partition key (docs/adr/0106-a-polls-ballots-and-aggregates-spread-over-buckets.md).

RawVotes records each voter's ballot and de-duplicates: one item per (poll, voter), written only by the API with
conditions, streamed with old and new images. Its partition key is the poll's *bucket* the voter hashes to,
`pollBucket = "<pollId>#<bucket>"`, bucket = hash(userId) mod B, so a poll's ballots spread over B partition keys
while a voter's ballot stays one item (`userId` is the sort key): one vote per voter holds by a condition on it. B is
fixed per poll when the poll is created (the poll item's `buckets`): a voter's bucket never moves. A withdrawal keeps
the item as a tombstone (no `candidate`), so `version` — bumped by every write — never goes back: the sum of a poll's
versions is the number of changes ever accepted for it, which the recount compares with the number applied.

Votes holds, under partition key `pollId`:
- the poll definition (`pollId = <pollId>`, `sk = "#poll"`), immutable once created but for a recount's version;
- per bucket b, the bucket's aggregate *segment*, under a partition key of its own (`pollId = "<pollId>#<b>"`):
  the totals (`sk = "TOTAL#<candidate>"`, attributes `candidate`, `votes`) of the ballots in bucket b, and the
  applied-change counter (`sk = "APPLIED"`, attribute `changes`): how many RawVotes changes (sum of version
  increments) of bucket b the aggregator has applied, in the same transactions as their deltas. Written only by the
  stream aggregator (and a recount's correction, on bucket 0). A bucket's partition key lives on one stream shard,
  so each segment is written by one shard's flushes, one at a time: flushes never conflict with each other;
- the aggregator's per-shard checkpoints (`pollId = "SHARD#<stream>#<shard>"`, `sk = "#checkpoint"`, expiring by TTL
  two days after their last flush).
Poll ids and candidates never contain "#", so a segment's key (`<pollId>#<number>`) is never a poll id, never a
checkpoint's key (whose last part is a shard id), and the sort keys are unambiguous.
"""

from __future__ import annotations

import hashlib
import math

from functions.shared.table_spec import KeyAttribute, TableSpec

RAW_VOTES_TABLE = TableSpec(
    "RawVotesTable",
    partition_key=KeyAttribute("pollBucket"),
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

BUCKETS_ENV = "VOTE_BUCKETS"
SETTLED_AFTER_ENV = "VOTE_SETTLED_AFTER_SECONDS"

POLL_SK = "#poll"
TOTAL_PREFIX = "TOTAL#"
APPLIED_SK = "APPLIED"
CHECKPOINT_SK = "#checkpoint"
CHECKPOINT_PREFIX = "SHARD#"
SEPARATOR = "#"
SEQUENCE_DIGITS = 40  # sequence numbers are 21..40 digits (Streams API Reference, "StreamRecord"), a Number 38
CHECKPOINT_RETENTION_SECONDS = 2 * 24 * 3600

# The aggregator's event source mapping (infra/domains/voting.py builds it from these; bench/scale models the
# flushes from them). Big batches and a short window keep the writes per vote low (a flush writes each changed
# candidate of each bucket once) while results stay within a second or two of the votes.
AGGREGATOR_BATCH_SIZE = 500
AGGREGATOR_BATCHING_WINDOW_SECONDS = 1

# Buckets per poll, from seed 004's formula (N = required IO / what one partition key sustains), for ballots:
#   B = ceil(stated peak ballots/s to one poll x WCU per ballot x headroom / 1,000 WCU/s per partition key)
# A ballot (vote, change or withdrawal) is one UpdateItem of a < 1 KB item: 1 WCU. The stated peak is 10,000
# ballots a second on one poll; the headroom of 2 covers an uneven hash over voters, bursts, and refused writes
# (billed too). 10,000 x 1 x 2 / 1,000 = 20: each bucket takes ~500 WCU/s at the peak, and one poll holds up to
# ~20,000 ballots a second by the per-key rule alone. Change it with `-c voteBuckets=N`: it applies to polls
# created afterwards (a poll keeps the B it was created with; its voters' buckets never move).
PEAK_BALLOTS_PER_SECOND = 10_000
WCU_PER_BALLOT = 1
KEY_WCU_PER_SECOND = 1_000
HEADROOM = 2.0
MAX_BUCKETS = 100  # a results read is one Query per bucket: keep it bounded


def buckets_for(peak_ballots_per_second: int = PEAK_BALLOTS_PER_SECOND, headroom: float = HEADROOM) -> int:
    """B for a stated peak of ballots a second to one poll (seed 004's N = required IO / partition rate)."""
    needed = peak_ballots_per_second * WCU_PER_BALLOT / KEY_WCU_PER_SECOND
    return max(1, math.ceil(needed * headroom))


DEFAULT_BUCKETS = buckets_for()  # 20
# The B of a poll whose item records none: a poll created before buckets existed, whose ballots the upgrade copied
# into this many buckets (tools/migrations/voting.py). Never change it: those voters' buckets depend on it.
UNRECORDED_BUCKETS = 20


def bucket_of(user_id: str, buckets: int) -> int:
    """The voter's bucket in a poll of `buckets` buckets: a hash of the voter, so every write of one voter meets
    the same item, and voters spread evenly whatever their ids look like (as order entry's shard_of)."""
    digest = hashlib.sha256(user_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % buckets


def ballot_pk(poll_id: str, bucket: int) -> str:
    """RawVotes' partition key of a poll's bucket."""
    return f"{poll_id}{SEPARATOR}{bucket}"


def segment_pk(poll_id: str, bucket: int) -> str:
    """Votes' partition key of the aggregate segment of a poll's bucket (the same string as the bucket's)."""
    return f"{poll_id}{SEPARATOR}{bucket}"


def split_bucket(key: str) -> tuple[str, int]:
    """(pollId, bucket) of a `<pollId>#<bucket>` key; ValueError for anything else."""
    poll_id, separator, bucket = key.partition(SEPARATOR)
    if not separator or not poll_id or not bucket.isdigit() or str(int(bucket)) != bucket:
        raise ValueError(f"not a poll bucket: {key!r}")
    return poll_id, int(bucket)


def total_sk(candidate: str) -> str:
    return f"{TOTAL_PREFIX}{candidate}"


def checkpoint_pk(stream_arn: str, shard_id: str) -> str:
    return f"{CHECKPOINT_PREFIX}{stream_arn}#{shard_id}"


def padded_sequence(sequence_number: str) -> str:
    """A stream sequence number as a fixed-width string, so that string order is numeric order."""
    if not sequence_number.isdigit() or len(sequence_number) > SEQUENCE_DIGITS:
        raise ValueError(f"not a stream sequence number: {sequence_number!r}")
    return sequence_number.zfill(SEQUENCE_DIGITS)
