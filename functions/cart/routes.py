"""Cart's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "cart",
    create_cart=Route("POST", "/cart/carts", responses={201: "created"}),
    get_cart=Route("GET", "/cart/carts/{cartId}", responses={404: "404 CART_NOT_FOUND"}),
    set_line=Route("PUT", "/cart/carts/{cartId}/lines/{sku}", responses={
        404: "404 CART_NOT_FOUND, SKU_NOT_FOUND",
        409: "409 CART_CHECKED_OUT, CART_FULL",
    }),
    remove_line=Route("DELETE", "/cart/carts/{cartId}/lines/{sku}", responses={
        204: "removed",
        404: "404 CART_NOT_FOUND",
        409: "409 CART_CHECKED_OUT",
    }),
    clear=Route("DELETE", "/cart/carts/{cartId}/lines", responses={
        204: "cleared",
        404: "404 CART_NOT_FOUND",
        409: "409 CART_CHECKED_OUT",
    }),
    check_out=Route("POST", "/cart/carts/{cartId}/checkout", responses={
        404: "404 CART_NOT_FOUND",
        409: "409 CART_EMPTY",
    }),
    put_price=Route("PUT", "/cart/prices/{sku}", group=ADMIN),
    get_price=Route("GET", "/cart/prices/{sku}", responses={404: "404 PRICE_NOT_FOUND"}),
    notifications=Route("GET", "/cart/notifications", paged=True),
    abandoned=Route("GET", "/cart/abandoned", group=ADMIN),
)
