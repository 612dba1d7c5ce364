"""tools/migrations/contacts.py on moto: the Contact table of the old layout (the seed's ContactTypeIndex), frozen
from the example data before ADR 0110 (tests/functional/data/contacts_old_layout.json), moved in place to the
sharded type index; every person list answers what the old index did, in the same order."""

from __future__ import annotations

from pathlib import Path

import pytest
from boto3.dynamodb.conditions import Key

from functions.contacts import api
from functions.contacts.schema import CONTACT_TABLE_DURING_UPGRADE, PERSON, RETIRED_TYPE_INDEX, TYPE_SHARD, type_shard
from functions.shared import ddb
from functions.shared.domain import load
from tests.functional.conftest import Client, make_table
from tests.support.old_layouts import put_old_items
from tools import migrate
from tools.migrations.contacts import MIGRATIONS

ROUTES = load("contacts").routes
(MIGRATION,) = MIGRATIONS


@pytest.fixture
def contacts(aws, monkeypatch) -> str:
    """The stage after the upgrade's first deploy: the Contact table with both type indexes, holding the old items."""
    name = make_table(CONTACT_TABLE_DURING_UPGRADE, monkeypatch)
    api.service.cache_clear()
    put_old_items("contacts", CONTACT_TABLE_DURING_UPGRADE.construct_id, name)
    yield name
    api.service.cache_clear()


def old_answer(name: str) -> list[str]:
    response = ddb.table(name).query(IndexName=RETIRED_TYPE_INDEX.name, KeyConditionExpression=Key("Type").eq(PERSON))
    return [item["Id"] for item in response["Items"]]


def persons(limit: int = 25) -> list[dict]:
    client, out, cursor = Client(api.lambda_handler, [route.path for route in ROUTES]), [], None
    while True:
        reply = client.call("GET", f"/contacts/persons?limit={limit}" + (f"&cursor={cursor}" if cursor else ""))
        assert reply.status == 200, reply.body
        out += reply.body["items"]
        cursor = reply.body["nextCursor"]
        if cursor is None:
            return out


def run(name: str, progress: Path, stop_after: int | None = None) -> dict:
    return migrate.run(MIGRATION, source=name, targets={CONTACT_TABLE_DURING_UPGRADE.construct_id: name},
                       progress=progress, stop_after=stop_after)


def test_the_persons_list_answers_what_the_old_index_held_in_its_order(contacts, tmp_path):
    before = old_answer(contacts)
    assert len(before) == 3 and persons() == []

    counts = run(contacts, tmp_path / "p.json")

    items = ddb.table(contacts).scan()["Items"]
    assert (counts["done"], counts["scanned"], counts["written"], counts["deleted"]) == (True, 19, 19, 0)
    assert all(item[TYPE_SHARD] == type_shard(item["Type"], item["Id"]) for item in items)
    assert [p["id"] for p in persons()] == before
    assert [p["id"] for p in persons(limit=1)] == before  # page by page, the same order
    again = run(contacts, tmp_path / "again.json")
    assert (again["scanned"], again["written"], again["already"]) == (19, 0, 0)


def test_a_run_stopped_half_way_finishes(contacts, tmp_path, monkeypatch):
    monkeypatch.setattr(migrate, "PAGE_SIZE", 5)
    progress = tmp_path / "p.json"
    first = run(contacts, progress, stop_after=2)
    assert (first["done"], first["scanned"]) == (False, 10)
    rest = run(contacts, progress)
    assert (rest["done"], rest["scanned"], rest["written"]) == (True, 19, 19)
    assert [p["id"] for p in persons()] == old_answer(contacts)
