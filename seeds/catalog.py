"""Catalog example data: the seed's book (1), album (2, three tracks) and movie (3, three actors), once as
hierarchical items (slide "Hierarchical data structures as items") and once as documents (slide "... or as
documents (JSON)"), each with that slide's values. Every write is a PUT of a fixed key: loading twice changes
nothing."""

from __future__ import annotations

from collections.abc import Mapping

from functions.catalog.models import (
    ActorIn,
    AlbumIn,
    BookIn,
    DocumentIn,
    MovieIn,
    TrackIn,
)
from functions.catalog.repository import CatalogRepository
from functions.shared.settings import Settings

PRODUCTS = {
    "1": BookIn(kind="book", title="Some Book", author="John Smith", genre="Science Fiction", publisher="Ballantine",
                date_published="Oct-70", isbn="0-345-02046-4"),
    "2": AlbumIn(kind="album", title="Some Album", artist="Some Band", genre="Progressive Rock", label="Harvest",
                 studio="Abbey Road", released="3/1/73", producer="Somebody"),
    "3": MovieIn(kind="movie", title="Some Movie", genre="Scifi Comedy", writer="Joe Smith",
                 producer="20th Century Fox"),
}
# (ProductID, child kind, child id, child): the seed's albumID:trackID and movieID:actorID items.
CHILDREN = [
    ("2", "track", "1", TrackIn(title="Track 1", length="1:30", music="Mason", vocals="Instrumental")),
    ("2", "track", "2", TrackIn(title="Track 2", length="2:43", music="Mason", vocals="Mason")),
    ("2", "track", "3", TrackIn(title="Track 3", length="3:30", music="Smith", vocals="Johnson")),
    ("3", "actor", "1", ActorIn(name="Some Actor", character="Joe", image="img2.jpg")),
    ("3", "actor", "2", ActorIn(name="Some Actress", character="Rita", image="img3.jpg")),
    ("3", "actor", "3", ActorIn(name="Some Actor", character="Frito", image="img1.jpg")),
]
DOCUMENTS = {
    "1": DocumentIn(kind="book", title="Some Book", author="Some Guy", genre="Science Fiction",
                    publisher="Ballantine", date_published="Oct-70", isbn="0-345-02046-4"),
    "2": DocumentIn(kind="album", title="Some Album", artist="Some Band", genre="Progressive Rock", attributes={
        "label": "Harvest", "studio": "Abbey Road", "published": "3/1/73", "producer": "Pink Floyd",
        "tracks": [
            {"title": "Speak to Me", "length": "1:30", "music": "Mason", "vocals": "Instrumental"},
            {"title": "Breathe", "length": "2:43", "music": "Waters, Gilmour, Wright", "vocals": "Gilmour"},
            {"title": "On the Run", "length": "3:30", "music": "Gilmour, Waters", "vocals": "Instrumental"},
        ],
    }),
    "3": DocumentIn(kind="movie", title="Some Movie", genre="Scifi Comedy", writer="Joe Smith", attributes={
        "producer": "20th Century Fox",
        "actors": [
            {"name": "Luke Wilson", "dob": "9/21/71", "character": "Joe Bowers", "image": "img2.jpg"},
            {"name": "Maya Rudolph", "dob": "7/27/72", "character": "Rita", "image": "img1.jpg"},
            {"name": "Dax Shepard", "dob": "1/2/75", "character": "Frito Pendejo", "image": "img3.jpg"},
        ],
    }),
}


def load(env: Mapping[str, str]) -> None:
    repository = CatalogRepository(Settings(env))
    for product_id, product in PRODUCTS.items():
        repository.put_product(product_id, product)
    for product_id, child_kind, child_id, child in CHILDREN:
        repository.put_child(product_id, child_kind, child_id, child)
    for product_id, document in DOCUMENTS.items():
        repository.put_document(product_id, document)
