"""Patterns rules that are not storage: who may do what, what is missing, and the issue-number sequence."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from functions.patterns import models
from functions.patterns.repository import (
    ISSUE_NOT_FOUND,
    ORG_NOT_FOUND,
    REPO_NOT_FOUND,
    PatternsRepository,
)
from functions.shared.auth import ADMIN, Caller
from functions.shared.errors import (
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    check_range,
    found,
)
from functions.shared.pages import Page, StartKey, listed_under

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class PatternsService:
    def __init__(self, repository: PatternsRepository, clock: Clock = utc_now) -> None:
        self.repository = repository
        self.clock = clock

    # --- repos and stars (reference counts) ----------------------------------------------------------

    def put_repo(self, owner: str, repo: str, description: str) -> models.Repo:
        return self.repository.put_repo(owner, repo, description)

    def get_repo(self, owner: str, repo: str) -> models.Repo:
        return found(self.repository.get_repo(owner, repo), f"no repo {owner}/{repo}", REPO_NOT_FOUND)

    def star(self, caller: Caller, owner: str, repo: str) -> tuple[models.Star, bool]:
        """The caller stars the repo as themselves; (the star, whether it is new)."""
        star = models.Star(owner=owner, repo=repo, username=caller.username, starred_at=self.clock())
        return self.repository.star(star)

    def unstar(self, caller: Caller, owner: str, repo: str) -> bool:
        return self.repository.unstar(owner, repo, caller.username)

    def repo_with_stars(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.repo_with_stars(owner, repo, limit=limit, start_key=start_key)
        return _repo_found(page, start_key, owner, repo)

    # --- issues (sequential identifiers, changing sort key, sparse index) ----------------------------

    def create_issue(self, caller: Caller, owner: str, repo: str, request: models.IssueIn) -> models.Issue:
        """Number from the repo's counter, then the issue under that number. Should the put fail after the
        counter moved, that number is skipped: a gap, never a duplicate."""
        number = self.repository.next_issue_number(owner, repo)
        now = self.clock()
        issue = models.Issue(owner=owner, repo=repo, number=number, title=request.title, status="open",
                      author=caller.username, created_at=now, updated_at=now)
        return self.repository.put_new_issue(issue)

    def get_issue(self, owner: str, repo: str, number: int) -> models.Issue:
        return found(self.repository.get_issue(owner, repo, number), f"no issue {number} in {owner}/{repo}",
                     ISSUE_NOT_FOUND)

    def change_issue(self, caller: Caller, owner: str, repo: str, number: int,
                     change: models.IssueChange) -> models.Issue:
        if change.title is None and change.status is None:
            raise InvalidInputError("nothing to change: give a title or a status",
                                    details=[{"field": "body", "message": "title or status required"}])
        by = None if caller.is_in(ADMIN) else caller.username
        return self.repository.change_issue(owner, repo, number, change, by=by, at=self.clock())

    def repo_with_issues(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.repo_with_issues(owner, repo, limit=limit, start_key=start_key)
        return _repo_found(page, start_key, owner, repo)

    def issues_by_update(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.issues_by_update(owner, repo, limit=limit, start_key=start_key)
        return listed_under(page, start_key is None, lambda: self.repository.has_repo(owner, repo),
                            _repo_missing(owner, repo))

    def open_issues(self, owner: str, repo: str, *, limit: int, start_key: StartKey) -> Page:
        page = self.repository.open_issues(owner, repo, limit=limit, start_key=start_key)
        return listed_under(page, start_key is None, lambda: self.repository.has_repo(owner, repo),
                            _repo_missing(owner, repo))

    # --- organizations -------------------------------------------------------------------------------

    def put_org(self, org: models.Org) -> models.Org:
        return self.repository.put_org(org)

    def put_org_user(self, user: models.OrgUser) -> models.OrgUser:
        return self.repository.put_org_user(user)

    def org_with_users(self, org: str, *, descending: bool, limit: int, start_key: StartKey) -> Page:
        """The first page holds the org item in either order: without it, there is no such org."""
        page = self.repository.org_with_users(org, descending=descending, limit=limit, start_key=start_key)
        if start_key is None and not any(isinstance(item, models.Org) for item in page.items):
            raise NotFoundError(f"no organization {org}", code=ORG_NOT_FOUND)
        return page

    def org_admins(self, org: str, *, limit: int, start_key: StartKey) -> Page:
        """The sparse index holds admins only: an empty first page costs one GetItem of the org (404 if none)."""
        page = self.repository.org_admins(org, limit=limit, start_key=start_key)
        return listed_under(page, start_key is None, lambda: self.repository.has_org(org),
                            NotFoundError(f"no organization {org}", code=ORG_NOT_FOUND))

    # --- stores and orders ---------------------------------------------------------------------------

    def put_store(self, store: models.Store) -> models.Store:
        return self.repository.put_store(store)

    def stores_in(self, country: str, *levels: str, limit: int, start_key: StartKey) -> Page:
        return self.repository.stores_in(country, *levels, limit=limit, start_key=start_key)

    def put_order(self, order: models.Order) -> models.Order:
        return self.repository.put_order(order)

    def orders_by_status(self, caller: Caller, customer: str, wanted: models.OrderRange, *, limit: int,
                         start_key: StartKey) -> Page:
        """A customer's orders are theirs and the admins' to read."""
        if caller.username != customer and not caller.is_in(ADMIN):
            raise ForbiddenError("a customer's orders are theirs (or an admin's) to read")
        check_range(wanted.first, wanted.last)
        first = wanted.first.isoformat() if wanted.first else None
        last = wanted.last.isoformat() if wanted.last else None
        return self.repository.orders_by_status(customer, wanted.status, first, last, limit=limit,
                                                start_key=start_key)

    # --- the singleton -------------------------------------------------------------------------------

    def put_featured(self, repos: list[str]) -> models.Featured:
        return self.repository.put_featured(models.Featured(repos=list(dict.fromkeys(repos)), updated_at=self.clock()))

    def get_featured(self) -> models.Featured:
        """Nothing featured yet is an empty list, not a 404: the singleton is the application's, always there."""
        return self.repository.get_featured() or models.Featured(repos=[])


def _repo_missing(owner: str, repo: str) -> NotFoundError:
    return NotFoundError(f"no repo {owner}/{repo}", code=REPO_NOT_FOUND)


def _repo_found(page: Page, start_key: StartKey, owner: str, repo: str) -> Page:
    """The first page of a repo's collection starts with the repo item; without it, there is no such repo."""
    if start_key is None and not any(isinstance(item, models.Repo) for item in page.items):
        raise _repo_missing(owner, repo)
    return page
