"""Contact API: handler → service → repository on moto, fed API Gateway REST events."""

from __future__ import annotations

import boto3
import pytest

from functions.contacts import api
from functions.contacts.schema import CONTACT_TABLE, PERSON, PERSON_INDEX, TYPE_INDEX, TYPE_SHARDS, type_shard
from seeds import contacts as seed
from tests.functional.conftest import Client, client_for, fresh_tables

ADMIN = ("admin",)


table_name = fresh_tables(api, CONTACT_TABLE, name="table_name")  # the table's name
client = client_for(api, "table_name")


@pytest.fixture
def seeded(client, table_name) -> Client:
    seed.load({CONTACT_TABLE.env_var: table_name})
    return client


def count_items(table_name: str) -> int:
    return len(boto3.client("dynamodb").scan(TableName=table_name)["Items"])  # test-side check only


def streets(reply) -> list[str]:
    return [item["address"]["streetAddress"] for item in reply.body["items"]]


# --- the seed's own questions ----------------------------------------------------------------------

def test_where_bob_worked_on_2005_01_01(seeded):
    reply = seeded.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01")
    assert reply.status == 200
    assert streets(reply) == ["1850 Wazee Street"]
    assert reply.body["items"][0]["linkId"] == seed.BOB_WAZEE_LINK
    assert reply.body["items"][0]["endDate"] == "2010-12-31"


def test_where_bob_lives_now(seeded):
    reply = seeded.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Residential&current=true")
    assert reply.status == 200
    assert streets(reply) == ["1600 15th Street"]
    assert reply.body["items"][0]["address"] == {
        "id": seed.FIFTEENTH, "streetAddress": "1600 15th Street", "city": "Denver", "state": "CO", "zipCode": "80202",
    }


def test_all_persons_and_by_last_name(seeded):
    everyone = seeded.call("GET", "/contacts/persons")
    assert sorted(p["firstName"] for p in everyone.body["items"]) == ["Bob", "Joe", "Sally"]
    assert everyone.body["nextCursor"] is None
    smiths = seeded.call("GET", "/contacts/persons?lastName=Smith")
    assert smiths.body["items"] == [{"id": seed.BOB, "firstName": "Bob", "lastName": "Smith"}]


def test_any_item_by_id(seeded):
    reply = seeded.call("GET", f"/contacts/items/{seed.BOB}")
    assert reply.body == {"items": [{"type": "Person", "id": seed.BOB, "firstName": "Bob", "lastName": "Smith"}]}
    link = seeded.call("GET", f"/contacts/items/{seed.BOB_WAZEE_LINK}").body["items"][0]
    assert link["type"] == "PersonAddress" and link["startDate"] == "2000-01-01" and link["addressId"] == seed.WAZEE


def test_day_bounds_are_inclusive(seeded):
    # Joe worked at Wazee through 2009-12-31 and at Logan from 2010-01-01.
    last_day = seeded.call("GET", f"/contacts/persons/{seed.JOE}/addresses?relationship=Business&on=2009-12-31")
    first_day = seeded.call("GET", f"/contacts/persons/{seed.JOE}/addresses?relationship=Business&on=2010-01-01")
    assert streets(last_day) == ["1850 Wazee Street"]
    assert streets(first_day) == ["4050 Logan Street"]


def test_all_relationships_on_a_day_and_history(seeded):
    on_day = seeded.call("GET", f"/contacts/persons/{seed.SALLY}/addresses?on=2010-06-01")
    assert sorted(streets(on_day)) == ["1850 Wazee Street", "2000 21st Street"]
    before_anything = seeded.call("GET", f"/contacts/persons/{seed.SALLY}/addresses?on=2004-12-31")
    assert before_anything.status == 200 and before_anything.body["items"] == []
    history = seeded.call("GET", f"/contacts/persons/{seed.BOB}/addresses")
    assert sorted(streets(history)) == ["1420 Stout Street", "1600 15th Street", "1850 Wazee Street"]


# --- reads are key-based and do not grow with the table ---------------------------------------------

def test_address_lookup_reads_only_that_persons_links(seeded, table_name, calls):
    # Given many other people with many links each
    for n in range(40):
        person = seeded.call("POST", "/contacts/persons", body={"firstName": f"P{n}", "lastName": "Other"}, groups=ADMIN)
        for year in range(2000, 2005):
            seeded.call(
                "POST", f"/contacts/persons/{person.body['id']}/addresses", groups=ADMIN,
                body={"addressId": seed.WAZEE, "relationship": "Business", "startDate": f"{year}-01-01",
                      "endDate": f"{year}-12-31"},
            )
    calls.clear()
    # When Bob's business address on a day is asked for
    reply = seeded.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01")
    # Then only key-based operations ran, and the query read Bob's business links only
    assert streets(reply) == ["1850 Wazee Street"]
    operations = calls.names()
    assert set(operations) <= {"Query", "GetItem", "BatchGetItem"}
    queries = calls.of("Query")
    assert len(queries) == 1
    params, response = queries[0]
    assert params["IndexName"] == PERSON_INDEX
    assert response["ScannedCount"] == 1  # Stout started after the day: the key condition excluded it


def test_no_read_route_scans(seeded, calls):
    for url in (
        "/contacts/persons", "/contacts/persons?lastName=Smith", f"/contacts/items/{seed.BOB}",
        f"/contacts/persons/{seed.BOB}/addresses", f"/contacts/persons/{seed.BOB}/addresses?current=true",
    ):
        assert seeded.call("GET", url).status == 200
    assert set(calls.names()) <= {"Query", "GetItem", "BatchGetItem"}


# --- writes ------------------------------------------------------------------------------------------

def test_admin_creates_person_address_and_link(client, table_name):
    person = client.call("POST", "/contacts/persons", body={"firstName": " Ada ", "lastName": "Lovelace"}, groups=ADMIN)
    assert person.status == 201
    assert person.body["firstName"] == "Ada" and person.body["lastName"] == "Lovelace"
    address = client.call(
        "POST", "/contacts/addresses", groups=ADMIN,
        body={"streetAddress": "12 St James's Square", "city": "London", "state": "LDN", "zipCode": "SW1Y 4JH"},
    )
    assert address.status == 201
    link = client.call(
        "POST", f"/contacts/persons/{person.body['id']}/addresses", groups=ADMIN,
        body={"addressId": address.body["id"], "relationship": "Residential", "startDate": "1835-07-08"},
    )
    assert link.status == 201
    assert link.body == {
        "linkId": link.body["linkId"], "personId": person.body["id"], "addressId": address.body["id"],
        "relationship": "Residential", "startDate": "1835-07-08", "endDate": None,
    }
    history = client.call("GET", f"/contacts/persons/{person.body['id']}/addresses?on=1840-01-01")
    assert streets(history) == ["12 St James's Square"]


def test_link_to_unknown_person_or_address_is_404_and_writes_nothing(seeded, table_name):
    before = count_items(table_name)
    no_person = seeded.call(
        "POST", "/contacts/persons/nobody/addresses", groups=ADMIN,
        body={"addressId": seed.WAZEE, "relationship": "Business", "startDate": "2020-01-01"},
    )
    no_address = seeded.call(
        "POST", f"/contacts/persons/{seed.BOB}/addresses", groups=ADMIN,
        body={"addressId": "nowhere", "relationship": "Business", "startDate": "2020-01-01"},
    )
    assert (no_person.status, no_person.body["error"]["code"]) == (404, "PERSON_NOT_FOUND")
    assert (no_address.status, no_address.body["error"]["code"]) == (404, "ADDRESS_NOT_FOUND")
    assert count_items(table_name) == before


def test_end_link_is_idempotent_and_guarded(seeded):
    url = f"/contacts/person-addresses/{seed.BOB_HOME_LINK}"
    first = seeded.call("PATCH", url, body={"endDate": "2024-06-30"}, groups=ADMIN)
    assert first.status == 200 and first.body["endDate"] == "2024-06-30"
    again = seeded.call("PATCH", url, body={"endDate": "2024-06-30"}, groups=ADMIN)
    assert again.status == 200 and again.body == first.body
    other = seeded.call("PATCH", url, body={"endDate": "2024-07-31"}, groups=ADMIN)
    assert (other.status, other.body["error"]["code"]) == (409, "LINK_ALREADY_ENDED")
    assert seeded.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Residential&current=true").body["items"] == []


def test_end_link_before_start_or_unknown(seeded):
    early = seeded.call("PATCH", f"/contacts/person-addresses/{seed.BOB_HOME_LINK}", body={"endDate": "1999-12-31"}, groups=ADMIN)
    assert (early.status, early.body["error"]["code"]) == (409, "END_BEFORE_START")
    assert early.body["error"]["details"][0]["field"] == "body.endDate"
    missing = seeded.call("PATCH", "/contacts/person-addresses/nope", body={"endDate": "2020-01-01"}, groups=ADMIN)
    assert missing.status == 404


# --- auth ----------------------------------------------------------------------------------------------

def test_writes_need_admin_and_write_nothing_otherwise(client, table_name):
    reply = client.call("POST", "/contacts/persons", body={"firstName": "Eve", "lastName": "Hacker"}, groups=("staff",))
    assert (reply.status, reply.body["error"]["code"]) == (403, "FORBIDDEN")
    assert count_items(table_name) == 0


def test_reads_need_a_signed_in_caller(client):
    reply = client.call("GET", "/contacts/persons", user=None)
    assert (reply.status, reply.body["error"]["code"]) == (401, "UNAUTHORIZED")


# --- bad input -----------------------------------------------------------------------------------------

def test_malformed_json_is_400(client):
    reply = client.call("POST", "/contacts/persons", raw_body='{"firstName": "Bob",', groups=ADMIN)
    assert (reply.status, reply.body["error"]["code"]) == (400, "MALFORMED_JSON")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"firstName": "Bob"}, "body.lastName"),
        ({"firstName": "", "lastName": "Smith"}, "body.firstName"),
        ({"firstName": "Bob", "lastName": "Smith", "age": 3}, "body.age"),
        ({"firstName": "Bob", "lastName": "x" * 101}, "body.lastName"),
    ],
)
def test_invalid_person_names_the_field(client, table_name, body, field):
    reply = client.call("POST", "/contacts/persons", body=body, groups=ADMIN)
    assert reply.status == 400
    assert field in [d["field"] for d in reply.body["error"]["details"]]
    assert count_items(table_name) == 0


@pytest.mark.parametrize(
    "body",
    [
        {"addressId": "a", "relationship": "Holiday", "startDate": "2020-01-01"},
        {"addressId": "a", "relationship": "Business", "startDate": "01/01/2020"},
        {"addressId": "a", "relationship": "Business", "startDate": 1577836800},
        {"addressId": "a", "relationship": "Business", "startDate": "2020-02-30"},
        {"addressId": "a", "relationship": "Business", "startDate": "2020-01-02", "endDate": "2020-01-01"},
    ],
)
def test_invalid_link_is_400(seeded, body):
    reply = seeded.call("POST", f"/contacts/persons/{seed.BOB}/addresses", body=body, groups=ADMIN)
    assert reply.status == 400, reply.body
    assert reply.body["error"]["code"] == "VALIDATION_FAILED"
    if body.get("endDate"):  # a reversed period names both of its fields, as a reversed range does
        assert [d["field"] for d in reply.body["error"]["details"]] == ["body.startDate", "body.endDate"]


@pytest.mark.parametrize(
    "query",
    ["on=2020-13-01", "on=yesterday", "relationship=Holiday", "limit=0", "limit=101"],
)
def test_invalid_address_query_is_400(seeded, query):
    reply = seeded.call("GET", f"/contacts/persons/{seed.BOB}/addresses?{query}")
    assert reply.status == 400, reply.body


def test_on_names_the_day_even_with_current(seeded):
    url = f"/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01"
    assert seeded.call("GET", url + "&current=true").body == seeded.call("GET", url).body


def test_unknown_person_addresses_is_404(seeded):
    reply = seeded.call("GET", "/contacts/persons/nobody/addresses")
    assert (reply.status, reply.body["error"]["code"]) == (404, "PERSON_NOT_FOUND")


def test_unknown_item_is_404(client):
    assert client.call("GET", "/contacts/items/nothing-here").status == 404


def test_oversized_body_is_413(client, table_name):
    reply = client.call("POST", "/contacts/persons", raw_body='{"firstName": "' + "x" * 70_000 + '"}', groups=ADMIN)
    assert (reply.status, reply.body["error"]["code"]) == (413, "PAYLOAD_TOO_LARGE")


def test_a_database_outage_is_503_service_unavailable(client, monkeypatch):
    from botocore.exceptions import ClientError

    from functions.contacts.repository import ContactRepository

    def unavailable(self, **kwargs):
        raise ClientError({"Error": {"Code": "InternalServerError", "Message": "down"}}, "Query")

    monkeypatch.setattr(ContactRepository, "list_persons", unavailable)
    reply = client.call("GET", "/contacts/persons")
    assert (reply.status, reply.body["error"]["code"]) == (503, "SERVICE_UNAVAILABLE")


# --- pagination ----------------------------------------------------------------------------------------

def test_pages_cover_every_person_once(client):
    created = {
        client.call("POST", "/contacts/persons", body={"firstName": f"F{n}", "lastName": "Page"}, groups=ADMIN).body["id"]
        for n in range(7)
    }
    seen: list[str] = []
    url = "/contacts/persons?lastName=Page&limit=3"
    cursor = None
    pages = 0
    while True:
        reply = client.call("GET", url + (f"&cursor={cursor}" if cursor else ""))
        assert reply.status == 200
        assert len(reply.body["items"]) <= 3
        seen += [p["id"] for p in reply.body["items"]]
        pages += 1
        cursor = reply.body["nextCursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(created) and len(seen) == len(set(seen))
    assert pages == 3


def test_cursor_is_bound_to_its_list_and_signed(client):
    for n in range(3):
        client.call("POST", "/contacts/persons", body={"firstName": f"F{n}", "lastName": "Smith"}, groups=ADMIN)
    cursor = client.call("GET", "/contacts/persons?lastName=Smith&limit=1").body["nextCursor"]
    assert cursor
    foreign = client.call("GET", f"/contacts/persons?lastName=Wilson&cursor={cursor}")
    assert (foreign.status, foreign.body["error"]["code"]) == (400, "INVALID_CURSOR")
    body, _, signature = cursor.partition(".")
    tampered = client.call("GET", f"/contacts/persons?lastName=Smith&cursor={body[:-2]}AA.{signature}")
    assert (tampered.status, tampered.body["error"]["code"]) == (400, "INVALID_CURSOR")
    garbage = client.call("GET", "/contacts/persons?lastName=Smith&cursor=not-a-cursor")
    assert garbage.status == 400


def test_address_history_pages_with_filter(seeded):
    # Bob has 3 links; on 2012-01-01 two are in effect (Stout, 15th). Pages of 1 must still yield both.
    url = f"/contacts/persons/{seed.BOB}/addresses?on=2012-01-01&limit=1"
    first = seeded.call("GET", url)
    assert len(first.body["items"]) == 1 and first.body["nextCursor"]
    rest = seeded.call("GET", url + f"&cursor={first.body['nextCursor']}")
    got = streets(first) + streets(rest)
    while rest.body["nextCursor"]:
        rest = seeded.call("GET", url + f"&cursor={rest.body['nextCursor']}")
        got += streets(rest)
    assert sorted(got) == ["1420 Stout Street", "1600 15th Street"]


def test_body_without_content_type_is_read_as_json(client, table_name):
    from tests.functional.conftest import LambdaContext
    from tests.support.events import claims_for, rest_event

    event = rest_event("POST", "/contacts/persons", resource="/contacts/persons",
                       body={"firstName": "Ada", "lastName": "Lovelace"}, claims=claims_for("root", ADMIN))
    event["headers"].pop("Content-Type")
    event["multiValueHeaders"].pop("Content-Type")
    assert api.lambda_handler(event, LambdaContext())["statusCode"] == 201


def test_form_body_is_415_and_writes_nothing(client, table_name):
    from tests.functional.conftest import LambdaContext
    from tests.support.events import claims_for, rest_event

    event = rest_event("POST", "/contacts/persons", resource="/contacts/persons",
                       raw_body="firstName=Ada&lastName=Lovelace", claims=claims_for("root", ADMIN))
    event["headers"]["Content-Type"] = "application/x-www-form-urlencoded"
    response = api.lambda_handler(event, LambdaContext())
    assert response["statusCode"] == 415
    assert count_items(table_name) == 0


# --- idempotent retries ----------------------------------------------------------------------------------

def persons_named(client, last_name: str) -> list[dict]:
    return client.call("GET", f"/contacts/persons?lastName={last_name}").body["items"]


def test_retry_with_the_same_idempotency_key_creates_once(client):
    key = {"Idempotency-Key": "create-ada-1"}
    first = client.call("POST", "/contacts/persons", body={"firstName": "Ada", "lastName": "Retry"}, groups=ADMIN, headers=key)
    again = client.call("POST", "/contacts/persons", body={"firstName": "Ada", "lastName": "Retry"}, groups=ADMIN, headers=key)
    assert first.status == again.status == 201
    assert again.body == first.body
    assert [p["id"] for p in persons_named(client, "Retry")] == [first.body["id"]]


def test_without_a_key_every_post_creates(client):
    for _ in range(2):
        client.call("POST", "/contacts/persons", body={"firstName": "Ada", "lastName": "NoKey"}, groups=ADMIN)
    assert len(persons_named(client, "NoKey")) == 2


def test_same_key_with_another_body_is_409_and_creates_nothing(client):
    key = {"Idempotency-Key": "k-2"}
    client.call("POST", "/contacts/persons", body={"firstName": "Ada", "lastName": "Reuse"}, groups=ADMIN, headers=key)
    other = client.call("POST", "/contacts/persons", body={"firstName": "Bob", "lastName": "Reuse"}, groups=ADMIN, headers=key)
    assert (other.status, other.body["error"]["code"]) == (409, "IDEMPOTENCY_KEY_REUSED")
    assert [p["firstName"] for p in persons_named(client, "Reuse")] == ["Ada"]


def test_keys_belong_to_their_caller(client):
    key = {"Idempotency-Key": "shared-key"}
    a = client.call("POST", "/contacts/persons", body={"firstName": "A", "lastName": "Callers"}, user="root", groups=ADMIN, headers=key)
    b = client.call("POST", "/contacts/persons", body={"firstName": "A", "lastName": "Callers"}, user="ops", groups=ADMIN, headers=key)
    assert a.body["id"] != b.body["id"]


def test_a_failed_attempt_is_not_remembered(seeded):
    # Given a link attempt that fails because the address does not exist
    key = {"Idempotency-Key": "link-1"}
    body = {"addressId": seed.WAZEE, "relationship": "Business", "startDate": "2030-01-01"}
    failed = seeded.call("POST", "/contacts/persons/nobody/addresses", body=body, groups=ADMIN, headers=key)
    assert failed.status == 404
    # When the same key is used for a request that can succeed, it runs (a failure was not cached)
    ok = seeded.call("POST", f"/contacts/persons/{seed.BOB}/addresses", body=body, groups=ADMIN, headers=key)
    assert ok.status == 201
    retry = seeded.call("POST", f"/contacts/persons/{seed.BOB}/addresses", body=body, groups=ADMIN, headers=key)
    assert retry.body == ok.body


def test_idempotency_key_is_validated(client):
    reply = client.call("POST", "/contacts/persons", body={"firstName": "A", "lastName": "B"}, groups=ADMIN,
                        headers={"Idempotency-Key": "x" * 200})
    assert reply.status == 400 and "header.idempotency-key" in [d["field"].lower() for d in reply.body["error"]["details"]]


@pytest.mark.parametrize("limit", [1, 2, 3, 5, 13, 100])
def test_all_persons_come_in_id_order_over_every_shard_of_the_type_index(client, calls, limit):
    # Given 13 persons, spread by their (random) ids over the type index's shards
    created = sorted(
        client.call("POST", "/contacts/persons", body={"firstName": f"F{n}", "lastName": "Shard"}, groups=ADMIN).body["id"]
        for n in range(13))
    assert len({type_shard(PERSON, i) for i in created}) > 1
    seen: list[str] = []
    cursor = None
    while True:
        calls.clear()
        reply = client.call("GET", f"/contacts/persons?limit={limit}" + (f"&cursor={cursor}" if cursor else ""))
        assert reply.status == 200 and len(reply.body["items"]) <= limit
        # each page: one Query per shard of the sharded index, merged
        queries = [params for params, _ in calls.of("Query")]
        assert [q["IndexName"] for q in queries] == [TYPE_INDEX] * TYPE_SHARDS
        seen += [p["id"] for p in reply.body["items"]]
        cursor = reply.body["nextCursor"]
        if cursor is None:
            break
    # Then every person once, in Id order (the order the one-key index answered)
    assert seen == created


def test_a_cursor_of_the_single_type_index_still_resumes():
    # A page given before the upgrade ended at a LastEvaluatedKey of ContactTypeIndex: the merged list resumes there.
    from functions.contacts.repository import resume_after

    assert resume_after({"Type": "Person", "Id": "b"}, "Id") == "b"
    assert resume_after({"after": "c"}, "Id") == "c"
    assert resume_after(None, "Id") is None
