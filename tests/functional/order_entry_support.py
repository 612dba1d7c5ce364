"""Order entry functional fixtures: the table built from the schema, the example data, a settable clock."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest

from functions.order_entry import api
from functions.order_entry.schema import ORDER_ENTRY_TABLE
from local.dynamodb import fidelity as moto_fidelity
from seeds import order_entry as seed
from tests.functional.conftest import Client, fresh_service, make_table, ok

ADMIN = ("admin",)
P = "/order-entry"


class Clock:
    """A settable clock: orders are placed on the day it shows."""

    def __init__(self) -> None:
        self.now = datetime(2026, 2, 10, 9, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def day(self, iso: str) -> None:
        self.now = datetime.fromisoformat(iso).replace(hour=9, tzinfo=UTC)


@pytest.fixture(name="table")
def table_fixture(aws, monkeypatch) -> str:
    name = make_table(ORDER_ENTRY_TABLE, monkeypatch)
    with fresh_service(api):
        yield name


@pytest.fixture(name="clock")
def clock_fixture(table) -> Clock:
    clock = Clock()
    api.service().clock = clock
    return clock


@pytest.fixture(name="client")
def client_fixture(clock) -> Client:
    return Client.of(api)


# The example data's items as moto holds them, after the session's first load: loading takes about 2.5 s (some 150
# transactions through the service), and some 50 tests start from it. The first test loads through the service; the
# others get a copy of what it wrote, put straight into their own fresh table.
_SEEDED: dict[str, Any] = {}


@pytest.fixture(name="seeded")
def seeded_fixture(client, table) -> Client:
    stored = moto_fidelity.stored_table(table)
    if "items" not in _SEEDED:
        seed.load({ORDER_ENTRY_TABLE.env_var: table})
        _SEEDED["items"] = copy.deepcopy(stored.items)
    else:
        stored.items = copy.deepcopy(_SEEDED["items"])
        moto_fidelity.written(table)  # its Query maps are stale
    return client


def items(table: str) -> list[dict]:
    return boto3.resource("dynamodb").Table(table).scan()["Items"]  # test inspection only, never on a request path


def all_pages(client: Client, url: str, *, key: str = "items", user: str = "alice",
              groups: tuple[str, ...] = (), limit: int = 2) -> list[dict]:
    found, cursor = [], None
    while True:
        sep = "&" if "?" in url else "?"
        page = ok(client.call("GET", f"{url}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else ""),
                              user=user, groups=groups))
        found += page[key]
        if not (cursor := page["nextCursor"]):
            return found


def place(client: Client, customer: str, *lines: tuple[str, int], key: str | None = None):
    headers = {"Idempotency-Key": key} if key else None
    return client.call("POST", f"{P}/orders", user="root", groups=ADMIN, headers=headers,
                       body={"customerId": customer, "lines": [{"productId": p, "quantity": q} for p, q in lines]})
