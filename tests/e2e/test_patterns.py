"""Patterns over HTTP on the local runtime: the seed's examples answered pattern by pattern, and the two
concurrency rules (star counts, issue numbers) under 20 parallel requests."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

from tests.e2e.support import body, code, every

ADMIN = ("admin",)
BOOK = "/patterns/repos/alexdebrie/dynamodb-book"





def new_repo(api) -> str:
    url = f"/patterns/repos/e2e/repo-{uuid.uuid4().hex[:10]}"
    body(api.call("PUT", url, user="root", groups=ADMIN, json={"description": "e2e"}))
    return url


def test_the_books_repo_with_its_issues_and_with_its_stars(api):
    first = body(api.call("GET", f"{BOOK}/issues?limit=3"))
    assert first["repo"]["starCount"] == 3 and first["repo"]["issueCount"] == 12
    assert [i["number"] for i in first["items"]] == [12, 11, 10]  # the repo comes with them: `limit` counts issues
    assert [i["number"] for i in every(api, f"{BOOK}/issues")] == list(range(12, 0, -1))  # 12, 11, 10 before 9: zero-padded keys
    stars = every(api, f"{BOOK}/stars", limit=2)
    assert [s["username"] for s in stars] == ["alexdebrie", "danny-developer", "sally-sysadmin"]
    assert body(api.call("GET", f"{BOOK}/issues/10"))["title"] == "Issue ten sorts after nine"


def test_the_books_open_and_recently_updated_issues(api):
    assert [i["number"] for i in every(api, f"{BOOK}/open-issues")] == [2, 3, 5, 6, 7, 8, 10, 11, 12]
    recent = [i["number"] for i in every(api, f"{BOOK}/recently-updated-issues")]
    assert recent[:5] == [7, 3, 9, 4, 1] and sorted(recent) == list(range(1, 13))


def test_the_org_with_its_users_both_ways_and_its_admins(api):
    page = body(api.call("GET", "/patterns/orgs/McDonalds?order=asc"))
    assert page["org"] == {"org": "McDonalds", "name": "McDonald's"}
    assert [u["username"] for u in page["items"]] == ["bsmith", "jdoe", "mlee", "tkhan"]
    desc = body(api.call("GET", "/patterns/orgs/McDonalds"))  # desc is the default: the seed's one Query
    assert [u["username"] for u in desc["items"]] == ["tkhan", "mlee", "jdoe", "bsmith"] and desc["org"]["org"] == "McDonalds"
    for order, newest in (("asc", "bsmith"), ("desc", "tkhan")):  # the org comes with the first page either way
        one = body(api.call("GET", f"/patterns/orgs/McDonalds?order={order}&limit=1"))
        assert one["org"]["org"] == "McDonalds" and [u["username"] for u in one["items"]] == [newest]
        assert one["nextCursor"]
    assert [u["username"] for u in every(api, "/patterns/orgs/McDonalds/admins")] == ["jdoe", "mlee"]


def test_stores_at_each_level_of_the_hierarchy(api):
    def ids(path: str) -> list[str]:
        return [s["storeId"] for s in every(api, f"/patterns/stores/{path}")]

    assert ids("US") == ["store-5", "store-4", "store-1", "store-2", "store-3"]
    assert ids("US/WA") == ["store-1", "store-2", "store-3"]
    assert ids("US/WA/Seattle") == ["store-1", "store-2"]
    assert ids("US/WA/Seattle/98109") == ["store-2"]


def test_the_seeds_cancelled_orders_between_july_and_october(api):
    url = "/patterns/customers/2b5a41c0/orders?status=CANCELLED&from=2019-07-01&to=2019-10-01"
    assert [o["orderId"] for o in every(api, url, user="2b5a41c0")] == ["1a2b", "3c4d"]
    assert code(api.call("GET", url, user="eve")) == (403, "FORBIDDEN")
    assert code(api.call("GET", "/patterns/customers/2b5a41c0/orders?status=LOST", user="2b5a41c0")) == (400, "VALIDATION_FAILED")


def test_the_featured_singleton(api):
    assert body(api.call("GET", "/patterns/featured"))["repos"] == ["alexdebrie/dynamodb-book"]
    assert code(api.call("PUT", "/patterns/featured", json={"repos": []})) == (403, "FORBIDDEN")


def test_star_unstar_and_an_issues_life_over_http(api):
    repo = new_repo(api)
    assert api.call("PUT", f"{repo}/stars/alice", user="alice").status_code == 201
    assert api.call("PUT", f"{repo}/stars/alice", user="alice").status_code == 200
    assert code(api.call("PUT", f"{repo}/stars/bob", user="alice")) == (403, "FORBIDDEN")
    assert body(api.call("GET", repo))["starCount"] == 1
    assert api.call("DELETE", f"{repo}/stars/alice", user="alice").status_code == 204
    assert api.call("DELETE", f"{repo}/stars/alice", user="alice").status_code == 204
    assert body(api.call("GET", repo))["starCount"] == 0

    issue = body(api.call("POST", f"{repo}/issues", user="bob", json={"title": "First"}), 201)
    assert issue["number"] == 1 and issue["status"] == "open"
    assert code(api.call("PATCH", f"{repo}/issues/1", user="eve", json={"status": "closed"})) == (403, "FORBIDDEN")
    closed = body(api.call("PATCH", f"{repo}/issues/1", user="bob", json={"status": "closed"}))
    assert closed["status"] == "closed" and closed["updatedAt"] > issue["updatedAt"]
    assert every(api, f"{repo}/open-issues") == []
    assert code(api.call("GET", f"{repo}/issues/2")) == (404, "ISSUE_NOT_FOUND")
    assert code(api.call("POST", "/patterns/repos/e2e/none/issues", json={"title": "x"})) == (404, "REPO_NOT_FOUND")


def test_20_parallel_stars_and_unstars_keep_the_count_equal_to_the_stars(api):
    # Given a repo starred by s0..s9
    repo = new_repo(api)
    for i in range(10):
        assert api.call("PUT", f"{repo}/stars/s{i}", user=f"s{i}").status_code == 201

    # When s0..s9 unstar while n0..n9 star, 20 requests at once
    def change(i: int):
        if i < 10:
            return api.call("DELETE", f"{repo}/stars/s{i}", user=f"s{i}")
        return api.call("PUT", f"{repo}/stars/n{i - 10}", user=f"n{i - 10}")

    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(change, range(20)))
    # Then every change took, and the count is exactly the stars listed
    assert sorted(r.status_code for r in replies) == [201] * 10 + [204] * 10
    stars = [s["username"] for s in every(api, f"{repo}/stars", limit=100)]
    assert stars == [f"n{i}" for i in range(10)]
    assert body(api.call("GET", repo))["starCount"] == len(stars) == 10


def test_20_parallel_issue_creates_get_20_distinct_numbers(api):
    repo = new_repo(api)

    def create(i: int):
        return api.call("POST", f"{repo}/issues", user=f"u{i}", json={"title": f"Race {i}"})

    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(create, range(20)))
    assert [r.status_code for r in replies] == [201] * 20
    assert sorted(r.json()["number"] for r in replies) == list(range(1, 21))
    assert [i["number"] for i in every(api, f"{repo}/issues", limit=100)] == list(range(20, 0, -1))
    assert body(api.call("GET", repo))["issueCount"] == 20
