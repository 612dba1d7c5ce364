"""Catalog API (seed 002): products as hierarchical items and as JSON documents. Reads: anyone signed in;
writes: admins."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from functions.catalog.models import (
    CHILD_BODY_SCHEMA,
    Child,
    ChildIdPath,
    ChildKindPath,
    ChildPage,
    Document,
    DocumentChild,
    DocumentChildIn,
    DocumentIn,
    ProductIdPath,
    ProductIn,
    ProductItem,
    ProductPage,
)
from functions.catalog.repository import CatalogRepository
from functions.catalog.service import CatalogService
from functions.shared import kit

router = kit.DomainRouter.of(__file__)


service = kit.service(CatalogService, CatalogRepository)
Service = Annotated[CatalogService, kit.Depends(service)]


# --- products as items --------------------------------------------------------------------------------


@router.serve
def put_product(product_id: ProductIdPath, product: Annotated[ProductIn, Body()], svc: Service) -> ProductItem:
    """Create or replace a product."""
    return svc.put_product(product_id, product)  # type: ignore[return-value]


@router.serve
@kit.paged
def product_items(product_id: ProductIdPath, svc: Service, page: kit.PageRequest) -> ProductPage:
    """Read a product with all its children."""
    return page.page(ProductPage,
                     lambda start: svc.product_items(product_id, limit=page.limit, start_key=start))


@router.serve
@kit.paged
def children_of(product_id: ProductIdPath, child_kind: ChildKindPath, svc: Service, page: kit.PageRequest) -> ChildPage:
    """List a product's children of one kind."""
    return page.page(ChildPage,
                     lambda start: svc.children_of(product_id, child_kind, limit=page.limit, start_key=start))


@router.serve
def put_child(
    product_id: ProductIdPath,
    child_kind: ChildKindPath,
    child_id: ChildIdPath,
    child: Annotated[
        dict[str, Any],
        Body(
            description="a track {title, length, music, vocals} or an actor "
            "{name, character, image}, as the path names",
            json_schema_extra=CHILD_BODY_SCHEMA,
        ),
    ],
    svc: Service,
) -> Child:
    """Create or replace one child of a product."""
    return svc.put_child(product_id, child_kind, child_id, child)  # type: ignore[return-value]


@router.serve
def get_child(product_id: ProductIdPath, child_kind: ChildKindPath, child_id: ChildIdPath, svc: Service) -> Child:
    """Read one child of a product."""
    return svc.get_child(product_id, child_kind, child_id)  # type: ignore[return-value]


@router.serve
def delete_child(product_id: ProductIdPath, child_kind: ChildKindPath, child_id: ChildIdPath,
                 svc: Service) -> Response[None]:
    """Delete one child of a product."""
    svc.delete_child(product_id, child_kind, child_id)
    return Response(status_code=204)


# --- products as documents ----------------------------------------------------------------------------


@router.serve
def put_document(product_id: ProductIdPath, document: DocumentIn, svc: Service) -> Document:
    """Create or replace a product document."""
    return svc.put_document(product_id, document)


@router.serve
def get_document(product_id: ProductIdPath, svc: Service) -> Document:
    """Read a product as one document with its children."""
    return svc.get_document(product_id)


@router.serve
def append_to_document(product_id: ProductIdPath, request: DocumentChildIn, svc: Service, create: kit.CreateOnce,
                       idempotency_key: kit.IdempotencyKey = None) -> Response[DocumentChild]:
    """Append a child (track or actor) to a product document."""
    return create(operation="catalog.append_to_document", key=idempotency_key,
                  request={"productId": product_id, **request.model_dump(mode="json")},
                  make=lambda: svc.append_to_document(product_id, request))


app, lambda_handler = kit.serve(router)
