"""Voting rules that are not storage: poll definitions, candidate checks, results, and the recount's rule."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from functions.shared.errors import ConflictError, NotFoundError
from functions.shared.settings import settings
from functions.voting import models
from functions.voting.repository import StoredPoll, VotingRepository
from functions.voting.schema import BUCKETS_ENV, DEFAULT_BUCKETS, MAX_BUCKETS, SETTLED_AFTER_ENV

# How long after a poll's last change every stream record of it has either been applied or given up on: the
# aggregator's maximum record age (6 h) plus its timeout and a margin for clock skew. CDK sets the real value.
DEFAULT_SETTLED_AFTER = timedelta(hours=6, minutes=6)
RECOUNT_READS = 3  # attempts to read the aggregates twice unchanged around the RawVotes count
POLL_CACHE_SIZE = 1024


def utc_now() -> datetime:
    return datetime.now(UTC)


def settled_after() -> timedelta:
    seconds = settings().integer(SETTLED_AFTER_ENV, 0)
    return timedelta(seconds=seconds) if seconds else DEFAULT_SETTLED_AFTER


def configured_buckets() -> int:
    """B for the polls created from now on (CDK sets it from `-c voteBuckets=N`; schema.py says how it is chosen)."""
    buckets = settings().integer(BUCKETS_ENV, 0) or DEFAULT_BUCKETS
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError(f"{BUCKETS_ENV} must be 1..{MAX_BUCKETS}, not {buckets}")
    return buckets


def poll_not_found(poll_id: str) -> NotFoundError:
    return NotFoundError(f"no poll {poll_id}", code="POLL_NOT_FOUND")


class VotingService:
    def __init__(
        self,
        repository: VotingRepository,
        clock: Callable[[], datetime] = utc_now,
        settled: timedelta | None = None,
        buckets: int | None = None,
    ):
        self.repository = repository
        self._clock = clock
        self._settled_after = settled if settled is not None else settled_after()
        self._buckets = buckets if buckets is not None else configured_buckets()
        # Poll definitions never change once created (PUT with another definition is a 409, and there is no
        # delete), and neither does a poll's bucket count, so a definition read once stays true: cached per
        # container, only when found.
        self._polls: dict[str, StoredPoll] = {}

    # polls

    def create_poll(self, poll_id: str, request: models.PollIn) -> tuple[models.Poll, bool]:
        """Create a poll; the same definition again is a no-op (False), another one a 409 POLL_EXISTS."""
        asked = models.Poll(poll_id=poll_id, question=request.question, candidates=request.candidates,
                     created_at=self._clock())
        stored, created = self.repository.create_poll(asked, self._buckets)
        if not created and (stored.poll.question, stored.poll.candidates) != (asked.question, asked.candidates):
            raise ConflictError(
                f"poll {poll_id} exists with another definition; polls cannot be changed", code="POLL_EXISTS"
            )
        return stored.poll, created

    def poll(self, poll_id: str) -> models.Poll:
        return self._stored(poll_id).poll

    def _stored(self, poll_id: str) -> StoredPoll:
        """The poll's definition and bucket count, read once per container (404 POLL_NOT_FOUND when absent)."""
        stored = self._polls.get(poll_id)
        if stored is None:
            stored = self.repository.get_poll(poll_id, consistent=True)
            if stored is None:
                raise poll_not_found(poll_id)
            if len(self._polls) >= POLL_CACHE_SIZE:
                self._polls.clear()
            self._polls[poll_id] = stored
        return stored

    def _candidate(self, poll_id: str, candidate: str) -> StoredPoll:
        """The candidate must be one of the poll's (409 UNKNOWN_CANDIDATE: the ballot is well formed, the poll's
        state refuses it, which no schema can say: docs/adr/0064-state-refusals-are-409-or-404-not-400.md); an
        unknown poll is a 404.

        Checked against the poll's definition, which cannot change after it is read: no race, and no vote has to
        take part in a transaction on the poll item (concurrent transactions on one item conflict, which would
        turn a popular poll's item into the bottleneck that write sharding exists to avoid).
        """
        stored = self._stored(poll_id)
        if candidate not in stored.poll.candidates:
            raise ConflictError(
                f"{candidate!r} is not a candidate of poll {poll_id}",
                code="UNKNOWN_CANDIDATE",
                details=[{"field": "body.candidate", "message": "not a candidate of this poll"}],
            )
        return stored

    # my ballot (the voter is always the signed-in caller; the poll, read once, names the voter's bucket)

    def vote(self, poll_id: str, voter: str, candidate: str) -> models.Vote:
        return self.repository.cast_vote(self._candidate(poll_id, candidate), voter, candidate, self._clock())

    def change_vote(self, poll_id: str, voter: str, candidate: str) -> models.Vote:
        return self.repository.change_vote(self._candidate(poll_id, candidate), voter, candidate, self._clock())

    def withdraw(self, poll_id: str, voter: str) -> None:
        self.repository.withdraw_vote(self._stored(poll_id), voter, self._clock())

    def my_vote(self, poll_id: str, voter: str) -> models.Vote:
        return self.repository.get_vote(self._stored(poll_id), voter)  # an unknown poll: 404 POLL_NOT_FOUND

    # results

    def results(self, poll_id: str) -> models.Results:
        stored = self._stored(poll_id)
        aggregates = self.repository.aggregates(poll_id, stored.buckets)
        return _results(stored.poll, aggregates.totals)

    def recount(self, poll_id: str) -> models.Recount:
        """Rebuild the poll's totals from RawVotes and correct the aggregates' drift, if it is drift.

        A vote accepted but not yet aggregated is not drift: "correcting" it would count it twice once the
        aggregator applies it. So the recount corrects only when nothing is in flight for the poll:
        - caught up: the changes the aggregator applied (sum of the segments' APPLIED counters, read *before* RawVotes)
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
            poll = self.repository.get_poll(poll_id, consistent=True)  # its recount version, read fresh
            if poll is None:
                raise poll_not_found(poll_id)
            before = self.repository.aggregates(poll_id, poll.buckets, consistent=True)
            tally = self.repository.tally(poll_id, poll.buckets)
            after = self.repository.aggregates(poll_id, poll.buckets, consistent=True)
            if after.snapshot != before.snapshot:
                continue  # a flush or another recount's correction landed meanwhile: read again
            pending = tally.accepted_changes - before.applied_changes
            settled = tally.last_change_at is None or self._clock() - tally.last_change_at >= self._settled_after
            if pending and not settled:
                raise ConflictError(
                    f"{pending} accepted change(s) of poll {poll_id} are not aggregated yet; recount in a moment",
                    code="RECOUNT_BUSY",
                )
            candidates = set(poll.poll.candidates) | set(before.totals) | set(tally.totals)
            corrected = {
                c: tally.totals.get(c, 0) - before.totals.get(c, 0)
                for c in sorted(candidates)
                if tally.totals.get(c, 0) != before.totals.get(c, 0)
            }
            # False: another recount moved the poll's recount version first.
            if (corrected or pending) and not self.repository.correct(poll_id, corrected, pending,
                                                                      poll.recount_version):
                raise ConflictError(
                    "another recount corrected this poll meanwhile; recount again", code="RECOUNT_BUSY"
                )
            results = _results(poll.poll, tally.totals)
            return models.Recount(
                poll_id=poll_id, totals=results.totals, total_votes=results.total_votes, corrected=corrected
            )
        raise ConflictError(
            f"votes of poll {poll_id} kept being aggregated while recounting; recount in a moment",
            code="RECOUNT_BUSY",
        )


def _results(poll: models.Poll, totals: dict[str, int]) -> models.Results:
    per_candidate = {candidate: totals.get(candidate, 0) for candidate in poll.candidates}
    return models.Results(poll_id=poll.poll_id, totals=per_candidate, total_votes=sum(per_candidate.values()))

