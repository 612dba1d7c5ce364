"""Contact rules: ids, day semantics, joining links to addresses. Gets its repository passed in."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from typing import Any

from functions.contacts import models
from functions.contacts.repository import ContactRepository, epoch_to_day
from functions.contacts.schema import ADDRESS, PERSON, PERSON_ADDRESS
from functions.shared.errors import NotFoundError, check_range
from functions.shared.pages import Page


def today() -> date:
    return datetime.now(UTC).date()


class ContactService:
    def __init__(self, repository: ContactRepository):
        self._repository = repository

    def create_person(self, data: models.PersonIn) -> models.Person:
        person = models.Person(id=str(uuid.uuid4()), **data.model_dump())
        self._repository.put_person(person)
        return person

    def create_address(self, data: models.AddressIn) -> models.Address:
        address = models.Address(id=str(uuid.uuid4()), **data.model_dump())
        self._repository.put_address(address)
        return address

    def link(self, person_id: str, data: models.LinkIn) -> models.Link:
        check_range(data.start_date, data.end_date, low="startDate", high="endDate", where="body")
        link = models.Link(link_id=str(uuid.uuid4()), person_id=person_id, **data.model_dump())
        self._repository.put_link(link)
        return link

    def end_link(self, link_id: str, end: date) -> models.Link:
        return self._repository.end_link(link_id, end)

    def list_persons(self, *, last_name: str | None, limit: int, start_key: dict[str, Any] | None) -> Page:
        if last_name is None:
            return self._repository.list_persons(limit=limit, start_key=start_key)
        return self._repository.list_persons_by_last_name(last_name, limit=limit, start_key=start_key)

    def items_with_id(self, item_id: str) -> list[dict[str, Any]]:
        items = self._repository.items_with_id(item_id)
        if not items:
            raise NotFoundError(f"nothing stored under id {item_id}")
        return [stored_item_view(i) for i in items]

    def addresses_of(
        self,
        person_id: str,
        *,
        relationship: str | None,
        on: date | None,
        limit: int,
        start_key: dict[str, Any] | None,
    ) -> Page:
        """A person's links (all, or in effect on day `on`) with their addresses embedded.

        A link is in effect on day D when start <= D and (no end or end >= D).
        """
        page = self._repository.list_links_of(
            person_id, relationship=relationship, on=on, limit=limit, start_key=start_key
        )
        if not page.items and start_key is None:
            self._repository.person(person_id)  # 404 for an unknown person, [] for one with no address
        addresses = self._repository.addresses_by_id([link.address_id for link in page.items])
        page.items = [
            models.PersonAddress(
                link_id=link.link_id,
                relationship=link.relationship,
                start_date=link.start_date,
                end_date=link.end_date,
                address=addresses[link.address_id],
            )
            for link in page.items
            if link.address_id in addresses
        ]
        return page


def stored_item_view(item: dict[str, Any]) -> dict[str, Any]:
    """A stored item as the API shows it: camelCase, dates as days, its type named."""
    kind = item.get("Type")
    if kind == PERSON:
        return {"type": PERSON, "id": item["Id"], "firstName": item["FirstName"], "lastName": item["LastName"]}
    if kind == ADDRESS:
        return {
            "type": ADDRESS,
            "id": item["Id"],
            "streetAddress": item["StreetAddress"],
            "city": item["City"],
            "state": item["State"],
            "zipCode": item["ZipCode"],
        }
    if kind == PERSON_ADDRESS:
        end = item.get("EndTimestampUTC")
        return {
            "type": PERSON_ADDRESS,
            "id": item["Id"],
            "personId": item["PersonId"],
            "addressId": item["AddressId"],
            "relationship": item["Relationship"],
            "startDate": epoch_to_day(item["StartTimestampUTC"]).isoformat(),
            "endDate": None if end is None else epoch_to_day(end).isoformat(),
        }
    return {"type": kind, "id": item.get("Id")}
