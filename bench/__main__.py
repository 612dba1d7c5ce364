"""`make bench`: figures, not tests.

1. Read cost against table size: items DynamoDB reads to answer "where did Bob work on 2005-01-01", ours
   (ContactPersonIndex) and the seed's (ContactTypeIndex + FilterExpression), as other people's links grow.
2. Throughput of the same question through the local runtime over HTTP (moto + worker processes).
3. Voting on the local runtime, a skewed workload (one candidate takes 80%): votes accepted per second through the
   API, how long the results take to reach the exact totals, and the stream records the aggregator applies per
   DynamoDB item write (from its own counters on the shard checkpoints).
4.-5. The workshop's cost slides with our data (bench/workshop.py): an inbox page's index items and read units;
   writes per reading of the binned time series.
6.-7. The cart (bench/cart.py): one price change through the SKU index against the seed's daily scan, and the
   seed's monthly estimate recomputed at on-demand prices.
8. Order entry (bench/order_entry.py): pattern 5 (OPEN orders in a date range) over GSI2 with N = 1 and N = 15
   shards, 50,000 orders each: latency through the local API, Query requests, items read, the hottest partition's share.
9. Load (bench/load.py): every domain's main routes (a write, then a main read, in turn) with 8 concurrent clients
   for 5 s each on one local runtime under the prod stage's limits: requests/s, p50/p99, errors by status, 429s;
   every acknowledged write read back through the API (none missing, none twice, none unacknowledged); then the dev
   stage's limits on a second front end: no 429 below them, 429s above them. A failed check exits non-zero.
   Alone: `.venv/bin/python -c "import bench.__main__; from bench import load; load.run()"`.
10. Cold start (bench/coldstart.py): import CPU of each function's handler against boto3 + a DynamoDB resource, per
   function, beside three reference rows without domain code (Powertools' resolver; with a pydantic model; with
   Powertools' validation: the floor), with a verdict against 1.3x the floor (exits non-zero when one is over).
11. Cost tables and scale audit (bench/cost.py, alone: `make cost`): every GET route and each domain's main writes,
   their DynamoDB bill with the seeds only and with +20,000 unrelated items per domain; the seeds' figures beside ours.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCOUNT_ID_ENDPOINT_MODE": "disabled", "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    }
)


def read_cost(sizes: tuple[int, ...] = (0, 200, 2000)) -> None:
    import boto3
    from boto3.dynamodb.conditions import Attr, Key
    from moto import mock_aws

    from functions.contacts.models import Link, Person
    from functions.contacts.repository import ContactRepository, day_to_epoch, link_item
    from functions.contacts.schema import CONTACT_TABLE, TYPE_INDEX
    from functions.shared import ddb
    from seeds import contacts as seed

    print("1. Items read to answer 'where did Bob work on 2005-01-01' as the table grows")
    print(f"   {'other links':>12} {'ours: queries':>14} {'ours: items read':>17} {'seed: items read':>17}")
    day = date(2005, 1, 1)
    with mock_aws():
        ddb.resource.cache_clear()
        boto3.client("dynamodb").create_table(**CONTACT_TABLE.create_table_kwargs("bench"))
        seed.load({CONTACT_TABLE.env_var: "bench"})
        repository, table = ContactRepository("bench"), ddb.table("bench")
        added = 0
        for size in sizes:
            with table.batch_writer() as batch:
                while added < size:
                    person = Person(id=str(uuid.uuid4()), first_name="P", last_name="Other")
                    batch.put_item(Item={"Id": person.id, "Type": "Person", "FirstName": "P", "LastName": "Other"})
                    for year in range(2000, 2005):
                        link = Link(link_id=str(uuid.uuid4()), person_id=person.id, address_id=seed.WAZEE,
                                    relationship="Business", start_date=date(year, 1, 1), end_date=date(year, 12, 31))
                        batch.put_item(Item=link_item(link))
                        added += 1
            scanned: list[int] = []
            events = ddb.resource().meta.client.meta.events
            record = lambda parsed, **_: scanned.append(parsed.get("ScannedCount", 0))  # noqa: E731
            events.register("after-call.dynamodb.Query", record)
            page = repository.list_links_of(seed.BOB, relationship="Business", on=day, limit=25, start_key=None)
            events.unregister("after-call.dynamodb.Query", record)
            assert [link.address_id for link in page.items] == [seed.WAZEE]
            # The seed's query, for comparison (never on a request path): every PersonAddress, then a filter.
            seed_scanned, start = 0, None
            while True:
                kwargs = dict(IndexName=TYPE_INDEX, KeyConditionExpression=Key("Type").eq("PersonAddress"),
                              FilterExpression=Attr("PersonId").eq(seed.BOB) & Attr("Relationship").eq("Business")
                              & Attr("StartTimestampUTC").lte(day_to_epoch(day))
                              & Attr("EndTimestampUTC").gte(day_to_epoch(day)))
                if start:
                    kwargs["ExclusiveStartKey"] = start
                response = table.query(**kwargs)
                seed_scanned += response["ScannedCount"]
                start = response.get("LastEvaluatedKey")
                if not start:
                    break
            print(f"   {added:>12} {len(scanned):>14} {sum(scanned):>17} {seed_scanned:>17}")
    ddb.resource.cache_clear()  # that resource belonged to the mock


BENCH_KEYS = ROOT / ".local" / "bench-keys"  # the signing keys of the benches' runtimes (tokens via mint_token)


def bench_runtime(max_concurrency: int):
    """The local runtime a bench section starts (a context manager): stage dev under the prod stage's limits
    (`prod_throttle`), its functions' logs dropped, its signing keys in BENCH_KEYS."""
    from local.runtime import Runtime

    return Runtime.start(ROOT, stage="dev", port=0, aws_port=0, keys_dir=BENCH_KEYS, max_concurrency=max_concurrency,
                         log_sink=lambda *a, **k: None, throttle=prod_throttle())


def prod_throttle():
    """The prod stage's throttling (from infra.stack), instead of dev's 50 requests/s, burst 100 that the local
    runtime enforces from the template: these workloads exceed dev's limits, as they would on AWS. A 429 here
    means the prod stage would throttle them too."""
    from infra.stack import StageConfig
    from local.apigw import Throttle

    prod = StageConfig.named("prod")
    return Throttle(rate=prod.throttling_rate_limit, burst=prod.throttling_burst_limit)


def http_throughput(requests_total: int = 400, threads: int = 4) -> None:
    import requests

    from local.auth import mint_token
    from seeds import contacts as seed

    print(f"\n2. The same question over HTTP on the local runtime: {requests_total} requests, {threads} client threads")
    started = time.perf_counter()
    keys = BENCH_KEYS
    with bench_runtime(threads) as runtime:
        print(f"   start-up (synth + moto + tables + seed): {time.perf_counter() - started:.1f} s")
        token = mint_token("bench", (), 3600, keys_dir=keys)
        url = f"{runtime.url}/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01"
        session_per_thread: dict[int, requests.Session] = {}

        def one(_: int) -> float:
            import threading

            session = session_per_thread.setdefault(threading.get_ident(), requests.Session())
            t0 = time.perf_counter()
            response = session.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
            response.raise_for_status()
            return time.perf_counter() - t0

        for _ in range(threads * 2):  # warm every worker (cold starts are not the steady state)
            one(0)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            latencies = sorted(pool.map(one, range(requests_total)))
        elapsed = time.perf_counter() - t0
    ms = [x * 1000 for x in latencies]
    print(f"   {requests_total / elapsed:.0f} requests/s; latency p50 {statistics.median(ms):.1f} ms, "
          f"p95 {ms[int(len(ms) * 0.95)]:.1f} ms, max {ms[-1]:.1f} ms")
    print("   (moto and the gateway are Python; this measures the local runtime, not AWS)")


def voting(votes_total: int = 2000, threads: int = 8) -> None:
    import boto3
    import requests

    from local.auth import mint_token

    candidates = ["Aurora", "Borealis", "Cirrus", "Drizzle"]
    print(f"\n3. Voting on the local runtime: {votes_total} voters, {threads} client threads, "
          f"'{candidates[0]}' takes 80% of the votes")
    keys = BENCH_KEYS
    with bench_runtime(4) as runtime:
        tables = {t.logical_id: t for stack in runtime.stacks for t in stack.tables.values()}
        raw_votes = next(t for name, t in tables.items() if name.startswith("VotingRawVotesTable"))
        votes = next(t for name, t in tables.items() if name.startswith("VotingVotesTable"))
        aws = {"endpoint_url": runtime.aws_endpoint, "region_name": "us-east-1"}
        streams, table = boto3.client("dynamodbstreams", **aws), boto3.resource("dynamodb", **aws).Table(votes.name)

        def aggregator_counters() -> tuple[int, int, int]:
            """(records applied, items written, transactions) summed over the RawVotes shards' checkpoints."""
            shards = streams.describe_stream(StreamArn=raw_votes.stream_arn)["StreamDescription"]["Shards"]
            totals = [0, 0, 0]
            for shard in shards:
                key = {"pollId": f"SHARD#{raw_votes.stream_arn}#{shard['ShardId']}", "sk": "#checkpoint"}
                item = table.get_item(Key=key, ConsistentRead=True).get("Item") or {}
                for index, name in enumerate(("appliedRecords", "itemWrites", "flushes")):
                    totals[index] += int(item.get(name, 0))
            return totals[0], totals[1], totals[2]

        runtime.streams.wait_idle(timeout=10)  # the example data is aggregated first
        before = aggregator_counters()
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
            assert reply.status_code == 201, reply.text
            return time.perf_counter() - t0

        for _ in range(threads):  # warm every worker of the API function
            requests.get(url, headers={"Authorization": f"Bearer {admin}"}, timeout=30).raise_for_status()
        t0 = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            latencies = sorted(pool.map(vote, range(votes_total)))
        elapsed = time.perf_counter() - t0
        truth = {c: choice.count(c) for c in candidates}
        converged = None
        while time.perf_counter() - t0 - elapsed < 30:
            totals = requests.get(f"{url}/results", headers={"Authorization": f"Bearer {admin}"},
                                  timeout=30).json()["totals"]
            if totals == truth:
                converged = time.perf_counter() - t0 - elapsed
                break
            time.sleep(0.05)
        runtime.streams.wait_idle(timeout=10)
        after = aggregator_counters()
        recount = requests.post(f"{url}/recount", headers={"Authorization": f"Bearer {admin}"}, timeout=30).json()
    ms = [x * 1000 for x in latencies]
    records, writes, transactions = (a - b for a, b in zip(after, before))
    print(f"   {votes_total / elapsed:.0f} votes accepted/s through the API; latency p50 {statistics.median(ms):.1f} ms, "
          f"p95 {ms[int(len(ms) * 0.95)]:.1f} ms")
    print(f"   results equal the exact totals {converged:.2f} s after the last vote was accepted" if converged is not None
          else "   results did NOT reach the exact totals within 30 s")
    print(f"   aggregator: {records} stream records, {transactions} transactions, {writes} item writes "
          f"(aggregate segments + applied counters + checkpoints)")
    print(f"   -> {records / max(writes, 1):.1f} stream records per DynamoDB item write, "
          f"{records / max(transactions, 1):.0f} records per transaction "
          "(an aggregator adding one vote per write: 1 record per write)")
    print(f"   recount: totals {recount.get('totals')}, drift corrected {recount.get('corrected')}")
    print("   (moto and the gateway are Python; the aggregation ratio holds in AWS, the rates do not)")
    aggregation_by_batch_size()


def aggregation_by_batch_size(changes_total: int = 3000, sizes: tuple[int, ...] = (1, 10, 100, 500)) -> None:
    """The aggregator alone on moto: the same skewed stream cut into batches of several sizes."""
    import random

    import boto3
    from moto import mock_aws

    from functions.shared import ddb
    from functions.voting.aggregator import Aggregator, Change
    from functions.voting.models import Poll
    from functions.shared.settings import Settings
    from functions.voting.repository import Shard, TableNames, VotingRepository
    from functions.voting.schema import DEFAULT_SEGMENTS, VOTES_TABLE

    rng = random.Random(4)
    candidates = ["Aurora", "Borealis", "Cirrus", "Drizzle"]
    pick = lambda: candidates[0] if rng.random() < 0.8 else rng.choice(candidates[1:])  # noqa: E731
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
                                        created_at=datetime.now(timezone.utc)))  # the aggregator checks it exists
            aggregator = Aggregator(repository, DEFAULT_SEGMENTS, rng)
            shard, expected, writes, transactions = Shard("arn:bench", "shard-1"), None, 0, 0
            for start in range(0, len(stream), size):
                applied = aggregator.apply(shard, expected, stream[start:start + size])
                expected = stream[min(start + size, len(stream)) - 1].sequence
                writes, transactions = writes + applied.item_writes, transactions + applied.transactions
            print(f"   {size:>12} {transactions:>13} {writes:>12} {len(stream) / writes:>14.1f}")
    ddb.resource.cache_clear()


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from bench import cart, coldstart, cost, load, order_entry, workshop

    # Sections 9-11 are checks as well as figures: each failed check is kept and reported at the end, so that one
    # failing section does not hide the figures of the sections after it.
    failed = []
    for section in (read_cost, http_throughput, voting, workshop.run, cart.run, order_entry.run, load.run,
                    coldstart.run, cost.run):
        try:
            section()
        except SystemExit as stop:
            if stop.code not in (None, 0):
                print(f"bench: {stop.code}", file=sys.stderr)
                failed.append(f"{section.__module__}.{section.__name__}")
    if failed:
        raise SystemExit(f"bench: failed checks in {', '.join(failed)}")
