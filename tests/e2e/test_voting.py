"""Voting over HTTP on the local runtime: ballots through the API, aggregates through the RawVotes stream."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import boto3
from boto3.dynamodb.conditions import Key

from functions.voting.schema import DEFAULT_BUCKETS, ballot_pk, segment_pk
from seeds import voting as seed
from tests.support.waiting import eventually

ADMIN = ("admin",)
CANDIDATES = ["Aurora", "Borealis", "Cirrus", "Drizzle"]


def results(api, poll_id: str) -> dict:
    reply = api.call("GET", f"/voting/polls/{poll_id}/results", user="observer")
    assert reply.status_code == 200, reply.text
    return reply.json()


def converge(api, poll_id: str, expected: dict[str, int], timeout: float = 5.0) -> float:
    """Seconds until the results equal `expected`; fails the test after `timeout`."""
    def reached() -> None:
        totals = results(api, poll_id)["totals"]
        assert totals == expected, f"results {totals} did not reach {expected}"

    start = time.monotonic()
    eventually(reached, timeout=timeout)
    return time.monotonic() - start


def table(runtime, construct_id: str):
    """One of the runtime's tables, read over its AWS endpoint (test-side, as an operator would look)."""
    (name,) = [t.name for stack in runtime.stacks for logical_id, t in stack.tables.items()
               if logical_id.startswith(f"Voting{construct_id}")]
    return boto3.resource("dynamodb", endpoint_url=runtime.aws_endpoint, region_name=runtime.region,
                          aws_access_key_id="testing", aws_secret_access_key="testing").Table(name)


def new_poll(api) -> str:
    poll_id = f"e2e-{uuid.uuid4().hex[:10]}"
    reply = api.call("PUT", f"/voting/polls/{poll_id}", user="root", groups=ADMIN,
                     json={"question": "Which cloud?", "candidates": CANDIDATES})
    assert reply.status_code == 201, reply.text
    return poll_id


def test_the_example_poll_is_aggregated_and_recounts_without_drift(api):
    converge(api, seed.POLL_ID, seed.expected_totals())
    mine = api.call("GET", f"/voting/polls/{seed.POLL_ID}/votes/me", user="alice")
    assert mine.status_code == 200 and mine.json()["candidate"] == "Streams"
    assert api.call("GET", f"/voting/polls/{seed.POLL_ID}/votes/me", user="heidi").status_code == 404  # withdrew
    recount = api.call("POST", f"/voting/polls/{seed.POLL_ID}/recount", user="root", groups=ADMIN)
    assert recount.status_code == 200 and recount.json()["corrected"] == {}


def test_200_concurrent_voters_with_duplicates_changes_and_withdrawals_converge_to_the_exact_truth(api, runtime):
    poll_id = new_poll(api)
    base = f"/voting/polls/{poll_id}/votes"
    users = [f"voter-{uuid.uuid4().hex[:6]}-{n}" for n in range(200)]
    choice = {user: CANDIDATES[0] if n % 5 else CANDIDATES[1 + n % 3] for n, user in enumerate(users)}
    twice = set(users[:20])  # these send their vote twice, at the same time

    # When 200 users vote at once, 20 of them twice
    requests = [(u, choice[u]) for u in users] + [(u, CANDIDATES[2]) for u in twice]
    with ThreadPoolExecutor(max_workers=16) as pool:
        replies = list(pool.map(lambda r: (r[0], api.call("POST", base, user=r[0], json={"candidate": r[1]})), requests))

    # Then each user got exactly one 201, and the duplicates one 409 ALREADY_VOTED
    per_user: dict[str, list[int]] = {}
    for user, reply in replies:
        per_user.setdefault(user, []).append(reply.status_code)
        if reply.status_code == 409:
            assert reply.json()["error"]["code"] == "ALREADY_VOTED"
    assert all(sorted(codes) == ([201, 409] if u in twice else [201]) for u, codes in per_user.items())
    voted = {user: reply.json()["candidate"] for user, reply in replies if reply.status_code == 201}

    # When 30 change their vote and 15 withdraw, concurrently
    changers, leavers = users[20:50], users[50:65]

    def change(user: str):
        return api.call("PUT", f"{base}/me", user=user, json={"candidate": CANDIDATES[3]})

    def withdraw(user: str):
        return api.call("DELETE", f"{base}/me", user=user)

    with ThreadPoolExecutor(max_workers=16) as pool:
        changed = list(pool.map(change, changers))
        withdrawn = list(pool.map(withdraw, leavers))
    assert {r.status_code for r in changed} == {200} and {r.status_code for r in withdrawn} == {204}
    for user in changers:
        voted[user] = CANDIDATES[3]
    for user in leavers:
        del voted[user]

    # Then the results converge to the exact truth within a few seconds, and a recount finds no drift
    truth = Counter(voted.values())
    expected = {candidate: truth.get(candidate, 0) for candidate in CANDIDATES}
    seconds = converge(api, poll_id, expected)
    assert seconds < 5
    assert results(api, poll_id)["totalVotes"] == 185
    assert runtime.streams.wait_idle(timeout=5)
    recount = api.call("POST", f"/voting/polls/{poll_id}/recount", user="root", groups=ADMIN)
    assert recount.status_code == 200, recount.text
    assert recount.json()["corrected"] == {} and recount.json()["totals"] == expected
    assert runtime.dlq_messages() == {arn: [] for arn in runtime.dlq_messages()}  # nothing given up on

    # And the poll's ballots are under many partition keys (its voters' buckets), as are its aggregates
    raw_votes, votes = table(runtime, "RawVotesTable"), table(runtime, "VotesTable")
    per_bucket = {b: raw_votes.query(KeyConditionExpression=Key("pollBucket").eq(ballot_pk(poll_id, b)))["Items"]
                  for b in range(DEFAULT_BUCKETS)}
    assert sum(len(items) for items in per_bucket.values()) == 200  # tombstones included
    assert len([b for b, items in per_bucket.items() if items]) >= 15
    segments = {b: votes.query(KeyConditionExpression=Key("pollId").eq(segment_pk(poll_id, b)))["Items"]
                for b in range(DEFAULT_BUCKETS)}
    assert sum(int(i.get("votes", 0)) for items in segments.values() for i in items) == 185
    assert {b for b, items in segments.items() if items} == {b for b, items in per_bucket.items() if items}


def test_my_ballot_over_http_and_its_refusals(api):
    poll_id = new_poll(api)
    base = f"/voting/polls/{poll_id}"
    assert api.call("PUT", base, user="someone", json={"question": "Q", "candidates": ["A", "B"]}).status_code == 403
    assert api.call("GET", base, user="someone").json()["candidates"] == CANDIDATES
    unknown = api.call("POST", f"{base}/votes", user="sam", json={"candidate": "Nimbus"})
    assert unknown.status_code == 409 and unknown.json()["error"]["code"] == "UNKNOWN_CANDIDATE"
    assert api.call("POST", "/voting/polls/no-such-poll/votes", user="sam",
                    json={"candidate": "Aurora"}).status_code == 404
    assert api.call("POST", f"{base}/votes", user="sam", json={"candidate": "Aurora"}).status_code == 201
    assert api.call("GET", f"{base}/votes/me", user="sam").json()["candidate"] == "Aurora"
    converge(api, poll_id, {"Aurora": 1, "Borealis": 0, "Cirrus": 0, "Drizzle": 0})
    assert api.call("DELETE", f"{base}/votes/me", user="sam").status_code == 204
    assert api.call("DELETE", f"{base}/votes/me", user="sam").status_code == 404
    converge(api, poll_id, dict.fromkeys(CANDIDATES, 0))
    assert api.call("POST", f"{base}/recount", user="sam").status_code == 403
    assert api.call("GET", f"{base}/results", user=None).status_code == 401
