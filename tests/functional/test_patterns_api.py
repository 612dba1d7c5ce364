"""Patterns (The Book's patterns): handler -> service -> repository on moto, under the function's IAM role."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from threading import Barrier

import boto3
import pytest

from functions.patterns import api
from functions.patterns.models import IssueIn
from functions.patterns.schema import FEATURED_REPLICAS, PATTERNS_TABLE, featured_key
from functions.shared.auth import Caller
from tests.functional.conftest import Client, error, fresh_tables, ok

ADMIN = ("admin",)
REPO = "/patterns/repos/alexdebrie/dynamodb-book"
T0 = datetime(2026, 1, 1, 9, tzinfo=UTC)


class Ticking:
    """A clock one second further at every reading: every write has its own time."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


table = fresh_tables(api, PATTERNS_TABLE, name="table")  # the table's name


@pytest.fixture
def client(table) -> Client:
    api.service().clock = Ticking()
    return Client.of(api)


def items(table: str) -> list[dict]:
    return boto3.resource("dynamodb").Table(table).scan()["Items"]


def repo_item(table: str) -> dict:
    key = {"PK": "REPO#alexdebrie#dynamodb-book", "SK": "REPO#alexdebrie#dynamodb-book"}
    return boto3.resource("dynamodb").Table(table).get_item(Key=key)["Item"]


def stars_stored(table: str) -> int:
    return sum(1 for item in items(table) if item["SK"].startswith("STAR#"))


def make_repo(client) -> dict:
    return ok(client.call("PUT", REPO, body={"description": "The book"}, user="root", groups=ADMIN))


def all_pages(client, url: str, *, user: str = "alice", limit: int = 2) -> list[dict]:
    """Every page of a list, following nextCursor; returns the pages' bodies."""
    pages, cursor = [], None
    while True:
        sep = "&" if "?" in url else "?"
        page = ok(client.call("GET", f"{url}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else ""), user=user))
        pages.append(page)
        cursor = page["nextCursor"]
        if not cursor:
            return pages


def requests_billed(reply) -> int:
    """The DynamoDB requests an answer made, from its `Server-Timing` (`ddb;dur=…;desc="requests=N …"`)."""
    return int(reply.headers["Server-Timing"].split("requests=", 1)[1].split()[0])


def billed_pages(client, url: str, *, limit: int) -> list[tuple[dict, int]]:
    """Every page of a list, following nextCursor: (the page's body, the DynamoDB requests it billed)."""
    pages, cursor = [], None
    sep = "&" if "?" in url else "?"
    while True:
        reply = client.call("GET", f"{url}{sep}limit={limit}" + (f"&cursor={cursor}" if cursor else ""))
        pages.append((ok(reply), requests_billed(reply)))
        cursor = pages[-1][0]["nextCursor"]
        if not cursor:
            return pages


def concurrently(calls):
    barrier = Barrier(len(calls))

    def run(call):
        barrier.wait()
        return call()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


# --- repos and reference counts ------------------------------------------------------------------------

def test_an_admin_puts_a_repo_with_zero_counts_and_a_second_put_keeps_them(client, table):
    assert make_repo(client) == {"owner": "alexdebrie", "repo": "dynamodb-book", "description": "The book",
                                 "starCount": 0, "issueCount": 0}
    ok(client.call("PUT", f"{REPO}/stars/alice", user="alice"), 201)
    again = ok(client.call("PUT", REPO, body={"description": "New"}, user="root", groups=ADMIN))
    assert (again["description"], again["starCount"]) == ("New", 1)
    assert ok(client.call("GET", REPO, user="bob")) == again  # anyone signed in reads it
    assert error(client.call("PUT", REPO, body={}, user="alice")) == (403, "FORBIDDEN")
    assert error(client.call("GET", "/patterns/repos/alexdebrie/nope")) == (404, "REPO_NOT_FOUND")
    assert client.call("GET", "/patterns/repos/alex%23debrie/x").status == 400


def test_star_and_unstar_change_the_star_and_the_count_in_one_transaction_and_repeats_change_nothing(client, table, calls):
    make_repo(client)
    calls.clear()
    first = ok(client.call("PUT", f"{REPO}/stars/danny", user="danny"), 201)
    assert calls.names() == ["TransactWriteItems"]
    repeat = ok(client.call("PUT", f"{REPO}/stars/danny", user="danny"), 200)
    assert repeat == first and repo_item(table)["StarCount"] == 1 and stars_stored(table) == 1
    assert client.call("DELETE", f"{REPO}/stars/danny", user="danny").status == 204
    assert client.call("DELETE", f"{REPO}/stars/danny", user="danny").status == 204
    assert repo_item(table)["StarCount"] == 0 and stars_stored(table) == 0


def test_stars_are_the_callers_own_and_need_a_repo(client, table):
    make_repo(client)
    assert error(client.call("PUT", f"{REPO}/stars/bob", user="alice")) == (403, "FORBIDDEN")
    assert error(client.call("DELETE", f"{REPO}/stars/bob", user="alice")) == (403, "FORBIDDEN")
    missing = "/patterns/repos/alexdebrie/nope/stars/alice"
    assert error(client.call("PUT", missing, user="alice")) == (404, "REPO_NOT_FOUND")
    assert error(client.call("DELETE", missing, user="alice")) == (404, "REPO_NOT_FOUND")
    assert len(items(table)) == 1


def test_the_star_count_equals_the_stars_under_20_concurrent_stars_and_unstars(client, table, atomic_dynamodb):
    # Given a repo starred by u0..u9 (the service is called from the threads, as in a Lambda container per request)
    make_repo(client)
    service = api.service()
    users = [Caller(f"sub-u{i}", f"u{i}", frozenset()) for i in range(20)]
    for user in users[:10]:
        service.star(user, "alexdebrie", "dynamodb-book")
    # When u0..u9 unstar (each twice) while u10..u19 star (each twice), all at once
    calls_ = [lambda u=u: service.unstar(u, "alexdebrie", "dynamodb-book") for u in users[:10] for _ in range(2)]
    calls_ += [lambda u=u: service.star(u, "alexdebrie", "dynamodb-book")[1] for u in users[10:] for _ in range(2)]
    outcomes = concurrently(calls_)
    # Then each change happened once, and the count is exactly the stars stored
    assert Counter(outcomes[:20]) == {True: 10, False: 10} and Counter(outcomes[20:]) == {True: 10, False: 10}
    assert repo_item(table)["StarCount"] == stars_stored(table) == 10


def test_a_repo_with_its_stars_is_one_query_from_the_repo_item_up(client, table, calls):
    make_repo(client)
    for user in ("carol", "alice", "bob"):
        ok(client.call("PUT", f"{REPO}/stars/{user}", user=user), 201)
    ok(client.call("POST", f"{REPO}/issues", body={"title": "Not a star"}), 201)
    calls.clear()
    pages = all_pages(client, f"{REPO}/stars")
    (query, _), *_ = calls.of("Query")
    assert query["KeyConditionExpression"] == "(#n0 = :v0 AND #n1 >= :v1)"
    assert query["ExpressionAttributeValues"][":v1"] == {"S": "REPO#alexdebrie#dynamodb-book"}
    assert "IndexName" not in query and "FilterExpression" not in query
    assert pages[0]["repo"]["starCount"] == 3 and all(page["repo"] is None for page in pages[1:])
    assert [star["username"] for page in pages for star in page["items"]] == ["alice", "bob", "carol"]
    assert error(client.call("GET", "/patterns/repos/alexdebrie/nope/stars")) == (404, "REPO_NOT_FOUND")


def test_limit_counts_stars_only_the_repo_comes_with_the_first_page(client, table, calls):
    make_repo(client)
    for user in ("carol", "alice", "bob"):
        ok(client.call("PUT", f"{REPO}/stars/{user}", user=user), 201)
    calls.clear()
    pages = billed_pages(client, f"{REPO}/stars", limit=1)
    first, *rest = pages
    assert first[0]["repo"]["starCount"] == 3 and [s["username"] for s in first[0]["items"]] == ["alice"]
    assert first[0]["nextCursor"] and all(page["repo"] is None and len(page["items"]) <= 1 for page, _ in rest)
    assert [s["username"] for page, _ in pages for s in page["items"]] == ["alice", "bob", "carol"]
    assert [requests for _, requests in pages] == [1] * len(pages) == [1] * len(calls.of("Query"))
    assert [query["Limit"] for query, _ in calls.of("Query")] == [2] + [1] * len(rest)


# --- sequential identifiers ----------------------------------------------------------------------------

def test_issues_are_numbered_per_repo_and_zero_padded_so_10_sorts_after_9(client, table, calls):
    make_repo(client)
    calls.clear()
    created = [ok(client.call("POST", f"{REPO}/issues", body={"title": f"Issue {n}"}, user="bob"), 201)
               for n in range(1, 11)]
    assert [issue["number"] for issue in created] == list(range(1, 11))
    update, _ = calls.of("UpdateItem")[0]
    assert (update["UpdateExpression"], update["ReturnValues"]) == ("ADD IssueCount :one", "UPDATED_NEW")
    assert created[0] == {"owner": "alexdebrie", "repo": "dynamodb-book", "number": 1, "title": "Issue 1",
                          "status": "open", "author": "bob", "createdAt": "2026-01-01T09:00:01Z",
                          "updatedAt": "2026-01-01T09:00:01Z"}
    keys = sorted(item["SK"] for item in items(table) if item["SK"].startswith("ISSUE#"))
    assert keys[-2:] == ["ISSUE#0000009", "ISSUE#0000010"]
    assert repo_item(table)["IssueCount"] == 10
    # The repo's issues, newest number first: 10 before 9 (unpadded "10" would sort before "9")
    pages = all_pages(client, f"{REPO}/issues", limit=4)
    assert [issue["number"] for page in pages for issue in page["items"]] == list(range(10, 0, -1))
    assert pages[0]["repo"]["issueCount"] == 10 and all(page["repo"] is None for page in pages[1:])
    assert ok(client.call("GET", f"{REPO}/issues/10"))["title"] == "Issue 10"


def test_limit_counts_issues_only_the_repo_comes_with_the_first_page(client, table, calls):
    make_repo(client)
    for n in range(1, 4):
        ok(client.call("POST", f"{REPO}/issues", body={"title": f"Issue {n}"}, user="bob"), 201)
    calls.clear()
    pages = billed_pages(client, f"{REPO}/issues", limit=1)
    first, *rest = pages
    # `?limit=1`: the repo and the newest issue, and a cursor to the next one
    assert first[0]["repo"]["issueCount"] == 3 and [i["number"] for i in first[0]["items"]] == [3]
    assert first[0]["nextCursor"] and all(page["repo"] is None for page, _ in rest)
    assert [i["number"] for page, _ in pages for i in page["items"]] == [3, 2, 1]
    assert [requests for _, requests in pages] == [1] * len(pages) == [1] * len(calls.recorded)
    (query, _), *_ = calls.of("Query")
    assert query["ScanIndexForward"] is False and query["Limit"] == 2
    assert query["ExpressionAttributeValues"][":v1"] == {"S": "REPO#alexdebrie#dynamodb-book"}


def test_issue_creation_needs_a_repo_and_a_title_and_a_retry_with_its_key_creates_once(client, table):
    assert error(client.call("POST", "/patterns/repos/a/b/issues", body={"title": "X"})) == (404, "REPO_NOT_FOUND")
    make_repo(client)
    assert error(client.call("POST", f"{REPO}/issues", body={"title": " "})) == (400, "VALIDATION_FAILED")
    keyed = {"Idempotency-Key": "issue-1"}
    first = ok(client.call("POST", f"{REPO}/issues", body={"title": "Once"}, headers=keyed), 201)
    retry = ok(client.call("POST", f"{REPO}/issues", body={"title": "Once"}, headers=keyed), 201)
    assert retry == first and repo_item(table)["IssueCount"] == 1
    assert error(client.call("GET", f"{REPO}/issues/2")) == (404, "ISSUE_NOT_FOUND")
    assert client.call("GET", f"{REPO}/issues/0").status == 400


def test_a_keyed_create_that_failed_is_forgotten_so_its_retry_creates(client, table):
    # Given a keyed create refused because the repo does not exist yet
    keyed = {"Idempotency-Key": "early"}
    assert error(client.call("POST", f"{REPO}/issues", body={"title": "Early"}, headers=keyed)) == (404, "REPO_NOT_FOUND")
    # When the repo exists and the client retries with the same key
    make_repo(client)
    retry = client.call("POST", f"{REPO}/issues", body={"title": "Early"}, headers=keyed)
    # Then the retry runs (the failure was not kept as the answer) and takes number 1
    assert ok(retry, 201)["number"] == 1


def test_20_concurrent_creates_never_share_a_number(client, table, atomic_dynamodb):
    make_repo(client)
    service = api.service()
    callers = [Caller(f"sub-{i}", f"user{i}", frozenset()) for i in range(20)]
    created = concurrently([
        lambda c=c: service.create_issue(c, "alexdebrie", "dynamodb-book", IssueIn(title="Race")) for c in callers
    ])
    assert sorted(issue.number for issue in created) == list(range(1, 21))
    assert sum(1 for item in items(table) if item["SK"].startswith("ISSUE#")) == 20
    assert repo_item(table)["IssueCount"] == 20


def test_a_put_that_fails_after_the_counter_moved_leaves_a_gap_never_a_duplicate(client, table):
    # Given issue 1, and an issue 2 stored behind the counter's back (as a put retried after a timeout would)
    make_repo(client)
    ok(client.call("POST", f"{REPO}/issues", body={"title": "One"}), 201)
    boto3.resource("dynamodb").Table(table).put_item(
        Item={"PK": "REPO#alexdebrie#dynamodb-book", "SK": "ISSUE#0000002", "title": "Squatter"})
    # When the next create draws number 2, its put is refused: 409, the squatter is kept
    assert error(client.call("POST", f"{REPO}/issues", body={"title": "Two"})) == (409, "ISSUE_NUMBER_TAKEN")
    # Then the next create gets 3: number 2 is not handed out twice
    assert ok(client.call("POST", f"{REPO}/issues", body={"title": "Three"}), 201)["number"] == 3


# --- sparse index, sorting on a changing attribute -----------------------------------------------------

def test_open_issues_come_from_a_sparse_index_that_closing_leaves_and_reopening_enters(client, table, calls):
    make_repo(client)
    for n in range(1, 6):
        ok(client.call("POST", f"{REPO}/issues", body={"title": f"Issue {n}"}, user="bob"), 201)
    for number in (2, 4):
        assert ok(client.call("PATCH", f"{REPO}/issues/{number}", body={"status": "closed"}, user="bob"))["status"] == "closed"
    calls.clear()
    pages = all_pages(client, f"{REPO}/open-issues")
    assert [issue["number"] for page in pages for issue in page["items"]] == [1, 3, 5]
    assert {params["IndexName"] for params, _ in calls.of("Query")} == {"GSI2"}
    assert all("FilterExpression" not in params for params, _ in calls.of("Query"))
    # The index holds only the open ones: nothing else is read
    assert sum(response["Count"] for _, response in calls.of("Query")) == 3
    ok(client.call("PATCH", f"{REPO}/issues/4", body={"status": "open"}, user="root", groups=ADMIN))
    assert [i["number"] for p in all_pages(client, f"{REPO}/open-issues", limit=10) for i in p["items"]] == [1, 3, 4, 5]


def test_recently_updated_issues_follow_the_changing_index_key_while_the_table_key_stays(client, table):
    make_repo(client)
    for n in range(1, 5):
        ok(client.call("POST", f"{REPO}/issues", body={"title": f"Issue {n}"}, user="bob"), 201)
    ok(client.call("PATCH", f"{REPO}/issues/2", body={"title": "Issue 2, revised"}, user="bob"))
    ok(client.call("PATCH", f"{REPO}/issues/1", body={"status": "closed"}, user="bob"))
    pages = all_pages(client, f"{REPO}/recently-updated-issues")
    assert [issue["number"] for page in pages for issue in page["items"]] == [1, 2, 4, 3]
    issue_keys = sorted(item["SK"] for item in items(table) if item["SK"].startswith("ISSUE#"))
    assert issue_keys == [f"ISSUE#000000{n}" for n in range(1, 5)]  # one item per issue: the key never moved


def test_only_the_author_or_an_admin_changes_an_issue_and_bad_changes_write_nothing(client, table):
    make_repo(client)
    ok(client.call("POST", f"{REPO}/issues", body={"title": "Mine"}, user="bob"), 201)
    before = items(table)
    assert error(client.call("PATCH", f"{REPO}/issues/1", body={"status": "closed"}, user="eve")) == (403, "FORBIDDEN")
    assert error(client.call("PATCH", f"{REPO}/issues/1", body={}, user="bob")) == (400, "VALIDATION_FAILED")
    assert error(client.call("PATCH", f"{REPO}/issues/1", body={"status": "gone"}, user="bob")) == (400, "VALIDATION_FAILED")
    assert error(client.call("PATCH", f"{REPO}/issues/9", body={"status": "closed"}, user="bob")) == (404, "ISSUE_NOT_FOUND")
    assert items(table) == before
    assert ok(client.call("PATCH", f"{REPO}/issues/1", body={"title": "Admin's"}, user="root", groups=ADMIN))["title"] == "Admin's"


# --- organizations: sorting with multiple entity types, sparse admins -------------------------------

def make_org(client) -> None:
    ok(client.call("PUT", "/patterns/orgs/McDonalds", body={"name": "McDonald's"}, user="root", groups=ADMIN))
    for username, role in (("bsmith", "member"), ("jdoe", "admin"), ("mlee", "admin"), ("tkhan", "member")):
        body = {"name": username.title(), "role": role}
        ok(client.call("PUT", f"/patterns/orgs/McDonalds/users/{username}", body=body, user="root", groups=ADMIN))


def test_an_org_comes_with_its_first_page_of_users_in_either_order(client, table, calls):
    make_org(client)
    org = {"org": "McDonalds", "name": "McDonald's"}
    # Descending is the seed's one Query: `SK <= ORG#…`, backwards, the org item first; one request a page
    calls.clear()
    desc = billed_pages(client, "/patterns/orgs/McDonalds", limit=1)  # desc is the default
    (first, _), *later = calls.of("Query")
    assert first["KeyConditionExpression"] == "(#n0 = :v0 AND #n1 <= :v1)" and first["ScanIndexForward"] is False
    assert first["ExpressionAttributeValues"][":v1"] == {"S": "ORG#McDonalds"} and first["Limit"] == 2
    assert all(query["Limit"] == 1 for query, _ in later)
    assert desc[0][0]["org"] == org and [u["username"] for u in desc[0][0]["items"]] == ["tkhan"]
    assert all(page["org"] is None for page, _ in desc[1:])
    assert [u["username"] for page, _ in desc for u in page["items"]] == ["tkhan", "mlee", "jdoe", "bsmith"]
    assert [requests for _, requests in desc] == [1] * len(desc) == [1] * len(calls.recorded)
    # Ascending puts the users before the org item: the first page adds one GetItem of the org
    calls.clear()
    asc = billed_pages(client, "/patterns/orgs/McDonalds?order=asc", limit=3)
    assert asc[0][0]["org"] == org and [u["username"] for u in asc[0][0]["items"]] == ["bsmith", "jdoe", "mlee"]
    assert [u["username"] for page, _ in asc for u in page["items"]] == ["bsmith", "jdoe", "mlee", "tkhan"]
    assert asc[1][0]["org"] is None and [requests for _, requests in asc] == [2, 1]
    assert [name for name, _, _ in calls.recorded] == ["GetItem", "Query", "Query"]
    assert error(client.call("GET", "/patterns/orgs/Nope")) == (404, "ORG_NOT_FOUND")
    assert error(client.call("GET", "/patterns/orgs/Nope?order=asc")) == (404, "ORG_NOT_FOUND")
    assert client.call("GET", "/patterns/orgs/McDonalds?order=sideways").status == 400


def test_an_org_without_users_is_the_org_and_an_empty_list_in_either_order(client, table):
    ok(client.call("PUT", "/patterns/orgs/Quiet", body={"name": "Quiet"}, user="root", groups=ADMIN))
    for order in ("asc", "desc"):
        assert ok(client.call("GET", f"/patterns/orgs/Quiet?order={order}")) == {
            "org": {"org": "Quiet", "name": "Quiet"}, "items": [], "nextCursor": None}


def test_org_admins_come_from_the_sparse_index_and_a_demoted_admin_leaves_it(client, table, calls):
    make_org(client)
    calls.clear()
    admins = all_pages(client, "/patterns/orgs/McDonalds/admins", limit=10)[0]["items"]
    assert [u["username"] for u in admins] == ["jdoe", "mlee"]
    (query, response), = calls.of("Query")
    assert query["IndexName"] == "GSI2" and response["Count"] == 2
    ok(client.call("PUT", "/patterns/orgs/McDonalds/users/jdoe", body={"name": "Jane"}, user="root", groups=ADMIN))
    assert [u["username"] for u in all_pages(client, "/patterns/orgs/McDonalds/admins")[0]["items"]] == ["mlee"]


def test_users_need_an_existing_org_and_only_admins_write_orgs(client, table):
    body = {"name": "X", "role": "admin"}
    assert error(client.call("PUT", "/patterns/orgs/Nope/users/x", body=body, user="root", groups=ADMIN)) == (404, "ORG_NOT_FOUND")
    assert items(table) == []
    assert error(client.call("PUT", "/patterns/orgs/Mine", body={"name": "Mine"})) == (403, "FORBIDDEN")
    assert error(client.call("PUT", "/patterns/orgs/Mine/users/x", body=body)) == (403, "FORBIDDEN")
    bad = client.call("PUT", "/patterns/orgs/Mine/users/x", body={"name": "X", "role": "owner"}, user="root", groups=ADMIN)
    assert error(bad) == (400, "VALIDATION_FAILED")


# --- stores: composite sort keys for hierarchy ---------------------------------------------------------

STORES = (("WA", "Seattle", "98101", "s1"), ("WA", "Seattle", "98109", "s2"), ("WA", "Spokane", "99201", "s3"),
          ("NE", "Omaha", "68102", "s4"), ("WA", "Sea", "98000", "s5"))


def test_stores_by_country_state_city_and_zip_are_each_one_begins_with_query(client, table, calls):
    for state, city, zip_code, store_id in STORES:
        ok(client.call("PUT", f"/patterns/stores/US/{state}/{city}/{zip_code}/{store_id}", body={"address": "1 Main"},
                       user="root", groups=ADMIN))
    ok(client.call("PUT", "/patterns/stores/CA/BC/Vancouver/V5K/s9", body={"address": "2 Main"}, user="root", groups=ADMIN))

    def ids(url: str) -> list[str]:
        return [s["storeId"] for p in all_pages(client, url, limit=10) for s in p["items"]]

    calls.clear()
    assert ids("/patterns/stores/US") == ["s4", "s5", "s1", "s2", "s3"]
    assert ids("/patterns/stores/US/WA") == ["s5", "s1", "s2", "s3"]
    assert ids("/patterns/stores/US/WA/Seattle") == ["s1", "s2"]  # not Sea
    assert ids("/patterns/stores/US/WA/Seattle/98109") == ["s2"]
    assert ids("/patterns/stores/US/TX") == []
    assert len(calls.of("Query")) == 5 and all("FilterExpression" not in p for p, _ in calls.of("Query"))
    assert [r["Count"] for _, r in calls.of("Query")] == [5, 4, 2, 1, 0]  # each reads only its answer
    store = ok(client.call("GET", "/patterns/stores/CA"))["items"][0]
    assert store == {"storeId": "s9", "country": "CA", "state": "BC", "city": "Vancouver", "zip": "V5K", "address": "2 Main"}
    assert error(client.call("PUT", "/patterns/stores/US/WA/X/1/s", body={"address": "x"})) == (403, "FORBIDDEN")


# --- orders: composite sort key with an enum -----------------------------------------------------------

ORDERS = (("o1", "CANCELLED", "2019-07-15T10:00:00Z"), ("o2", "CANCELLED", "2019-09-02T16:00:00Z"),
          ("o3", "CANCELLED", "2019-11-20T08:00:00Z"), ("o4", "SHIPPED", "2019-08-01T12:00:00Z"),
          ("o5", "CANCELLED", "2019-10-01T23:59:00Z"))


def test_a_customers_orders_by_status_and_day_range_are_one_query_on_gsi1(client, table, calls):
    for order_id, status, at in ORDERS:
        body = {"status": status, "orderedAt": at, "amount": 10}
        ok(client.call("PUT", f"/patterns/customers/2b5a41c0/orders/{order_id}", body=body, user="root", groups=ADMIN))
    url = "/patterns/customers/2b5a41c0/orders"
    calls.clear()
    ranged = ok(client.call("GET", f"{url}?status=CANCELLED&from=2019-07-01&to=2019-10-01", user="2b5a41c0"))
    assert [o["orderId"] for o in ranged["items"]] == ["o1", "o2", "o5"]  # the whole `to` day is in
    (query, response), = calls.of("Query")
    assert query["IndexName"] == "GSI1" and response["Count"] == 3 and "FilterExpression" not in query
    every = ok(client.call("GET", f"{url}?status=CANCELLED", user="root", groups=ADMIN))
    assert [o["orderId"] for o in every["items"]] == ["o1", "o2", "o5", "o3"]
    # A status change moves the order in the index
    ok(client.call("PUT", f"{url}/o4", body={"status": "DELIVERED", "orderedAt": ORDERS[3][2], "amount": 10},
                   user="root", groups=ADMIN))
    assert ok(client.call("GET", f"{url}?status=SHIPPED", user="2b5a41c0"))["items"] == []
    assert [o["orderId"] for o in ok(client.call("GET", f"{url}?status=DELIVERED", user="2b5a41c0"))["items"]] == ["o4"]


def test_orders_are_the_customers_own_and_bad_ranges_are_400(client, table):
    url = "/patterns/customers/2b5a41c0/orders"
    assert error(client.call("GET", f"{url}?status=PLACED", user="eve")) == (403, "FORBIDDEN")
    assert error(client.call("GET", url, user="2b5a41c0")) == (400, "VALIDATION_FAILED")
    assert error(client.call("GET", f"{url}?status=LOST", user="2b5a41c0")) == (400, "VALIDATION_FAILED")
    assert error(client.call("GET", f"{url}?status=PLACED&from=2019-02-30", user="2b5a41c0")) == (400, "VALIDATION_FAILED")
    # docs/patterns.md: `from` ≤ `to`, else 400 VALIDATION_FAILED naming both fields
    reversed_range = client.call("GET", f"{url}?status=PLACED&from=2019-03-02&to=2019-03-01", user="2b5a41c0")
    assert error(reversed_range) == (400, "VALIDATION_FAILED")
    assert [d["field"] for d in reversed_range.body["error"]["details"]] == ["query.from", "query.to"]
    body = {"status": "PLACED", "orderedAt": "2019-01-01T00:00:00Z", "amount": -1}
    assert error(client.call("PUT", f"{url}/o1", body=body, user="root", groups=ADMIN)) == (400, "VALIDATION_FAILED")
    assert items(table) == []


# --- pagination by the last seen sort key --------------------------------------------------------------

def test_a_cursor_is_the_last_seen_key_signed_and_bound_to_its_list(client, table, calls):
    make_repo(client)
    for n in range(1, 4):
        ok(client.call("POST", f"{REPO}/issues", body={"title": f"Issue {n}"}), 201)
    first = ok(client.call("GET", f"{REPO}/issues?limit=2"))
    calls.clear()
    ok(client.call("GET", f"{REPO}/issues?limit=2&cursor={first['nextCursor']}"))
    (query, _), = calls.of("Query")
    # The first page held the repo item and issues 3 and 2: the next starts after the last key seen
    assert query["ExclusiveStartKey"] == {"PK": {"S": "REPO#alexdebrie#dynamodb-book"}, "SK": {"S": "ISSUE#0000002"}}
    elsewhere = client.call("GET", f"{REPO}/open-issues?cursor={first['nextCursor']}")
    assert error(elsewhere) == (400, "INVALID_CURSOR")


# --- the singleton -------------------------------------------------------------------------------------

def test_the_featured_repos_are_a_singleton_read_from_one_of_its_replicas(client, table, calls):
    assert ok(client.call("GET", "/patterns/featured")) == {"repos": [], "updatedAt": None}
    body = {"repos": ["alexdebrie/dynamodb-book", "a/b", "alexdebrie/dynamodb-book"]}
    put = ok(client.call("PUT", "/patterns/featured", body=body, user="root", groups=ADMIN))
    assert put["repos"] == ["alexdebrie/dynamodb-book", "a/b"]
    calls.clear()
    ok(client.call("PUT", "/patterns/featured", body={"repos": ["c/d"]}, user="root", groups=ADMIN))
    # one transaction writes every replica (and deletes the retired single item)
    (write, _), = calls.of("TransactWriteItems")
    assert len(write["TransactItems"]) == FEATURED_REPLICAS + 1
    replicas = {json.dumps(featured_key(r)) for r in range(FEATURED_REPLICAS)}
    for _ in range(3 * FEATURED_REPLICAS):
        calls.clear()
        assert ok(client.call("GET", "/patterns/featured"))["repos"] == ["c/d"]
        (get, _), = calls.of("GetItem")  # one read, of one replica
        assert json.dumps({k: v["S"] for k, v in get["Key"].items()}) in replicas
    stored = [item for item in items(table) if item["SK"] == "FEATURED"]
    assert sorted(item["PK"] for item in stored) == sorted(featured_key(r)["PK"] for r in range(FEATURED_REPLICAS))
    assert {tuple(item["repos"]) for item in stored} == {("c/d",)}  # replaced, never a second list
    assert error(client.call("PUT", "/patterns/featured", body={"repos": ["c/d"]})) == (403, "FORBIDDEN")
    bad = client.call("PUT", "/patterns/featured", body={"repos": ["no#slash"]}, user="root", groups=ADMIN)
    assert error(bad) == (400, "VALIDATION_FAILED")
    many = client.call("PUT", "/patterns/featured", body={"repos": [f"o/r{i}" for i in range(11)]}, user="root", groups=ADMIN)
    assert error(many) == (400, "VALIDATION_FAILED")


# --- example data --------------------------------------------------------------------------------------

def test_the_example_data_loads_twice_without_changing_anything(table):
    from seeds import patterns as seed

    env = {PATTERNS_TABLE.env_var: table}
    seed.load(env)
    first = sorted(items(table), key=lambda item: (item["PK"], item["SK"]))
    seed.load(env)
    assert sorted(items(table), key=lambda item: (item["PK"], item["SK"])) == first
    repo = repo_item(table)
    assert (repo["StarCount"], repo["IssueCount"]) == (3, 12)
    assert sum(1 for item in first if item["SK"].startswith("ISSUE#")) == 12


def test_the_issues_of_an_unknown_repo_are_404(client):
    # Documented since the fuzzer got it undocumented (docs/adr/0062-schemathesis-fuzzes-the-description.md).
    assert error(client.call("GET", "/patterns/repos/nobody/nothing/issues")) == (404, "REPO_NOT_FOUND")


@pytest.mark.parametrize("listed", ["open-issues", "recently-updated-issues"])
def test_an_index_list_of_an_unknown_repo_is_404_and_of_a_repo_without_issues_empty(client, calls, listed):
    assert error(client.call("GET", f"/patterns/repos/nobody/nothing/{listed}")) == (404, "REPO_NOT_FOUND")
    make_repo(client)
    calls.clear()
    assert ok(client.call("GET", f"{REPO}/{listed}")) == {"items": [], "nextCursor": None}
    # the index holds no repo item: an empty first page costs one GetItem of the repo, a full one nothing more
    assert calls.names() == ["Query", "GetItem"]
    ok(client.call("POST", f"{REPO}/issues", body={"title": "One"}, user="bob"), 201)
    calls.clear()
    assert [issue["number"] for issue in ok(client.call("GET", f"{REPO}/{listed}"))["items"]] == [1]
    assert calls.names() == ["Query"]


def test_the_admins_of_an_unknown_org_are_404_and_of_an_org_without_admins_empty(client, calls):
    assert error(client.call("GET", "/patterns/orgs/Nope/admins")) == (404, "ORG_NOT_FOUND")
    ok(client.call("PUT", "/patterns/orgs/Quiet", body={"name": "Quiet"}, user="root", groups=ADMIN))
    calls.clear()
    assert ok(client.call("GET", "/patterns/orgs/Quiet/admins")) == {"items": [], "nextCursor": None}
    assert calls.names() == ["Query", "GetItem"]
