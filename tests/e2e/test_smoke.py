"""`make smoke` against the local runtime the e2e tests share: the README's tour, one line per domain, exit 0, and
nothing of the run left behind. Its writes are named by the run (`smoke-<run>`) and deleted when each line is done,
so the other e2e tests see the example data unchanged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from functions.connected_car.schema import CUSTOMER_TABLE
from tools import smoke

RUN = "5e0ce0ab1d"  # the run's id: its writes are named smoke-5e0ce0ab1d, its VIN derived from it


@pytest.fixture(scope="module")
def dynamodb(runtime):
    """The runtime's DynamoDB endpoint: the test reads every table itself, never through the tool."""
    return boto3.client("dynamodb", endpoint_url=runtime.aws_endpoint, region_name=runtime.region,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def every_item(runtime, dynamodb) -> Iterator[tuple[str, dict[str, Any]]]:
    """(logical id of the table, item) for every item of every table of the runtime (Scan, every page)."""
    for stack in runtime.stacks:
        for logical_id, table in stack.tables.items():
            for page in dynamodb.get_paginator("scan").paginate(TableName=table.name):
                for item in page["Items"]:
                    yield logical_id, item


def key_of(runtime, logical_id: str, item: dict[str, Any]) -> tuple[str, str]:
    (table,) = [t for stack in runtime.stacks for lid, t in stack.tables.items() if lid == logical_id]
    return logical_id, json.dumps({k["AttributeName"]: item[k["AttributeName"]] for k in table.key_schema},
                                  sort_keys=True)


def test_the_smoke_tour_passes_every_domain_of_the_local_runtime_and_leaves_nothing_of_its_run(
        api, runtime, dynamodb, capsys):
    # Given the runtime's tables as they are, once the stream consumers have caught up with the earlier tests
    assert runtime.streams.wait_idle(timeout=30)
    before = {key_of(runtime, lid, item) for lid, item in every_item(runtime, dynamodb)}

    code = smoke.main(["--url", api.url, "--keys-dir", str(api.keys_dir), "--run", RUN,
                       "--dynamodb-endpoint", runtime.aws_endpoint])

    lines = capsys.readouterr().out.splitlines()
    assert code == 0, "\n".join(lines)
    status = {line.split()[1]: line.split()[0] for line in lines}
    assert list(status) == smoke.domain_names()
    # every domain with a check passed it (a domain `make new-domain` just made is a `skip` until it has one)
    assert {name for name, word in status.items() if word == "ok"} == set(smoke.CHECKS) | {"platform"}
    # the example data's answers were asked for (the default without a stage), and each round trip was checked,
    # then cleaned up
    checked = [line for line in lines if line.split()[1] in smoke.CHECKS]
    assert all("examples, round trip, Server-Timing, 401" in line and "cleanup: " in line for line in checked)

    # Then, once the consumers are done with the run's writes and deletes, no item anywhere holds the run's id (or
    # the VIN made from it), and no item is new but the connected-car customer every run reuses by name
    assert runtime.streams.wait_idle(timeout=30)
    after = list(every_item(runtime, dynamodb))
    marks = (RUN, smoke.vin_of(RUN))
    assert [(lid, item) for lid, item in after if any(mark in json.dumps(item) for mark in marks)] == []
    # (a record parked for a poll or a customer deleted too soon would be a new item too)
    new = {key_of(runtime, lid, item) for lid, item in after} - before
    assert all(CUSTOMER_TABLE.construct_id in lid and json.loads(key) == {"username": {"S": smoke.DRIVER}}
               for lid, key in new), new
