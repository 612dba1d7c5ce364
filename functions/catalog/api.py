"""Catalog API (seed 002): products as hierarchical items and as JSON documents. Reads: anyone signed in;
writes: admins."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from functions.catalog import models
from functions.catalog.repository import CatalogRepository
from functions.catalog.service import CatalogService
from functions.shared import kit

router = kit.DomainRouter.of(__file__)


service = kit.service(CatalogService, CatalogRepository)
Service = Annotated[CatalogService, kit.Depends(service)]
Repository = Annotated[CatalogRepository, kit.Depends(kit.repository_of(service))]


# --- products as items --------------------------------------------------------------------------------


@router.serve
def put_product(product_id: models.ProductIdPath, product: Annotated[models.ProductIn, Body()],
                svc: Service) -> models.ProductItem:
    """Create or replace a product."""
    return svc.put_product(product_id, product)  # type: ignore[return-value]


@router.serve
@kit.paged
def product_items(product_id: models.ProductIdPath, repo: Repository, page: kit.PageRequest) -> models.ProductPage:
    """Read a product with all its children."""
    return page.of(models.ProductPage, repo.product_items, product_id)


@router.serve
@kit.paged
def children_of(product_id: models.ProductIdPath, child_kind: models.ChildKindPath, repo: Repository,
                page: kit.PageRequest) -> models.ChildPage:
    """List a product's children of one kind."""
    return page.of(models.ChildPage, repo.children_of, product_id, child_kind)


@router.serve
def put_child(
    product_id: models.ProductIdPath,
    child_kind: models.ChildKindPath,
    child_id: models.ChildIdPath,
    child: Annotated[
        dict[str, Any],
        Body(
            description="a track {title, length, music, vocals} or an actor "
            "{name, character, image}, as the path names",
            json_schema_extra=models.CHILD_BODY_SCHEMA,
        ),
    ],
    svc: Service,
) -> models.Child:
    """Create or replace one child of a product."""
    return svc.put_child(product_id, child_kind, child_id, child)  # type: ignore[return-value]


@router.serve
def get_child(product_id: models.ProductIdPath, child_kind: models.ChildKindPath, child_id: models.ChildIdPath,
              svc: Service) -> models.Child:
    """Read one child of a product."""
    return svc.get_child(product_id, child_kind, child_id)  # type: ignore[return-value]


@router.serve
def delete_child(product_id: models.ProductIdPath, child_kind: models.ChildKindPath, child_id: models.ChildIdPath,
                 svc: Service) -> Response[None]:
    """Delete one child of a product."""
    svc.delete_child(product_id, child_kind, child_id)
    return Response(status_code=204)


# --- products as documents ----------------------------------------------------------------------------


@router.serve
def put_document(product_id: models.ProductIdPath, document: models.DocumentIn, svc: Service) -> models.Document:
    """Create or replace a product document."""
    return svc.put_document(product_id, document)


@router.serve
def get_document(product_id: models.ProductIdPath, repo: Repository) -> models.Document:
    """Read a product as one document with its children."""
    return repo.get_document(product_id)


@router.serve
def append_to_document(product_id: models.ProductIdPath, request: models.DocumentChildIn, svc: Service,
                       create: kit.CreateOnce,
                       idempotency_key: kit.IdempotencyKey = None) -> Response[models.DocumentChild]:
    """Append a child (track or actor) to a product document."""
    return create(operation="catalog.append_to_document", key=idempotency_key,
                  request={"productId": product_id, **request.model_dump(mode="json")},
                  make=lambda: svc.append_to_document(product_id, request))


app, lambda_handler = kit.serve(router)
