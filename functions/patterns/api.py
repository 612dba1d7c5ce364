"""Patterns API (seed 003, The DynamoDB Book's patterns): repos with stars and issues, organizations with users,
stores by place, a customer's orders by status. Each route is a validated input and one call into the service."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.openapi.params import Path, Query

from functions.patterns.models import (
    NAME_PATTERN,
    Featured,
    FeaturedIn,
    Issue,
    IssueChange,
    IssueIn,
    IssuePage,
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
from functions.patterns.routes import ROUTES
from functions.patterns.service import PatternsService
from functions.shared import kit
from functions.shared.errors import ForbiddenError

P = "/patterns"
router = kit.DomainRouter(ROUTES)

NamePath = Annotated[str, Path(pattern=NAME_PATTERN)]
NumberPath = Annotated[int, Path(ge=1, le=9_999_999)]


@kit.per_container
def service() -> PatternsService:
    return PatternsService(PatternsRepository(kit.settings()))


Service = Annotated[PatternsService, kit.Depends(service)]


def _json(status: int, body: dict) -> Response:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


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
def star(owner: NamePath, repo: NamePath, username: NamePath, svc: Service) -> Response[Star]:
    """Star a repository."""
    caller = _as_self(username)
    starred, created = svc.star(caller, owner, repo)
    return _json(201 if created else 200, kit.dump(starred))


@router.serve
def unstar(owner: NamePath, repo: NamePath, username: NamePath, svc: Service) -> Response[None]:
    """Remove a star from a repository."""
    svc.unstar(_as_self(username), owner, repo)
    return Response(status_code=204)


@router.serve
def repo_with_stars(owner: NamePath, repo: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                    cursor: kit.Cursor = None) -> RepoWithStars:
    """Read a repository with its stargazers."""
    return kit.paginate(app, _split(RepoWithStars, Repo), cursor,
                        lambda start: svc.repo_with_stars(owner, repo, limit=limit, start_key=start))


def _as_self(username: str):
    caller = kit.caller_of(app)
    if caller.username != username:
        raise ForbiddenError("star and unstar as yourself")
    return caller


# --- issues: sequential identifiers, sparse index, sorting on a changing attribute --------------------


@router.serve
def create_issue(owner: NamePath, repo: NamePath, issue: IssueIn, svc: Service,
                 idempotency_key: kit.IdempotencyKey = None) -> Response[Issue]:
    """Open an issue in a repository."""
    caller = kit.caller_of(app)
    return kit.create_once(app, operation=f"patterns.issue/{owner}/{repo}", key=idempotency_key,
                           request=issue.model_dump(mode="json"),
                           make=lambda: svc.create_issue(caller, owner, repo, issue))


@router.serve
def repo_with_issues(owner: NamePath, repo: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                     cursor: kit.Cursor = None) -> RepoWithIssues:
    """Read a repository with its issues."""
    return kit.paginate(app, _split(RepoWithIssues, Repo), cursor,
                        lambda start: svc.repo_with_issues(owner, repo, limit=limit, start_key=start))


@router.serve
def get_issue(owner: NamePath, repo: NamePath, number: NumberPath, svc: Service) -> Issue:
    """Read an issue."""
    return svc.get_issue(owner, repo, number)


@router.serve
def change_issue(owner: NamePath, repo: NamePath, number: NumberPath, change: IssueChange, svc: Service) -> Issue:
    """Change an issue's title or state."""
    return svc.change_issue(kit.caller_of(app), owner, repo, number, change)


@router.serve
def open_issues(owner: NamePath, repo: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                cursor: kit.Cursor = None) -> IssuePage:
    """List a repository's open issues."""
    return kit.paginate(app, IssuePage, cursor,
                        lambda start: svc.open_issues(owner, repo, limit=limit, start_key=start))


@router.serve
def issues_by_update(owner: NamePath, repo: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                     cursor: kit.Cursor = None) -> IssuePage:
    """List a repository's issues, most recently updated first."""
    return kit.paginate(app, IssuePage, cursor,
                        lambda start: svc.issues_by_update(owner, repo, limit=limit, start_key=start))


# --- organizations: sorting with multiple entity types, sparse index ----------------------------------


@router.serve
def put_org(org: NamePath, body: OrgIn, svc: Service) -> Org:
    """Create or replace an organization."""
    return svc.put_org(Org(org=org, name=body.name))


@router.serve
def org_with_users(
    org: NamePath,
    # desc is the default: the seed's one Query a page (docs/patterns.md, "Sorting with multiple entity types")
    svc: Service,
    order: Annotated[
        Literal["asc", "desc"],
        Query(
            description="users Z-A (desc, one request a page) or A-Z (asc, the first page two requests); the org comes "
            "with the first page either way"
        ),
    ] = "desc",
    limit: kit.Limit = kit.DEFAULT_LIMIT,
    cursor: kit.Cursor = None,
) -> OrgWithUsers:
    """Read an organization with its users."""
    return kit.paginate(app, _split(OrgWithUsers, Org), cursor,
                        lambda start: svc.org_with_users(org, descending=order == "desc", limit=limit, start_key=start))


@router.serve
def put_org_user(org: NamePath, username: NamePath, body: UserIn, svc: Service) -> OrgUser:
    """Add or change a user of an organization."""
    return svc.put_org_user(OrgUser(org=org, username=username, name=body.name, role=body.role))


@router.serve
def org_admins(org: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
               cursor: kit.Cursor = None) -> UserPage:
    """List an organization's admins."""
    return kit.paginate(app, UserPage, cursor, lambda start: svc.org_admins(org, limit=limit, start_key=start))


# --- stores: composite sort keys for hierarchy --------------------------------------------------------


@router.serve
def put_store(country: NamePath, state: NamePath, city: NamePath, zip_code: NamePath, store_id: NamePath, body: StoreIn,
              svc: Service) -> Store:
    """Create or replace a store at its location."""
    return svc.put_store(
        Store(store_id=store_id, country=country, state=state, city=city, zip=zip_code, address=body.address)
    )


def _stores(svc: PatternsService, country: str, levels: tuple[str, ...], limit: int, cursor: str | None) -> StorePage:
    return kit.paginate(app, StorePage, cursor,
                        lambda start: svc.stores_in(country, *levels, limit=limit, start_key=start))


@router.serve
def stores_in_country(country: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                      cursor: kit.Cursor = None) -> StorePage:
    """List the stores in a country."""
    return _stores(svc, country, (), limit, cursor)


@router.serve
def stores_in_state(country: NamePath, state: NamePath, svc: Service, limit: kit.Limit = kit.DEFAULT_LIMIT,
                    cursor: kit.Cursor = None) -> StorePage:
    """List the stores in a state."""
    return _stores(svc, country, (state,), limit, cursor)


@router.serve
def stores_in_city(country: NamePath, state: NamePath, city: NamePath, svc: Service,
                   limit: kit.Limit = kit.DEFAULT_LIMIT, cursor: kit.Cursor = None) -> StorePage:
    """List the stores in a city."""
    return _stores(svc, country, (state, city), limit, cursor)


@router.serve
def stores_in_zip(country: NamePath, state: NamePath, city: NamePath, zip_code: NamePath, svc: Service,
                  limit: kit.Limit = kit.DEFAULT_LIMIT, cursor: kit.Cursor = None) -> StorePage:
    """List the stores in a postal code."""
    return _stores(svc, country, (state, city, zip_code), limit, cursor)


# --- orders: composite sort key with an enum ----------------------------------------------------------


@router.serve
def put_order(customer: NamePath, order_id: NamePath, body: OrderIn, svc: Service) -> Order:
    """Create or replace a customer's order."""
    return svc.put_order(Order(customer=customer, order_id=order_id, **body.model_dump()))


@router.serve
def orders_by_status(
    customer: NamePath,
    status: Annotated[Literal["PLACED", "SHIPPED", "DELIVERED", "CANCELLED"], Query()],
    svc: Service,
    first: Annotated[
        str | None, Query(alias="from", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")
    ] = None,
    last: Annotated[str | None, Query(alias="to", pattern=kit.DAY_PATTERN, description="YYYY-MM-DD, inclusive")] = None,
    limit: kit.Limit = kit.DEFAULT_LIMIT,
    cursor: kit.Cursor = None,
) -> OrderPage:
    """List a customer's orders by status and date."""
    wanted = OrderRange(status=status, first=_day(first, "from"), last=_day(last, "to"))
    return kit.paginate(
        app,
        OrderPage,
        cursor,
        lambda start: svc.orders_by_status(kit.caller_of(app), customer, wanted, limit=limit, start_key=start),
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
