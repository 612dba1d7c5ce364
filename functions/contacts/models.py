"""API shapes of the Contact domain (camelCase on the wire, dates as YYYY-MM-DD in UTC)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import Field, StringConstraints

from functions.shared.models import ApiModel, Day, PageOf, stripped_rules

Name = Annotated[str, *stripped_rules(1, 100)]
Text = Annotated[str, *stripped_rules(1, 200)]
Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Relationship = Literal["Business", "Residential"]

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
IdPath = Annotated[str, Path(min_length=1, max_length=64)]


class PersonIn(ApiModel):
    first_name: Name
    last_name: Name


class Person(PersonIn):
    id: str


class AddressIn(ApiModel):
    street_address: Text
    city: Name
    state: Annotated[str, *stripped_rules(2, 50)]
    zip_code: Annotated[str, *stripped_rules(3, 12)]


class Address(AddressIn):
    id: str


class LinkIn(ApiModel):
    address_id: Id
    relationship: Relationship
    start_date: Day
    end_date: Day | None = None  # not before startDate: ContactsService.link names both fields when it is


class EndLinkIn(ApiModel):
    end_date: Day


class Link(ApiModel):
    link_id: str
    person_id: str
    address_id: str
    relationship: Relationship
    start_date: date
    end_date: date | None = None


class PersonAddress(ApiModel):
    """A link with its address embedded: one row of a person's address history."""

    link_id: str
    relationship: Relationship
    start_date: date
    end_date: date | None = None
    address: Address


class PersonPage(PageOf[Person]):
    pass


class PersonAddressPage(PageOf[PersonAddress]):
    pass


class StoredItems(ApiModel):
    """Everything stored under one Id, whatever its type (the seed's "retrieve any object by the Id")."""

    items: list[dict[str, Any]] = Field(default_factory=list)
