"""tools/migrations/patterns.py on moto: the Patterns table of the old layout (one featured item), frozen from the
example data before ADR 0111 (tests/functional/data/patterns_old_layout.json), moved in place to the replicas."""

from __future__ import annotations

from pathlib import Path

import pytest

from functions.patterns import api
from functions.patterns.schema import FEATURED_KEY, FEATURED_REPLICAS, PATTERNS_TABLE, featured_key
from functions.shared import ddb
from functions.shared.domain import load
from tests.functional.conftest import Client, make_table
from tests.support.old_layouts import put_old_items
from tools import migrate
from tools.migrations.patterns import MIGRATIONS

ROUTES = load("patterns").routes

(MIGRATION,) = MIGRATIONS
ADMIN = ("admin",)


@pytest.fixture
def patterns(aws, monkeypatch) -> str:
    name = make_table(PATTERNS_TABLE, monkeypatch)
    api.service.cache_clear()
    put_old_items("patterns", PATTERNS_TABLE.construct_id, name)
    yield name
    api.service.cache_clear()


def featured() -> dict:
    reply = Client(api.lambda_handler, [route.path for route in ROUTES]).call("GET", "/patterns/featured")
    assert reply.status == 200, reply.body
    return reply.body


def run(name: str, progress: Path, stop_after: int | None = None) -> dict:
    return migrate.run(MIGRATION, source=name, targets={PATTERNS_TABLE.construct_id: name}, progress=progress,
                       stop_after=stop_after)


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
    monkeypatch.setattr(migrate, "PAGE_SIZE", 10)
    progress = tmp_path / "p.json"
    first = run(patterns, progress, stop_after=1)
    assert not first["done"]
    rest = run(patterns, progress)
    assert rest["done"] and rest["written"] == FEATURED_REPLICAS
    assert featured()["repos"] == ["alexdebrie/dynamodb-book"]


def test_a_put_through_the_new_api_before_the_migration_wins(patterns, tmp_path):
    client = Client(api.lambda_handler, [route.path for route in ROUTES])
    put = client.call("PUT", "/patterns/featured", body={"repos": ["a/b"]}, user="root", groups=ADMIN)
    assert put.status == 200, put.body
    counts = run(patterns, tmp_path / "p.json")
    assert counts["written"] == 0  # the old item was deleted by the put's transaction: nothing left to copy
    assert featured()["repos"] == ["a/b"]
