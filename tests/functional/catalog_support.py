"""Shared by the Catalog functional tests: both tables on moto, the API client, the seed loaded, raw reads."""

from __future__ import annotations

import os
from typing import Any

import pytest

from functions.catalog import api
from functions.catalog.schema import DOCUMENTS_TABLE, PRODUCTS_TABLE
from functions.shared import ddb
from seeds import catalog as seed
from tests.functional.conftest import Client, client_for, fresh_tables

ADMIN = ("admin",)


tables = fresh_tables(api, PRODUCTS_TABLE, DOCUMENTS_TABLE)  # {env var: table name}
client = client_for(api)


@pytest.fixture
def seeded(client) -> Client:
    """The seed's book (1), album (2) and movie (3), as items and as documents."""
    seed.load(os.environ)
    return client


def products_items() -> list[dict[str, Any]]:
    """Every item of the Products table (a test-side check, never the code under test)."""
    return ddb.table(os.environ[PRODUCTS_TABLE.env_var]).scan(ConsistentRead=True)["Items"]


def raw_document(product_id: str) -> dict[str, Any] | None:
    table = ddb.table(os.environ[DOCUMENTS_TABLE.env_var])
    return table.get_item(Key={"ProductID": product_id}, ConsistentRead=True).get("Item")
