"""Catalog rules that are not storage: which child kind belongs to which product, what is missing."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from functions.catalog import models
from functions.catalog.repository import CatalogRepository
from functions.shared.errors import NotFoundError, found

StartKey = dict[str, Any] | None


class CatalogService:
    def __init__(self, repository: CatalogRepository) -> None:
        self.repository = repository

    # products as items

    def put_product(self, product_id: str, product: models.BookIn | models.AlbumIn | models.MovieIn) -> BaseModel:
        return self.repository.put_product(product_id, product)

    def put_child(self, product_id: str, child_kind: str, child_id: str, body: Any) -> BaseModel:
        return self.repository.put_child(product_id, child_kind, child_id, models.child_input(child_kind, body))

    def get_child(self, product_id: str, child_kind: str, child_id: str) -> BaseModel:
        return found(
            self.repository.get_child(product_id, child_kind, child_id),
            f"product {product_id} has no {child_kind} {child_id}", "CHILD_NOT_FOUND",
        )

    def delete_child(self, product_id: str, child_kind: str, child_id: str) -> None:
        if not self.repository.delete_child(product_id, child_kind, child_id):
            raise NotFoundError(f"product {product_id} has no {child_kind} {child_id}", code="CHILD_NOT_FOUND")

    # products as documents

    def put_document(self, product_id: str, document: models.DocumentIn) -> models.Document:
        return self.repository.put_document(product_id, document)

    def append_to_document(self, product_id: str, request: models.DocumentChildIn) -> models.DocumentChild:
        return self.repository.append_to_document(product_id, request)
