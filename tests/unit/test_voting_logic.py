"""Voting's pure logic: the bucket formula and keys, sequence numbers as strings, deltas and transaction-sized chunks."""

from __future__ import annotations

from collections import Counter

import pytest
from pydantic import ValidationError

from functions.voting.aggregator import Change, chunks, sum_deltas
from functions.voting.models import PollIn
from functions.voting.schema import (
    DEFAULT_BUCKETS,
    UNRECORDED_BUCKETS,
    ballot_pk,
    bucket_of,
    buckets_for,
    padded_sequence,
    segment_pk,
    split_bucket,
    total_sk,
)


def test_buckets_follow_seed_004s_formula_for_ballots():
    # B = ceil(stated peak ballots/s to one poll x 1 WCU / 1,000 WCU/s per partition key x headroom 2)
    assert DEFAULT_BUCKETS == buckets_for(10_000) == 20 == UNRECORDED_BUCKETS
    assert buckets_for(100) == 1  # 200 WCU/s with headroom: one key is plenty
    assert buckets_for(25_000) == 50
    assert buckets_for(10_000, headroom=1.0) == 10


def test_a_voter_always_meets_the_same_bucket_and_voters_spread_evenly():
    assert bucket_of("alice", 20) == bucket_of("alice", 20)
    counts = Counter(bucket_of(f"3f1c2d4e-{n:04d}-4000-8000-000000000001", 20) for n in range(20_000))
    assert set(counts) == set(range(20))
    assert max(counts.values()) < 1.1 * 20_000 / 20  # within 10% of even: the headroom covers it


def test_bucket_keys_are_unambiguous():
    assert ballot_pk("favourite-feature", 7) == segment_pk("favourite-feature", 7) == "favourite-feature#7"
    assert split_bucket("favourite-feature#7") == ("favourite-feature", 7)
    for bad in ("favourite-feature", "p#", "#3", "p#x", "p#07", "p#3#4", "SHARD#arn:aws:dynamodb:x#shardId-1"):
        with pytest.raises(ValueError):
            split_bucket(bad)


def test_sequence_numbers_beyond_38_digits_compare_correctly_as_padded_strings():
    small, big = "9" * 21, "1" + "0" * 39  # 21 and 40 digits: a Number would lose precision on the second
    assert padded_sequence(small) < padded_sequence(big)
    assert len(padded_sequence(small)) == len(padded_sequence(big)) == 40
    for bad in ("", "12a", "1" * 41):
        with pytest.raises(ValueError):
            padded_sequence(bad)


def change(n: int, poll: str, old: str | None, new: str | None, versions: int = 1, bucket: int = 0) -> Change:
    return Change(str(n).zfill(40), poll, old, new, versions, bucket)


def test_deltas_add_new_votes_move_changes_and_subtract_withdrawals_per_bucket():
    deltas, versions = sum_deltas([
        change(1, "p", None, "A"),  # vote
        change(2, "p", None, "A", bucket=3),  # another voter's bucket: another segment
        change(3, "p", "A", "B"),  # change
        change(4, "p", "B", "B"),  # same candidate: a change, no delta
        change(5, "p", "A", None, bucket=3),  # withdrawal
        change(6, "q", "X", None, versions=-3),  # an item deleted outside the API: its versions go
    ])
    assert {segment: dict(d) for segment, d in deltas.items()} == {
        ("p", 0): {"A": 0, "B": 1}, ("p", 3): {"A": 0}, ("q", 0): {"X": -1},
    }
    assert versions == {("p", 0): 3, ("p", 3): 2, ("q", 0): -3}


def test_chunks_keep_each_transaction_within_100_items_and_the_order():
    changes = [change(n, f"poll-{n}", None, "A") for n in range(120)]  # 2 items each (total, applied counter)
    parts = list(chunks(changes))
    assert [len(p) for p in parts] == [49, 49, 22]
    assert [c for p in parts for c in p] == changes
    same = [change(n, "p", None, "AB"[n % 2]) for n in range(500)]
    assert [len(p) for p in chunks(same)] == [500]  # 3 items, however many votes
    spread = [change(n, "p", None, "AB"[n % 2], bucket=n % 20) for n in range(500)]
    assert [len(p) for p in chunks(spread)] == [500]  # 20 buckets x (2 candidates + applied) = 60 items


def test_candidates_cannot_break_the_aggregate_keys():
    assert total_sk("Global tables") == "TOTAL#Global tables"
    for bad in (["A#B", "C"], ["A", "A"], ["A\n", "B"], ["only"]):
        with pytest.raises(ValidationError):
            PollIn(question="Q", candidates=bad)
