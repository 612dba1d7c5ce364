"""Patterns API models: camelCase on the wire and, for most attributes, in the stored items too (`from_item`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import ConfigDict, Field, StringConstraints

from functions.shared.models import ApiModel, DateTime, Day, JsonNumber, PageOf, rounded, stripped_rules

# Names that become parts of keys: no separator (`#`), no spaces.
NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
NamePath = Annotated[str, Path(pattern=NAME_PATTERN)]
NumberPath = Annotated[int, Path(ge=1, le=9_999_999)]
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
Text = Annotated[str, *stripped_rules(1, 200)]
Description = Annotated[str, *stripped_rules(0, 500)]

IssueStatus = Literal["open", "closed"]
Role = Literal["member", "admin"]
OrderStatus = Literal["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"]


# --- repos, stars, issues -----------------------------------------------------------------------------

class RepoIn(ApiModel):
    description: Description = ""


class Repo(ApiModel):
    owner: str
    repo: str
    description: str = ""
    star_count: int = 0  # stored as the Book's `StarCount`
    issue_count: int = 0  # stored as the Book's `IssueCount`: the last issue number handed out


class Star(ApiModel):
    owner: str
    repo: str
    username: str
    starred_at: datetime


class IssueIn(ApiModel):
    title: Text


class IssueChange(ApiModel):
    """At least one of the two, neither null: what the description says (minProperties, no null type) is what the
    service needs ("nothing to change" would otherwise be a 400 for a body the description calls valid)."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1})

    title: Text = None  # type: ignore[assignment]  # absent means unchanged; null is refused (not a Text)
    status: IssueStatus = None  # type: ignore[assignment]


class Issue(ApiModel):
    owner: str
    repo: str
    number: int
    title: str
    status: IssueStatus
    author: str
    created_at: datetime
    updated_at: datetime


class IssuePage(PageOf[Issue]):
    pass


class RepoWithIssues(PageOf[Issue]):
    """One page of the repo's item collection below the repo item: the repo on the first page (null on the others),
    and `limit` issues on every page."""

    repo: Repo | None = None


class RepoWithStars(PageOf[Star]):
    """One page of the repo's item collection from the repo item up: the repo on the first page (null on the
    others), and `limit` stars on every page."""

    repo: Repo | None = None


# --- organizations and users --------------------------------------------------------------------------

class OrgIn(ApiModel):
    name: Text


class Org(ApiModel):
    org: str
    name: str


class UserIn(ApiModel):
    name: Text
    role: Role = "member"


class OrgUser(ApiModel):
    org: str
    username: str
    name: str
    role: Role


class UserPage(PageOf[OrgUser]):
    pass


class OrgWithUsers(PageOf[OrgUser]):
    """One page of the org's users, A-Z or Z-A; `org` on the first page in either order (null on the others)."""

    org: Org | None = None


# --- stores -------------------------------------------------------------------------------------------

class StoreIn(ApiModel):
    address: Text


class Store(ApiModel):
    store_id: str
    country: str
    state: str
    city: str
    zip: str
    address: str


class StorePage(PageOf[Store]):
    pass


# --- orders -------------------------------------------------------------------------------------------

class OrderIn(ApiModel):
    status: OrderStatus
    ordered_at: DateTime
    amount: Annotated[JsonNumber, Field(ge=0, le=1_000_000), rounded(6)]


class Order(ApiModel):
    customer: str
    order_id: str
    status: OrderStatus
    ordered_at: datetime
    amount: float


class OrderPage(PageOf[Order]):
    pass


class OrderRange(ApiModel):
    """`status` and an optional day range (inclusive) of `orderedAt`."""

    status: OrderStatus
    first: Day | None = None
    last: Day | None = None


# --- the singleton ------------------------------------------------------------------------------------

REPO_REF_PATTERN = r"^[A-Za-z0-9_.-]{1,64}/[A-Za-z0-9_.-]{1,64}$"
MAX_FEATURED = 10


class FeaturedIn(ApiModel):
    repos: Annotated[list[Annotated[str, StringConstraints(pattern=REPO_REF_PATTERN)]], Field(max_length=MAX_FEATURED)]


class Featured(ApiModel):
    """The application's featured repos (`owner/repo`), one singleton item."""

    repos: list[str]
    updated_at: datetime | None = None
