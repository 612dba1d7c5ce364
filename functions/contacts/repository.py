"""Contact table access: one method per access pattern, the only module here that talks to DynamoDB."""

from __future__ import annotations

from calendar import timegm
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import Attr, ConditionBase, Key
from botocore.exceptions import ClientError

from functions.contacts import models
from functions.contacts.schema import (
    ADDRESS,
    LAST_NAME_INDEX,
    PERSON,
    PERSON_ADDRESS,
    PERSON_INDEX,
    TYPE_INDEX,
    TYPE_SHARD,
    type_shard,
    type_shards,
)
from functions.shared import ddb
from functions.shared.errors import ConflictError, NotFoundError
from functions.shared.pages import Page, read_page
from functions.shared.sharded import ShardedIndex, merged_shards, resume_after

# --- keys and stored values -------------------------------------------------------------------------

def item_key(item_id: str, item_type: str) -> dict[str, str]:
    return {"Id": item_id, "Type": item_type}


def new_item(item_id: str, item_type: str) -> dict[str, str]:
    """A new item's keys: the table's, and its shard of the type index (ADR 0110)."""
    return {**item_key(item_id, item_type), TYPE_SHARD: type_shard(item_type, item_id)}


def relationship_start(relationship: str, start: date) -> str:
    """Sort key of ContactPersonIndex: links group by relationship, then sort by start day."""
    return f"{relationship}#{start.isoformat()}"


def day_to_epoch(day: date) -> int:
    """The seed's *TimestampUTC: epoch seconds at 00:00 UTC of the day."""
    return timegm(day.timetuple())


def epoch_to_day(seconds: Decimal | int) -> date:
    return datetime.fromtimestamp(int(seconds), tz=UTC).date()


def person_item(person: models.Person) -> dict[str, Any]:
    return {**new_item(person.id, PERSON), "FirstName": person.first_name, "LastName": person.last_name}


def address_item(address: models.Address) -> dict[str, Any]:
    return {
        **new_item(address.id, ADDRESS),
        "StreetAddress": address.street_address,
        "City": address.city,
        "State": address.state,
        "ZipCode": address.zip_code,
    }


def link_item(link: models.Link) -> dict[str, Any]:
    item: dict[str, Any] = {
        **new_item(link.link_id, PERSON_ADDRESS),
        "PersonId": link.person_id,
        "AddressId": link.address_id,
        "Relationship": link.relationship,
        "StartTimestampUTC": day_to_epoch(link.start_date),
        "RelationshipStart": relationship_start(link.relationship, link.start_date),
    }
    if link.end_date is not None:
        item["EndTimestampUTC"] = day_to_epoch(link.end_date)
    return item


def person_from(item: dict[str, Any]) -> models.Person:
    return models.Person(id=item["Id"], first_name=item["FirstName"], last_name=item["LastName"])


def address_from(item: dict[str, Any]) -> models.Address:
    return models.Address(
        id=item["Id"],
        street_address=item["StreetAddress"],
        city=item["City"],
        state=item["State"],
        zip_code=item["ZipCode"],
    )


def link_from(item: dict[str, Any]) -> models.Link:
    end = item.get("EndTimestampUTC")
    return models.Link(
        link_id=item["Id"],
        person_id=item["PersonId"],
        address_id=item["AddressId"],
        relationship=item["Relationship"],
        start_date=epoch_to_day(item["StartTimestampUTC"]),
        end_date=None if end is None else epoch_to_day(end),
    )


# --- the repository ---------------------------------------------------------------------------------

class ContactRepository:
    def __init__(self, table_name: str):
        self._table_name = table_name

    @property
    def _table(self):
        return ddb.table(self._table_name)

    # writes

    def put_person(self, person: models.Person) -> None:
        """Create a person (the Id is new; the condition guards against a UUID collision)."""
        self._put_new(person_item(person))

    def put_address(self, address: models.Address) -> None:
        """Create an address."""
        self._put_new(address_item(address))

    def put_link(self, link: models.Link) -> None:
        """Link a person and an address, in one transaction with checks that both exist."""
        actions = [
            ("person", _exists_check(self._table_name, item_key(link.person_id, PERSON))),
            ("address", _exists_check(self._table_name, item_key(link.address_id, ADDRESS))),
            ("link", {
                "Put": {
                    "TableName": self._table_name,
                    "Item": link_item(link),
                    "ConditionExpression": "attribute_not_exists(Id)",
                }
            }),
        ]
        failed = ddb.transact_write(actions)
        if failed is None:
            return
        if failed.name == "person":
            raise NotFoundError(f"no person {link.person_id}", code="PERSON_NOT_FOUND") from failed.error
        if failed.name == "address":
            raise NotFoundError(f"no address {link.address_id}", code="ADDRESS_NOT_FOUND") from failed.error
        raise ConflictError("a link with this id exists", code="ALREADY_EXISTS") from failed.error

    def end_link(self, link_id: str, end: date) -> models.Link:
        """End a person-address link on a day. Repeating the same end day is a no-op (idempotent retry);
        a different end day on an ended link is a conflict, and so is an end before the stored start."""
        end_epoch = day_to_epoch(end)
        updated = ddb.update_or_refused(
            self._table,
            Key=item_key(link_id, PERSON_ADDRESS),
            UpdateExpression="SET EndTimestampUTC = :end",
            ConditionExpression=(
                Attr("Id").exists()
                & Attr("StartTimestampUTC").lte(end_epoch)
                & (Attr("EndTimestampUTC").not_exists() | Attr("EndTimestampUTC").eq(end_epoch))
            ),
            ExpressionAttributeValues={":end": end_epoch},
        )
        if not isinstance(updated, ddb.Refused):
            return link_from(updated)
        if not updated.item:
            raise NotFoundError(f"no person-address link {link_id}") from updated.error
        current = link_from(updated.item)
        if current.start_date > end:
            # The request is well formed; the stored link's start refuses it (no schema can state that): a 409.
            raise ConflictError(
                "endDate is before the link's startDate", code="END_BEFORE_START",
                details=[{"field": "body.endDate", "message": f"must be on or after {current.start_date}"}],
            ) from updated.error
        raise ConflictError(
            f"the link already ended on {current.end_date}", code="LINK_ALREADY_ENDED"
        ) from updated.error

    def _page(self, convert, limit: int, start_key: dict[str, Any] | None, **query: Any) -> Page:
        return read_page(self._table.query, convert, limit=limit, start_key=start_key, **query)

    def _put_new(self, item: dict[str, Any]) -> None:
        try:
            ddb.put_new(self._table, item, "attribute_not_exists(Id)")
        except ClientError as error:
            if ddb.error_code(error) == "ConditionalCheckFailedException":
                raise ConflictError(f"{item['Type']} {item['Id']} exists", code="ALREADY_EXISTS") from error
            raise

    # reads

    def get_person(self, person_id: str) -> models.Person | None:
        """Get a person by Id (GetItem)."""
        item = self._table.get_item(Key=item_key(person_id, PERSON)).get("Item")
        return None if item is None else person_from(item)

    def person(self, person_id: str) -> models.Person:
        """A person (`get_person`), or 404 PERSON_NOT_FOUND."""
        person = self.get_person(person_id)
        if person is None:
            raise NotFoundError(f"no person {person_id}", code="PERSON_NOT_FOUND")
        return person

    def items_with_id(self, item_id: str) -> list[dict[str, Any]]:
        """Any item(s) by Id: Query on the partition key (the seed's "retrieve any object by the Id")."""
        response = self._table.query(KeyConditionExpression=Key("Id").eq(item_id), Limit=100)
        return response.get("Items", [])

    def list_persons(self, *, limit: int, start_key: dict[str, Any] | None) -> Page:
        """All persons, by Id: Query each shard of ContactTypeShardIndex (`TypeShard = "Person#<n>" AND Id > :after`)
        and merge them (ADR 0110). The cursor's key is the last Id returned."""
        persons = ShardedIndex(TYPE_INDEX, TYPE_SHARD, type_shards(PERSON), "Id")
        page = merged_shards(self._table, persons, limit=limit, after=resume_after(start_key, "Id"))
        listed: list[Any] = [person_from(item) for item in page.items]
        return Page(items=listed, last_key=page.last_key)

    def list_persons_by_last_name(self, last_name: str, *, limit: int, start_key: dict[str, Any] | None) -> Page:
        """Persons by last name: Query ContactLastNameIndex on LastName (sorted by first name)."""
        return self._page(
            person_from, limit, start_key, IndexName=LAST_NAME_INDEX,
            KeyConditionExpression=Key("LastName").eq(last_name),
        )

    def list_links_of(
        self,
        person_id: str,
        *,
        relationship: str | None,
        on: date | None,
        limit: int,
        start_key: dict[str, Any] | None,
    ) -> Page:
        """A person's address links: history, or those in effect on a day, optionally of one relationship.

        Query ContactPersonIndex on PersonId. With a relationship and a day the key condition also bounds
        the start (`RelationshipStart` between "<rel>#" and "<rel>#<day>"), and the filter drops only this
        person's links that ended before the day: the read never touches another person's items.
        """
        key: ConditionBase = Key("PersonId").eq(person_id)
        filters: ConditionBase | None = None
        if relationship is not None and on is not None:
            key = key & Key("RelationshipStart").between(f"{relationship}#", relationship_start(relationship, on))
        elif relationship is not None:
            key = key & Key("RelationshipStart").begins_with(f"{relationship}#")
        elif on is not None:
            filters = Attr("StartTimestampUTC").lte(day_to_epoch(on))
        if on is not None:
            ended_before = Attr("EndTimestampUTC").not_exists() | Attr("EndTimestampUTC").gte(day_to_epoch(on))
            filters = ended_before if filters is None else filters & ended_before
        kwargs: dict[str, Any] = {"IndexName": PERSON_INDEX, "KeyConditionExpression": key}
        if filters is not None:
            kwargs["FilterExpression"] = filters
        return self._page(link_from, limit, start_key, **kwargs)

    def addresses_by_id(self, address_ids: list[str]) -> dict[str, models.Address]:
        """Addresses for a set of Ids in one BatchGetItem (chunked at 100)."""
        keys = [item_key(i, ADDRESS) for i in ddb.unique(address_ids)]
        return {item["Id"]: address_from(item) for item in ddb.batch_get(self._table_name, keys)}


# --- low-level helpers ------------------------------------------------------------------------------

def _exists_check(table_name: str, key: dict[str, str]) -> dict[str, Any]:
    return {"ConditionCheck": {"TableName": table_name, "Key": key, "ConditionExpression": "attribute_exists(Id)"}}

