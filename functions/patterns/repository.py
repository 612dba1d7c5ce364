"""Patterns: the only module that talks to DynamoDB, one method per access pattern (docs/patterns.md).

Every rule is DynamoDB's to enforce, in one request:
- reference counts: a star and the repo's `StarCount` change in one transaction, the star conditioned on being
  new (or present, to unstar), so a repeat changes nothing and the count always equals the stars;
- sequential identifiers: `ADD IssueCount :one` on the repo with `ReturnValues=UPDATED_NEW` hands out each number
  once; the issue is then put with `attribute_not_exists`, so a number is never used twice (a failure between the
  two leaves a gap, never a duplicate);
- an issue is changed by its author or an admin: a condition on `author`.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.conditions import ConditionBase, Key
from botocore.exceptions import ClientError

from functions.patterns import models
from functions.patterns.schema import (
    FEATURED_KEY,
    FEATURED_REPLICAS,
    GSI1,
    GSI2,
    PATTERNS_TABLE,
    customer_pk,
    featured_key,
    issue_sk,
    issue_updated_sk,
    open_issues_pk,
    order_sk,
    order_status_prefix,
    order_status_sk,
    org_admins_pk,
    org_pk,
    org_sk,
    repo_pk,
    repo_sk,
    star_sk,
    store_pk,
    store_prefix,
    store_sk,
    user_sk,
)
from functions.shared import ddb
from functions.shared.errors import ConflictError, ForbiddenError, NotFoundError
from functions.shared.models import from_item, to_item
from functions.shared.pages import Page, StartKey, read_page
from functions.shared.settings import Settings, TableName

REPO_NOT_FOUND = "REPO_NOT_FOUND"
ORG_NOT_FOUND = "ORG_NOT_FOUND"
ISSUE_NOT_FOUND = "ISSUE_NOT_FOUND"


def timestamp(at: datetime) -> str:
    """A fixed-width UTC ISO-8601 string, so that string order is time order in sort keys."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _repo_missing(owner: str, repo: str) -> NotFoundError:
    return NotFoundError(f"no repo {owner}/{repo}", code=REPO_NOT_FOUND)


class PatternsRepository:
    table_name = TableName(PATTERNS_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def table(self) -> Any:
        return ddb.table(self.table_name)

    # --- repos ---------------------------------------------------------------------------------------

    def put_repo(self, owner: str, repo: str, description: str) -> models.Repo:
        """Create a repo or change its description (UpdateItem): its counts start at 0 and are never reset."""
        response = self.table.update_item(
            Key={"PK": repo_pk(owner, repo), "SK": repo_sk(owner, repo)},
            UpdateExpression=(
                "SET #type = :type, #owner = :owner, #repo = :repo, #description = :description, "
                "StarCount = if_not_exists(StarCount, :zero), IssueCount = if_not_exists(IssueCount, :zero)"
            ),
            ExpressionAttributeNames={
                "#type": "type", "#owner": "owner", "#repo": "repo", "#description": "description"},
            ExpressionAttributeValues={
                ":type": "repo", ":owner": owner, ":repo": repo, ":description": description, ":zero": 0,
            },
            ReturnValues="ALL_NEW",
        )
        return _repo(response["Attributes"])

    def get_repo(self, owner: str, repo: str) -> models.Repo | None:
        """A repo with its counts: GetItem on the repo item."""
        item = self.table.get_item(Key={"PK": repo_pk(owner, repo), "SK": repo_sk(owner, repo)}).get("Item")
        return None if item is None else _repo(item)

    # --- reference counts: stars ---------------------------------------------------------------------

    def star(self, star: models.Star) -> tuple[models.Star, bool]:
        """Star a repo (TransactWriteItems: Put the star if new + Update the repo's StarCount by +1).

        Returns the star and whether it is new; a repeat returns the stored star and changes nothing."""
        pk = repo_pk(star.owner, star.repo)
        item = to_item(star, PK=pk, SK=star_sk(star.username), type="star")
        item["starredAt"] = timestamp(star.starred_at)
        failed = ddb.transact_write([
            ("star", {"Put": {
                "TableName": self.table_name, "Item": item, "ConditionExpression": "attribute_not_exists(PK)",
                "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
            }}),
            ("repo", self._count_star(star.owner, star.repo, 1)),
        ])
        if failed is None:
            return star, True
        if "repo" in failed.names:
            raise _repo_missing(star.owner, star.repo) from failed.error
        return from_item(models.Star, failed.item or item), False

    def unstar(self, owner: str, repo: str, username: str) -> bool:
        """Unstar a repo (TransactWriteItems: Delete the star if present + Update the repo's StarCount by -1).

        Returns whether a star was removed; unstarring what is not starred changes nothing."""
        failed = ddb.transact_write([
            ("star", {"Delete": {
                "TableName": self.table_name, "Key": {"PK": repo_pk(owner, repo), "SK": star_sk(username)},
                "ConditionExpression": "attribute_exists(PK)",
            }}),
            ("repo", self._count_star(owner, repo, -1)),
        ])
        if failed is None:
            return True
        if "repo" in failed.names:
            raise _repo_missing(owner, repo) from failed.error
        return False

    def _count_star(self, owner: str, repo: str, delta: int) -> dict[str, Any]:
        return {"Update": {
            "TableName": self.table_name,
            "Key": {"PK": repo_pk(owner, repo), "SK": repo_sk(owner, repo)},
            "UpdateExpression": "ADD StarCount :delta",
            "ConditionExpression": "attribute_exists(PK)",
            "ExpressionAttributeValues": {":delta": delta},
        }}

    def repo_with_stars(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        """A repo and its stars: Query `PK = REPO#o#r AND SK >= REPO#o#r`, ascending (the repo item, then STAR#…);
        the first page reads `limit` + 1 items, the repo and `limit` stars."""
        pk = repo_pk(owner, repo)
        return self._page(limit, start_key, _repo_or(models.Star), parent_first=True,
                          KeyConditionExpression=Key("PK").eq(pk) & Key("SK").gte(repo_sk(owner, repo)))

    # --- sequential identifiers: issues --------------------------------------------------------------

    def next_issue_number(self, owner: str, repo: str) -> int:
        """The repo's next issue number: UpdateItem `ADD IssueCount :one`, ReturnValues=UPDATED_NEW.

        Atomic: concurrent callers each get their own number."""
        try:
            response = self.table.update_item(
                Key={"PK": repo_pk(owner, repo), "SK": repo_sk(owner, repo)},
                UpdateExpression="ADD IssueCount :one",
                ConditionExpression="attribute_exists(PK)",
                ExpressionAttributeValues={":one": 1},
                ReturnValues="UPDATED_NEW",
            )
        except ClientError as error:
            if ddb.error_code(error) == "ConditionalCheckFailedException":
                raise _repo_missing(owner, repo) from error
            raise
        return int(response["Attributes"]["IssueCount"])

    def put_new_issue(self, issue: models.Issue) -> models.Issue:
        """Store issue `number` (PutItem, `attribute_not_exists(PK)`: a number is never stored twice)."""
        try:
            ddb.put_new(self.table, _issue_item(issue), "attribute_not_exists(PK)")
        except ClientError as error:
            if ddb.error_code(error) == "ConditionalCheckFailedException":
                raise ConflictError(f"issue {issue.number} exists", code="ISSUE_NUMBER_TAKEN") from error
            raise
        return issue

    def get_issue(self, owner: str, repo: str, number: int) -> models.Issue | None:
        """An issue: GetItem on `REPO#o#r`, `ISSUE#<zero-padded number>`."""
        item = self.table.get_item(Key={"PK": repo_pk(owner, repo), "SK": issue_sk(number)}).get("Item")
        return None if item is None else from_item(models.Issue, item)

    def change_issue(self, owner: str, repo: str, number: int, change: models.IssueChange, *, by: str | None,
                     at: datetime) -> models.Issue:
        """Change an issue's title or status (UpdateItem): `updatedAt` and GSI1SK move together (issues by last
        update), GSI2's keys are set when open and removed when closed (the sparse open-issues index).

        `by` set: only that author may change it (a condition on `author`); None: an admin."""
        names = {"#updatedAt": "updatedAt"}
        values: dict[str, Any] = {":at": timestamp(at), ":sk1": issue_updated_sk(timestamp(at), number)}
        sets = ["#updatedAt = :at", "GSI1SK = :sk1"]
        removes: list[str] = []
        if change.title is not None:
            names["#title"] = "title"
            values[":title"] = change.title
            sets.append("#title = :title")
        if change.status is not None:
            names["#status"] = "status"
            values[":status"] = change.status
            sets.append("#status = :status")
            if change.status == "open":
                values.update({":pk2": open_issues_pk(owner, repo), ":sk2": issue_sk(number)})
                sets += ["GSI2PK = :pk2", "GSI2SK = :sk2"]
            else:
                removes += ["GSI2PK", "GSI2SK"]
        condition = "attribute_exists(PK)"
        if by is not None:
            names["#author"] = "author"
            values[":by"] = by
            condition += " AND #author = :by"
        expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        key = {"PK": repo_pk(owner, repo), "SK": issue_sk(number)}
        try:
            response = self.table.update_item(
                Key=key, UpdateExpression=expression, ConditionExpression=condition,
                ExpressionAttributeNames=names, ExpressionAttributeValues=values, ReturnValues="ALL_NEW",
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            # Which rule held is told after the fact; nothing was written either way.
            if self.get_issue(owner, repo, number) is None:
                raise NotFoundError(f"no issue {number} in {owner}/{repo}", code=ISSUE_NOT_FOUND) from error
            raise ForbiddenError("only the issue's author or an admin may change it") from error
        return from_item(models.Issue, response["Attributes"])

    def repo_with_issues(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        """A repo and its issues, newest number first: Query `PK = REPO#o#r AND SK <= REPO#o#r`, descending
        (the repo item, then ISSUE#… from the highest number); the first page reads `limit` + 1 items, the repo and
        `limit` issues."""
        pk = repo_pk(owner, repo)
        return self._page(limit, start_key, _repo_or(models.Issue), parent_first=True, ScanIndexForward=False,
                          KeyConditionExpression=Key("PK").eq(pk) & Key("SK").lte(repo_sk(owner, repo)))

    def issues_by_update(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        """A repo's issues, most recently updated first: Query GSI1 `GSI1PK = REPO#o#r AND begins_with(GSI1SK,
        "ISSUE#")`, descending."""
        condition = Key("GSI1PK").eq(repo_pk(owner, repo)) & Key("GSI1SK").begins_with("ISSUE#")
        return self._page(limit, start_key, _model(models.Issue), IndexName=GSI1, ScanIndexForward=False,
                          KeyConditionExpression=condition)

    def open_issues(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        """A repo's open issues by number: Query the sparse GSI2 `GSI2PK = REPO#o#r#OPEN` (closed issues are not
        in it)."""
        return self._page(limit, start_key, _model(models.Issue), IndexName=GSI2,
                          KeyConditionExpression=Key("GSI2PK").eq(open_issues_pk(owner, repo)))

    # --- organizations and users ---------------------------------------------------------------------

    def put_org(self, org: models.Org) -> models.Org:
        """Create or rename an organization (PutItem)."""
        self.table.put_item(Item=to_item(org, PK=org_pk(org.org), SK=org_sk(org.org), type="org"))
        return org

    def put_org_user(self, user: models.OrgUser) -> models.OrgUser:
        """Add or replace a user of an existing organization (TransactWriteItems: ConditionCheck the org + Put the
        user). Admins carry GSI2's keys; a user put back as a member loses them (leaves the sparse index)."""
        extra: dict[str, Any] = {"PK": org_pk(user.org), "SK": user_sk(user.username), "type": "user"}
        if user.role == "admin":
            extra.update(GSI2PK=org_admins_pk(user.org), GSI2SK=user_sk(user.username))
        failed = ddb.transact_write([
            ("org", {"ConditionCheck": {
                "TableName": self.table_name, "Key": {"PK": org_pk(user.org), "SK": org_sk(user.org)},
                "ConditionExpression": "attribute_exists(PK)",
            }}),
            ("user", {"Put": {"TableName": self.table_name, "Item": to_item(user, **extra)}}),
        ])
        if failed is not None:
            raise NotFoundError(f"no organization {user.org}", code=ORG_NOT_FOUND) from failed.error
        return user

    def has_org(self, org: str) -> bool:
        """Whether the organization exists: GetItem on its item, its key only."""
        return ddb.exists(self.table, {"PK": org_pk(org), "SK": org_sk(org)})

    def has_repo(self, owner: str, repo: str) -> bool:
        """Whether the repo exists: GetItem on its item, its key only."""
        return ddb.exists(self.table, {"PK": repo_pk(owner, repo), "SK": repo_sk(owner, repo)})

    def org_with_users(self, org: str, *, descending: bool, limit: int, start_key: StartKey) -> Page:
        """An organization and its users, the org item on the first page either way.

        Descending, the seed's one Query `PK = ORG#<org> AND SK <= ORG#<org>`, ScanIndexForward=False: the org item,
        then the users (`#USER#…`, below it) Z→A; the first page reads `limit` + 1 items.
        Ascending, the users A→Z come before the org item, which no single Query can put first: the first page is a
        GetItem of the org (none: an empty page, a 404 above) and Query `PK = ORG#<org> AND SK < ORG#<org>`;
        later pages are that Query alone."""
        pk, sk = org_pk(org), org_sk(org)
        if descending:
            return self._page(limit, start_key, _org_or_user, parent_first=True, ScanIndexForward=False,
                              KeyConditionExpression=Key("PK").eq(pk) & Key("SK").lte(sk))
        head: list[Any] = []
        if start_key is None:
            item = self.table.get_item(Key={"PK": pk, "SK": sk}).get("Item")
            if item is None:
                return Page(items=[])
            head = [from_item(models.Org, item)]
        page = self._page(limit, start_key, _org_or_user, KeyConditionExpression=Key("PK").eq(pk) & Key("SK").lt(sk))
        page.items = head + page.items
        return page

    def org_admins(self, org: str, *, limit: int, start_key: StartKey) -> Page:
        """An organization's admins: Query the sparse GSI2 `GSI2PK = ORG#<org>#ADMINS` (members are not in it)."""
        return self._page(limit, start_key, _model(models.OrgUser), IndexName=GSI2,
                          KeyConditionExpression=Key("GSI2PK").eq(org_admins_pk(org)))

    # --- stores --------------------------------------------------------------------------------------

    def put_store(self, store: models.Store) -> models.Store:
        """Create or replace a store (PutItem) under `STORE#<country>`, `<state>#<city>#<zip>#<storeId>`."""
        sk = store_sk(store.state, store.city, store.zip, store.store_id)
        self.table.put_item(Item=to_item(store, PK=store_pk(store.country), SK=sk, type="store"))
        return store

    def stores_in(self, country: str, *levels: str, limit: int, start_key: StartKey) -> Page:
        """Stores of a country, or of a state, city or zip in it: Query `PK = STORE#<country>` and, below the
        country, `begins_with(SK, "<state>#[<city>#[<zip>#]]")`."""
        condition: ConditionBase = Key("PK").eq(store_pk(country))
        if levels:
            condition = condition & Key("SK").begins_with(store_prefix(*levels))
        return self._page(limit, start_key, _model(models.Store), KeyConditionExpression=condition)

    # --- orders --------------------------------------------------------------------------------------

    def put_order(self, order: models.Order) -> models.Order:
        """Create or replace an order (PutItem); GSI1SK `ORDER#<status>#<orderedAt>#<orderId>` follows its status."""
        at = timestamp(order.ordered_at)
        item = to_item(order, PK=customer_pk(order.customer), SK=order_sk(order.order_id), type="order",
                       GSI1PK=customer_pk(order.customer), GSI1SK=order_status_sk(order.status, at, order.order_id))
        item["orderedAt"] = at
        item["amount"] = Decimal(str(order.amount))
        self.table.put_item(Item=item)
        return order

    def orders_by_status(self, customer: str, status: str, first: str | None, last: str | None, *, limit: int,
                         start_key: StartKey) -> Page:
        """A customer's orders in a status, oldest first, optionally from/to a day: Query GSI1 (the seed's
        OrderStatusDateGSI) `GSI1PK = CUSTOMER#<c> AND GSI1SK BETWEEN ORDER#<status>#<from> AND
        ORDER#<status>#<to>~` (or `begins_with(GSI1SK, ORDER#<status>#)` without a range)."""
        prefix = order_status_prefix(status)
        sort: ConditionBase
        if first is None and last is None:
            sort = Key("GSI1SK").begins_with(prefix)
        else:
            # "~" sorts after every character of a timestamp: the whole `last` day is in.
            sort = Key("GSI1SK").between(prefix + (first or ""), prefix + (last or "9999-12-31") + "~")
        return self._page(limit, start_key, _model(models.Order), IndexName=GSI1,
                          KeyConditionExpression=Key("GSI1PK").eq(customer_pk(customer)) & sort)

    # --- the singleton -----------------------------------------------------------------------------

    def put_featured(self, featured: models.Featured) -> models.Featured:
        """Replace the featured repos: one TransactWriteItems that Puts every replica (`FEATURED#<r>`) and Deletes the
        retired single item, so a reader sees the old list or the new one, whichever replica it reads (ADR 0111)."""
        item = to_item(featured, type="featured")
        if featured.updated_at is not None:
            item["updatedAt"] = timestamp(featured.updated_at)
        actions: list[tuple[str, dict[str, Any]]] = [
            (f"replica {r}", {"Put": {"TableName": self.table_name, "Item": {**item, **featured_key(r)}}})
            for r in range(FEATURED_REPLICAS)
        ]
        actions.append(("retired", {"Delete": {"TableName": self.table_name, "Key": FEATURED_KEY}}))
        ddb.transact_write(actions)  # no condition: it commits or raises
        return featured

    def get_featured(self) -> models.Featured | None:
        """The featured repos: GetItem on one replica, picked at random (eventually consistent, as before); the
        retired single item only while that replica is missing (a stage not yet migrated, or nothing featured)."""
        item = self.table.get_item(Key=featured_key(secrets.randbelow(FEATURED_REPLICAS))).get("Item")
        if item is None:
            item = self.table.get_item(Key=FEATURED_KEY).get("Item")
        return None if item is None else from_item(models.Featured, item)

    # --- pages ---------------------------------------------------------------------------------------

    def _page(self, limit: int, start_key: StartKey, parse: Callable[[dict[str, Any]], Any], *,
              parent_first: bool = False, **query: Any) -> Page:
        return read_page(self.table.query, parse, limit=limit, start_key=start_key, parent_first=parent_first,
                          **query)


def _repo(item: dict[str, Any]) -> models.Repo:
    return models.Repo(owner=item["owner"], repo=item["repo"], description=item.get("description", ""),
                star_count=int(item.get("StarCount", 0)), issue_count=int(item.get("IssueCount", 0)))


def _issue_item(issue: models.Issue) -> dict[str, Any]:
    pk = repo_pk(issue.owner, issue.repo)
    updated = timestamp(issue.updated_at)
    item = to_item(issue, PK=pk, SK=issue_sk(issue.number), type="issue",
                   GSI1PK=pk, GSI1SK=issue_updated_sk(updated, issue.number))
    item.update(createdAt=timestamp(issue.created_at), updatedAt=updated)
    if issue.status == "open":
        item.update(GSI2PK=open_issues_pk(issue.owner, issue.repo), GSI2SK=issue_sk(issue.number))
    return item


def _model(model: type) -> Callable[[dict[str, Any]], Any]:
    return lambda item: from_item(model, item)


def _repo_or(model: type) -> Callable[[dict[str, Any]], Any]:
    return lambda item: _repo(item) if item.get("type") == "repo" else from_item(model, item)


def _org_or_user(item: dict[str, Any]) -> models.Org | models.OrgUser:
    return from_item(models.Org, item) if item.get("type") == "org" else from_item(models.OrgUser, item)
