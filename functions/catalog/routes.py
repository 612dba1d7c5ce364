"""Catalog's routes, each declared once (functions/shared/routes.py): its API function serves them, the stack
makes them API Gateway methods, the docs describe them."""

from __future__ import annotations

from functions.shared.routes import ADMIN, Route, Routes

ROUTES = Routes(
    "catalog",
    put_product=Route("PUT", "/catalog/products/{productId}", group=ADMIN, responses={
        409: "409 PRODUCT_KIND_CONFLICT",
    }),
    product_items=Route("GET", "/catalog/products/{productId}", paged=True, responses={404: "404 PRODUCT_NOT_FOUND"}),
    children_of=Route("GET", "/catalog/products/{productId}/children/{childKind}", paged=True, responses={
        404: "404 PRODUCT_NOT_FOUND",
    }),
    put_child=Route("PUT", "/catalog/products/{productId}/children/{childKind}/{childId}", group=ADMIN, responses={
        404: "404 PRODUCT_NOT_FOUND",
    }),
    get_child=Route("GET", "/catalog/products/{productId}/children/{childKind}/{childId}", responses={
        404: "404 CHILD_NOT_FOUND",
    }),
    delete_child=Route(
        "DELETE", "/catalog/products/{productId}/children/{childKind}/{childId}", group=ADMIN,
        responses={
            204: "deleted",
            404: "404 CHILD_NOT_FOUND",
        },
    ),
    put_document=Route("PUT", "/catalog/documents/{productId}", group=ADMIN),
    get_document=Route("GET", "/catalog/documents/{productId}", responses={404: "404 DOCUMENT_NOT_FOUND"}),
    append_to_document=Route("POST", "/catalog/documents/{productId}/children", group=ADMIN, responses={
        201: "appended",
        413: "413 ITEM_TOO_LARGE: the document would pass 400 KB",
        404: "404 DOCUMENT_NOT_FOUND",
        409: "409 DOCUMENT_KIND_MISMATCH",
    }),
)
