"""Ecommerce's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import Route, Routes

ROUTES = Routes(
    "ecommerce",
    sign_up=Route("POST", "/ecommerce/customers", responses={
        201: "signed up",
        200: "a retry: this customer exists as asked",
        403: "403 FORBIDDEN",
        409: "409 EMAIL_TAKEN, USERNAME_TAKEN",
    }),
    # Not `paged` (it takes no cursor), but it signs the one GET …/orders continues from: the function has the key.
    customer_with_recent_orders=Route("GET", "/ecommerce/customers/{username}", responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    change_email=Route("PUT", "/ecommerce/customers/{username}/email", responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
        409: "409 EMAIL_TAKEN",
    }),
    put_address=Route("PUT", "/ecommerce/customers/{username}/addresses", responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
        409: "409 TOO_MANY_ADDRESSES",
    }),
    delete_address=Route("DELETE", "/ecommerce/customers/{username}/addresses", responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    place_order=Route("POST", "/ecommerce/customers/{username}/orders", responses={
        201: "placed",
        400: "400 ORDER_TOO_LARGE",
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    orders_of=Route("GET", "/ecommerce/customers/{username}/orders", paged=True, responses={
        403: "403 FORBIDDEN",
        404: "404 CUSTOMER_NOT_FOUND",
    }),
    order_with_items=Route("GET", "/ecommerce/customers/{username}/orders/{orderId}", responses={
        403: "403 FORBIDDEN",
        404: "404 ORDER_NOT_FOUND",
    }),
    set_status=Route("PUT", "/ecommerce/customers/{username}/orders/{orderId}/status", responses={
        403: "403 FORBIDDEN",
        404: "404 ORDER_NOT_FOUND",
        409: "409 INVALID_STATUS_TRANSITION",
    }),
)
