"""Catalog over HTTP on the local runtime: the seed's products as items and as documents, the writes' rules, and
a document grown past DynamoDB's 400 KB item limit answered by 413 (never a 5xx), unchanged."""

from __future__ import annotations

import uuid

from seeds import catalog as seed

ADMIN = ("admin",)
PRODUCTS = "/catalog/products"
DOCUMENTS = "/catalog/documents"


def fresh_id() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"


def test_the_seeds_album_and_movie_are_item_collections(api):
    reply = api.call("GET", f"{PRODUCTS}/2")
    assert reply.status_code == 200, reply.text
    items = reply.json()["items"]
    assert [i["type"] for i in items] == ["album", "album:track#1", "album:track#2", "album:track#3"]
    assert (items[0]["title"], items[0]["label"], items[0]["producer"]) == ("Some Album", "Harvest", "Somebody")
    actors = api.call("GET", f"{PRODUCTS}/3/children/actor?limit=2")
    assert actors.status_code == 200, actors.text
    first = actors.json()
    rest = api.call("GET", f"{PRODUCTS}/3/children/actor", params={"limit": 2, "cursor": first["nextCursor"]}).json()
    assert [(a["name"], a["character"]) for a in first["items"] + rest["items"]] == [
        ("Some Actor", "Joe"), ("Some Actress", "Rita"), ("Some Actor", "Frito")]
    book = api.call("GET", f"{PRODUCTS}/1").json()["items"]
    assert [(b["title"], b["author"], b["ISBN"]) for b in book] == [("Some Book", "John Smith", "0-345-02046-4")]
    track = api.call("GET", f"{PRODUCTS}/2/children/track/2").json()
    assert (track["title"], track["length"], track["vocals"]) == ("Track 2", "2:43", "Mason")


def test_the_seeds_documents_are_whole_products(api):
    album = api.call("GET", f"{DOCUMENTS}/2")
    assert album.status_code == 200, album.text
    assert [t["title"] for t in album.json()["attributes"]["tracks"]][:3] == ["Speak to Me", "Breathe", "On the Run"]
    movie = api.call("GET", f"{DOCUMENTS}/3").json()
    assert [a["name"] for a in movie["attributes"]["actors"]][:3] == ["Luke Wilson", "Maya Rudolph", "Dax Shepard"]
    assert api.call("GET", f"{DOCUMENTS}/1").json()["author"] == seed.DOCUMENTS["1"].author == "Some Guy"


def test_admins_build_a_product_and_a_child_needs_its_parent(api):
    product_id = fresh_id()
    orphan = api.call("PUT", f"{PRODUCTS}/{product_id}/children/track/1", user="root", groups=ADMIN,
                      json={"title": "Orphan"})
    assert orphan.status_code == 404 and orphan.json()["error"]["code"] == "PRODUCT_NOT_FOUND"
    assert api.call("GET", f"{PRODUCTS}/{product_id}").status_code == 404  # nothing was written
    assert api.call("PUT", f"{PRODUCTS}/{product_id}", user="alice", json={"kind": "album", "title": "A"}).status_code == 403
    assert api.call("PUT", f"{PRODUCTS}/{product_id}", user="root", groups=ADMIN,
                    json={"kind": "album", "title": "Wish You Were Here"}).status_code == 200
    for n, title in enumerate(["Shine On", "Welcome to the Machine"], start=1):
        put = api.call("PUT", f"{PRODUCTS}/{product_id}/children/track/{n}", user="root", groups=ADMIN,
                       json={"title": title})
        assert put.status_code == 200, put.text
    kind = api.call("PUT", f"{PRODUCTS}/{product_id}", user="root", groups=ADMIN, json={"kind": "book", "title": "B"})
    assert kind.status_code == 409 and kind.json()["error"]["code"] == "PRODUCT_KIND_CONFLICT"
    assert api.call("DELETE", f"{PRODUCTS}/{product_id}/children/track/1", user="root", groups=ADMIN).status_code == 204
    tracks = api.call("GET", f"{PRODUCTS}/{product_id}/children/track").json()["items"]
    assert [t["title"] for t in tracks] == ["Welcome to the Machine"]


def test_a_document_grown_past_400_kb_is_413_and_unchanged(api):
    product_id = fresh_id()
    assert api.call("PUT", f"{DOCUMENTS}/{product_id}", user="root", groups=ADMIN,
                    json={"kind": "album", "title": "Very Long Album"}).status_code == 200
    track = {"kind": "track", "child": {"title": "Long", "lyrics": "la " * 20_000}}  # ~60 KB: under the body cap
    statuses = []
    for _ in range(8):
        reply = api.call("POST", f"{DOCUMENTS}/{product_id}/children", user="root", groups=ADMIN, json=track)
        statuses.append(reply.status_code)
        if reply.status_code != 201:
            break
    assert statuses == [201] * 6 + [413], statuses
    body = reply.json()["error"]
    assert body["code"] == "ITEM_TOO_LARGE" and "400 KB item limit" in body["message"]
    assert f"/catalog/products/{product_id}/children" in body["message"]
    document = api.call("GET", f"{DOCUMENTS}/{product_id}")
    assert document.status_code == 200 and len(document.json()["attributes"]["tracks"]) == 6
    small = api.call("POST", f"{DOCUMENTS}/{product_id}/children", user="root", groups=ADMIN,
                     json={"kind": "track", "child": {"title": "Short"}})
    assert small.status_code == 201
    again = api.call("POST", f"{DOCUMENTS}/{product_id}/children", user="root", groups=ADMIN, json=track)
    assert again.status_code == 413
    assert [t["title"] for t in api.call("GET", f"{DOCUMENTS}/{product_id}").json()["attributes"]["tracks"]][-1] == "Short"


def test_append_to_a_missing_or_other_kind_of_document(api):
    missing = api.call("POST", f"{DOCUMENTS}/{fresh_id()}/children", user="root", groups=ADMIN,
                       json={"kind": "actor", "child": {"name": "Nobody"}})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "DOCUMENT_NOT_FOUND"
    mismatch = api.call("POST", f"{DOCUMENTS}/1/children", user="root", groups=ADMIN,
                        json={"kind": "track", "child": {"title": "Books have no tracks"}})
    assert mismatch.status_code == 409 and mismatch.json()["error"]["code"] == "DOCUMENT_KIND_MISMATCH"
