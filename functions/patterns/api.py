"""Patterns API (seed 003, The DynamoDB Book's patterns): repos with stars and issues, organizations with users,
stores by place, a customer's orders by status. Each route is a validated input and one call into the service."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.patterns import models
from functions.patterns.repository import PatternsRepository
from functions.patterns.service import PatternsService
from functions.shared import kit
from functions.shared.auth import Caller
from functions.shared.errors import ForbiddenError

P = "/patterns"
router = kit.DomainRouter.of(__file__)


service = kit.service(PatternsService, PatternsRepository)
Service = Annotated[PatternsService, kit.Depends(service)]


def _split(page_model: Callable[..., Any], head: type) -> Callable[..., Any]:
    """A page of one item collection as the parent item (`head`, when this page holds it) and its children."""
    field = "repo" if head is models.Repo else "org"

    def build(items: list[Any], next_cursor: str | None) -> Any:
        parent = next((item for item in items if isinstance(item, head)), None)
        children = [item for item in items if not isinstance(item, head)]
        return page_model(**{field: parent, "items": children, "next_cursor": next_cursor})

    return build


# --- repos and stars: reference counts, assembled collections -----------------------------------------


@router.serve
def put_repo(owner: models.NamePath, repo: models.NamePath, body: models.RepoIn, svc: Service) -> models.Repo:
    """Create or replace a repository."""
    return svc.put_repo(owner, repo, body.description)


@router.serve
def get_repo(owner: models.NamePath, repo: models.NamePath, svc: Service) -> models.Repo:
    """Read a repository."""
    return svc.get_repo(owner, repo)


@router.serve
def star(owner: models.NamePath, repo: models.NamePath, username: models.NamePath, svc: Service,
         caller: kit.Caller) -> Response[models.Star]:
    """Star a repository."""
    starred, created = svc.star(_as_self(caller, username), owner, repo)
    return kit.created(created, starred)


@router.serve
def unstar(owner: models.NamePath, repo: models.NamePath, username: models.NamePath, svc: Service,
           caller: kit.Caller) -> Response[None]:
    """Remove a star from a repository."""
    svc.unstar(_as_self(caller, username), owner, repo)
    return Response(status_code=204)


@router.serve
@kit.paged
def repo_with_stars(owner: models.NamePath, repo: models.NamePath, svc: Service,
                    page: kit.PageRequest) -> models.RepoWithStars:
    """Read a repository with its stargazers."""
    return page.page(_split(models.RepoWithStars, models.Repo),
                     lambda start: svc.repo_with_stars(owner, repo, limit=page.limit, start_key=start))


def _as_self(caller: Caller, username: str) -> Caller:
    if caller.username != username:
        raise ForbiddenError("star and unstar as yourself")
    return caller


# --- issues: sequential identifiers, sparse index, sorting on a changing attribute --------------------


@router.serve
def create_issue(owner: models.NamePath, repo: models.NamePath, issue: models.IssueIn, svc: Service, caller: kit.Caller,
                 create: kit.CreateOnce,
                 idempotency_key: kit.IdempotencyKey = None) -> Response[models.Issue]:
    """Open an issue in a repository."""
    return create(operation=f"patterns.issue/{owner}/{repo}", key=idempotency_key,
                  request=issue.model_dump(mode="json"),
                  make=lambda: svc.create_issue(caller, owner, repo, issue))


@router.serve
@kit.paged
def repo_with_issues(owner: models.NamePath, repo: models.NamePath, svc: Service,
                     page: kit.PageRequest) -> models.RepoWithIssues:
    """Read a repository with its issues."""
    return page.page(_split(models.RepoWithIssues, models.Repo),
                     lambda start: svc.repo_with_issues(owner, repo, limit=page.limit, start_key=start))


@router.serve
def get_issue(owner: models.NamePath, repo: models.NamePath, number: models.NumberPath, svc: Service) -> models.Issue:
    """Read an issue."""
    return svc.get_issue(owner, repo, number)


@router.serve
def change_issue(owner: models.NamePath, repo: models.NamePath, number: models.NumberPath, change: models.IssueChange,
                 svc: Service,
                 caller: kit.Caller) -> models.Issue:
    """Change an issue's title or state."""
    return svc.change_issue(caller, owner, repo, number, change)


@router.serve
@kit.paged
def open_issues(owner: models.NamePath, repo: models.NamePath, svc: Service, page: kit.PageRequest) -> models.IssuePage:
    """List a repository's open issues."""
    return page.of(models.IssuePage, svc.open_issues, owner, repo)


@router.serve
@kit.paged
def issues_by_update(owner: models.NamePath, repo: models.NamePath, svc: Service,
                     page: kit.PageRequest) -> models.IssuePage:
    """List a repository's issues, most recently updated first."""
    return page.of(models.IssuePage, svc.issues_by_update, owner, repo)


# --- organizations: sorting with multiple entity types, sparse index ----------------------------------


@router.serve
def put_org(org: models.NamePath, body: models.OrgIn, svc: Service) -> models.Org:
    """Create or replace an organization."""
    return svc.put_org(models.Org(org=org, name=body.name))


@router.serve
@kit.paged
def org_with_users(
    org: models.NamePath,
    # desc is the default: the seed's one Query a page (docs/patterns.md, "Sorting with multiple entity types")
    svc: Service,
    page: kit.PageRequest,
    order: Annotated[
        Literal["asc", "desc"],
        Query(
            description="users Z-A (desc, one request a page) or A-Z (asc, the first page two requests); the org comes "
            "with the first page either way"
        ),
    ] = "desc",
) -> models.OrgWithUsers:
    """Read an organization with its users."""
    return page.page(_split(models.OrgWithUsers, models.Org),
                     lambda start: svc.org_with_users(org, descending=order == "desc", limit=page.limit,
                                                      start_key=start))


@router.serve
def put_org_user(org: models.NamePath, username: models.NamePath, body: models.UserIn, svc: Service) -> models.OrgUser:
    """Add or change a user of an organization."""
    return svc.put_org_user(models.OrgUser(org=org, username=username, name=body.name, role=body.role))


@router.serve
@kit.paged
def org_admins(org: models.NamePath, svc: Service, page: kit.PageRequest) -> models.UserPage:
    """List an organization's admins."""
    return page.of(models.UserPage, svc.org_admins, org)


# --- stores: composite sort keys for hierarchy --------------------------------------------------------


@router.serve
def put_store(country: models.NamePath, state: models.NamePath, city: models.NamePath, zip_code: models.NamePath,
              store_id: models.NamePath, body: models.StoreIn,
              svc: Service) -> models.Store:
    """Create or replace a store at its location."""
    return svc.put_store(
        models.Store(store_id=store_id, country=country, state=state, city=city, zip=zip_code, address=body.address)
    )


def _stores(svc: PatternsService, country: str, levels: tuple[str, ...], page: kit.PageRequest) -> models.StorePage:
    return page.of(models.StorePage, svc.stores_in, country, *levels)


@router.serve
@kit.paged
def stores_in_country(country: models.NamePath, svc: Service, page: kit.PageRequest) -> models.StorePage:
    """List the stores in a country."""
    return _stores(svc, country, (), page)


@router.serve
@kit.paged
def stores_in_state(country: models.NamePath, state: models.NamePath, svc: Service,
                    page: kit.PageRequest) -> models.StorePage:
    """List the stores in a state."""
    return _stores(svc, country, (state,), page)


@router.serve
@kit.paged
def stores_in_city(country: models.NamePath, state: models.NamePath, city: models.NamePath, svc: Service,
                   page: kit.PageRequest) -> models.StorePage:
    """List the stores in a city."""
    return _stores(svc, country, (state, city), page)


@router.serve
@kit.paged
def stores_in_zip(country: models.NamePath, state: models.NamePath, city: models.NamePath, zip_code: models.NamePath,
                  svc: Service,
                  page: kit.PageRequest) -> models.StorePage:
    """List the stores in a postal code."""
    return _stores(svc, country, (state, city, zip_code), page)


# --- orders: composite sort key with an enum ----------------------------------------------------------


@router.serve
def put_order(customer: models.NamePath, order_id: models.NamePath, body: models.OrderIn, svc: Service) -> models.Order:
    """Create or replace a customer's order."""
    return svc.put_order(models.Order(customer=customer, order_id=order_id, **body.model_dump()))


@router.serve
@kit.paged
def orders_by_status(
    customer: models.NamePath,
    status: Annotated[Literal["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"], Query()],
    svc: Service,
    caller: kit.Caller,
    page: kit.PageRequest,
    first: Annotated[
        str | None, Query(alias="from", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")
    ] = None,
    last: Annotated[str | None, Query(alias="to", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")] = None,
) -> models.OrderPage:
    """List a customer's orders by status and date."""
    wanted = models.OrderRange(status=status, first=_day(first, "from"), last=_day(last, "to"))
    return page.of(models.OrderPage, svc.orders_by_status, caller, customer, wanted)


def _day(value: str | None, name: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise kit.InvalidInputError(
            f"{name} is not a real day", details=[{"field": f"query.{name}", "message": "must be a real YYYY-MM-DD"}]
        ) from error


# --- the singleton ------------------------------------------------------------------------------------


@router.serve
def put_featured(body: models.FeaturedIn, svc: Service) -> models.Featured:
    """Set the featured repositories."""
    return svc.put_featured(body.repos)


@router.serve
def get_featured(svc: Service) -> models.Featured:
    """Read the featured repositories."""
    return svc.get_featured()


app, lambda_handler = kit.serve(router)
