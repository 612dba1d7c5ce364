"""Patterns example data for `make run` (seed 003, The Book's examples): the alexdebrie/dynamodb-book repo with
12 issues (issue 10 sorts after 9) and 3 stars, the McDonalds organization with users (two admins), stores in
a few US cities, and customer 2b5a41c0's orders in several statuses (the seed's OrderStatusDateGSI example).

Written through the domain's repository. Loading twice changes nothing: puts replace with the same values, a
repeated star is answered with the stored one, and issues are created only while the repo has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from functions.patterns.models import (
    Featured,
    Issue,
    IssueChange,
    Order,
    Org,
    OrgUser,
    Star,
    Store,
)
from functions.patterns.repository import PatternsRepository
from functions.shared.settings import Settings

OWNER, REPO = "alexdebrie", "dynamodb-book"
T0 = datetime(2020, 4, 1, 9, tzinfo=UTC)
ISSUE_TITLES = (
    "Typo in chapter 1", "Explain item collections", "GSI overloading example", "Add a TTL section",
    "Sparse index figure", "Zero-padding note", "Reference counts chapter", "Pagination cursor example",
    "Fix the GitHub model diagram", "Issue ten sorts after nine", "Transactions limits", "Singleton items",
)
CLOSED = (1, 4, 9)  # closed later: not in the open-issues index
REVISITED = (3, 7)  # updated last: first in "recently updated"
STARGAZERS = ("danny-developer", "sally-sysadmin", "alexdebrie")
ORG = Org(org="McDonalds", name="McDonald's")
USERS = (("bsmith", "Bob Smith", "member"), ("jdoe", "Jane Doe", "admin"), ("mlee", "Mia Lee", "admin"),
         ("tkhan", "Tom Khan", "member"))
STORES = (
    ("US", "WA", "Seattle", "98101", "store-1", "1 Pike St"),
    ("US", "WA", "Seattle", "98109", "store-2", "400 Broad St"),
    ("US", "WA", "Spokane", "99201", "store-3", "12 Riverside Ave"),
    ("US", "NE", "Omaha", "68102", "store-4", "1 Farnam St"),
    ("US", "NE", "Lincoln", "68508", "store-5", "9 O St"),
)
CUSTOMER = "2b5a41c0"
ORDERS = (
    ("1a2b", "CANCELLED", datetime(2019, 7, 15, 10, tzinfo=UTC), 25.0),
    ("3c4d", "CANCELLED", datetime(2019, 9, 2, 16, tzinfo=UTC), 12.5),
    ("5e6f", "CANCELLED", datetime(2019, 11, 20, 8, tzinfo=UTC), 40.0),
    ("7a8b", "SHIPPED", datetime(2019, 8, 1, 12, tzinfo=UTC), 99.0),
    ("9c0d", "DELIVERED", datetime(2019, 6, 30, 9, tzinfo=UTC), 15.0),
    ("2e3f", "PLACED", datetime(2019, 10, 5, 18, tzinfo=UTC), 60.0),
)


def load(env: Mapping[str, str]) -> None:
    repository = PatternsRepository(Settings(env))
    _repo(repository)
    _org(repository)
    for country, state, city, zip_code, store_id, address in STORES:
        repository.put_store(Store(store_id=store_id, country=country, state=state, city=city, zip=zip_code,
                                   address=address))
    repository.put_featured(Featured(repos=[f"{OWNER}/{REPO}"], updated_at=T0))
    for order_id, status, ordered_at, amount in ORDERS:
        repository.put_order(Order(customer=CUSTOMER, order_id=order_id, status=status, ordered_at=ordered_at,
                                   amount=amount))


def _repo(repository: PatternsRepository) -> None:
    repo = repository.put_repo(OWNER, REPO, "The DynamoDB Book's examples")
    for i, user in enumerate(STARGAZERS):
        repository.star(Star(owner=OWNER, repo=REPO, username=user, starred_at=T0 + timedelta(days=i)))
    if repo.issue_count:
        return  # loaded before
    for i, title in enumerate(ISSUE_TITLES):
        number = repository.next_issue_number(OWNER, REPO)
        at = T0 + timedelta(hours=i)
        repository.put_new_issue(Issue(owner=OWNER, repo=REPO, number=number, title=title, status="open",
                                       author=STARGAZERS[i % 2], created_at=at, updated_at=at))
    later = T0 + timedelta(days=30)
    for i, number in enumerate(CLOSED):
        repository.change_issue(OWNER, REPO, number, IssueChange(status="closed"), by=None, at=later + timedelta(hours=i))
    for i, number in enumerate(REVISITED):
        repository.change_issue(OWNER, REPO, number, IssueChange(title=f"{ISSUE_TITLES[number - 1]} (revised)"),
                                by=None, at=later + timedelta(days=1, hours=i))


def _org(repository: PatternsRepository) -> None:
    repository.put_org(ORG)
    for username, name, role in USERS:
        repository.put_org_user(OrgUser(org=ORG.org, username=username, name=name, role=role))
