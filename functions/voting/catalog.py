"""Voting: its entities and access patterns, declared once. docs/voting.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, StreamDemo, columns

ENTITIES: EntityTable = EntityTable(
    columns=("table", "item", "partition key", "sort key", "attributes"),
    rows=(
        (
            "RawVotes",
            "ballot",
            "`pollId`",
            "`userId` (the caller's `sub`)",
            (
                "`candidate` (absent once withdrawn: a tombstone), `votedAt`, `updatedAt`, `withdrawnAt`?, `version` "
                "(+1 on every write)"
            ),
        ),
        (
            "Votes",
            "poll",
            "`pollId`",
            "`#poll`",
            "`question`, `candidates` (list, in display order), `createdAt`, `recountVersion`?",
        ),
        (
            "Votes",
            "aggregate segment",
            "`pollId`",
            "`TOTAL#<candidate>#<segment>`",
            "`candidate`, `votes` (a signed count; the segments of a candidate sum to its total)",
        ),
        (
            "Votes",
            "applied counter",
            "`pollId`",
            "`APPLIED#<segment>`",
            "`changes`: RawVotes changes (version increments) the aggregator has applied",
        ),
        (
            "Votes",
            "shard checkpoint",
            "`SHARD#<stream ARN>#<shard id>`",
            "`#checkpoint`",
            (
                "`sequenceNumber` (40-digit zero-padded string), `updatedAt`, `expiresAt` (TTL), `appliedRecords`, "
                "`itemWrites`, `flushes`"
            ),
        ),
    ),
)

COLUMNS: Columns = columns(source="table", key_condition="key condition / write")

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="create a poll",
        route=(
            "`PUT /voting/polls/{pollId}` `{question, candidates}` → 201; the same again → 200; another definition → "
            "409 `POLL_EXISTS`"
        ),
        who="admin",
        source="Votes",
        key_condition=(
            "PutItem `attribute_not_exists(pollId)`, `ReturnValuesOnConditionCheckFailure=ALL_OLD` to compare"
        ),
        repository_method="`create_poll`",
        tests="`test_creating_a_poll_is_idempotent…`",
    ),
    AccessPattern(
        name="get a poll",
        route="`GET /voting/polls/{pollId}`",
        who="signed in",
        source="Votes",
        key_condition="GetItem (`pollId`, `#poll`)",
        repository_method="`get_poll`",
        tests="`test_only_admins_create_polls…`",
    ),
    AccessPattern(
        name="vote",
        route="`POST /voting/polls/{pollId}/votes` `{candidate}` → 201 (`Idempotency-Key` accepted)",
        who="the caller",
        source="Votes, RawVotes",
        key_condition=(
            "GetItem of the poll (once per container: it never changes), then UpdateItem "
            "`attribute_not_exists(candidate)`"
        ),
        repository_method="`get_poll`, `cast_vote`",
        tests="`test_vote_change_withdraw_and_vote_again`, `test_a_vote_is_one_conditional_write…`",
    ),
    AccessPattern(
        name="change my vote",
        route="`PUT /voting/polls/{pollId}/votes/me` `{candidate}` → 200",
        who="the caller",
        source="RawVotes",
        key_condition="UpdateItem `attribute_exists(candidate)`",
        repository_method="`change_vote`",
        tests="same",
    ),
    AccessPattern(
        name="withdraw my vote",
        route="`DELETE /voting/polls/{pollId}/votes/me` → 204",
        who="the caller",
        source="RawVotes",
        key_condition="UpdateItem `REMOVE candidate`, `attribute_exists(candidate)`",
        repository_method="`withdraw_vote`",
        tests="same",
    ),
    AccessPattern(
        name="my vote",
        route="`GET /voting/polls/{pollId}/votes/me`",
        who="the caller",
        source="RawVotes",
        key_condition="GetItem, strongly consistent",
        repository_method="`get_vote`",
        tests="same",
    ),
    AccessPattern(
        name="results",
        route="`GET /voting/polls/{pollId}/results` → `{pollId, totals, totalVotes}`",
        who="signed in",
        source="Votes",
        key_condition="**one Query** `pollId = :p` (the poll item and every segment), summed in code",
        repository_method="`aggregates`",
        tests="`test_results_are_one_query_of_the_polls_item_collection`",
    ),
    AccessPattern(
        name="recount",
        route="`POST /voting/polls/{pollId}/recount` → `{pollId, totals, totalVotes, corrected}`",
        who="admin",
        source="Votes, RawVotes",
        key_condition=(
            "Query Votes, Query RawVotes `pollId = :p` (paginated, consistent), Query Votes; TransactWriteItems for a "
            "correction"
        ),
        repository_method="`aggregates`, `tally`, `correct`",
        tests="`test_recount_*` (functional, both files)",
    ),
    AccessPattern(
        name="aggregate a batch",
        route="RawVotes stream → `aggregator.py`",
        who="Lambda",
        source="Votes",
        key_condition=(
            "GetItem of the shard checkpoint; TransactWriteItems: ConditionCheck `attribute_exists` on each poll not "
            "yet seen to exist (`#poll`, once per poll and container), `ADD votes` per (candidate, segment), `ADD "
            "changes` per poll, checkpoint conditioned on its old value"
        ),
        repository_method="`checkpoint`, `flush`",
        tests="`tests/functional/test_vote_aggregator.py`",
    ),
    AccessPattern(
        name="park a record it can never apply",
        route="RawVotes stream → `aggregator.py`",
        who="Lambda",
        source="ParkedRecords",
        key_condition=(
            "PutItem (`#consumers`, `voting.aggregator`); PutItem (`voting.aggregator`, `<stream ARN>#<40-digit "
            "sequence>`) `attribute_not_exists(position)`"
        ),
        repository_method="`ParkedRecords.park` (functions/shared/parked.py)",
        tests=(
            "`test_a_ballot_of_a_missing_poll_in_the_middle_is_parked…`, "
            "`test_a_record_that_cannot_be_a_vote_is_parked…`"
        ),
    ),
    AccessPattern(
        name="replay parked records",
        route="`make replay` → `{\"replay\": {\"limit\", \"after\"}}`",
        who="operator (Lambda Invoke)",
        source="ParkedRecords, Votes",
        key_condition=(
            "Query `consumer = voting.aggregator` (consistent, `status = pending` filtered), then per record one "
            "TransactWriteItems: ConditionCheck poll `attribute_exists(pollId) AND "
            "attribute_not_exists(recountVersion)`, Update the parked item `status = replayed` if `status = pending`, "
            "`ADD votes`, `ADD changes`; UpdateItem `status = superseded` when a recount came first"
        ),
        repository_method="`ParkedRecords.pending`, `VotingRepository.replay`, `ParkedRecords.mark`",
        tests="same, `test_a_recount_that_corrected_the_poll_supersedes…`, `tests/e2e/test_poison_records.py`",
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/voting.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "pollId": "favourite-feature",
    "candidate": "Streams",
}

# The explorer shows the aggregator at work: a ballot, then the results once the stream consumer has run.
STREAMS: tuple[StreamDemo, ...] = (
    StreamDemo(
        name="vote aggregates",
        write="vote",
        read="results",
        what=(
            "A ballot is one conditional write to RawVotes; the aggregator reads RawVotes' stream and adds it to the "
            "candidate's segment in Votes (`TOTAL#<candidate>#<segment>`), exactly once whatever Lambda redelivers. "
            "The results change when it has run. A second ballot from the same user is a 409: sign in as another."
        ),
        params={"pollId": "favourite-feature"},
        body={"candidate": "Streams"},
    ),
)

# The seed's user (seeds/voting.py), whom the explorer runs the patterns as (`make token USER=alice`):
# alice voted in the seed's poll.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_voting_api.py::'
AGG = 'tests/functional/test_vote_aggregator.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule='one vote per voter and poll',
        enforced_by='UpdateItem `attribute_not_exists(candidate)`',
        refusal='409 `ALREADY_VOTED` (an `Idempotency-Key` retry gets the first 201 instead)',
        tests=(
            API + 'test_a_second_vote_is_409_already_voted_and_changes_nothing',
            API + 'test_an_idempotent_retry_of_a_vote_gets_the_first_answer_not_a_409',
        ),
    ),
    Rule(
        rule='change / withdraw need a vote',
        enforced_by='UpdateItem `attribute_exists(candidate)`',
        refusal='404 `NO_VOTE`',
        tests=(
            API + 'test_changing_or_withdrawing_without_a_vote_is_404_no_vote',
        ),
    ),
    Rule(
        rule="the candidate is one of the poll's",
        enforced_by="the poll's definition, read once and cached (it cannot change)",
        refusal='409 `UNKNOWN_CANDIDATE` (`details[0].field = body.candidate`): a well-formed ballot the poll refuses',
        tests=(
            API + 'test_an_unknown_candidate_is_409_and_an_unknown_poll_404',
        ),
    ),
    Rule(
        rule='the poll exists',
        enforced_by='same',
        refusal='404 `POLL_NOT_FOUND`',
        tests=(
            API + 'test_an_unknown_candidate_is_409_and_an_unknown_poll_404',
        ),
    ),
    Rule(
        rule="a poll's definition never changes",
        enforced_by='PutItem `attribute_not_exists(pollId)`',
        refusal='409 `POLL_EXISTS`',
        tests=(
            API + 'test_creating_a_poll_is_idempotent_and_a_different_definition_conflicts',
        ),
    ),
    Rule(
        rule='a recount corrects only drift',
        enforced_by='the recount rule below',
        refusal='409 `RECOUNT_BUSY`',
        tests=(
            API + 'test_recount_reports_no_drift_when_caught_up_and_is_busy_while_votes_are_in_flight',
        ),
    ),
    Rule(
        rule='a ballot is aggregated only into an existing poll',
        enforced_by='ConditionCheck `attribute_exists` in the flush transaction',
        refusal='none: the aggregator parks the record (below)',
        tests=(
            AGG + 'test_a_ballot_of_a_missing_poll_in_the_middle_is_parked_the_rest_counts_once_and_a_replay_after_the_fix_applies_it_once',  # noqa: E501 (a test's name, whole for grep)
        ),
    ),
    Rule(
        rule='a parked record is applied at most once',
        enforced_by="its replay is one transaction with the parked item's `status = pending` condition",
        refusal='replay counts it `alreadyReplayed`',
        tests=(
            AGG + 'test_a_ballot_of_a_missing_poll_in_the_middle_is_parked_the_rest_counts_once_and_a_replay_after_the_fix_applies_it_once',  # noqa: E501 (a test's name, whole for grep)
        ),
    ),
    Rule(
        rule='a replay never recounts what a recount corrected',
        enforced_by='ConditionCheck `attribute_not_exists(recountVersion)` in the replay',
        refusal='replay marks it `superseded`, applies nothing',
        tests=(
            AGG + 'test_a_recount_that_corrected_the_poll_supersedes_the_replay_of_a_parked_ballot',
        ),
    ),
)
