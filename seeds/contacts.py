"""The nine rows of seed 000's Contact table: 3 persons, 7 addresses, 9 links over time.

Ids the seed prints are kept (Bob, Joe, Sally, 1850 Wazee Street, 1600 15th Street and Bob's two links it
shows); the others are derived deterministically, so loading twice changes nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import date

from functions.contacts.models import Address, Link, Person
from functions.contacts.repository import ContactRepository
from functions.contacts.schema import CONTACT_TABLE
from functions.shared.errors import ConflictError

BOB = "1302c80a-7c61-4920-93a4-23c44c931945"
JOE = "63283cda-028f-4016-852c-716c4e1b997e"
SALLY = "89e6210d-2dc8-4fb7-824d-6eb77918f284"
WAZEE = "ab3161c6-2462-49b3-957a-d1db9478532f"
FIFTEENTH = "1440e345-99b0-4c4a-941d-67bfbd03ba30"
BOB_WAZEE_LINK = "eca6da1c-0c94-4b3e-8531-f4f9481330ef"
BOB_HOME_LINK = "713b7bfe-8e80-42f0-bbb0-3c94d98404fd"


def _id(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"blueprints:contacts:{name}"))


PERSONS = [
    Person(id=BOB, first_name="Bob", last_name="Smith"),
    Person(id=SALLY, first_name="Sally", last_name="Wilson"),
    Person(id=JOE, first_name="Joe", last_name="Penton"),
]

_STREETS = {
    "1850 Wazee Street": WAZEE,
    "1420 Stout Street": _id("1420 Stout Street"),
    "1600 15th Street": FIFTEENTH,
    "4000 Larimer Street": _id("4000 Larimer Street"),
    "2000 21st Street": _id("2000 21st Street"),
    "4050 Logan Street": _id("4050 Logan Street"),
    "5000 Blake Street": _id("5000 Blake Street"),
}
ADDRESSES = [
    Address(id=address_id, street_address=street, city="Denver", state="CO", zip_code="80202")
    for street, address_id in _STREETS.items()
]

# (person, street, relationship, start, end) — the seed's table, row by row.
_ROWS = [
    (BOB, "1850 Wazee Street", "Business", date(2000, 1, 1), date(2010, 12, 31), BOB_WAZEE_LINK),
    (BOB, "1420 Stout Street", "Business", date(2011, 1, 1), None, None),
    (BOB, "1600 15th Street", "Residential", date(2000, 1, 1), None, BOB_HOME_LINK),
    (SALLY, "1850 Wazee Street", "Business", date(2005, 1, 1), date(2015, 12, 31), None),
    (SALLY, "4000 Larimer Street", "Business", date(2016, 1, 1), None, None),
    (SALLY, "2000 21st Street", "Residential", date(2005, 1, 1), None, None),
    (JOE, "1850 Wazee Street", "Business", date(2009, 1, 1), date(2009, 12, 31), None),
    (JOE, "4050 Logan Street", "Business", date(2010, 1, 1), None, None),
    (JOE, "5000 Blake Street", "Residential", date(2009, 1, 1), None, None),
]
LINKS = [
    Link(
        link_id=link_id or _id(f"{person}:{street}:{relationship}:{start}"),
        person_id=person,
        address_id=_STREETS[street],
        relationship=relationship,
        start_date=start,
        end_date=end,
    )
    for person, street, relationship, start, end, link_id in _ROWS
]


def load(env: Mapping[str, str]) -> None:
    """Write the example data through the repository (same items the API writes); existing items are kept."""
    repository = ContactRepository(env[CONTACT_TABLE.env_var])
    writes = [
        *((repository.put_person, p) for p in PERSONS),
        *((repository.put_address, a) for a in ADDRESSES),
        *((repository.put_link, link) for link in LINKS),
    ]
    for write, value in writes:
        try:
            write(value)
        except ConflictError:
            pass  # already loaded
