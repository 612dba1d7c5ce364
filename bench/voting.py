"""3. Voting on the local runtime, a skewed workload (one candidate takes 80%): votes accepted per second through the
API, how long the results take to reach the exact totals, and the stream records the aggregator applies per DynamoDB
item write (from its own counters on the shard checkpoints); then the aggregator alone on moto, by batch size."""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from bench.runtime import BENCH_KEYS, bench_runtime

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table


def run(votes_total: int = 2000, threads: int = 8) -> None:
    import boto3
    import requests

    from local.cognito import mint_token

    candidates = ["Aurora", "Borealis", "Cirrus", "Drizzle"]
    print(f"\n3. Voting on the local runtime: {votes_total} voters, {threads} client threads, "
          f"'{candidates[0]}' takes 80% of the votes")
    keys = BENCH_KEYS
    with bench_runtime(4) as runtime:
        tables = {t.logical_id: t for stack in runtime.stacks for t in stack.tables.values()}
        raw_votes = next(t for name, t in tables.items() if name.startswith("VotingRawVotesTable"))
        votes = next(t for name, t in tables.items() if name.startswith("VotingVotesTable"))
        streams = boto3.client("dynamodbstreams", endpoint_url=runtime.aws_endpoint, region_name="us-east-1")
        table = boto3.resource("dynamodb", endpoint_url=runtime.aws_endpoint, region_name="us-east-1").Table(votes.name)
        pollers = runtime.streams
        if pollers is None or raw_votes.stream_arn is None:
            raise RuntimeError("the bench's runtime reads no RawVotes stream")
        stream_arn = raw_votes.stream_arn
        pollers.wait_idle(timeout=10)  # the example data is aggregated first
        before = _aggregator_counters(streams, table, stream_arn)
        admin = mint_token("bench-admin", ("admin",), 3600, keys_dir=keys)
        poll = f"bench-{uuid.uuid4().hex[:8]}"
        url = f"{runtime.url}/voting/polls/{poll}"
        requests.put(url, json={"question": "Which cloud?", "candidates": candidates},
                     headers={"Authorization": f"Bearer {admin}"}, timeout=30).raise_for_status()
        choice = [candidates[0] if n % 5 else candidates[1 + n % 3] for n in range(votes_total)]
        tokens = [mint_token(f"bench-voter-{n}", (), 3600, keys_dir=keys) for n in range(votes_total)]
        sessions: dict[int, requests.Session] = {}

        def vote(n: int) -> float:
            import threading

            session = sessions.setdefault(threading.get_ident(), requests.Session())
            t0 = time.perf_counter()
            reply = session.post(f"{url}/votes", json={"candidate": choice[n]},
                                 headers={"Authorization": f"Bearer {tokens[n]}"}, timeout=30)
            if reply.status_code != 201:
                raise RuntimeError(f"a vote was answered {reply.status_code}: {reply.text}")
            return time.perf_counter() - t0

        for _ in range(threads):  # warm every worker of the API function
            requests.get(url, headers={"Authorization": f"Bearer {admin}"}, timeout=30).raise_for_status()
        t0 = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            latencies = sorted(pool.map(vote, range(votes_total)))
        elapsed = time.perf_counter() - t0
        converged = _converged(f"{url}/results", admin, {c: choice.count(c) for c in candidates}, since=t0 + elapsed)
        pollers.wait_idle(timeout=10)
        after = _aggregator_counters(streams, table, stream_arn)
        recount = requests.post(f"{url}/recount", headers={"Authorization": f"Bearer {admin}"}, timeout=30).json()
    ms = [x * 1000 for x in latencies]
    print(f"   {votes_total / elapsed:.0f} votes accepted/s through the API; "
          f"latency p50 {statistics.median(ms):.1f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms")
    print(f"   results equal the exact totals {converged:.2f} s after the last vote was accepted"
          if converged is not None else "   results did NOT reach the exact totals within 30 s")
    _print_aggregation(before, after, recount)
    aggregation_by_batch_size()


def _converged(results_url: str, token: str, truth: dict[str, int], *, since: float) -> float | None:
    """Seconds from `since` (a `time.perf_counter()`) until the results equal `truth`, read every 50 ms; None when
    they do not within 30 s."""
    import requests

    while time.perf_counter() - since < 30:
        totals = requests.get(results_url, headers={"Authorization": f"Bearer {token}"}, timeout=30).json()["totals"]
        if totals == truth:
            return time.perf_counter() - since
        time.sleep(0.05)
    return None


def _aggregator_counters(streams: Any, table: Table, stream_arn: str) -> tuple[int, int, int]:
    """(records applied, items written, transactions) summed over the RawVotes shards' checkpoints."""
    shards = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]
    totals = [0, 0, 0]
    for shard in shards:
        key = {"pollId": f"SHARD#{stream_arn}#{shard['ShardId']}", "sk": "#checkpoint"}
        item: Mapping[str, Any] = table.get_item(Key=key, ConsistentRead=True).get("Item") or {}
        for index, name in enumerate(("appliedRecords", "itemWrites", "flushes")):
            totals[index] += int(item.get(name, 0))
    return totals[0], totals[1], totals[2]


def _print_aggregation(before: tuple[int, int, int], after: tuple[int, int, int], recount: dict[str, Any]) -> None:
    """What the aggregator did between two readings of its counters (records, item writes, transactions)."""
    records, writes, transactions = (a - b for a, b in zip(after, before, strict=True))
    print(f"   aggregator: {records} stream records, {transactions} transactions, {writes} item writes "
          f"(aggregate segments + applied counters + checkpoints)")
    print(f"   -> {records / max(writes, 1):.1f} stream records per DynamoDB item write, "
          f"{records / max(transactions, 1):.0f} records per transaction "
          "(an aggregator adding one vote per write: 1 record per write)")
    print(f"   recount: totals {recount.get('totals')}, drift corrected {recount.get('corrected')}")
    print("   (moto and the gateway are Python; the aggregation ratio holds in AWS, the rates do not)")


def aggregation_by_batch_size(changes_total: int = 3000, sizes: tuple[int, ...] = (1, 10, 100, 500)) -> None:
    """The aggregator alone on moto: the same skewed stream cut into batches of several sizes."""
    import random

    import boto3
    from moto import mock_aws

    from functions.shared import ddb
    from functions.shared.settings import Settings
    from functions.voting.aggregator import Aggregator, Change
    from functions.voting.models import Poll
    from functions.voting.repository import Shard, TableNames, VotingRepository
    from functions.voting.schema import DEFAULT_BUCKETS, VOTES_TABLE

    rng = random.Random(4)  # noqa: S311  a seeded workload (the same one every run), not a secret
    candidates = ["Aurora", "Borealis", "Cirrus", "Drizzle"]

    def pick() -> str:
        return candidates[0] if rng.random() < 0.8 else rng.choice(candidates[1:])

    held: dict[int, str] = {}
    stream = []
    for n in range(changes_total):  # 85% new votes, 10% changes, 5% withdrawals
        user, roll = rng.randrange(changes_total), rng.random()
        old = held.get(user)
        new = None if old is not None and roll < 0.05 else (pick() if old is None or roll < 0.15 else None)
        if old is None and new is None:
            new = pick()
        if new is None and old is None:
            continue
        if new is None:
            held.pop(user)
        else:
            held[user] = new
        stream.append(Change(str(10**20 + n).zfill(40), "bench", old, new, 1))
    print(f"   the aggregator alone (in-process on moto), {len(stream)} changes of one poll, same skew:")
    print(f"   {'batch size':>12} {'transactions':>13} {'item writes':>12} {'records/write':>14}")
    with mock_aws():
        ddb.resource.cache_clear()
        for size in sizes:
            name = f"bench-votes-{size}"
            boto3.client("dynamodb", region_name="us-east-1").create_table(**VOTES_TABLE.create_table_kwargs(name))
            repository = VotingRepository(TableNames(Settings({VOTES_TABLE.env_var: name})))
            repository.create_poll(Poll(poll_id="bench", question="Which cloud?", candidates=candidates,
                                        created_at=datetime.now(UTC)), DEFAULT_BUCKETS)  # the aggregator checks it
            aggregator = Aggregator(repository, rng)
            shard, expected, writes, transactions = Shard("arn:bench", "shard-1"), None, 0, 0
            for start in range(0, len(stream), size):
                applied = aggregator.apply(shard, expected, stream[start:start + size])
                expected = stream[min(start + size, len(stream)) - 1].sequence
                writes, transactions = writes + applied.item_writes, transactions + applied.transactions
            print(f"   {size:>12} {transactions:>13} {writes:>12} {len(stream) / writes:>14.1f}")
    ddb.resource.cache_clear()
