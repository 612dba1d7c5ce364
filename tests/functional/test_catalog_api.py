"""Catalog, products as hierarchical items: handler -> service -> repository on moto, under the function's role."""

from __future__ import annotations

import pytest

from tests.functional import catalog_support
from tests.functional.catalog_support import ADMIN, products_items
from tests.functional.conftest import error, ok

# the fixtures these tests use
client = catalog_support.client
seeded = catalog_support.seeded
tables = catalog_support.tables

PRODUCTS = "/catalog/products"


def test_a_product_with_all_its_children_is_one_query_parent_first(seeded, calls):
    body = ok(seeded.call("GET", f"{PRODUCTS}/2"))
    assert [(i["type"], i["kind"]) for i in body["items"]] == [
        ("album", "album"), ("album:track#1", "track"), ("album:track#2", "track"), ("album:track#3", "track"),
    ]
    assert body["items"][0] == {
        "productId": "2", "type": "album", "kind": "album", "title": "Some Album", "artist": "Some Band",
        "genre": "Progressive Rock", "label": "Harvest", "studio": "Abbey Road", "released": "3/1/73",
        "producer": "Somebody",
    }
    assert body["items"][2] == {
        "productId": "2", "type": "album:track#2", "kind": "track", "childId": "2", "title": "Track 2",
        "length": "2:43", "music": "Mason", "vocals": "Mason",
    }
    assert body["nextCursor"] is None
    ((params, _),) = calls.of("Query")
    assert calls.names() == ["Query"]
    assert params["KeyConditionExpression"] == "#n0 = :v0" and params["ExpressionAttributeValues"][":v0"] == {"S": "2"}


def test_the_seeds_book_keeps_its_attribute_names(seeded):
    (book,) = ok(seeded.call("GET", f"{PRODUCTS}/1"))["items"]
    assert book == {
        "productId": "1", "type": "book", "kind": "book", "title": "Some Book", "author": "John Smith",
        "genre": "Science Fiction", "publisher": "Ballantine", "datePublished": "Oct-70", "ISBN": "0-345-02046-4",
    }
    assert {"datePublished", "ISBN"} <= {name for item in products_items() if item["type"] == "book" for name in item}


def test_only_a_products_children_are_one_begins_with_query(seeded, calls):
    body = ok(seeded.call("GET", f"{PRODUCTS}/3/children/actor"))
    assert [(a["childId"], a["name"], a["character"], a["image"]) for a in body["items"]] == [
        ("1", "Some Actor", "Joe", "img2.jpg"), ("2", "Some Actress", "Rita", "img3.jpg"),
        ("3", "Some Actor", "Frito", "img1.jpg"),
    ]
    assert calls.names() == ["Query"]  # no read of the parent: the key condition leaves it out
    ((params, response),) = calls.of("Query")
    assert params["KeyConditionExpression"] == "(#n0 = :v0 AND begins_with(#n1, :v1))"
    assert params["ExpressionAttributeValues"] == {":v0": {"S": "3"}, ":v1": {"S": "movie:actor#"}}
    assert response["ScannedCount"] == 3


def test_one_child_is_one_getitem(seeded, calls):
    track = ok(seeded.call("GET", f"{PRODUCTS}/2/children/track/3"))
    assert (track["title"], track["length"], track["music"], track["vocals"]) == ("Track 3", "3:30", "Smith", "Johnson")
    ((params, _),) = calls.of("GetItem")
    assert calls.names() == ["GetItem"] and params["Key"] == {"ProductID": {"S": "2"}, "type": {"S": "album:track#3"}}
    assert error(seeded.call("GET", f"{PRODUCTS}/2/children/track/9")) == (404, "CHILD_NOT_FOUND")
    assert error(seeded.call("GET", f"{PRODUCTS}/2/children/actor/1")) == (404, "CHILD_NOT_FOUND")


def test_product_and_children_pages_cover_the_collection_once_with_bound_cursors(seeded):
    first = ok(seeded.call("GET", f"{PRODUCTS}/2?limit=2"))
    second = ok(seeded.call("GET", f"{PRODUCTS}/2?limit=2&cursor={first['nextCursor']}"))
    assert [i["type"] for i in first["items"] + second["items"]] == [
        "album", "album:track#1", "album:track#2", "album:track#3",
    ]
    assert second["nextCursor"] is None
    page = ok(seeded.call("GET", f"{PRODUCTS}/3/children/actor?limit=2"))
    rest = ok(seeded.call("GET", f"{PRODUCTS}/3/children/actor?limit=2&cursor={page['nextCursor']}"))
    assert [a["childId"] for a in page["items"] + rest["items"]] == ["1", "2", "3"]
    # a cursor of one list is refused by another (another product, the children list)
    assert error(seeded.call("GET", f"{PRODUCTS}/3?cursor={first['nextCursor']}")) == (400, "INVALID_CURSOR")
    assert error(seeded.call("GET", f"{PRODUCTS}/2/children/track?cursor={first['nextCursor']}")) == (
        400, "INVALID_CURSOR")


def test_limit_counts_children_only_the_parent_comes_with_the_first_page(seeded, calls):
    pages, cursor = [], None
    while True:
        reply = seeded.call("GET", f"{PRODUCTS}/2?limit=1" + (f"&cursor={cursor}" if cursor else ""))
        requests = int(reply.headers["Server-Timing"].split("requests=", 1)[1].split()[0])
        pages.append((ok(reply), requests))
        cursor = pages[-1][0]["nextCursor"]
        if not cursor:
            break
    # `?limit=1`: the album and exactly one track, and a cursor to the next track
    assert [i["type"] for i in pages[0][0]["items"]] == ["album", "album:track#1"] and pages[0][0]["nextCursor"]
    assert all(len(page["items"]) <= 1 and page["items"][0]["kind"] == "track" for page, _ in pages[1:] if page["items"])
    assert [i["type"] for page, _ in pages for i in page["items"]] == [
        "album", "album:track#1", "album:track#2", "album:track#3",
    ]
    # one Query a page: the first reads `limit` + 1 items, the others `limit`
    assert [requests for _, requests in pages] == [1] * len(pages) == [1] * len(calls.recorded)
    assert [params["Limit"] for params, _ in calls.of("Query")] == [2] + [1] * (len(pages) - 1)


def test_an_unknown_product_is_404_and_a_product_without_children_has_an_empty_list(seeded):
    assert error(seeded.call("GET", f"{PRODUCTS}/9")) == (404, "PRODUCT_NOT_FOUND")
    assert error(seeded.call("GET", f"{PRODUCTS}/9/children/track")) == (404, "PRODUCT_NOT_FOUND")
    assert error(seeded.call("GET", f"{PRODUCTS}/1/children/track")) == (404, "PRODUCT_NOT_FOUND")  # a book
    ok(seeded.call("PUT", f"{PRODUCTS}/4", body={"kind": "album", "title": "Empty"}, user="root", groups=ADMIN))
    assert ok(seeded.call("GET", f"{PRODUCTS}/4/children/track")) == {"items": [], "nextCursor": None}


def test_an_admin_puts_a_product_and_replacing_it_keeps_its_children(seeded, calls):
    put = ok(seeded.call("PUT", f"{PRODUCTS}/2", user="root", groups=ADMIN,
                         body={"kind": "album", "title": "Some Album (Remastered)", "artist": "Some Band"}))
    assert put == {"productId": "2", "type": "album", "kind": "album", "title": "Some Album (Remastered)",
                   "artist": "Some Band", "genre": None, "label": None, "studio": None, "released": None,
                   "producer": None}
    ((params, _),) = calls.of("TransactWriteItems")
    assert [next(iter(a)) for a in params["TransactItems"]] == ["Put", "ConditionCheck", "ConditionCheck"]
    items = ok(seeded.call("GET", f"{PRODUCTS}/2"))["items"]
    assert items[0] == put and len(items) == 4  # label, studio... replaced; the three tracks kept
    again = ok(seeded.call("PUT", f"{PRODUCTS}/2", user="root", groups=ADMIN,
                           body={"kind": "album", "title": "Some Album (Remastered)", "artist": "Some Band"}))
    assert again == put and len(products_items()) == 1 + 4 + 4  # a repeated PUT writes the same item


def test_a_products_kind_cannot_change(seeded):
    before = products_items()
    refused = seeded.call("PUT", f"{PRODUCTS}/2", body={"kind": "movie", "title": "Not an album"},
                          user="root", groups=ADMIN)
    assert error(refused) == (409, "PRODUCT_KIND_CONFLICT") and "is a album" in refused.body["error"]["message"]
    assert products_items() == before


def test_a_child_of_a_missing_product_is_404_and_writes_nothing(seeded, calls):
    before = products_items()
    track = {"title": "Orphan", "length": "0:01"}
    missing = seeded.call("PUT", f"{PRODUCTS}/9/children/track/1", body=track, user="root", groups=ADMIN)
    assert error(missing) == (404, "PRODUCT_NOT_FOUND")
    # product 3 is a movie: a track needs an album 3, which does not exist
    assert error(seeded.call("PUT", f"{PRODUCTS}/3/children/track/1", body=track, user="root", groups=ADMIN)) == (
        404, "PRODUCT_NOT_FOUND")
    assert products_items() == before
    (params, _), _ = calls.of("TransactWriteItems")
    (check, put) = params["TransactItems"]
    assert check["ConditionCheck"]["Key"] == {"ProductID": {"S": "9"}, "type": {"S": "album"}}
    assert put["Put"]["Item"]["type"] == {"S": "album:track#1"}


def test_an_admin_adds_and_replaces_a_child_and_a_repeat_changes_nothing(seeded):
    track = {"title": "Time", "length": "6:53", "music": "Mason, Waters, Wright, Gilmour", "vocals": "Gilmour"}
    added = ok(seeded.call("PUT", f"{PRODUCTS}/2/children/track/4", body=track, user="root", groups=ADMIN))
    assert added == {"productId": "2", "type": "album:track#4", "kind": "track", "childId": "4", **track}
    assert ok(seeded.call("PUT", f"{PRODUCTS}/2/children/track/4", body=track, user="root", groups=ADMIN)) == added
    assert [t["childId"] for t in ok(seeded.call("GET", f"{PRODUCTS}/2/children/track"))["items"]] == ["1", "2", "3", "4"]
    replaced = ok(seeded.call("PUT", f"{PRODUCTS}/2/children/track/4", body={"title": "Time (edit)"},
                              user="root", groups=ADMIN))
    assert ok(seeded.call("GET", f"{PRODUCTS}/2/children/track/4")) == replaced
    assert replaced["length"] is None


def test_an_admin_deletes_a_child_once(seeded):
    assert seeded.call("DELETE", f"{PRODUCTS}/3/children/actor/2", user="root", groups=ADMIN).status == 204
    assert [a["childId"] for a in ok(seeded.call("GET", f"{PRODUCTS}/3/children/actor"))["items"]] == ["1", "3"]
    again = seeded.call("DELETE", f"{PRODUCTS}/3/children/actor/2", user="root", groups=ADMIN)
    assert error(again) == (404, "CHILD_NOT_FOUND")


WRITES = [
    ("PUT", f"{PRODUCTS}/5", {"kind": "book", "title": "B"}),
    ("PUT", f"{PRODUCTS}/2/children/track/5", {"title": "T"}),
    ("DELETE", f"{PRODUCTS}/2/children/track/1", None),
]


@pytest.mark.parametrize(("method", "url", "body"), WRITES)
def test_only_admins_write_products(seeded, method, url, body):
    before = products_items()
    assert error(seeded.call(method, url, body=body, user="alice")) == (403, "FORBIDDEN")
    assert products_items() == before


BAD = [
    ("PUT", f"{PRODUCTS}/5", {"kind": "comic", "title": "B"}, "body"),
    ("PUT", f"{PRODUCTS}/5", {"kind": "book", "title": "B", "artist": "books have none"}, "body.book.artist"),
    ("PUT", f"{PRODUCTS}/5", {"kind": "movie", "title": ""}, "body.movie.title"),
    ("PUT", f"{PRODUCTS}/5#x", {"kind": "book", "title": "B"}, "path.productId"),
    ("PUT", f"{PRODUCTS}/2/children/track/5", {"name": "an actor's field"}, "body.title"),
    ("PUT", f"{PRODUCTS}/2/children/track/a:b", {"title": "T"}, "path.childId"),
    ("PUT", f"{PRODUCTS}/2/children/song/5", {"title": "T"}, "path.childKind"),
    ("PUT", f"{PRODUCTS}/2/children/track/5", ["not", "an", "object"], "body"),
    ("GET", f"{PRODUCTS}/2/children/song", None, "path.childKind"),
    ("GET", f"{PRODUCTS}/2?limit=0", None, "query.limit"),
]


@pytest.mark.parametrize(("method", "url", "body", "field"), BAD)
def test_bad_input_is_400_and_writes_nothing(seeded, method, url, body, field):
    before = products_items()
    reply = seeded.call(method, url.replace("#", "%23"), body=body, user="root", groups=ADMIN)
    assert reply.status == 400, reply.body
    assert field in [d["field"] for d in reply.body["error"].get("details", [])], reply.body
    assert products_items() == before
