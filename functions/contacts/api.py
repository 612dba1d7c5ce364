"""Contact API (seed 000): persons, addresses and the person-address links over time."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.contacts import models
from functions.contacts.repository import ContactRepository
from functions.contacts.schema import CONTACT_TABLE
from functions.contacts.service import ContactService, today
from functions.shared import kit
from functions.shared.models import parse_day

router = kit.DomainRouter.of(__file__)

DayQuery = Annotated[str | None, Query(pattern=kit.DAY_PATTERN, description="YYYY-MM-DD (UTC)")]


service = kit.service(ContactService, ContactRepository, lambda config: config.table(CONTACT_TABLE))
Service = Annotated[ContactService, kit.Depends(service)]


@router.serve
def create_person(person: models.PersonIn, svc: Service, create: kit.CreateOnce,
                  idempotency_key: kit.IdempotencyKey = None) -> Response[models.Person]:
    """Create a person."""
    kit.metrics.add_metric(name="PersonCreateRequested", unit="Count", value=1)
    return create(operation="contacts.create_person", key=idempotency_key,
                  request=person.model_dump(mode="json"), make=lambda: svc.create_person(person))


@router.serve
@kit.paged
def list_persons(svc: Service, page: kit.PageRequest,
                 last_name: Annotated[str | None, Query(alias="lastName", min_length=1, max_length=100)] = None,
                 ) -> models.PersonPage:
    """List persons, optionally by last name."""
    return page.of(models.PersonPage, svc.list_persons, last_name=last_name)


@router.serve
def get_items(item_id: Annotated[str, Path(alias="id", min_length=1, max_length=64)],
              svc: Service) -> models.StoredItems:
    """Read every stored item with one id."""
    return models.StoredItems(items=svc.items_with_id(item_id))


@router.serve
def create_address(address: models.AddressIn, svc: Service, create: kit.CreateOnce,
                   idempotency_key: kit.IdempotencyKey = None) -> Response[models.Address]:
    """Create an address."""
    return create(operation="contacts.create_address", key=idempotency_key,
                  request=address.model_dump(mode="json"), make=lambda: svc.create_address(address))


@router.serve
def link_address(person_id: models.IdPath, link: models.LinkIn, svc: Service, create: kit.CreateOnce,
                 idempotency_key: kit.IdempotencyKey = None) -> Response[models.Link]:
    """Link a person to an address from a day."""
    return create(operation="contacts.link_address", key=idempotency_key,
                  request={"personId": person_id, **link.model_dump(mode="json")},
                  make=lambda: svc.link(person_id, link))


@router.serve
def end_link(link_id: models.IdPath, change: models.EndLinkIn, svc: Service) -> models.Link:
    """End a person-address link on a day."""
    return svc.end_link(link_id, change.end_date)


@router.serve
@kit.paged
def addresses_of(
    person_id: models.IdPath,
    svc: Service,
    page: kit.PageRequest,
    relationship: Annotated[Literal["Business", "Residential"] | None, Query()] = None,
    on: DayQuery = None,
    current: Annotated[
        bool, Query(description="in effect today (UTC); `on`, when given, names the day instead")
    ] = False,
) -> models.PersonAddressPage:
    """List the addresses a person is linked to, on a day or now."""
    # `on` wins over `current`: a 400 for both would refuse a request the description cannot call invalid
    # (docs/adr/0064-state-refusals-are-409-or-404-not-400.md).
    day = _day(on) if on is not None else today() if current else None
    return page.of(models.PersonAddressPage, svc.addresses_of, person_id, relationship=relationship, on=day)


def _day(value: str | None):
    if value is None:
        return None
    try:
        return parse_day(value)
    except ValueError as error:
        raise kit.InvalidInputError(
            "on is not a calendar day", details=[{"field": "query.on", "message": str(error)}]
        ) from error


app, lambda_handler = kit.serve(router)
