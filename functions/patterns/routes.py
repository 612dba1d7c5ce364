"""Patterns's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "patterns",
    put_repo=Route("PUT", "/patterns/repos/{owner}/{repo}", group=ADMIN),
    get_repo=Route("GET", "/patterns/repos/{owner}/{repo}", responses={404: "404 REPO_NOT_FOUND"}),
    star=Route("PUT", "/patterns/repos/{owner}/{repo}/stars/{username}", responses={
        201: "starred",
        200: "starred already: nothing changed",
        403: "403 FORBIDDEN",
        404: "404 REPO_NOT_FOUND",
    }),
    unstar=Route("DELETE", "/patterns/repos/{owner}/{repo}/stars/{username}", responses={
        204: "unstarred",
        403: "403 FORBIDDEN",
        404: "404 REPO_NOT_FOUND",
    }),
    repo_with_stars=Route("GET", "/patterns/repos/{owner}/{repo}/stars", paged=True, responses={
        404: "404 REPO_NOT_FOUND",
    }),
    create_issue=Route("POST", "/patterns/repos/{owner}/{repo}/issues", responses={
        201: "created",
        404: "404 REPO_NOT_FOUND",
        409: "409 ISSUE_NUMBER_TAKEN",
    }),
    repo_with_issues=Route("GET", "/patterns/repos/{owner}/{repo}/issues", paged=True, responses={
        404: "404 REPO_NOT_FOUND",
    }),
    get_issue=Route("GET", "/patterns/repos/{owner}/{repo}/issues/{number}", responses={404: "404 ISSUE_NOT_FOUND"}),
    change_issue=Route("PATCH", "/patterns/repos/{owner}/{repo}/issues/{number}", responses={
        403: "403 FORBIDDEN",
        404: "404 ISSUE_NOT_FOUND",
    }),
    open_issues=Route("GET", "/patterns/repos/{owner}/{repo}/open-issues", paged=True, responses={
        404: "404 REPO_NOT_FOUND",
    }),
    issues_by_update=Route("GET", "/patterns/repos/{owner}/{repo}/recently-updated-issues", paged=True, responses={
        404: "404 REPO_NOT_FOUND",
    }),
    put_org=Route("PUT", "/patterns/orgs/{org}", group=ADMIN),
    org_with_users=Route("GET", "/patterns/orgs/{org}", paged=True, responses={404: "404 ORG_NOT_FOUND"}),
    put_org_user=Route("PUT", "/patterns/orgs/{org}/users/{username}", group=ADMIN, responses={
        404: "404 ORG_NOT_FOUND",
    }),
    org_admins=Route("GET", "/patterns/orgs/{org}/admins", paged=True, responses={404: "404 ORG_NOT_FOUND"}),
    put_store=Route("PUT", "/patterns/stores/{country}/{state}/{city}/{zipCode}/{storeId}", group=ADMIN),
    stores_in_country=Route("GET", "/patterns/stores/{country}", paged=True),
    stores_in_state=Route("GET", "/patterns/stores/{country}/{state}", paged=True),
    stores_in_city=Route("GET", "/patterns/stores/{country}/{state}/{city}", paged=True),
    stores_in_zip=Route("GET", "/patterns/stores/{country}/{state}/{city}/{zipCode}", paged=True),
    put_order=Route("PUT", "/patterns/customers/{customer}/orders/{orderId}", group=ADMIN),
    orders_by_status=Route("GET", "/patterns/customers/{customer}/orders", paged=True, responses={
        403: "403 FORBIDDEN",
    }),
    put_featured=Route("PUT", "/patterns/featured", group=ADMIN),
    get_featured=Route("GET", "/patterns/featured"),
)
