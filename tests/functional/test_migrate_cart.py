# ruff: noqa: F811 (pytest fixtures imported from cart_support are requested by name)
"""tools/migrations/cart.py on moto: the Carts table of the old layout (a header and line items, CartsBySkuIndex),
frozen from the example data before ADR 0107 (tests/functional/data/cart_old_layout.json: seeds/cart.py's carts and
prices, a checked-out, an emptied and an expired cart, a notification, an abandoned count), copied into the new
tables; the API and the notifier answer what the old layout answered."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import boto3
import pytest
from boto3.dynamodb.conditions import Key

from functions.cart.schema import CART_TABLE, HOLDER_TABLE, holder_key, holder_shard
from functions.shared import ddb
from tests.functional.cart_support import (  # noqa: F401 (fixtures)
    ADMIN,
    Stream,
    abandoned,
    client,
    clock,
    notifier,
    raw_items,
    set_price,
    tables,
)
from tests.functional.conftest import error, ok
from tests.support.old_layouts import old_layout
from tools import migrate
from tools.migrations.cart import MIGRATIONS, OLD_CART_TABLE

FROZEN_AT = datetime.fromisoformat("2026-11-27T12:00:00+00:00")  # when the fixture was made (its `_about`)
(MIGRATION,) = MIGRATIONS
ALICE, BOB = "c0ffee0000000000000000000000a11c", "c0ffee00000000000000000000000b0b"
CAROL, DAVE, ERIN = "c0ffee000000000000000000000ca201", "c0ffee00000000000000000000da7e01", \
    "c0ffee0000000000000000000000e401"


@pytest.fixture
def stage(tables, clock) -> str:
    """The stage after the upgrade's deploy: the new, empty Carts and CartHolders tables beside the retained old Carts
    table with its items; the tables whose keys did not change hold theirs. The clock an hour after the freeze."""
    old = old_layout("cart")
    client = boto3.client("dynamodb")
    client.create_table(**OLD_CART_TABLE.create_table_kwargs("old-CartTable"))
    for item in old[CART_TABLE.construct_id]:
        client.put_item(TableName="old-CartTable", Item=item)
    for spec_id, env_var in (("PriceTable", "CART_PRICE_TABLE_NAME"), ("NotificationTable",
                                                                       "CART_NOTIFICATION_TABLE_NAME"),
                             ("StatsTable", "CART_STATS_TABLE_NAME")):
        for item in old[spec_id]:
            client.put_item(TableName=tables[env_var], Item=item)
    clock.now = FROZEN_AT.replace(hour=13)
    return "old-CartTable"


def run(tables, source: str, progress: Path, stop_after: int | None = None) -> dict:
    targets = {CART_TABLE.construct_id: tables[CART_TABLE.env_var], HOLDER_TABLE.construct_id:
               tables[HOLDER_TABLE.env_var]}
    return migrate.run(MIGRATION, source=source, targets=targets, progress=progress, stop_after=stop_after)


def old_answer(source: str) -> dict[str, dict[str, int]]:
    """What the old layout answered for each cart: its lines' quantities (header + line items, one Query each)."""
    out = {}
    for header in (i for i in ddb.table(source).scan()["Items"] if i["sk"] == "#cart"):
        items = ddb.table(source).query(KeyConditionExpression=Key("cartId").eq(header["cartId"]))["Items"]
        out[header["cartId"]] = {i["sku"]: int(i["quantity"]) for i in items if i["sk"].startswith("LINE#")}
    return out


def cart(client, owner: str, cart_id: str) -> dict:
    return ok(client.call("GET", f"/cart/carts/{cart_id}", user=owner))


def lines(body: dict) -> dict[str, int]:
    return {line["sku"]: line["quantity"] for line in body["lines"]}


def test_every_cart_answers_what_the_old_layout_held_and_a_price_change_reaches_its_holders(
        stage, tables, client, clock, tmp_path):
    # Given the old layout: alice's and bob's open carts, carol's checked out, dave's emptied, erin's expired
    before = old_answer(stage)
    assert before == {ALICE: {"SKU-COFFEE": 2, "SKU-MUG": 1}, BOB: {"SKU-COFFEE": 1, "SKU-GRINDER": 1},
                      CAROL: {"SKU-MUG": 3}, DAVE: {}, ERIN: {"SKU-COFFEE": 4}}
    assert error(client.call("GET", f"/cart/carts/{ALICE}", user="alice")) == (404, "CART_NOT_FOUND")  # not yet

    # When the migration runs
    counts = run(tables, stage, tmp_path / "progress.json")

    # Then each cart is one item answering the same lines to its owner, with the same status and times
    assert (counts["done"], counts["scanned"], counts["written"], counts["already"]) == (True, 11, 5 + 5, 0)
    assert len(raw_items(tables[CART_TABLE.env_var])) == 5
    for owner, cart_id in (("alice", ALICE), ("bob", BOB), ("carol", CAROL), ("dave", DAVE)):
        body = cart(client, owner, cart_id)
        assert lines(body) == before[cart_id] and body["lineCount"] == len(before[cart_id]), owner
    assert cart(client, "carol", CAROL)["status"] == "CHECKED_OUT"
    assert cart(client, "alice", ALICE)["createdAt"] == FROZEN_AT.isoformat().replace("+00:00", "Z")
    assert error(client.call("GET", f"/cart/carts/{ERIN}", user="erin")) == (404, "CART_NOT_FOUND")  # expired
    assert error(client.call("GET", f"/cart/carts/{ALICE}", user="bob")) == (404, "CART_NOT_FOUND")
    # the open carts' SKUs are in the holder index (checked-out, emptied carts hold none)
    holders = sorted((h["holder"], h["cartId"]) for h in raw_items(tables[HOLDER_TABLE.env_var]))
    assert holders == sorted([(holder_key(sku, holder_shard(cart_id)), cart_id)
                              for cart_id in (ALICE, BOB, ERIN) for sku in before[cart_id]])
    # the tables that kept their keys answer as before: alice's notification, the counted day, the prices
    assert [n["sku"] for n in ok(client.call("GET", "/cart/notifications", user="alice"))["items"]] == ["SKU-MUG"]
    assert ok(client.call("GET", "/cart/abandoned?day=2026-11-26", user="root", groups=ADMIN))["abandonedCarts"] == 1

    # And a migrated cart changes and is notified as any other
    assert lines(ok(client.call("PUT", f"/cart/carts/{ALICE}/lines/SKU-GRINDER", body={"quantity": 1},
                                user="alice"))) == {"SKU-COFFEE": 2, "SKU-MUG": 1, "SKU-GRINDER": 1}
    prices = Stream(tables["CART_PRICE_TABLE_NAME"])
    prices.new()
    set_price(client, "SKU-COFFEE", "11.00")
    assert notifier(prices.new()) == {"batchItemFailures": []}
    for owner, cart_id in (("alice", ALICE), ("bob", BOB)):
        (note, *_) = ok(client.call("GET", "/cart/notifications", user=owner))["items"]
        assert (note["sku"], note["newPrice"], note["cartIds"]) == ("SKU-COFFEE", "11.00", [cart_id])
    assert ok(client.call("GET", "/cart/notifications", user="erin"))["items"] == []  # an expired cart: nobody


def test_the_copys_stream_records_index_the_same_holders_and_count_nothing(stage, tables, tmp_path):
    carts = Stream(tables[CART_TABLE.env_var])
    run(tables, stage, tmp_path / "progress.json")
    written = raw_items(tables[HOLDER_TABLE.env_var])
    records = carts.new()
    assert {r["eventName"] for r in records} == {"INSERT"}
    assert abandoned(records) == {"batchItemFailures": []}
    assert raw_items(tables[HOLDER_TABLE.env_var]) == written  # the same holders, put again
    assert sorted(i["pk"] for i in raw_items(tables["CART_STATS_TABLE_NAME"])) == [
        "ABANDONED#c0ffee000000000000000000000dead1", "DAY#2026-11-26"]  # as frozen: nothing counted


def test_a_second_run_writes_nothing_and_a_run_stopped_half_way_finishes(stage, tables, tmp_path, monkeypatch):
    # Given small pages, so the 11 old items take several
    monkeypatch.setattr(migrate, "PAGE_SIZE", 3)
    # When a run stops after two pages, then runs again from its progress
    half = run(tables, stage, tmp_path / "p.json", stop_after=2)
    assert not half["done"] and half["scanned"] == 6
    rest = run(tables, stage, tmp_path / "p.json")
    assert rest["done"] and rest["scanned"] == 11 and rest["written"] == 10
    first = sorted(map(str, raw_items(tables[CART_TABLE.env_var]) + raw_items(tables[HOLDER_TABLE.env_var])))
    # Then a run done is done, and a fresh run over the same tables writes nothing
    assert run(tables, stage, tmp_path / "p.json")["skipped"]
    again = run(tables, stage, tmp_path / "again.json")
    assert (again["written"], again["already"]) == (0, 10)
    assert sorted(map(str, raw_items(tables[CART_TABLE.env_var]) + raw_items(tables[HOLDER_TABLE.env_var]))) == first
