"""Voting example data: one poll with four candidates and the ballots of eight users, including a changed vote
and a withdrawn one.

The ballots are written through the service, as the API writes them; the Votes aggregates are not written here:
the RawVotes stream aggregator computes them, as it would in AWS, so results show them within a second.
Voters are the local runtime's users (`make token USER=alice` is the same `sub`), so alice sees her vote.
Loading twice changes nothing: a user who already voted is skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from functions.shared.errors import ConflictError
from functions.shared.identity import user_sub
from functions.voting.models import PollIn
from functions.shared.settings import Settings
from functions.voting.repository import TableNames, VotingRepository
from functions.voting.service import VotingService

POLL_ID = "favourite-feature"
POLL = PollIn(
    question="Which DynamoDB feature would you miss most?",
    candidates=["Streams", "Transactions", "TTL", "Global tables"],
)
# (username, candidates in the order they were chosen; None: withdrawn)
BALLOTS: list[tuple[str, list[str | None]]] = [
    ("alice", ["Streams"]),
    ("bob", ["Transactions"]),
    ("carol", ["Streams"]),
    ("dave", ["TTL"]),
    ("erin", ["Streams"]),
    ("frank", ["Global tables"]),
    ("grace", ["TTL", "Streams"]),  # changed her mind
    ("heidi", ["Transactions", None]),  # withdrew
]


def expected_totals() -> dict[str, int]:
    final = Counter(history[-1] for _, history in BALLOTS if history[-1] is not None)
    return {candidate: final.get(candidate, 0) for candidate in POLL.candidates}


def load(env: Mapping[str, str]) -> None:
    service = VotingService(VotingRepository(TableNames(Settings(env))))
    service.create_poll(POLL_ID, POLL)
    for username, history in BALLOTS:
        voter = user_sub(username)
        try:
            service.vote(POLL_ID, voter, history[0])  # type: ignore[arg-type]
        except ConflictError:
            continue  # loaded before
        for candidate in history[1:]:
            if candidate is None:
                service.withdraw(POLL_ID, voter)
            else:
                service.change_vote(POLL_ID, voter, candidate)
