"""Patterns API (seed 003, The DynamoDB Book's patterns): repos with stars and issues, organizations with users,
stores by place, a customer's orders by status. Each route is a validated input and one call into the service."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from functions.patterns.models import (
    Featured,
    FeaturedIn,
    Issue,
    IssueChange,
    IssueIn,
    IssuePage,
    NamePath,
    NumberPath,
    Order,
    OrderIn,
    OrderPage,
    OrderRange,
    Org,
    OrgIn,
    OrgUser,
    OrgWithUsers,
    Repo,
    RepoIn,
    RepoWithIssues,
    RepoWithStars,
    Star,
    Store,
    StoreIn,
    StorePage,
    UserIn,
    UserPage,
)
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
    field = "repo" if head is Repo else "org"

    def build(items: list[Any], next_cursor: str | None) -> Any:
        parent = next((item for item in items if isinstance(item, head)), None)
        children = [item for item in items if not isinstance(item, head)]
        return page_model(**{field: parent, "items": children, "next_cursor": next_cursor})

    return build


# --- repos and stars: reference counts, assembled collections -----------------------------------------


@router.serve
def put_repo(owner: NamePath, repo: NamePath, body: RepoIn, svc: Service) -> Repo:
    """Create or replace a repository."""
    return svc.put_repo(owner, repo, body.description)


@router.serve
def get_repo(owner: NamePath, repo: NamePath, svc: Service) -> Repo:
    """Read a repository."""
    return svc.get_repo(owner, repo)


@router.serve
def star(owner: NamePath, repo: NamePath, username: NamePath, svc: Service, caller: kit.Caller) -> Response[Star]:
    """Star a repository."""
    starred, created = svc.star(_as_self(caller, username), owner, repo)
    return kit.created(created, starred)


@router.serve
def unstar(owner: NamePath, repo: NamePath, username: NamePath, svc: Service, caller: kit.Caller) -> Response[None]:
    """Remove a star from a repository."""
    svc.unstar(_as_self(caller, username), owner, repo)
    return Response(status_code=204)


@router.serve
@kit.paged
def repo_with_stars(owner: NamePath, repo: NamePath, svc: Service, page: kit.PageRequest) -> RepoWithStars:
    """Read a repository with its stargazers."""
    return page.page(_split(RepoWithStars, Repo),
                     lambda start: svc.repo_with_stars(owner, repo, limit=page.limit, start_key=start))


def _as_self(caller: Caller, username: str) -> Caller:
    if caller.username != username:
        raise ForbiddenError("star and unstar as yourself")
    return caller


# --- issues: sequential identifiers, sparse index, sorting on a changing attribute --------------------


@router.serve
def create_issue(owner: NamePath, repo: NamePath, issue: IssueIn, svc: Service, caller: kit.Caller,
                 create: kit.CreateOnce,
                 idempotency_key: kit.IdempotencyKey = None) -> Response[Issue]:
    """Open an issue in a repository."""
    caller = caller
    return create(operation=f"patterns.issue/{owner}/{repo}", key=idempotency_key,
                  request=issue.model_dump(mode="json"),
                  make=lambda: svc.create_issue(caller, owner, repo, issue))


@router.serve
@kit.paged
def repo_with_issues(owner: NamePath, repo: NamePath, svc: Service, page: kit.PageRequest) -> RepoWithIssues:
    """Read a repository with its issues."""
    return page.page(_split(RepoWithIssues, Repo),
                     lambda start: svc.repo_with_issues(owner, repo, limit=page.limit, start_key=start))


@router.serve
def get_issue(owner: NamePath, repo: NamePath, number: NumberPath, svc: Service) -> Issue:
    """Read an issue."""
    return svc.get_issue(owner, repo, number)


@router.serve
def change_issue(owner: NamePath, repo: NamePath, number: NumberPath, change: IssueChange, svc: Service,
                 caller: kit.Caller) -> Issue:
    """Change an issue's title or state."""
    return svc.change_issue(caller, owner, repo, number, change)


@router.serve
@kit.paged
def open_issues(owner: NamePath, repo: NamePath, svc: Service, page: kit.PageRequest) -> IssuePage:
    """List a repository's open issues."""
    return page.page(IssuePage,
                     lambda start: svc.open_issues(owner, repo, limit=page.limit, start_key=start))


@router.serve
@kit.paged
def issues_by_update(owner: NamePath, repo: NamePath, svc: Service, page: kit.PageRequest) -> IssuePage:
    """List a repository's issues, most recently updated first."""
    return page.page(IssuePage,
                     lambda start: svc.issues_by_update(owner, repo, limit=page.limit, start_key=start))


# --- organizations: sorting with multiple entity types, sparse index ----------------------------------


@router.serve
def put_org(org: NamePath, body: OrgIn, svc: Service) -> Org:
    """Create or replace an organization."""
    return svc.put_org(Org(org=org, name=body.name))


@router.serve
@kit.paged
def org_with_users(
    org: NamePath,
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
) -> OrgWithUsers:
    """Read an organization with its users."""
    return page.page(_split(OrgWithUsers, Org),
                     lambda start: svc.org_with_users(org, descending=order == "desc", limit=page.limit,
                                                      start_key=start))


@router.serve
def put_org_user(org: NamePath, username: NamePath, body: UserIn, svc: Service) -> OrgUser:
    """Add or change a user of an organization."""
    return svc.put_org_user(OrgUser(org=org, username=username, name=body.name, role=body.role))


@router.serve
@kit.paged
def org_admins(org: NamePath, svc: Service, page: kit.PageRequest) -> UserPage:
    """List an organization's admins."""
    return page.page(UserPage, lambda start: svc.org_admins(org, limit=page.limit, start_key=start))


# --- stores: composite sort keys for hierarchy --------------------------------------------------------


@router.serve
def put_store(country: NamePath, state: NamePath, city: NamePath, zip_code: NamePath, store_id: NamePath, body: StoreIn,
              svc: Service) -> Store:
    """Create or replace a store at its location."""
    return svc.put_store(
        Store(store_id=store_id, country=country, state=state, city=city, zip=zip_code, address=body.address)
    )


def _stores(svc: PatternsService, country: str, levels: tuple[str, ...], page: kit.PageRequest) -> StorePage:
    return page.page(StorePage,
                     lambda start: svc.stores_in(country, *levels, limit=page.limit, start_key=start))


@router.serve
@kit.paged
def stores_in_country(country: NamePath, svc: Service, page: kit.PageRequest) -> StorePage:
    """List the stores in a country."""
    return _stores(svc, country, (), page)


@router.serve
@kit.paged
def stores_in_state(country: NamePath, state: NamePath, svc: Service, page: kit.PageRequest) -> StorePage:
    """List the stores in a state."""
    return _stores(svc, country, (state,), page)


@router.serve
@kit.paged
def stores_in_city(country: NamePath, state: NamePath, city: NamePath, svc: Service,
                   page: kit.PageRequest) -> StorePage:
    """List the stores in a city."""
    return _stores(svc, country, (state, city), page)


@router.serve
@kit.paged
def stores_in_zip(country: NamePath, state: NamePath, city: NamePath, zip_code: NamePath, svc: Service,
                  page: kit.PageRequest) -> StorePage:
    """List the stores in a postal code."""
    return _stores(svc, country, (state, city, zip_code), page)


# --- orders: composite sort key with an enum ----------------------------------------------------------


@router.serve
def put_order(customer: NamePath, order_id: NamePath, body: OrderIn, svc: Service) -> Order:
    """Create or replace a customer's order."""
    return svc.put_order(Order(customer=customer, order_id=order_id, **body.model_dump()))


@router.serve
@kit.paged
def orders_by_status(
    customer: NamePath,
    status: Annotated[Literal["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"], Query()],
    svc: Service,
    caller: kit.Caller,
    page: kit.PageRequest,
    first: Annotated[
        str | None, Query(alias="from", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")
    ] = None,
    last: Annotated[str | None, Query(alias="to", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")] = None,
) -> OrderPage:
    """List a customer's orders by status and date."""
    wanted = OrderRange(status=status, first=_day(first, "from"), last=_day(last, "to"))
    return page.page(
        OrderPage,
        lambda start: svc.orders_by_status(caller, customer, wanted, limit=page.limit, start_key=start),
    )


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
def put_featured(body: FeaturedIn, svc: Service) -> Featured:
    """Set the featured repositories."""
    return svc.put_featured(body.repos)


@router.serve
def get_featured(svc: Service) -> Featured:
    """Read the featured repositories."""
    return svc.get_featured()


app, lambda_handler = kit.serve(router)
