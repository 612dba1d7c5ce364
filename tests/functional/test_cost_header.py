"""Every answer carries its DynamoDB bill (functions/shared/cost.py) as a `Server-Timing` header, with the figures
DynamoDB returns: on the local endpoint, computed by DynamoDB's rules (local/dynamodb/capacity.py). The functional
Client checks that every answer of the suite has the header; here, that its figures are the calls' own."""

from __future__ import annotations

from tests.functional.conftest import ok
from tests.functional.conftest import server_timing as bill
from tests.functional.order_entry_support import (  # noqa: F401 (fixtures)
    P,
    client_fixture,
    clock_fixture,
    place,
    seeded_fixture,
    table_fixture,
)


def test_a_fan_out_read_bills_every_query_of_every_thread_to_the_index_it_read(seeded, table, calls):
    calls.clear()
    reply = seeded.call("GET", f"{P}/orders?status=OPEN&from=2026-01-01&to=2026-06-30&limit=3")
    figures = bill(ok(reply) and reply)
    queries = calls.of("Query")
    assert figures["ddb"]["requests"] == len(calls.recorded) == len(queries) == 15
    assert figures["ddb"]["items"] == sum(response["ScannedCount"] for _, response in queries)
    index = f"ddb.{table}.GSI2"
    assert figures[index]["rcu"] == sum(r["ConsumedCapacity"]["GlobalSecondaryIndexes"]["GSI2"]["CapacityUnits"]
                                        for _, r in queries) == 15 * 0.5  # small shards: the minimum each
    assert figures[f"ddb.{table}"] == {"rcu": 0, "wcu": 0}
    assert figures["ddb"]["rcu"] == 7.5 and figures["ddb"]["wcu"] == 0 and figures["ddb"]["dur"] > 0
    # the fifteen Queries ran in parallel threads: `dur` sums them, `wall` is the time at least one was in flight
    assert 0 < figures["ddb"]["wall"] < figures["ddb"]["dur"]


def test_a_keyed_order_bills_its_transaction_double_and_the_idempotency_records(seeded, table, calls):
    calls.clear()
    reply = place(seeded, "C1", ("P400", 1), key="bill-1")
    figures = bill(ok(reply, 201) and reply)
    transaction = calls.of("TransactWriteItems")[-1][1]["ConsumedCapacity"]
    (ours,) = [c for c in transaction if c["TableName"] == table]
    assert figures[f"ddb.{table}"]["wcu"] == ours["Table"]["CapacityUnits"] > 0
    assert ours["Table"]["CapacityUnits"] % 2 == 0  # a transaction: two units per KB
    assert figures[f"ddb.{table}.GSI1"]["wcu"] == ours["GlobalSecondaryIndexes"]["GSI1"]["CapacityUnits"] > 0
    idempotency = [name for name in figures if "dempoten" in name]
    assert idempotency and figures[idempotency[0]]["wcu"] >= 2  # its in-progress record, then the answer
    assert figures["ddb"]["wcu"] == sum(v["wcu"] for k, v in figures.items() if k != "ddb" and "wcu" in v)
