"""Voting: RawVotes keyed by the voter's bucket of the poll (docs/adr/0106-a-polls-ballots-and-aggregates-spread-over-
buckets.md). What an upgrade of a deployed stage does:

- RawVotes' key schema changed (`pollId`, `userId` -> `pollBucket`, `userId`): the deploy replaces the table (its old
  physical table is retained) and creates the aggregator's mapping on the new table's stream. This migration copies
  every ballot, tombstones included, into the new table under `<pollId>#<hash(userId) mod 20>`: a poll created before
  buckets records no bucket count on its item, and the API reads such a poll as having UNRECORDED_BUCKETS (20), so
  the copy lands where the API will look for it.
- Votes keeps its key schema (`pollId`, `sk`); only the aggregates' key values changed (a segment per bucket under
  `<pollId>#<bucket>`). Polls stay where they are, so the API keeps answering them throughout the upgrade. The old
  aggregate items (`TOTAL#<candidate>#<segment>`, `APPLIED#<segment>` under `<pollId>`) are not carried over and no
  longer read: each copied ballot is an INSERT on the new table's stream, which the aggregator adds to the new, empty
  segments exactly once (+1 to its candidate, its `version` to the applied counter). When the stream has drained,
  every poll's totals equal its ballots and the recount finds it caught up; nothing is counted twice, because the
  old totals are never added to the new ones.
- A voter who votes through the new API before their old ballot is copied keeps the newer ballot: the copy is
  conditioned on the item not existing, so it is skipped ("already"), and only the newer ballot is ever counted.
  Until the copy, changing or withdrawing the old ballot answers 404 NO_VOTE (there is none in the new table yet):
  a withdrawal tried in that window does not happen, and the copied ballot counts. Run `make migrate` before
  reopening a poll to voters, or ask them to withdraw again after it.
- Records parked under the old layout (keyed `pollId`, `userId`) are marked superseded by a replay, never applied:
  their ballots were copied and aggregated from the new table (functions/voting/aggregator.py `before_buckets`).
"""

from __future__ import annotations

from typing import Any

from functions.shared.table_spec import KeyAttribute, TableSpec
from functions.voting.repository import ballot_key
from functions.voting.schema import RAW_VOTES_TABLE, UNRECORDED_BUCKETS
from tools.migrations import Migration

# RawVotes before buckets: one partition key per poll.
OLD_RAW_VOTES_TABLE = TableSpec(
    RAW_VOTES_TABLE.construct_id,
    partition_key=KeyAttribute("pollId"),
    sort_key=KeyAttribute("userId"),
    stream_view="NEW_AND_OLD_IMAGES",
)


def ballot_into_its_bucket(old: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """An old ballot (`pollId`, `userId`) as the new layout holds it: the same attributes, under the voter's bucket
    of a poll of UNRECORDED_BUCKETS buckets (every poll of the old layout records none)."""
    return [(RAW_VOTES_TABLE.construct_id, {**old, **ballot_key(old["pollId"], UNRECORDED_BUCKETS, old["userId"])})]


MIGRATIONS = [
    Migration(
        name="voting ballots into their buckets",
        table=RAW_VOTES_TABLE.construct_id,
        old=OLD_RAW_VOTES_TABLE,
        transform=ballot_into_its_bucket,
    ),
]
