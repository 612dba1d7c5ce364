"""Voting rules that are not storage: poll definitions, candidate checks, results, and the recount's rule."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

from functions.shared.errors import ConflictError, NotFoundError
from functions.shared.settings import settings
from functions.voting.models import Poll, PollIn, Recount, Results, Vote
from functions.voting.repository import VotingRepository
from functions.voting.schema import SETTLED_AFTER_ENV

# How long after a poll's last change every stream record of it has either been applied or given up on: the
# aggregator's maximum record age (6 h) plus its timeout and a margin for clock skew. CDK sets the real value.
DEFAULT_SETTLED_AFTER = timedelta(hours=6, minutes=6)
RECOUNT_READS = 3  # attempts to read the aggregates twice unchanged around the RawVotes count
POLL_CACHE_SIZE = 1024


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def settled_after() -> timedelta:
    seconds = settings().integer(SETTLED_AFTER_ENV, 0)
    return timedelta(seconds=seconds) if seconds else DEFAULT_SETTLED_AFTER


def poll_not_found(poll_id: str) -> NotFoundError:
    return NotFoundError(f"no poll {poll_id}", code="POLL_NOT_FOUND")


class VotingService:
    def __init__(
        self,
        repository: VotingRepository,
        clock: Callable[[], datetime] = utc_now,
        settled: timedelta | None = None,
    ):
        self.repository = repository
        self._clock = clock
        self._settled_after = settled if settled is not None else settled_after()
        # Poll definitions never change once created (PUT with another definition is a 409, and there is no
        # delete), so a definition read once stays true: cached per container, only when found.
        self._polls: dict[str, Poll] = {}

    # polls

    def create_poll(self, poll_id: str, request: PollIn) -> tuple[Poll, bool]:
        """Create a poll; the same definition again is a no-op (False), another one a 409 POLL_EXISTS."""
        asked = Poll(poll_id=poll_id, question=request.question, candidates=request.candidates, created_at=self._clock())
        stored, created = self.repository.create_poll(asked)
        if not created and (stored.question, stored.candidates) != (asked.question, asked.candidates):
            raise ConflictError(
                f"poll {poll_id} exists with another definition; polls cannot be changed", code="POLL_EXISTS"
            )
        return stored, created

    def poll(self, poll_id: str) -> Poll:
        poll = self._polls.get(poll_id)
        if poll is None:
            poll = self.repository.get_poll(poll_id, consistent=True)
            if poll is None:
                raise poll_not_found(poll_id)
            if len(self._polls) >= POLL_CACHE_SIZE:
                self._polls.clear()
            self._polls[poll_id] = poll
        return poll

    def _candidate(self, poll_id: str, candidate: str) -> str:
        """The candidate must be one of the poll's (409 UNKNOWN_CANDIDATE: the ballot is well formed, the poll's
        state refuses it, which no schema can say: docs/adr/0064-state-refusals-are-409-or-404-not-400.md); an
        unknown poll is a 404.

        Checked against the poll's definition, which cannot change after it is read: no race, and no vote has to
        take part in a transaction on the poll item (concurrent transactions on one item conflict, which would
        turn a popular poll's item into the bottleneck that write sharding exists to avoid).
        """
        if candidate not in self.poll(poll_id).candidates:
            raise ConflictError(
                f"{candidate!r} is not a candidate of poll {poll_id}",
                code="UNKNOWN_CANDIDATE",
                details=[{"field": "body.candidate", "message": "not a candidate of this poll"}],
            )
        return candidate

    # my ballot (the voter is always the signed-in caller)

    def vote(self, poll_id: str, voter: str, candidate: str) -> Vote:
        return self.repository.cast_vote(poll_id, voter, self._candidate(poll_id, candidate), self._clock())

    def change_vote(self, poll_id: str, voter: str, candidate: str) -> Vote:
        return self.repository.change_vote(poll_id, voter, self._candidate(poll_id, candidate), self._clock())

    def withdraw(self, poll_id: str, voter: str) -> None:
        self.poll(poll_id)
        self.repository.withdraw_vote(poll_id, voter, self._clock())

    def my_vote(self, poll_id: str, voter: str) -> Vote:
        vote = self.repository.get_vote(poll_id, voter)
        if vote is None:
            self.poll(poll_id)  # 404 POLL_NOT_FOUND rather than NO_VOTE for a poll that does not exist
            raise NotFoundError("you have no vote in this poll", code="NO_VOTE")
        return vote

    # results

    def results(self, poll_id: str) -> Results:
        aggregates = self.repository.aggregates(poll_id)
        if aggregates.poll is None:
            raise poll_not_found(poll_id)
        return _results(aggregates.poll, aggregates.totals)

    def recount(self, poll_id: str) -> Recount:
        """Rebuild the poll's totals from RawVotes and correct the aggregates' drift, if it is drift.

        A vote accepted but not yet aggregated is not drift: "correcting" it would count it twice once the
        aggregator applies it. So the recount corrects only when nothing is in flight for the poll:
        - caught up: the changes the aggregator applied (sum of the APPLIED counters, read *before* RawVotes)
          equal the changes accepted (sum of RawVotes `version`). Then every accepted change is applied, exactly
          once, and any difference is drift; or
        - settled: the poll's last change is older than the aggregator's maximum record age (plus its timeout), so
          no record of it can still be delivered; what is missing was given up on (the DLQ) and is drift too.
          The correction then also adds the lost changes to the applied counter, so the next recount is caught up.
        Otherwise 409 RECOUNT_BUSY. The aggregates are read twice around the count and must be equal, so the
        first read is not a half-visible flush; the correction is ADDed (it commutes with later flushes) in one
        transaction with the poll's recount version (two recounts cannot both apply it).
        """
        for _ in range(RECOUNT_READS):
            before = self.repository.aggregates(poll_id, consistent=True)
            if before.poll is None:
                raise poll_not_found(poll_id)
            tally = self.repository.tally(poll_id)
            after = self.repository.aggregates(poll_id, consistent=True)
            if (after.snapshot, after.recount_version) != (before.snapshot, before.recount_version):
                continue  # a flush or another recount landed meanwhile: read again
            pending = tally.accepted_changes - before.applied_changes
            settled = tally.last_change_at is None or self._clock() - tally.last_change_at >= self._settled_after
            if pending and not settled:
                raise ConflictError(
                    f"{pending} accepted change(s) of poll {poll_id} are not aggregated yet; recount in a moment",
                    code="RECOUNT_BUSY",
                )
            candidates = set(before.poll.candidates) | set(before.totals) | set(tally.totals)
            corrected = {
                c: tally.totals.get(c, 0) - before.totals.get(c, 0)
                for c in sorted(candidates)
                if tally.totals.get(c, 0) != before.totals.get(c, 0)
            }
            if corrected or pending:
                self.repository.correct(poll_id, corrected, pending, before.recount_version)
            results = _results(before.poll, tally.totals)
            return Recount(
                poll_id=poll_id, totals=results.totals, total_votes=results.total_votes, corrected=corrected
            )
        raise ConflictError(
            f"votes of poll {poll_id} kept being aggregated while recounting; recount in a moment",
            code="RECOUNT_BUSY",
        )


def _results(poll: Poll, totals: dict[str, int]) -> Results:
    per_candidate = {candidate: totals.get(candidate, 0) for candidate in poll.candidates}
    return Results(poll_id=poll.poll_id, totals=per_candidate, total_votes=sum(per_candidate.values()))

