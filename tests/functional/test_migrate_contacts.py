"""tools/migrations/contacts.py on moto: the Contact table of the old layout (the seed's ContactTypeIndex), frozen
from the example data before ADR 0110 (tests/functional/data/contacts_old_layout.json), moved in place to the
sharded type index; every person list answers what the old index did, in the same order."""

from __future__ import annotations

from functools import partial

from boto3.dynamodb.conditions import Key

from functions.contacts import api
from functions.contacts.schema import CONTACT_TABLE_DURING_UPGRADE, PERSON, RETIRED_TYPE_INDEX, TYPE_SHARD, type_shard
from functions.shared import ddb
from tests.functional.conftest import Client, fresh_tables, make_table
from tests.support.old_layouts import migrate_in_place, put_old_items, stopped_then_resumed
from tools.migrations.contacts import MIGRATIONS

(MIGRATION,) = MIGRATIONS


def old_contact_table(monkeypatch) -> str:
    """The stage after the upgrade's first deploy: the Contact table with both type indexes, holding the old items."""
    name = make_table(CONTACT_TABLE_DURING_UPGRADE, monkeypatch)
    put_old_items("contacts", CONTACT_TABLE_DURING_UPGRADE.construct_id, name)
    return name


contacts = fresh_tables(api, name="contacts", make=old_contact_table)  # the table's name
run = partial(migrate_in_place, MIGRATION, CONTACT_TABLE_DURING_UPGRADE.construct_id)  # (name, progress, stop_after)


def old_answer(name: str) -> list[str]:
    response = ddb.table(name).query(IndexName=RETIRED_TYPE_INDEX.name, KeyConditionExpression=Key("Type").eq(PERSON))
    return [item["Id"] for item in response["Items"]]


def persons(limit: int = 25) -> list[dict]:
    client, out, cursor = Client.of(api), [], None
    while True:
        reply = client.call("GET", f"/contacts/persons?limit={limit}" + (f"&cursor={cursor}" if cursor else ""))
        assert reply.status == 200, reply.body
        out += reply.body["items"]
        cursor = reply.body["nextCursor"]
        if cursor is None:
            return out


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
    first, rest = stopped_then_resumed(partial(run, contacts), tmp_path / "p.json", monkeypatch, page_size=5,
                                       stop_after=2)
    assert (first["done"], first["scanned"]) == (False, 10)
    assert (rest["done"], rest["scanned"], rest["written"]) == (True, 19, 19)
    assert [p["id"] for p in persons()] == old_answer(contacts)
