"""tools/migrate.py, the engine every domain's migration runs on: resumable, safe to repeat, never overwriting a newer
write; and how it finds a stage's tables before and after a deploy (CloudFormation on moto)."""

from __future__ import annotations

import json

import boto3
import pytest
from moto import mock_aws

from functions.shared.table_spec import KeyAttribute, TableSpec
from tools import migrate
from tools.migrations import Migration

OLD = TableSpec("BallotsTable", partition_key=KeyAttribute("pollId"), sort_key=KeyAttribute("userId"))
NEW = TableSpec("BallotsTable", partition_key=KeyAttribute("bucket"), sort_key=KeyAttribute("userId"))


def bucketed(item):
    return [("BallotsTable", {**item, "bucket": f"{item['pollId']}#{int(item['userId'][1:]) % 4}"})]


def in_place(item):
    if "#" in item["pollId"]:
        return []  # already in the new layout
    return [("BallotsTable", {**item, "pollId": f"{item['pollId']}#{int(item['userId'][1:]) % 4}"})]


COPY = Migration("ballots bucketed", table="BallotsTable", old=OLD, transform=bucketed)
REWRITE = Migration("ballots bucketed in place", table="BallotsTable", old=OLD, transform=in_place, in_place=True)


@pytest.fixture
def dynamodb():
    with mock_aws():
        yield boto3.resource("dynamodb")


def table(dynamodb, spec, name, items=()):
    dynamodb.meta.client.create_table(**spec.create_table_kwargs(name))
    with dynamodb.Table(name).batch_writer() as batch:
        for item in items:
            batch.put_item(Item=item)
    return dynamodb.Table(name)


def ballots(n=250):
    return [{"pollId": "favourite", "userId": f"u{i:04d}", "candidate": "TTL"} for i in range(n)]


def test_a_copy_stopped_half_way_finishes_and_a_second_run_writes_nothing(dynamodb, tmp_path):
    # Given the old table with 250 ballots and an empty new one
    table(dynamodb, OLD, "old", ballots())
    new = table(dynamodb, NEW, "new")
    progress = tmp_path / "progress.json"

    # When a run stops after one page of 100, then a second run resumes
    first = migrate.run(COPY, source="old", targets={"BallotsTable": "new"}, progress=progress,
                        stop_after=1)
    second = migrate.run(COPY, source="old", targets={"BallotsTable": "new"}, progress=progress)

    # Then the first stopped unfinished, the second finished where it left off, and every ballot is in the new table
    assert (first["done"], first["written"]) == (False, 100)
    assert (second["done"], second["written"], second["scanned"]) == (True, 250, 250)
    assert new.scan(Select="COUNT")["Count"] == 250
    assert new.get_item(Key={"bucket": "favourite#3", "userId": "u0007"})["Item"]["candidate"] == "TTL"
    # A run with the progress recorded as done reads nothing; one without any progress writes nothing
    assert migrate.run(COPY, source="old", targets={"BallotsTable": "new"}, progress=progress).get("skipped")
    again = migrate.run(COPY, source="old", targets={"BallotsTable": "new"}, progress=tmp_path / "elsewhere.json")
    assert (again["written"], again["already"]) == (0, 250)


def test_a_copy_never_overwrites_what_the_new_api_wrote_meanwhile(dynamodb, tmp_path):
    table(dynamodb, OLD, "old", ballots(3))
    new = table(dynamodb, NEW, "new", [{"bucket": "favourite#1", "userId": "u0001", "candidate": "Streams"}])

    counts = migrate.run(COPY, source="old", targets={"BallotsTable": "new"}, progress=tmp_path / "p.json")

    assert (counts["written"], counts["already"]) == (2, 1)
    assert new.get_item(Key={"bucket": "favourite#1", "userId": "u0001"})["Item"]["candidate"] == "Streams"


def test_in_place_rewrites_each_old_item_once_and_deletes_it(dynamodb, tmp_path):
    ballots_table = table(dynamodb, OLD, "ballots", ballots(150))
    progress = tmp_path / "p.json"

    migrate.run(REWRITE, source="ballots", targets={"BallotsTable": "ballots"}, progress=progress, stop_after=1)
    counts = migrate.run(REWRITE, source="ballots", targets={"BallotsTable": "ballots"}, progress=progress)

    items = ballots_table.scan()["Items"]
    assert counts["done"] and counts["deleted"] == 150
    assert len(items) == 150 and all("#" in item["pollId"] for item in items)
    again = migrate.run(REWRITE, source="ballots", targets={"BallotsTable": "ballots"}, progress=tmp_path / "q.json")
    assert (again["scanned"], again["written"], again["deleted"]) == (150, 0, 0)


TEMPLATE = {
    "Resources": {
        "VotingBallotsTable0A1B2C3D": {
            "Type": "AWS::DynamoDB::Table",
            "Metadata": {"aws:cdk:path": "Blueprints-dev/Voting/Voting/BallotsTable/Table/Resource"},
            "Properties": {
                "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pollId", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pollId", "AttributeType": "S"}],
            },
        }
    }
}


def test_a_stages_tables_are_found_by_construct_id_and_a_replaced_one_is_planned(tmp_path):
    with mock_aws():
        cloudformation = boto3.client("cloudformation")
        cloudformation.create_stack(StackName="Blueprints-dev", TemplateBody=json.dumps(TEMPLATE))

        tables = migrate.stage_tables(cloudformation, "Blueprints-dev")

        assert list(tables) == ["BallotsTable"]
        assert tables["BallotsTable"] in boto3.client("dynamodb").list_tables()["TableNames"]
    assert migrate.plan({"BallotsTable": "old"}, {"BallotsTable": "new"}, [COPY]) == [(COPY, "old")]
    assert migrate.plan({"BallotsTable": "same"}, {"BallotsTable": "same"}, [COPY]) == []
    assert migrate.plan({}, {"BallotsTable": "now"}, [REWRITE]) == [(REWRITE, "now")]


def test_a_stopped_copy_keeps_its_source_across_the_next_deploys_record(tmp_path, monkeypatch):
    """`make deploy` records the table names before each deploy: a copy a deploy started and did not finish must
    still read from the old table on the next one, not from what is now live."""
    monkeypatch.setattr(migrate, "stage_dir", lambda stage: tmp_path / stage)
    monkeypatch.setattr(migrate, "migrations", lambda: iter([COPY]))
    with mock_aws():
        cloudformation = boto3.client("cloudformation")
        cloudformation.create_stack(StackName="Blueprints-dev", TemplateBody=json.dumps(TEMPLATE))
        live = migrate.stage_tables(cloudformation, "Blueprints-dev")["BallotsTable"]
        (tmp_path / "dev").mkdir()
        (tmp_path / "dev" / "tables-before.json").write_text(json.dumps({"BallotsTable": "the-old-one"}))
        # the copy has not finished (no progress, or progress not done): the old name stays
        assert migrate.record(cloudformation, "dev") == {"BallotsTable": "the-old-one"}
        # once it has, the next record is what is live
        progress = migrate.progress_path("dev", COPY)
        progress.parent.mkdir(parents=True)
        progress.write_text(json.dumps({"done": True, "last_key": None}))
        assert migrate.record(cloudformation, "dev") == {"BallotsTable": live}


def test_the_deploy_waits_until_a_new_index_is_built(monkeypatch):
    class Table:
        def __init__(self):
            self.calls = 0

        def describe_table(self, TableName):
            self.calls += 1
            status = "CREATING" if self.calls < 3 else "ACTIVE"
            return {"Table": {"GlobalSecondaryIndexes": [{"IndexName": "New", "IndexStatus": status},
                                                          {"IndexName": "Old", "IndexStatus": "ACTIVE"}]}}

    dynamodb = Table()
    migrate.wait_for_indexes(dynamodb, ["contacts"], poll_seconds=0)
    assert dynamodb.calls == 3
    with pytest.raises(TimeoutError, match="New still building"):
        migrate.wait_for_indexes(Table(), ["contacts"], poll_seconds=0, timeout_seconds=-1)
