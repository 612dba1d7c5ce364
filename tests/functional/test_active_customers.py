"""Customer.isActive, kept by the Registration stream consumer, on moto: records read back from the table's
real (KEYS_ONLY) stream and handed to the consumer as Lambda's event source mapping would, in batches that are
redelivered, duplicated, reordered and late."""

from __future__ import annotations

import itertools

import pytest
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from functions.connected_car import active_customers, api
from functions.connected_car.models import Vehicle
from functions.connected_car.repository import ConnectedCarRepository
from functions.connected_car.schema import (
    ACTIVE_CUSTOMER_INDEX,
    ACTIVE_SHARD,
    ACTIVE_SHARDS,
    CUSTOMER_TABLE,
    REGISTRATION_TABLE,
    RETIRED_ACTIVE_FLAG,
    VEHICLE_TABLE,
    active_shard_of,
    active_shards,
)
from functions.shared import ddb, parked
from tests.functional.conftest import LambdaContext
from tests.functional.connected_car_support import (  # noqa: F401 (client, tables: shared fixtures)
    ADMIN,
    PREFIX,
    VIN,
    VIN2,
    VIN3,
    VIN4,
    client,
    connected_car_client,
    deliver,
    make_tables,
    raw_item,
    registration_stream,
    table_items,
    tables,
    username_of,
)
from tests.functional.parked_support import (
    REPLAY,
    assert_parked,
    consumers,
    parked_items,
)

NO_FAILURES = {"batchItemFailures": []}


@pytest.fixture
def people(client):
    """Customers alice, bob and carol; vehicles VIN, VIN2, VIN3; no registration yet."""
    for user in ("alice", "bob", "carol"):
        add_customer(client, user)
    for vin in (VIN, VIN2, VIN3):
        add_vehicle(client, vin)
    return client


@pytest.fixture
def stream(tables):
    return registration_stream()


def add_customer(client, user: str) -> None:
    reply = client.call("PUT", f"{PREFIX}/customers/{user}", body={"name": user.title(), "email": f"{user}@example.com"}, user=user)
    assert reply.status == 200, reply.body


def add_vehicle(client, vin: str) -> None:
    reply = client.call("PUT", f"{PREFIX}/vehicles/{vin}", body={"make": "Honda", "model": "Accord", "year": 2003}, groups=ADMIN)
    assert reply.status == 200, reply.body


def register(client, user: str, vin: str, status: str) -> None:
    reply = client.call("PUT", f"{PREFIX}/customers/{user}/registrations/{vin}", body={"statusCode": status}, user=user)
    assert reply.status == 200, reply.body


def state(tables, user: str) -> tuple[bool, bool]:
    """(isActive, in the sparse index) as stored: in it means under the customer's own shard."""
    item = raw_item(tables[CUSTOMER_TABLE.env_var], {"username": user})
    assert item.get(ACTIVE_SHARD) in (None, active_shard_of(user)) and RETIRED_ACTIVE_FLAG not in item
    return item["isActive"], ACTIVE_SHARD in item


def active_list(client) -> list[str]:
    reply = client.call("GET", f"{PREFIX}/customers?active=true", user="root", groups=ADMIN)
    assert reply.status == 200, reply.body
    assert reply.body["nextCursor"] is None
    return [customer["username"] for customer in reply.body["items"]]


def truth(tables) -> dict[str, bool]:
    """Who has an active registration, from the Registration table itself."""
    customers = {item["username"]: False for item in table_items(tables[CUSTOMER_TABLE.env_var])}
    for registration in table_items(tables[REGISTRATION_TABLE.env_var]):
        customers[registration["username"]] |= registration["statusCode"] == "active"
    return customers


def customer_updates(calls, tables) -> list[tuple[str, bool, str | None]]:
    """The consumer's writes to Customer: (username, isActive written, error code or None)."""
    return [
        (
            params["Key"]["username"]["S"],
            params["ExpressionAttributeValues"][":active"]["BOOL"],
            response.get("Error", {}).get("Code"),
        )
        for params, response in calls.of("UpdateItem")
        if params["TableName"] == tables[CUSTOMER_TABLE.env_var]
    ]


# --- following the registrations -----------------------------------------------------------------------

def test_activation_and_deactivation(people, tables, stream, calls):
    register(people, "alice", VIN, "active")
    assert state(tables, "alice") == (False, False)  # the consumer, not the API, sets it
    assert deliver(stream.new()) == NO_FAILURES
    assert state(tables, "alice") == (True, True)
    assert people.call("GET", f"{PREFIX}/customers/alice").body["isActive"] is True
    # editing the customer leaves isActive to the consumer
    edited = people.call("PUT", f"{PREFIX}/customers/alice", body={"name": "Alice L", "email": "al@example.com"}, user="alice")
    assert edited.body == {"username": "alice", "name": "Alice L", "email": "al@example.com", "isActive": True}
    assert state(tables, "alice") == (True, True)
    calls.clear()
    assert active_list(people) == ["alice"]
    # one Query per shard of the index, nothing else
    queries = [params for params, _ in calls.of("Query")]
    assert {(params["TableName"], params["IndexName"]) for params in queries} == {
        (tables[CUSTOMER_TABLE.env_var], ACTIVE_CUSTOMER_INDEX)}
    assert sorted(params["ExpressionAttributeValues"][":v0"]["S"] for params in queries) == active_shards()
    assert calls.names() == ["Query"] * ACTIVE_SHARDS

    # a registration write that leaves alice active writes her customer item's regVersion only: the index's entry is
    # not rewritten (regVersion is not projected) and the consumer writes nothing
    register(people, "alice", VIN, "active")
    calls.clear()
    assert deliver(stream.new()) == NO_FAILURES
    assert "UpdateItem" not in calls.names()

    register(people, "alice", VIN, "inactive")
    assert deliver(stream.new()) == NO_FAILURES
    assert state(tables, "alice") == (False, False)
    assert people.call("GET", f"{PREFIX}/customers/alice").body["isActive"] is False
    assert active_list(people) == []


def test_active_customers_list_is_the_index_and_pages(people, tables, stream):
    for user, vin in (("alice", VIN), ("bob", VIN2), ("carol", VIN3)):
        register(people, user, vin, "active")
    deliver(stream.new())
    # bob and carol share a shard, alice has her own: the list merges them in username order
    assert active_shard_of("bob") == active_shard_of("carol") != active_shard_of("alice")
    assert active_list(people) == ["alice", "bob", "carol"]
    first = people.call("GET", f"{PREFIX}/customers?active=true&limit=2", user="root", groups=ADMIN).body
    rest = people.call("GET", f"{PREFIX}/customers?active=true&limit=2&cursor={first['nextCursor']}", user="root", groups=ADMIN).body
    assert [c["username"] for c in first["items"]] == ["alice", "bob"]
    assert rest == {"items": [{"username": "carol", "name": "Carol", "email": "carol@example.com", "isActive": True}], "nextCursor": None}


def test_a_customer_stays_active_while_one_registration_is(people, tables, stream):
    register(people, "alice", VIN, "active")
    register(people, "alice", VIN2, "active")
    deliver(stream.new())
    assert state(tables, "alice") == (True, True)
    register(people, "alice", VIN, "inactive")
    deliver(stream.new())
    assert state(tables, "alice") == (True, True)
    assert active_list(people) == ["alice"]
    register(people, "alice", VIN2, "inactive")
    deliver(stream.new())
    assert state(tables, "alice") == (False, False)
    register(people, "alice", VIN, "active")
    deliver(stream.new())
    assert state(tables, "alice") == (True, True)


# --- redelivery, duplicates, order ---------------------------------------------------------------------

def test_redelivering_a_batch_changes_nothing(people, tables, stream, calls):
    register(people, "alice", VIN, "active")
    register(people, "bob", VIN2, "inactive")
    batch = stream.new()
    assert deliver(batch) == NO_FAILURES
    assert customer_updates(calls, tables) == [("alice", True, None)]  # bob was already inactive
    calls.clear()
    assert deliver(batch + batch[::-1]) == NO_FAILURES
    assert customer_updates(calls, tables) == []
    assert (state(tables, "alice"), state(tables, "bob")) == ((True, True), (False, False))


def test_a_customer_is_synced_once_per_batch(people, tables, stream, calls):
    for status in ("active", "inactive", "active"):
        register(people, "alice", VIN, status)
    register(people, "bob", VIN2, "active")
    batch = stream.new()
    assert [username_of(r) for r in batch] == ["alice"] * 3 + ["bob"]
    calls.clear()
    assert deliver(batch) == NO_FAILURES
    customer_reads = [params["Key"]["username"]["S"] for params, _ in calls.of("GetItem")]
    assert customer_reads == ["alice", "bob"]  # the later alice records find her already synced
    assert (state(tables, "alice"), state(tables, "bob")) == ((True, True), (True, True))


def test_a_stale_record_processed_after_newer_writes_yields_the_truth(people, tables, stream):
    register(people, "alice", VIN, "active")
    activated = stream.new()
    register(people, "alice", VIN, "inactive")
    deactivated = stream.new()
    # the newer record first (another shard, or a retry), then the stale one
    deliver(deactivated)
    assert state(tables, "alice") == (False, False)
    deliver(activated)
    assert state(tables, "alice") == (False, False)
    # and the other way round
    register(people, "alice", VIN2, "active")
    newest = stream.new()
    deliver(newest)
    deliver(activated + deactivated)
    assert state(tables, "alice") == (True, True)


def test_the_record_content_is_not_trusted(people, tables, stream):
    register(people, "alice", VIN, "active")
    deliver(stream.new())
    # A REMOVE of a registration alice never had, and a record for someone who is no customer: recomputed, not obeyed.
    (record,) = [r for r in stream.all() if username_of(r) == "alice"][:1]
    forged = {**record, "eventID": "forged", "eventName": "REMOVE",
              "dynamodb": {**record["dynamodb"], "Keys": {"username": {"S": "alice"}, "vin": {"S": VIN3}}, "SequenceNumber": "9" * 21}}
    stranger = {**record, "eventID": "stranger",
                "dynamodb": {**record["dynamodb"], "Keys": {"username": {"S": "mallory"}, "vin": {"S": VIN}}, "SequenceNumber": "9" * 22}}
    assert deliver([forged, stranger]) == NO_FAILURES
    assert state(tables, "alice") == (True, True)
    assert raw_item(tables[CUSTOMER_TABLE.env_var], {"username": "mallory"}) is None
    # mallory's record can never apply while she is no customer: parked, not obeyed and not lost
    (parked,) = parked_items(active_customers.CONSUMER)
    assert_parked(parked, active_customers.CONSUMER, stranger, "PermanentRecordError", "pending")


# --- the race guard ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("stored", "now", "racing"), [(False, "active", "inactive"), (True, "inactive", "active")])
def test_a_registration_written_while_the_consumer_computes_is_not_overwritten(
    people, tables, stream, calls, monkeypatch, stored, now, racing
):
    if stored:
        register(people, "alice", VIN, "active")
        deliver(stream.new())
    assert state(tables, "alice") == (stored, stored)
    register(people, "alice", VIN, now)
    records = stream.new()
    real = ConnectedCarRepository.has_active_registration
    raced: list[str] = []

    def read_then_race(self, username: str) -> bool:
        answer = real(self, username)  # what the registrations say now...
        if not raced:
            raced.append(username)
            register(people, username, VIN, racing)  # ...but a registration write lands before the consumer writes,
            assert active_customers.sync_customer(username) == "unchanged"  # and its record is processed on another shard.
        return answer  # now stale

    monkeypatch.setattr(ConnectedCarRepository, "has_active_registration", read_then_race)
    calls.clear()
    assert deliver(records) == NO_FAILURES
    assert raced == ["alice"]
    # the consumer tried to write the stale answer, DynamoDB refused it (regVersion moved), it read again
    assert customer_updates(calls, tables) == [("alice", now == "active", "ConditionalCheckFailedException")]
    assert truth(tables)["alice"] is stored
    assert state(tables, "alice") == (stored, stored)


def test_registrations_that_keep_changing_fail_the_record_and_write_nothing_stale(people, tables, stream, calls, monkeypatch):
    register(people, "alice", VIN, "active")
    register(people, "bob", VIN2, "active")
    records = stream.new()
    real = ConnectedCarRepository.has_active_registration
    other = itertools.cycle(["inactive", "active"])

    def read_then_race(self, username: str) -> bool:
        answer = real(self, username)
        if username == "alice":  # her second registration changes on every attempt
            register(people, "alice", VIN3, next(other))
        return answer

    monkeypatch.setattr(ConnectedCarRepository, "has_active_registration", read_then_race)
    calls.clear()
    result = deliver(records)
    (alice_record,) = [r for r in records if username_of(r) == "alice"]
    assert result == {"batchItemFailures": [{"itemIdentifier": alice_record["dynamodb"]["SequenceNumber"]}]}
    alice_writes = [write for write in customer_updates(calls, tables) if write[0] == "alice"]
    assert alice_writes == [("alice", True, "ConditionalCheckFailedException")] * active_customers.MAX_ATTEMPTS
    assert state(tables, "alice") == (False, False)
    assert state(tables, "bob") == (True, True)
    # Lambda retries the record once the writes settle (their own records are on the way too)
    monkeypatch.setattr(ConnectedCarRepository, "has_active_registration", real)
    assert deliver([alice_record] + stream.new()) == NO_FAILURES
    assert state(tables, "alice") == (True, True)


# --- partial batch failures ----------------------------------------------------------------------------

def test_a_failing_record_is_reported_by_sequence_number_and_the_others_succeed(people, tables, stream, monkeypatch):
    for user, vin in (("alice", VIN), ("bob", VIN2), ("carol", VIN3)):
        register(people, user, vin, "active")
    records = stream.new()
    assert [username_of(r) for r in records] == ["alice", "bob", "carol"]
    real = ConnectedCarRepository.has_active_registration

    def throttled_for_bob(self, username: str) -> bool:
        if username == "bob":
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}}, "Query")
        return real(self, username)

    monkeypatch.setattr(ConnectedCarRepository, "has_active_registration", throttled_for_bob)
    result = deliver(records)
    assert result == {"batchItemFailures": [{"itemIdentifier": records[1]["dynamodb"]["SequenceNumber"]}]}
    assert [state(tables, u) for u in ("alice", "bob", "carol")] == [(True, True), (False, False), (True, True)]
    # Lambda resumes at the failed record: bob, and carol again (already done, so unchanged)
    monkeypatch.setattr(ConnectedCarRepository, "has_active_registration", real)
    assert deliver(records[1:]) == NO_FAILURES
    assert [state(tables, u) for u in ("alice", "bob", "carol")] == [(True, True)] * 3


# --- poison records: parked with their content, replayed once the cause is fixed --------------------------------

def register_around_the_api(tables, user: str, vin: str) -> None:
    """A registration the API would refuse (no such customer), written straight into the table."""
    ddb.table(tables[REGISTRATION_TABLE.env_var]).put_item(
        Item={"username": user, "vin": vin, "statusCode": "active", "createdAt": "2026-11-22T12:00:00+00:00",
              "updatedAt": "2026-11-22T12:00:00+00:00"}
    )


def parked_registrations() -> list[dict]:
    return parked_items(active_customers.CONSUMER)


def test_a_registration_of_a_missing_customer_in_the_middle_is_parked_the_others_sync_and_a_replay_after_the_fix_applies_it(
    people, tables, stream, calls
):
    # Given a batch with, in the middle, a registration of a customer who does not exist (written around the API)
    register(people, "alice", VIN, "active")
    register_around_the_api(tables, "ghost", VIN4)
    register(people, "bob", VIN2, "active")
    register(people, "carol", VIN3, "inactive")
    records = stream.new()
    assert [username_of(r) for r in records] == ["alice", "ghost", "bob", "carol"]

    # When Lambda delivers it
    assert deliver(records) == NO_FAILURES

    # Then every other customer is synced, and ghost's record is parked, whole, with the error
    assert [state(tables, u) for u in ("alice", "bob", "carol")] == [(True, True), (True, True), (False, False)]
    (item,) = parked_registrations()
    assert_parked(item, active_customers.CONSUMER, records[1], "PermanentRecordError", "pending")
    assert "ghost" in item["errorMessage"]
    assert consumers() == [active_customers.CONSUMER]

    # When the batch is delivered again: no customer write, ghost parked once
    calls.clear()
    assert deliver(records) == NO_FAILURES
    assert customer_updates(calls, tables) == []
    assert parked_registrations() == [item]

    # When an operator replays before the customer exists: still failing, still pending
    before_fix = deliver_replay()
    assert (before_fix["replayed"], before_fix["stillFailing"]) == (0, 1)
    assert [i["status"] for i in parked_registrations()] == ["pending"]
    assert raw_item(tables[CUSTOMER_TABLE.env_var], {"username": "ghost"}) is None

    # When the operator creates the customer (PUT /connected-car/customers/ghost) and replays
    add_customer(people, "ghost")
    assert state(tables, "ghost") == (False, False)
    fixed = deliver_replay()

    # Then ghost's isActive is right, and the record is replayed once
    assert (fixed["replayed"], fixed["stillFailing"], fixed["next"]) == (1, 0, None)
    assert state(tables, "ghost") == (True, True)
    assert "ghost" in active_list(people)
    assert [i["status"] for i in parked_registrations()] == ["replayed"]
    assert deliver_replay()["replayed"] == 0
    assert deliver(records) == NO_FAILURES  # a late redelivery: nothing parked again, nothing changes
    assert [i["status"] for i in parked_registrations()] == ["replayed"]
    assert [state(tables, u) for u in ("alice", "ghost", "bob", "carol")] == [(True, True)] * 3 + [(False, False)]


def test_a_record_without_a_username_is_parked_and_the_rest_of_the_batch_goes_on(people, tables, stream):
    register(people, "alice", VIN, "active")
    register(people, "bob", VIN2, "active")
    alice, bob = stream.new()
    keyless = {**alice, "eventID": "keyless",
               "dynamodb": {**alice["dynamodb"], "Keys": {"vin": {"S": VIN3}}, "SequenceNumber": "9" * 21}}
    assert deliver([alice, keyless, bob]) == NO_FAILURES
    assert (state(tables, "alice"), state(tables, "bob")) == ((True, True), (True, True))
    (item,) = parked_registrations()
    assert_parked(item, active_customers.CONSUMER, keyless, "PermanentRecordError", "pending")
    assert deliver_replay()["stillFailing"] == 1  # nothing an operator can fix makes it a Registration change


def test_a_poison_record_that_cannot_be_parked_now_is_reported_for_a_retry(people, tables, stream, monkeypatch):
    register(people, "alice", VIN, "active")
    register_around_the_api(tables, "ghost", VIN4)
    register(people, "bob", VIN2, "active")
    records = stream.new()

    def throttled(self, record, error, now=None):
        raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "slow down"}},
                          "PutItem")

    real_park = parked.ParkedRecords.park
    monkeypatch.setattr(parked.ParkedRecords, "park", throttled)
    result = deliver(records)
    assert result == {"batchItemFailures": [{"itemIdentifier": records[1]["dynamodb"]["SequenceNumber"]}]}
    assert parked_registrations() == []
    monkeypatch.setattr(parked.ParkedRecords, "park", real_park)  # Lambda's retry from the reported record parks it
    assert deliver(records[1:]) == NO_FAILURES
    assert [username_of(i["record"]) for i in parked_registrations()] == ["ghost"]
    assert (state(tables, "alice"), state(tables, "bob")) == ((True, True), (True, True))


def deliver_replay() -> dict:
    """The operator's replay, as `make replay` invokes the deployed function."""
    return active_customers.lambda_handler(REPLAY, LambdaContext())


# --- convergence under any delivery --------------------------------------------------------------------

USERS = ["ann", "ben", "cat", "dan"]
VINS = [VIN, VIN2, VIN3, VIN4]
examples = itertools.count()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_isactive_converges_to_the_registrations_whatever_the_delivery(tables, monkeypatch, data):
    # Fresh Customer, Vehicle and Registration tables (and so a fresh stream) for every example.
    fresh = make_tables(monkeypatch, f"pbt{next(examples)}", (CUSTOMER_TABLE, VEHICLE_TABLE, REGISTRATION_TABLE))
    client = connected_car_client()
    stream = registration_stream()
    users = USERS[: data.draw(st.integers(3, 4), label="customers")]
    vins = VINS[: data.draw(st.integers(3, 4), label="vehicles")]
    for user in users:  # as the API writes them (tested elsewhere)
        api.service().repository.put_customer(user, user.title(), f"{user}@example.com")
    for vin in vins:
        api.service().repository.put_vehicle(Vehicle(vin=vin, make="Honda", model="Accord", year=2003))

    statuses: dict[tuple[str, str], str] = {}  # what has been written, to know the truth between deliveries
    for _ in range(data.draw(st.integers(1, 8), label="steps")):
        if not statuses or data.draw(st.booleans(), label="write?"):
            user = data.draw(st.sampled_from(users), label="user")
            vin = data.draw(st.sampled_from(vins), label="vin")
            status = data.draw(st.sampled_from(["active", "inactive"]), label="status")
            held_by_other = any(s == "active" and v == vin and u != user for (u, v), s in statuses.items())
            if status == "active" and held_by_other:  # one active registration per vehicle
                reply = client.call("PUT", f"{PREFIX}/customers/{user}/registrations/{vin}",
                                    body={"statusCode": status}, user=user)
                assert (reply.status, reply.body["error"]["code"]) == (409, "VEHICLE_ALREADY_REGISTERED")
                continue
            statuses[user, vin] = status
            register(client, user, vin, status)
        else:
            # any records so far: a redelivery, duplicates, any order, stale ones late
            batch = data.draw(st.lists(st.sampled_from(stream.all()), min_size=1, max_size=4), label="batch")
            assert deliver(batch) == NO_FAILURES
            for user in {username_of(r) for r in batch}:  # a customer just synced shows the truth of now
                active = any(status == "active" for (u, _), status in statuses.items() if u == user)
                assert state(fresh, user) == (active, active), user

    # Finally everything is delivered (again), shuffled, in random batches.
    final = data.draw(st.permutations(stream.all()), label="final order")
    cuts = sorted(data.draw(st.lists(st.integers(0, len(final)), max_size=4), label="cuts"))
    for start, end in zip([0, *cuts], [*cuts, len(final)]):
        if final[start:end]:
            assert deliver(final[start:end]) == NO_FAILURES
    expected = truth(fresh)
    assert expected == {user: any(s == "active" for (u, _), s in statuses.items() if u == user) for user in users}
    assert {user: state(fresh, user) for user in users} == {user: (expected[user], expected[user]) for user in users}
    assert active_list(client) == sorted(user for user in users if expected[user])
