"""DynamoDB faults as a client meets them: throttling, 5xx and timeouts on reads, writes and transactions.

Faults are injected where moto answers: in front of moto's `before-send` handler, so a faulted request never
reaches the tables (as a throttled or refused request never reaches DynamoDB's), and botocore's standard retry
mode sees the fault exactly as it would see AWS's, retrying it (or not) by its own rules. A fault the SDK absorbs
never reaches the client; one that outlasts its attempts is a 429 or 503 with `Retry-After`, nothing is written,
and the same request with the same Idempotency-Key, once the fault is gone, completes once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from botocore.awsrequest import AWSResponse
from botocore.exceptions import ClientError, ConnectTimeoutError, ReadTimeoutError
from moto.core.botocore_stubber import BotocoreStubber, MockRawResponse

from functions.catalog.schema import DOCUMENTS_TABLE
from functions.contacts import api as contacts_api
from functions.contacts.schema import CONTACT_TABLE
from functions.shared import ddb
from functions.shared.idempotency import IDEMPOTENCY_TABLE
from functions.voting import api as voting_api
from functions.voting.schema import VOTES_TABLE
from tests.functional import catalog_support
from tests.functional.catalog_support import raw_document
from tests.functional.conftest import Client, fresh_service, make_table
from tests.functional.voting_support import make_tables

ADMIN = ("admin",)
# the Catalog's fixtures, for its append (the seed's album is product 2)
tables = catalog_support.tables
client = catalog_support.client
seeded = catalog_support.seeded
ATTEMPTS = ddb.CLIENT_CONFIG.retries["total_max_attempts"]
THROTTLE, UNAVAILABLE, READ_TIMEOUT, CONNECT_TIMEOUT, TX_THROTTLE, LOST_ANSWER, TX_IN_PROGRESS = (
    "throttle", "5xx", "read-timeout", "connect-timeout", "transaction-throttled", "lost-answer",
    "transaction-in-progress")


@dataclass
class Fault:
    """Fails every `operation` request on `table` (the table it names, or one of its transaction's) while active."""

    operation: str
    table: str
    kind: str
    times: int | None = None  # how many requests it fails; None: until `Faults.clear()`
    hits: int = 0

    def matches(self, operation: str, body: dict[str, Any]) -> bool:
        tables = {body.get("TableName")} | {
            action.get("TableName") for item in body.get("TransactItems", []) for action in item.values()}
        return operation == self.operation and self.table in tables and (self.times is None or self.hits < self.times)

    def answer(self, request: Any, body: dict[str, Any], forward: Callable[[], Any]) -> AWSResponse:
        self.hits += 1
        if self.kind == LOST_ANSWER:  # the request reached the table and was applied; its answer never came back
            forward()
            raise ReadTimeoutError(endpoint_url=request.url)
        if self.kind == READ_TIMEOUT:  # the request was sent, no answer came: botocore retries it
            raise ReadTimeoutError(endpoint_url=request.url)
        if self.kind == CONNECT_TIMEOUT:
            raise ConnectTimeoutError(endpoint_url=request.url)
        status, error = {
            THROTTLE: (400, {"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                             "message": "The level of configured provisioned throughput for the table was exceeded."}),
            UNAVAILABLE: (500, {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                                "message": "Internal server error"}),
            # the same ClientRequestToken again while its first attempt still runs (botocore retries it as throttling)
            TX_IN_PROGRESS: (400, {"__type": "com.amazonaws.dynamodb.v20120810#TransactionInProgressException",
                                   "message": "Transaction is in progress"}),
            TX_THROTTLE: (400, {"__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                                "message": "Transaction cancelled",
                                "CancellationReasons": [{"Code": "ThrottlingError", "Message": "Throughput exceeds "
                                                         "the current capacity of your table or index."}
                                                        for _ in body.get("TransactItems", [])]}),
        }[self.kind]
        headers = {"Content-Type": "application/x-amz-json-1.0", "x-amzn-RequestId": "fault"}
        return AWSResponse(request.url, status, headers, MockRawResponse(json.dumps(error)))  # type: ignore[arg-type]


class Faults:
    def __init__(self) -> None:
        self.active: list[Fault] = []

    def inject(self, operation: str, table: str, kind: str, times: int | None = None) -> Fault:
        fault = Fault(operation, table, kind, times)
        self.active.append(fault)
        return fault

    def clear(self) -> None:
        self.active.clear()

    def answer(self, request: Any, forward: Callable[[], Any]) -> AWSResponse | None:
        target = dict(request.headers).get("X-Amz-Target", b"")
        operation = (target.decode() if isinstance(target, bytes) else target).rpartition(".")[2]
        if not operation:
            return None
        body = json.loads(request.body or b"{}")
        for fault in self.active:
            if fault.matches(operation, body):
                return fault.answer(request, body, forward)
        return None


@pytest.fixture
def faults(aws, monkeypatch) -> Iterator[Faults]:
    """Faults answer before moto does (moto never sees the request); botocore's retry backoff is skipped."""
    injected = Faults()
    original = BotocoreStubber.__call__

    def faulty(self, event_name, request, **kwargs):
        return (injected.answer(request, lambda: original(self, event_name, request, **kwargs))
                or original(self, event_name, request, **kwargs))

    monkeypatch.setattr(BotocoreStubber, "__call__", faulty)
    monkeypatch.setattr("botocore.retries.standard.ExponentialBackoff.delay_amount", lambda self, context: 0)
    yield injected


@pytest.fixture
def contacts(aws, monkeypatch) -> tuple[Client, str]:
    name = make_table(CONTACT_TABLE, monkeypatch)
    with fresh_service(contacts_api):
        yield Client.of(contacts_api), name


@pytest.fixture
def voting(aws, monkeypatch) -> tuple[Client, str]:
    tables = make_tables(monkeypatch)
    with fresh_service(voting_api):
        client = Client.of(voting_api)
        definition = {"question": "Where do we eat?", "candidates": ["Tacos", "Ramen"]}
        assert client.call("PUT", "/voting/polls/lunch", body=definition, groups=ADMIN).status == 201
        yield client, tables.raw_votes


def items(table: str) -> list[dict[str, Any]]:
    """Every item of a table, read test-side (not through the faulted shared resource's operations)."""
    return boto3.resource("dynamodb").Table(table).scan(ConsistentRead=True)["Items"]


def idempotency_records() -> list[dict[str, Any]]:
    return items(f"test-{IDEMPOTENCY_TABLE.construct_id}")


def assert_refused(reply, status: int, code: str, retry_after: str) -> None:
    assert reply.status == status, reply.body
    assert reply.body["error"]["code"] == code
    assert reply.headers.get("Retry-After") == retry_after


# --- a fault the SDK absorbs never reaches the client ------------------------------------------------------

def test_a_throttled_write_that_succeeds_on_the_sdks_retry_is_a_plain_201(faults, contacts):
    client, table = contacts
    fault = faults.inject("PutItem", table, THROTTLE, times=ATTEMPTS - 1)

    reply = client.call("POST", "/contacts/persons", body={"firstName": "Ada", "lastName": "Lovelace"}, groups=ADMIN)

    assert reply.status == 201 and "Retry-After" not in reply.headers
    assert fault.hits == ATTEMPTS - 1
    assert [item["Id"] for item in items(table)] == [reply.body["id"]]


# --- a fault that outlasts the SDK's attempts: 429/503, nothing written, the retry completes once --------

PERSON = {"firstName": "Grace", "lastName": "Hopper"}
WRITES = [  # (domain, operation, fault, expected status, code, Retry-After, SDK attempts)
    pytest.param("person", "PutItem", THROTTLE, 429, "THROTTLED", "1", ATTEMPTS, id="put-throttled"),
    pytest.param("person", "PutItem", READ_TIMEOUT, 503, "SERVICE_UNAVAILABLE", "2", ATTEMPTS, id="put-read-timeout"),
    pytest.param("vote", "UpdateItem", UNAVAILABLE, 503, "SERVICE_UNAVAILABLE", "2", ATTEMPTS, id="update-5xx"),
    pytest.param("vote", "UpdateItem", THROTTLE, 429, "THROTTLED", "1", ATTEMPTS, id="update-throttled"),
    pytest.param("vote", "UpdateItem", CONNECT_TIMEOUT, 503, "SERVICE_UNAVAILABLE", "2", ATTEMPTS,
                 id="update-connect-timeout"),
    pytest.param("link", "TransactWriteItems", TX_THROTTLE, 429, "THROTTLED", "1", 1, id="transaction-throttled"),
    pytest.param("link", "TransactWriteItems", UNAVAILABLE, 503, "SERVICE_UNAVAILABLE", "2", ATTEMPTS,
                 id="transaction-5xx"),
    pytest.param("link", "TransactWriteItems", READ_TIMEOUT, 503, "SERVICE_UNAVAILABLE", "2", ATTEMPTS,
                 id="transaction-read-timeout"),
    pytest.param("link", "TransactWriteItems", TX_IN_PROGRESS, 503, "SERVICE_UNAVAILABLE", "2", ATTEMPTS,
                 id="transaction-in-progress"),
]


@pytest.fixture
def write(request, faults):
    """(client, table, method, path, body) of one of the faulted write routes, with its prerequisites in place."""
    domain = request.param
    if domain == "vote":
        client, table = request.getfixturevalue("voting")
        return client, table, "/voting/polls/lunch/votes", {"candidate": "Ramen"}
    client, table = request.getfixturevalue("contacts")
    if domain == "person":
        return client, table, "/contacts/persons", PERSON
    person = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN).body["id"]
    address = client.call("POST", "/contacts/addresses", groups=ADMIN, body={
        "streetAddress": "1 Main St", "city": "Arlington", "state": "VA", "zipCode": "22201"}).body["id"]
    return client, table, f"/contacts/persons/{person}/addresses", {
        "addressId": address, "relationship": "Residential", "startDate": "1952-01-01"}


@pytest.mark.parametrize(("write", "operation", "kind", "status", "code", "retry_after", "attempts"), WRITES,
                         indirect=["write"])
def test_a_write_fault_is_refused_with_retry_after_writes_nothing_and_the_retry_completes_once(
        faults, write, operation, kind, status, code, retry_after, attempts):
    client, table, path, body = write
    before = items(table)
    key = {"Idempotency-Key": f"fault-{kind}"}
    fault = faults.inject(operation, table, kind)

    # When the database keeps failing the write
    refused = client.call("POST", path, body=body, groups=ADMIN, headers=key)

    # Then the client is told to retry later, and nothing was written or remembered
    assert_refused(refused, status, code, retry_after)
    assert fault.hits == attempts  # the SDK's own retries, then the error
    assert items(table) == before
    assert idempotency_records() == []  # Powertools deleted its in-progress record: the retry runs again

    # When the fault is gone and the client retries with the same key, twice
    faults.clear()
    first = client.call("POST", path, body=body, groups=ADMIN, headers=key)
    again = client.call("POST", path, body=body, groups=ADMIN, headers=key)

    # Then the operation happened once, and both answers are the same
    assert first.status == again.status == 201, first.body
    assert again.body == first.body
    written = [item for item in items(table) if item not in before]
    assert len(written) == 1, written


def test_an_unavailable_idempotency_store_is_a_503_with_retry_after_and_writes_nothing(faults, contacts):
    client, table = contacts
    fault = faults.inject("PutItem", f"test-{IDEMPOTENCY_TABLE.construct_id}", UNAVAILABLE)

    reply = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers={"Idempotency-Key": "k"})

    assert_refused(reply, 503, "SERVICE_UNAVAILABLE", "2")
    assert fault.hits == ATTEMPTS  # the idempotency store's client retries as ours does (ddb.CLIENT_CONFIG)
    assert items(table) == [] and idempotency_records() == []


def test_when_the_in_progress_record_cannot_be_deleted_the_retry_waits_out_the_invocation_then_runs(faults, contacts):
    client, table = contacts
    idempotency_table = f"test-{IDEMPOTENCY_TABLE.construct_id}"
    key = {"Idempotency-Key": "stuck"}
    faults.inject("PutItem", table, UNAVAILABLE)
    faults.inject("DeleteItem", idempotency_table, UNAVAILABLE)

    # When the write fails and so does forgetting the idempotency record
    refused = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)

    # Then the client gets a 503, and a retry during the invocation's time budget is told it is still in progress
    assert_refused(refused, 503, "SERVICE_UNAVAILABLE", "2")
    (record,) = idempotency_records()
    assert record["status"] == "INPROGRESS" and "in_progress_expiration" in record  # the Lambda's deadline
    faults.clear()
    in_progress = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)
    assert in_progress.status == 409 and in_progress.body["error"]["code"] == "REQUEST_IN_PROGRESS"
    assert items(table) == []

    # When that invocation's deadline has passed (Powertools then takes the record over), the retry runs once
    boto3.resource("dynamodb").Table(idempotency_table).update_item(
        Key={"id": record["id"]}, UpdateExpression="SET in_progress_expiration = :past",
        ExpressionAttributeValues={":past": 1})
    created = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)
    assert created.status == 201 and [item["Id"] for item in items(table)] == [created.body["id"]]


# --- an answer lost after the write landed: the SDK's retry meets the write's own condition --------------

@pytest.mark.parametrize(("write", "operation"), [
    pytest.param("person", "PutItem", id="put"),  # ddb.put_new: the item in the way is the one it put
    pytest.param("link", "TransactWriteItems", id="transaction"),  # DynamoDB's ClientRequestToken (moto_fidelity)
    pytest.param("vote", "UpdateItem", id="update"),  # ddb.update_conditional: the item holds this request's mark
], indirect=["write"])
def test_a_create_whose_answer_was_lost_after_it_landed_is_a_201_written_once(faults, write, operation):
    client, table, path, body = write
    before = items(table)
    fault = faults.inject(operation, table, LOST_ANSWER, times=1)

    # When the write is applied but DynamoDB's answer is lost, so the SDK sends the same request again
    reply = client.call("POST", path, body=body, groups=ADMIN)

    # Then the retry's failed condition is the first attempt's own doing: the create succeeded, once
    assert reply.status == 201, reply.body
    assert fault.hits == 1
    written = [item for item in items(table) if item not in before]
    assert len(written) == 1, written


def test_an_append_whose_answer_was_lost_after_it_landed_is_a_201_that_appended_once(faults, seeded, tables):
    documents = tables[DOCUMENTS_TABLE.env_var]
    fault = faults.inject("TransactWriteItems", documents, LOST_ANSWER, times=1)

    # When the append is applied but DynamoDB's answer is lost, so the SDK sends the same request again
    reply = seeded.call("POST", "/catalog/documents/2/children", body={"kind": "track", "child": {"title": "Time"}},
                        user="root", groups=ADMIN)

    # Then the retry carries the first attempt's ClientRequestToken: DynamoDB answers it without appending again
    assert reply.status == 201, reply.body
    assert fault.hits == 1
    titles = [track["title"] for track in raw_document("2")["Attributes"]["tracks"]]
    assert titles == ["Speak to Me", "Breathe", "On the Run", "Time"]


def test_a_retried_write_that_meets_another_requests_item_is_still_refused(faults, contacts):
    _, table = contacts
    person = {"Id": "p-1", "Type": "Person", "firstName": "Ada"}
    ddb.put_new(ddb.table(table), person, "attribute_not_exists(Id)")
    ddb.table(table).update_item(Key={"Id": "p-1", "Type": "Person"}, UpdateExpression="SET updatedAt = :t",
                                 ExpressionAttributeValues={":t": "first"})

    # When each write's first attempt fails before reaching the table (a 5xx), so the SDK retries it
    faults.inject("PutItem", table, UNAVAILABLE, times=1)
    with pytest.raises(ClientError) as create:
        ddb.put_new(ddb.table(table), {**person, "firstName": "Grace"}, "attribute_not_exists(Id)")
    faults.inject("UpdateItem", table, UNAVAILABLE, times=1)
    with pytest.raises(ClientError) as update:
        ddb.update_conditional(ddb.table(table), mark={"updatedAt": "second"}, Key={"Id": "p-1", "Type": "Person"},
                               UpdateExpression="SET updatedAt = :t", ConditionExpression="attribute_not_exists(Id)",
                               ExpressionAttributeValues={":t": "second"})

    # Then the items in the way are not theirs: both conditions fail as they would without the retry
    assert ddb.error_code(create.value) == ddb.error_code(update.value) == "ConditionalCheckFailedException"
    assert ddb.retried(create.value) and ddb.retried(update.value)
    (stored,) = items(table)
    assert (stored["firstName"], stored["updatedAt"]) == ("Ada", "first")


def test_an_idempotency_record_whose_answer_was_lost_after_it_landed_lets_the_request_run(faults, contacts):
    client, table = contacts
    fault = faults.inject("PutItem", f"test-{IDEMPOTENCY_TABLE.construct_id}", LOST_ANSWER, times=1)
    key = {"Idempotency-Key": "lost"}

    # When the in-progress record is stored but its answer is lost, so the SDK puts it again
    reply = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)

    # Then the retry finds its own record, not another request's: the person is created (not 409 REQUEST_IN_PROGRESS)
    assert reply.status == 201, reply.body
    assert fault.hits == 1
    assert [item["Id"] for item in items(table)] == [reply.body["id"]]
    (record,) = idempotency_records()
    assert record["status"] == "COMPLETED"
    again = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)
    assert (again.status, again.body) == (201, reply.body) and len(items(table)) == 1


def test_another_requests_in_progress_record_is_still_409_request_in_progress(faults, contacts):
    client, table = contacts
    key = {"Idempotency-Key": "busy"}
    faults.inject("PutItem", table, UNAVAILABLE)
    faults.inject("DeleteItem", f"test-{IDEMPOTENCY_TABLE.construct_id}", UNAVAILABLE)
    client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)  # leaves its record in progress
    faults.clear()
    fault = faults.inject("PutItem", f"test-{IDEMPOTENCY_TABLE.construct_id}", UNAVAILABLE, times=1)

    # When a second request with that key has its put retried by the SDK (a 5xx first) and meets the first's record
    reply = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN, headers=key)

    # Then the record is not its own: the request is still in progress elsewhere
    assert fault.hits == 1
    assert reply.status == 409 and reply.body["error"]["code"] == "REQUEST_IN_PROGRESS"
    assert items(table) == []


# --- reads ----------------------------------------------------------------------------------------------

READS = [
    pytest.param(THROTTLE, 429, "THROTTLED", "1", id="throttled"),
    pytest.param(UNAVAILABLE, 503, "SERVICE_UNAVAILABLE", "2", id="5xx"),
    pytest.param(READ_TIMEOUT, 503, "SERVICE_UNAVAILABLE", "2", id="read-timeout"),
]


@pytest.mark.parametrize(("kind", "status", "code", "retry_after"), READS)
def test_a_query_fault_is_refused_with_retry_after_and_the_retry_answers(faults, contacts, kind, status, code,
                                                                         retry_after):
    client, table = contacts
    person = client.call("POST", "/contacts/persons", body=PERSON, groups=ADMIN).body["id"]
    fault = faults.inject("Query", table, kind)

    refused = client.call("GET", f"/contacts/items/{person}")

    assert_refused(refused, status, code, retry_after)
    assert fault.hits == ATTEMPTS
    faults.clear()
    answered = client.call("GET", f"/contacts/items/{person}")
    assert answered.status == 200 and len(answered.body["items"]) == 1, answered.body


@pytest.mark.parametrize(("kind", "status", "code", "retry_after"), READS)
def test_a_get_item_fault_is_refused_with_retry_after(faults, voting, kind, status, code, retry_after):
    client, _ = voting
    fault = faults.inject("GetItem", f"test-{VOTES_TABLE.construct_id}", kind)

    refused = client.call("GET", "/voting/polls/lunch")

    assert_refused(refused, status, code, retry_after)
    assert fault.hits == ATTEMPTS
    faults.clear()
    assert client.call("GET", "/voting/polls/lunch").status == 200
