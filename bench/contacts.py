"""1.-2. Contacts: the read cost of "where did Bob work on 2005-01-01" against table size, ours
(ContactPersonIndex) and the seed's (ContactTypeIndex + FilterExpression) as other people's links grow; then the
same question's throughput over HTTP on the local runtime (moto + worker processes)."""

from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from typing import Any

from bench.runtime import BENCH_KEYS, bench_runtime


def read_cost(sizes: tuple[int, ...] = (0, 200, 2000)) -> None:
    import boto3
    from boto3.dynamodb.conditions import Attr, Key
    from moto import mock_aws

    from functions.contacts.models import Link, Person
    from functions.contacts.repository import ContactRepository, day_to_epoch, link_item
    from functions.contacts.schema import CONTACT_TABLE_DURING_UPGRADE, RETIRED_TYPE_INDEX
    from functions.shared import ddb
    from seeds import contacts as seed

    print("1. Items read to answer 'where did Bob work on 2005-01-01' as the table grows")
    print(f"   {'other links':>12} {'ours: queries':>14} {'ours: items read':>17} {'seed: items read':>17}")
    day = date(2005, 1, 1)
    with mock_aws():
        ddb.resource.cache_clear()
        # with the seed's type index beside ours (as during an upgrade), to run the seed's own query for comparison
        boto3.client("dynamodb").create_table(**CONTACT_TABLE_DURING_UPGRADE.create_table_kwargs("bench"))
        seed.load({CONTACT_TABLE_DURING_UPGRADE.env_var: "bench"})
        repository, table = ContactRepository("bench"), ddb.table("bench")
        added = 0
        scanned: list[int] = []  # ScannedCount of each Query of our read

        def record(parsed: Mapping[str, Any], **_: Any) -> None:
            scanned.append(parsed.get("ScannedCount", 0))

        events = ddb.resource().meta.client.meta.events
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
            scanned.clear()
            events.register("after-call.dynamodb.Query", record)
            page = repository.list_links_of(seed.BOB, relationship="Business", on=day, limit=25, start_key=None)
            events.unregister("after-call.dynamodb.Query", record)
            if [link.address_id for link in page.items] != [seed.WAZEE]:
                raise RuntimeError(f"Bob's business address on {day} is not Wazee: {page.items}")
            # The seed's query, for comparison (never on a request path): every PersonAddress, then a filter.
            seed_scanned, start = 0, None
            while True:
                kwargs: dict[str, Any] = dict(
                    IndexName=RETIRED_TYPE_INDEX.name, KeyConditionExpression=Key("Type").eq("PersonAddress"),
                    FilterExpression=Attr("PersonId").eq(seed.BOB) & Attr("Relationship").eq("Business")
                    & Attr("StartTimestampUTC").lte(day_to_epoch(day)) & Attr("EndTimestampUTC").gte(day_to_epoch(day)))
                if start:
                    kwargs["ExclusiveStartKey"] = start
                response = table.query(**kwargs)
                seed_scanned += response["ScannedCount"]
                start = response.get("LastEvaluatedKey")
                if not start:
                    break
            print(f"   {added:>12} {len(scanned):>14} {sum(scanned):>17} {seed_scanned:>17}")
    ddb.resource.cache_clear()  # that resource belonged to the mock


def http_throughput(requests_total: int = 400, threads: int = 4) -> None:
    import requests

    from local.cognito import mint_token
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
