"""tools/migrations/patterns.py on moto: the Patterns table of the old layout (one featured item), frozen from the
example data before ADR 0111 (tests/functional/data/patterns_old_layout.json), moved in place to the replicas."""

from __future__ import annotations

from functools import partial

from functions.patterns import api
from functions.patterns.schema import FEATURED_KEY, FEATURED_REPLICAS, PATTERNS_TABLE, featured_key
from functions.shared import ddb
from tests.functional.conftest import Client, fresh_tables, make_table
from tests.support.old_layouts import migrate_in_place, put_old_items, stopped_then_resumed
from tools.migrations.patterns import MIGRATIONS

(MIGRATION,) = MIGRATIONS
ADMIN = ("admin",)


def old_patterns_table(monkeypatch) -> str:
    name = make_table(PATTERNS_TABLE, monkeypatch)
    put_old_items("patterns", PATTERNS_TABLE.construct_id, name)
    return name


patterns = fresh_tables(api, name="patterns", make=old_patterns_table)  # the table's name
run = partial(migrate_in_place, MIGRATION, PATTERNS_TABLE.construct_id)  # (name, progress, stop_after)


def featured() -> dict:
    reply = Client.of(api).call("GET", "/patterns/featured")
    assert reply.status == 200, reply.body
    return reply.body


def test_the_featured_repos_read_the_same_before_and_after(patterns, tmp_path):
    before = featured()  # not migrated yet: read from the old item
    assert before["repos"] == ["alexdebrie/dynamodb-book"]

    counts = run(patterns, tmp_path / "p.json")

    table = ddb.table(patterns)
    assert (counts["done"], counts["written"], counts["deleted"]) == (True, FEATURED_REPLICAS, 1)
    assert "Item" not in table.get_item(Key=FEATURED_KEY)
    assert all(table.get_item(Key=featured_key(r))["Item"]["repos"] == before["repos"]
               for r in range(FEATURED_REPLICAS))
    assert featured() == before
    again = run(patterns, tmp_path / "again.json")
    assert (again["written"], again["already"], again["deleted"]) == (0, 0, 0)


def test_a_run_stopped_half_way_finishes(patterns, tmp_path, monkeypatch):
    first, rest = stopped_then_resumed(partial(run, patterns), tmp_path / "p.json", monkeypatch, page_size=10,
                                       stop_after=1)
    assert not first["done"]
    assert rest["done"] and rest["written"] == FEATURED_REPLICAS
    assert featured()["repos"] == ["alexdebrie/dynamodb-book"]


def test_a_put_through_the_new_api_before_the_migration_wins(patterns, tmp_path):
    client = Client.of(api)
    put = client.call("PUT", "/patterns/featured", body={"repos": ["a/b"]}, user="root", groups=ADMIN)
    assert put.status == 200, put.body
    counts = run(patterns, tmp_path / "p.json")
    assert counts["written"] == 0  # the old item was deleted by the put's transaction: nothing left to copy
    assert featured()["repos"] == ["a/b"]
