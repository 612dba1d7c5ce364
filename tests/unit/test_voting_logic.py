"""Voting's pure logic: the segment formula, sequence numbers as strings, deltas and transaction-sized chunks."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from functions.voting.aggregator import Change, chunks, sum_deltas
from functions.voting.models import PollIn
from functions.voting.schema import DEFAULT_SEGMENTS, padded_sequence, segments_for, total_sk


def test_segments_follow_seed_004s_formula_for_writes():
    # N = ceil(peak flushes/s to one candidate x 2 WCU / 1,000 WCU/s per item x headroom 2)
    assert DEFAULT_SEGMENTS == segments_for(1_000) == 4
    assert segments_for(100) == 1  # 200 WCU/s: one item is plenty
    assert segments_for(5_000) == 20
    assert segments_for(1_000, headroom=1.0) == 2


def test_sequence_numbers_beyond_38_digits_compare_correctly_as_padded_strings():
    small, big = "9" * 21, "1" + "0" * 39  # 21 and 40 digits: a Number would lose precision on the second
    assert padded_sequence(small) < padded_sequence(big)
    assert len(padded_sequence(small)) == len(padded_sequence(big)) == 40
    for bad in ("", "12a", "1" * 41):
        with pytest.raises(ValueError):
            padded_sequence(bad)


def change(n: int, poll: str, old: str | None, new: str | None, versions: int = 1) -> Change:
    return Change(str(n).zfill(40), poll, old, new, versions)


def test_deltas_add_new_votes_move_changes_and_subtract_withdrawals():
    deltas, versions = sum_deltas([
        change(1, "p", None, "A"),  # vote
        change(2, "p", None, "A"),
        change(3, "p", "A", "B"),  # change
        change(4, "p", "B", "B"),  # same candidate: a change, no delta
        change(5, "p", "A", None),  # withdrawal
        change(6, "q", "X", None, versions=-3),  # an item deleted outside the API: its versions go
    ])
    assert {poll: dict(d) for poll, d in deltas.items()} == {"p": {"A": 0, "B": 1}, "q": {"X": -1}}
    assert versions == {"p": 5, "q": -3}


def test_chunks_keep_each_transaction_within_100_items_and_the_order():
    changes = [change(n, f"poll-{n}", None, "A") for n in range(120)]  # 2 items each (total, applied counter)
    parts = list(chunks(changes))
    assert [len(p) for p in parts] == [49, 49, 22]
    assert [c for p in parts for c in p] == changes
    same = [change(n, "p", None, "AB"[n % 2]) for n in range(500)]
    assert [len(p) for p in chunks(same)] == [500]  # 3 items, however many votes


def test_candidates_cannot_break_the_aggregate_keys():
    assert total_sk("Global tables", 3) == "TOTAL#Global tables#3"
    for bad in (["A#B", "C"], ["A", "A"], ["A\n", "B"], ["only"]):
        with pytest.raises(ValidationError):
            PollIn(question="Q", candidates=bad)
