"""tools/migrations/connected_car.py on moto: the Customer table of the old layout (ActiveCustomerIndex, `activeFlag`),
frozen from the example data before ADR 0109 (tests/functional/data/connected_car_old_layout.json), moved in place to
the sharded index; the active-customers list answers what the old index held."""

from __future__ import annotations

from functools import partial

import pytest
from boto3.dynamodb.conditions import Key

from functions.connected_car.repository import ConnectedCarRepository, TableNames
from functions.connected_car.schema import (
    ACTIVE_SHARD,
    CUSTOMER_TABLE,
    CUSTOMER_TABLE_DURING_UPGRADE,
    RETIRED_ACTIVE_CUSTOMER_INDEX,
    RETIRED_ACTIVE_FLAG,
    TABLES,
    active_shard_of,
)
from functions.shared import ddb
from functions.shared.settings import Settings
from tests.functional.connected_car_support import ADMIN, PREFIX, connected_car_client, make_tables
from tests.support.old_layouts import migrate_in_place, put_old_items, stopped_then_resumed
from tools import migrate
from tools.migrations.connected_car import MIGRATIONS

(MIGRATION,) = MIGRATIONS


@pytest.fixture
def customers(aws, monkeypatch) -> str:
    """The stage after the upgrade's first deploy: the Customer table with both indexes, holding the old items."""
    specs = tuple(CUSTOMER_TABLE_DURING_UPGRADE if spec is CUSTOMER_TABLE else spec for spec in TABLES)
    name = make_tables(monkeypatch, "migrate", specs)[CUSTOMER_TABLE.env_var]
    put_old_items("connected_car", CUSTOMER_TABLE.construct_id, name)
    return name


def old_answer(name: str) -> list[str]:
    """What the old layout's list answered: the retired index's one key."""
    response = ddb.table(name).query(IndexName=RETIRED_ACTIVE_CUSTOMER_INDEX.name,
                                     KeyConditionExpression=Key(RETIRED_ACTIVE_FLAG).eq("1"))
    return [item["username"] for item in response["Items"]]


def active_list() -> list[dict]:
    reply = connected_car_client().call("GET", f"{PREFIX}/customers?active=true", user="root", groups=ADMIN)
    assert reply.status == 200, reply.body
    return reply.body["items"]


run = partial(migrate_in_place, MIGRATION, CUSTOMER_TABLE.construct_id)  # (name, progress, stop_after)


def test_the_active_customers_answer_what_the_old_index_held(customers, tmp_path):
    # Given the old layout: alice and bob active under activeFlag = "1", carol not; the new index empty
    assert old_answer(customers) == ["alice", "bob"]
    assert active_list() == []

    # When the migration runs
    counts = run(customers, tmp_path / "p.json")

    # Then the list answers the same customers, in the same order, and nothing carries the retired flag
    assert (counts["done"], counts["scanned"], counts["written"], counts["deleted"]) == (True, 3, 2, 0)
    assert active_list() == [
        {"username": "alice", "name": "Alice Andrews", "email": "alice@example.com", "isActive": True},
        {"username": "bob", "name": "Bob Smith", "email": "bob@example.com", "isActive": True},
    ]
    items = {item["username"]: item for item in ddb.table(customers).scan()["Items"]}
    assert {u: (item.get(ACTIVE_SHARD), RETIRED_ACTIVE_FLAG in item) for u, item in items.items()} == {
        "alice": (active_shard_of("alice"), False), "bob": (active_shard_of("bob"), False), "carol": (None, False)}
    assert old_answer(customers) == []  # the retired index drains: the next deploy deletes it
    # and regVersion, name, email are as they were
    assert (items["bob"]["regVersion"], items["bob"]["email"]) == (2, "bob@example.com")

    # A second run writes nothing
    again = run(customers, tmp_path / "again.json")
    assert (again["scanned"], again["written"], again["already"], again["deleted"]) == (3, 0, 0, 0)


def test_a_run_stopped_half_way_finishes(customers, tmp_path, monkeypatch):
    first, rest = stopped_then_resumed(partial(run, customers), tmp_path / "p.json", monkeypatch, page_size=1,
                                       stop_after=1)
    assert (first["done"], first["scanned"]) == (False, 1)
    assert (rest["done"], rest["scanned"], rest["written"]) == (True, 3, 2)
    assert [c["username"] for c in active_list()] == ["alice", "bob"]


def test_a_sync_by_the_new_consumer_before_the_migration_wins(customers, tmp_path):
    # Given alice deactivated by the new code's isActive sync after the deploy, before the migration reached her
    repository = ConnectedCarRepository(TableNames(Settings({CUSTOMER_TABLE.env_var: customers})))
    version = repository.customer_activity("alice").reg_version
    assert repository.set_customer_active("alice", False, version)

    counts = run(customers, tmp_path / "p.json")

    # Then the migration leaves her as the sync left her: only bob is moved
    assert counts["written"] == 1
    assert [c["username"] for c in active_list()] == ["bob"]


def test_the_rewrite_is_refused_when_the_item_changed_after_the_scan(customers):
    # Given bob as the Scan read him, then deactivated by the new code before the rewrite
    table = ddb.table(customers)
    scanned = table.get_item(Key={"username": "bob"})["Item"]
    (_, new), = MIGRATION.transform(dict(scanned))
    table.update_item(Key={"username": "bob"}, UpdateExpression="SET isActive = :f REMOVE activeFlag",
                      ExpressionAttributeValues={":f": False})

    # When the rewrite of what was scanned comes, Then it is refused and bob stays out of the index
    assert migrate._rewrite(table, scanned, new, ["username"]) is False
    assert ACTIVE_SHARD not in table.get_item(Key={"username": "bob"})["Item"]
