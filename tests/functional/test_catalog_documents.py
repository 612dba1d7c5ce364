"""Catalog, products as JSON documents: get, put, append a child, and the 400 KB item limit answered by 413."""

from __future__ import annotations

import json

import pytest

from functions.shared.http import MAX_BODY_BYTES
from tests.functional import catalog_support
from tests.functional.catalog_support import ADMIN, raw_document
from tests.functional.conftest import error, ok, recording

# the fixtures these tests use
client = catalog_support.client
seeded = catalog_support.seeded
tables = catalog_support.tables

DOCUMENTS = "/catalog/documents"
# A track whose JSON body stays under the API's 64 KB cap: seven of them pass DynamoDB's 400 KB.
BIG_LYRICS = 60_000


def big_track(n: int) -> dict:
    return {"kind": "track", "child": {"title": f"Bonus {n}", "lyrics": "la " * (BIG_LYRICS // 3)}}


def test_a_product_as_a_document_is_one_getitem_with_its_nested_lists(seeded, calls):
    album = ok(seeded.call("GET", f"{DOCUMENTS}/2"))
    assert calls.names() == ["GetItem"]
    assert (album["productId"], album["kind"], album["title"], album["artist"], album["genre"]) == (
        "2", "album", "Some Album", "Some Band", "Progressive Rock")
    assert [t["title"] for t in album["attributes"]["tracks"]] == ["Speak to Me", "Breathe", "On the Run"]
    assert album["attributes"]["tracks"][1] == {
        "title": "Breathe", "length": "2:43", "music": "Waters, Gilmour, Wright", "vocals": "Gilmour"}
    assert album["attributes"]["producer"] == "Pink Floyd"
    movie = ok(seeded.call("GET", f"{DOCUMENTS}/3"))
    assert [(a["name"], a["dob"], a["character"]) for a in movie["attributes"]["actors"]] == [
        ("Luke Wilson", "9/21/71", "Joe Bowers"), ("Maya Rudolph", "7/27/72", "Rita"),
        ("Dax Shepard", "1/2/75", "Frito Pendejo")]
    book = ok(seeded.call("GET", f"{DOCUMENTS}/1"))
    assert (book["author"], book["ISBN"], book["datePublished"], book["attributes"]) == (
        "Some Guy", "0-345-02046-4", "Oct-70", {})
    # stored as the seed draws it: the nested part is a map (M) named Attributes holding lists (L) of maps
    assert set(raw_document("2")["Attributes"]) == {"label", "studio", "published", "producer", "tracks"}


def test_an_unknown_document_is_404(seeded):
    assert error(seeded.call("GET", f"{DOCUMENTS}/9")) == (404, "DOCUMENT_NOT_FOUND")


def test_an_admin_puts_a_document_of_any_json_and_reads_it_back(client, calls):
    document = {
        "kind": "movie", "title": "Idiocracy", "genre": "Scifi Comedy",
        "attributes": {"runtime": 84, "rating": 6.5, "released": True, "sequel": None, "budget": 2.4e6,
                       "tags": ["satire", {"nested": [1, [2, [3]]]}], "actors": []},
    }
    put = ok(client.call("PUT", f"{DOCUMENTS}/7", body=document, user="root", groups=ADMIN))
    assert calls.names() == ["PutItem"]
    got = ok(client.call("GET", f"{DOCUMENTS}/7"))
    assert got == put and got["attributes"] == document["attributes"] and got["productId"] == "7"
    again = ok(client.call("PUT", f"{DOCUMENTS}/7", body={"kind": "movie", "title": "Idiocracy"}, user="root",
                           groups=ADMIN))
    assert again["attributes"] == {} and raw_document("7")["Attributes"] == {}  # a PUT replaces the whole document


BAD = [
    ({"kind": "album", "title": "A", "attributes": {"tracks": "not a list"}}, "body"),
    ({"kind": "album", "title": "A", "attributes": {"tracks": ["not an object"]}}, "body"),
    ({"kind": "album", "title": "A", "attributes": {"tracks": None}}, "body"),  # an append to it would fail
    ({"kind": "album", "title": "A", "attributes": {"": "empty key"}}, "body.attributes"),
    ({"kind": "album", "title": "A", "attributes": {"n": 1e200}}, "body.attributes"),
    ({"kind": "album", "title": "A", "attributes": {"n": 1e-131}}, "body.attributes"),
    ({"kind": "album", "title": "A", "attributes": {"a": [{"b": {"": 1}}]}}, "body.attributes"),
    ({"kind": "album", "title": "A", "attributes": {"deep": json.loads("[" * 16 + "]" * 16)}}, "body.attributes"),
    ({"kind": "comic", "title": "A"}, "body.kind"),
    ({"kind": "album"}, "body.title"),
]


@pytest.mark.parametrize(("document", "field"), BAD)
def test_json_dynamodb_would_refuse_is_400_and_writes_nothing(seeded, document, field):
    before = raw_document("2")
    reply = seeded.call("PUT", f"{DOCUMENTS}/2", body=document, user="root", groups=ADMIN)
    assert reply.status == 400, reply.body
    assert field in [d["field"] for d in reply.body["error"]["details"]], reply.body
    assert raw_document("2") == before


# docs/catalog.md: a number DynamoDB cannot hold, at any depth, is a 400 naming the field (and where inside it)
OUT_OF_RANGE = [1e126, -1e126, 9.99e-131, 10 ** 40 + 1, -(10 ** 39) - 7]


@pytest.mark.parametrize("number", OUT_OF_RANGE)
def test_a_number_dynamodb_cannot_hold_nested_anywhere_is_400_naming_the_field(seeded, number):
    before = raw_document("2")
    writes = [
        ("PUT", f"{DOCUMENTS}/2", {"kind": "album", "title": "A", "attributes": {"tracks": [{"x": {"n": [number]}}]}},
         "body.attributes", "tracks.0.x.n.0: "),
        ("POST", f"{DOCUMENTS}/2/children", {"kind": "track", "child": {"t": {"v": [1, number]}}},
         "body.child", "t.v.1: "),
    ]
    for method, url, body, field, where in writes:
        reply = seeded.call(method, url, body=body, user="root", groups=ADMIN)
        assert error(reply) == (400, "VALIDATION_FAILED"), reply.body
        (detail,) = reply.body["error"]["details"]
        assert detail["field"] == field and detail["message"].startswith(where), detail
    assert raw_document("2") == before


@pytest.mark.parametrize("number", [9.999999999999998e125, -9.999999999999998e125, 1e-130, 10 ** 40,
                                    12345678901234567890123456789012345678])
def test_the_extreme_numbers_dynamodb_holds_are_stored_and_answered(seeded, number):
    # These were stored, then refused as an answer (a 502): the largest float is stored as its decimal spelling
    put = seeded.call("PUT", f"{DOCUMENTS}/2", user="root", groups=ADMIN,
                      body={"kind": "album", "title": "A", "attributes": {"tracks": [{"n": number}]}})
    assert put.status == 200, put.body
    appended = seeded.call("POST", f"{DOCUMENTS}/2/children", user="root", groups=ADMIN,
                           body={"kind": "track", "child": {"n": {"deep": number}}})
    assert appended.status == 201, appended.body
    answered = put.body["attributes"]["tracks"][0]["n"]
    assert float(answered) == float(number)  # as sent (an int may come back for a float of integral value)
    got = ok(seeded.call("GET", f"{DOCUMENTS}/2", user="root"))["attributes"]["tracks"]
    assert got == [{"n": answered}, {"n": {"deep": answered}}]


def test_nan_is_not_json_to_us(seeded):
    reply = seeded.call("PUT", f"{DOCUMENTS}/2", raw_body='{"kind": "album", "title": "A", "attributes": {"n": NaN}}',
                        user="root", groups=ADMIN)
    assert reply.status == 400, reply.body


def test_appending_a_child_is_one_conditional_update_of_the_documents_list(seeded, calls):
    time = {"title": "Time", "length": "6:53", "music": "Mason, Waters, Wright, Gilmour", "vocals": "Gilmour"}
    appended = ok(seeded.call("POST", f"{DOCUMENTS}/2/children", body={"kind": "track", "child": time},
                              user="root", groups=ADMIN), 201)
    assert appended == {"productId": "2", "kind": "track", "child": time, "list": "attributes.tracks"}
    # one update, alone in a transaction: its ClientRequestToken makes the SDK's retry safe (test_faults)
    assert calls.names() == ["TransactWriteItems"]
    ((transaction, _),) = calls.of("TransactWriteItems")
    ((action, params),) = (next(iter(item.items())) for item in transaction["TransactItems"])
    assert action == "Update" and "list_append(" in params["UpdateExpression"]
    assert params["ConditionExpression"] == "attribute_exists(#pk) AND #kind = :kind"
    tracks = ok(seeded.call("GET", f"{DOCUMENTS}/2"))["attributes"]["tracks"]
    assert [t["title"] for t in tracks] == ["Speak to Me", "Breathe", "On the Run", "Time"]
    actor = {"name": "Terry Crews", "character": "President Camacho", "age": 48}
    ok(seeded.call("POST", f"{DOCUMENTS}/3/children", body={"kind": "actor", "child": actor}, user="root",
                   groups=ADMIN), 201)
    assert ok(seeded.call("GET", f"{DOCUMENTS}/3"))["attributes"]["actors"][-1] == actor


def test_the_first_child_of_a_document_starts_its_list(client):
    ok(client.call("PUT", f"{DOCUMENTS}/8", body={"kind": "album", "title": "Debut"}, user="root", groups=ADMIN))
    ok(client.call("POST", f"{DOCUMENTS}/8/children", body={"kind": "track", "child": {"title": "One"}},
                   user="root", groups=ADMIN), 201)
    assert ok(client.call("GET", f"{DOCUMENTS}/8"))["attributes"] == {"tracks": [{"title": "One"}]}


def test_appending_to_a_missing_document_is_404_and_to_another_kind_409(seeded):
    track = {"kind": "track", "child": {"title": "Lost"}}
    assert error(seeded.call("POST", f"{DOCUMENTS}/9/children", body=track, user="root", groups=ADMIN)) == (
        404, "DOCUMENT_NOT_FOUND")
    assert raw_document("9") is None
    before = raw_document("3")
    refused = seeded.call("POST", f"{DOCUMENTS}/3/children", body=track, user="root", groups=ADMIN)
    assert error(refused) == (409, "DOCUMENT_KIND_MISMATCH") and "is a movie" in refused.body["error"]["message"]
    assert raw_document("3") == before


def test_an_append_retried_with_its_idempotency_key_appends_once(seeded):
    request = {"kind": "actor", "child": {"name": "Justin Long", "character": "Dr. Lexus"}}
    headers = {"Idempotency-Key": "append-justin-long"}
    first = ok(seeded.call("POST", f"{DOCUMENTS}/3/children", body=request, user="root", groups=ADMIN,
                           headers=headers), 201)
    retry = ok(seeded.call("POST", f"{DOCUMENTS}/3/children", body=request, user="root", groups=ADMIN,
                           headers=headers), 201)
    assert retry == first
    actors = ok(seeded.call("GET", f"{DOCUMENTS}/3"))["attributes"]["actors"]
    assert [a["name"] for a in actors].count("Justin Long") == 1 and len(actors) == 4


def test_a_document_grown_past_400_kb_is_413_and_left_unchanged(seeded):
    # Given the album grown by appends (each body under the API's 64 KB cap) to just under DynamoDB's 400 KB
    assert len(json.dumps(big_track(0))) < MAX_BODY_BYTES
    for n in range(6):
        ok(seeded.call("POST", f"{DOCUMENTS}/2/children", body=big_track(n), user="root", groups=ADMIN), 201)
    before = raw_document("2")
    # When one more append would take it past 400 KB (retried with its key: a refused append is not remembered)
    for _ in range(2):
        with recording() as calls:
            refused = seeded.call("POST", f"{DOCUMENTS}/2/children", body=big_track(6), user="root", groups=ADMIN,
                                  headers={"Idempotency-Key": "one-too-many"})
        # DynamoDB's answer to the append's transaction: cancelled, the update's reason a ValidationError
        ((_, answer),) = calls.of("TransactWriteItems")
        assert answer["Error"]["Code"] == "TransactionCanceledException"
        assert [reason["Code"] for reason in answer["CancellationReasons"]] == ["ValidationError"]
        # Then DynamoDB's refusal is a 413 that names the limit and the way out, never a 5xx
        assert refused.status == 413, (refused.status, refused.body)
        assert error(refused) == (413, "ITEM_TOO_LARGE")
        assert "400 KB item limit" in refused.body["error"]["message"]
        assert "/catalog/products/2/children" in refused.body["error"]["message"]
    # and the document is as it was
    assert raw_document("2") == before
    assert len(ok(seeded.call("GET", f"{DOCUMENTS}/2"))["attributes"]["tracks"]) == 3 + 6
    # a small child still fits
    ok(seeded.call("POST", f"{DOCUMENTS}/2/children", body={"kind": "track", "child": {"title": "Us and Them"}},
                   user="root", groups=ADMIN), 201)


WRITES = [
    ("PUT", f"{DOCUMENTS}/2", {"kind": "album", "title": "A"}),
    ("POST", f"{DOCUMENTS}/2/children", {"kind": "track", "child": {"title": "T"}}),
]


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_only_admins_write_documents(seeded, method, url, body):
    before = raw_document("2")
    assert error(seeded.call(method, url, body=body, user="alice")) == (403, "FORBIDDEN")
    assert raw_document("2") == before


@pytest.mark.parametrize("body", [
    {"kind": "song", "child": {"title": "T"}}, {"kind": "track", "child": {}}, {"kind": "track"},
    {"kind": "track", "child": {"n": float("inf")}},
])
def test_a_bad_child_is_400_and_appends_nothing(seeded, body):
    before = raw_document("2")
    reply = seeded.call("POST", f"{DOCUMENTS}/2/children", body=body, user="root", groups=ADMIN)
    assert reply.status == 400, reply.body
    assert raw_document("2") == before
