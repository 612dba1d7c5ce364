import pytest

from functions.contacts import api
from functions.contacts.schema import CONTACT_TABLE
from tests.functional.conftest import Client, make_table

ROUTES = [
    "/contacts/persons",
    "/contacts/persons/{personId}/addresses",
    "/contacts/items/{id}",
    "/contacts/addresses",
    "/contacts/person-addresses/{linkId}",
]
ADMIN = ("admin",)


@pytest.fixture
def client(aws, monkeypatch):
    make_table(CONTACT_TABLE, monkeypatch)
    api.service.cache_clear()
    yield Client(api.lambda_handler, ROUTES)
    api.service.cache_clear()


def test_smoke(client):
    r = client.call("POST", "/contacts/persons", body={"firstName": "Bob", "lastName": "Smith"}, groups=ADMIN)
    print(r)
    assert r.status == 201
