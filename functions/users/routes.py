"""Users's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "users",
    sign_up=Route("POST", "/users", responses={
        201: "signed up",
        200: "a retry: this user exists with this email",
        403: "403 FORBIDDEN",
        409: "409 EMAIL_TAKEN, USER_EXISTS",
    }),
    get_user=Route("GET", "/users/{userId}", responses={403: "403 FORBIDDEN", 404: "404 USER_NOT_FOUND"}),
    user_by_email=Route("GET", "/users/by-email/{email}", group=ADMIN, responses={404: "404 USER_NOT_FOUND"}),
    change_email=Route("PUT", "/users/{userId}/email", responses={
        403: "403 FORBIDDEN",
        404: "404 USER_NOT_FOUND",
        409: "409 EMAIL_MARKER_MISMATCH, EMAIL_TAKEN",
    }),
    delete_user=Route("DELETE", "/users/{userId}", responses={
        204: "deleted, its email freed",
        403: "403 FORBIDDEN",
        404: "404 USER_NOT_FOUND",
        409: "409 EMAIL_MARKER_MISMATCH",
    }),
)
