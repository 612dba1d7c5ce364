"""Catalog: the only module that talks to DynamoDB, one method per access pattern (docs/catalog.md).

Rules held by DynamoDB itself:
- a child is written only under an existing parent of its kind (ConditionCheck in the child's transaction);
- a product keeps its kind (the parent's Put checks, in one transaction, that no parent of another kind exists);
- an append goes only to an existing document of the right kind (the condition of its one-action transaction);
- a document stays under the 400 KB item limit: DynamoDB refuses the write, we answer 413 ITEM_TOO_LARGE.
"""

from __future__ import annotations

import re
from typing import Any

from boto3.dynamodb.conditions import Key
from botocore.exceptions import ClientError
from pydantic import BaseModel

from functions.catalog import models
from functions.catalog.schema import (
    CHILD_KINDS,
    DOCUMENT_ATTRIBUTES,
    DOCUMENT_LISTS,
    DOCUMENTS_TABLE,
    KINDS,
    PRODUCT_KEY,
    PRODUCTS_TABLE,
    SORT_KEY,
    child_type,
    children_prefix,
    parent_type,
    parse_type,
)
from functions.shared import ddb
from functions.shared.capacity import ITEM_LIMIT
from functions.shared.errors import AppError, ConflictError, NotFoundError, found
from functions.shared.pages import Page, read_page
from functions.shared.settings import Settings, TableName

StartKey = dict[str, Any] | None
# DynamoDB's ValidationException for an item over 400 KB: "Item size has exceeded the maximum allowed size" (PutItem)
# and "Item size to update has exceeded the maximum allowed size" (UpdateItem, and the reason of a transaction
# cancelled with code ValidationError). ValidationException has no finer code, so this message is how DynamoDB tells us.
_ITEM_TOO_LARGE = re.compile(r"Item size (to update )?has exceeded the maximum allowed size")
_KEYS = (PRODUCT_KEY, SORT_KEY)


class ItemTooLargeError(AppError, status=413, code="ITEM_TOO_LARGE"):
    """A document over DynamoDB's item size limit, left unchanged."""


def item_too_large(product_id: str) -> ItemTooLargeError:
    return ItemTooLargeError(
        f"document {product_id} would exceed DynamoDB's {ITEM_LIMIT // 1024} KB item limit, so it was left unchanged; "
        f"a product this large belongs in the hierarchical model, one item per child "
        f"(PUT /catalog/products/{product_id}/children/{{childKind}}/{{childId}})"
    )


class CatalogRepository:
    products = TableName(PRODUCTS_TABLE)
    documents = TableName(DOCUMENTS_TABLE)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    # products as items

    def put_product(self, product_id: str, product: models.BookIn | models.AlbumIn | models.MovieIn) -> BaseModel:
        """Create or replace a product's parent item: TransactWriteItems of a Put of (ProductID, kind) and a
        ConditionCheck that no parent of another kind exists (409 PRODUCT_KIND_CONFLICT). Children are kept."""
        item = {PRODUCT_KEY: product_id, SORT_KEY: parent_type(product.kind),
                **product.model_dump(by_alias=True, exclude_none=True, exclude={"kind"})}
        actions: list[tuple[str, dict[str, Any]]] = [("product", {"Put": {"TableName": self.products, "Item": item}})]
        for other in (kind for kind in KINDS if kind != product.kind):
            actions.append((other, {"ConditionCheck": {
                "TableName": self.products,
                "Key": {PRODUCT_KEY: product_id, SORT_KEY: parent_type(other)},
                "ConditionExpression": "attribute_not_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": PRODUCT_KEY},
            }}))
        failed = ddb.transact_write(actions)
        if failed is not None:
            raise ConflictError(
                f"product {product_id} is a {failed.name}; a product's kind cannot change",
                code="PRODUCT_KIND_CONFLICT",
            ) from failed.error
        return product_item(item)

    def product_items(self, product_id: str, *, limit: int, start_key: StartKey) -> Page:
        """A product with all its children: Query `ProductID = :id` (the parent sorts first); the first page reads
        `limit` + 1 items, the parent and `limit` children. A product always has its parent item: an empty first page
        is an unknown product (404 PRODUCT_NOT_FOUND)."""
        page = self._page(limit, start_key, parent_first=True, KeyConditionExpression=Key(PRODUCT_KEY).eq(product_id))
        if not page.items and start_key is None:
            raise NotFoundError(f"no product {product_id}", code="PRODUCT_NOT_FOUND")
        return page

    def children_of(self, product_id: str, child_kind: str, *, limit: int, start_key: StartKey) -> Page:
        """Only a product's children of one kind: Query `ProductID = :id AND begins_with(type, "album:track#")`.
        An empty first page costs a read of the parent (`has_parent`): 404 PRODUCT_NOT_FOUND for an unknown album,
        [] for one without tracks."""
        page = self._page(
            limit, start_key,
            KeyConditionExpression=(
                Key(PRODUCT_KEY).eq(product_id) & Key(SORT_KEY).begins_with(children_prefix(child_kind))),
        )
        kind = CHILD_KINDS[child_kind]
        if not page.items and start_key is None and not self.has_parent(product_id, kind):
            raise product_not_found(product_id, kind)
        return page

    def has_parent(self, product_id: str, kind: str) -> bool:
        """Whether a product of this kind exists: GetItem of its parent, keys only."""
        return ddb.exists(ddb.table(self.products), {PRODUCT_KEY: product_id, SORT_KEY: parent_type(kind)})

    def put_child(self, product_id: str, child_kind: str, child_id: str,
                  child: models.TrackIn | models.ActorIn) -> BaseModel:
        """Add or replace a child: TransactWriteItems of a ConditionCheck that the parent of the child's kind
        exists (404 PRODUCT_NOT_FOUND, nothing written) and a Put of (ProductID, `album:track#1`)."""
        kind = CHILD_KINDS[child_kind]
        item = {PRODUCT_KEY: product_id, SORT_KEY: child_type(child_kind, child_id),
                **child.model_dump(by_alias=True, exclude_none=True)}
        failed = ddb.transact_write([
            ("parent", {"ConditionCheck": {
                "TableName": self.products,
                "Key": {PRODUCT_KEY: product_id, SORT_KEY: parent_type(kind)},
                "ConditionExpression": "attribute_exists(#pk)",
                "ExpressionAttributeNames": {"#pk": PRODUCT_KEY},
            }}),
            ("child", {"Put": {"TableName": self.products, "Item": item}}),
        ])
        if failed is not None:
            raise product_not_found(product_id, kind) from failed.error
        return product_item(item)

    def get_child(self, product_id: str, child_kind: str, child_id: str) -> BaseModel | None:
        """One child: GetItem (ProductID, `album:track#1`)."""
        item = ddb.table(self.products).get_item(
            Key={PRODUCT_KEY: product_id, SORT_KEY: child_type(child_kind, child_id)}
        ).get("Item")
        return None if item is None else product_item(item)

    def delete_child(self, product_id: str, child_kind: str, child_id: str) -> bool:
        """Delete a child: DeleteItem if it exists. False when there was none."""
        try:
            ddb.table(self.products).delete_item(
                Key={PRODUCT_KEY: product_id, SORT_KEY: child_type(child_kind, child_id)},
                ConditionExpression="attribute_exists(#pk)",
                ExpressionAttributeNames={"#pk": PRODUCT_KEY},
            )
        except ClientError as error:
            if ddb.error_code(error) != "ConditionalCheckFailedException":
                raise
            return False
        return True

    def _page(self, limit: int, start_key: StartKey, *, parent_first: bool = False, **query: Any) -> Page:
        return read_page(ddb.table(self.products).query, product_item, limit=limit, start_key=start_key,
                         parent_first=parent_first, **query)

    # products as documents

    def put_document(self, product_id: str, document: models.DocumentIn) -> models.Document:
        """Create or replace a product's document: PutItem of the whole product (413 over 400 KB)."""
        item = {
            PRODUCT_KEY: product_id,
            **document.model_dump(by_alias=True, exclude_none=True, exclude={"attributes"}),
            DOCUMENT_ATTRIBUTES: models.stored_json(document.attributes),
        }
        try:
            ddb.table(self.documents).put_item(Item=item)
        except ClientError as error:
            if _too_large(error):
                raise item_too_large(product_id) from error
            raise
        return models.Document(product_id=product_id, **document.model_dump())

    def get_document(self, product_id: str) -> models.Document:
        """A product as one document: GetItem `ProductID = :id` (404 DOCUMENT_NOT_FOUND)."""
        item = ddb.table(self.documents).get_item(Key={PRODUCT_KEY: product_id}).get("Item")
        return document_of(found(item, f"no document {product_id}", "DOCUMENT_NOT_FOUND"))

    def append_to_document(self, product_id: str, request: models.DocumentChildIn) -> models.DocumentChild:
        """Append a track (album) or an actor (movie) to the document's list:
        `SET Attributes.tracks = list_append(if_not_exists(Attributes.tracks, []), [child])` if the document exists
        and is of that kind (404 DOCUMENT_NOT_FOUND / 409 DOCUMENT_KIND_MISMATCH); 413 ITEM_TOO_LARGE when the
        document would pass 400 KB (DynamoDB refuses the update, the document is unchanged).

        The update is the one action of a TransactWriteItems, not an UpdateItem: an append sent twice stores the child
        twice, and nothing in the item tells a retry that its first attempt landed. The SDK sends a transaction's
        ClientRequestToken again with each of its retries, so a retry after a lost answer succeeds without appending
        again (docs/adr/0060-catalog-append-is-transaction-of-one-update.md). The price: twice the write units."""
        name = DOCUMENT_LISTS[request.kind]
        kind = CHILD_KINDS[request.kind]
        append = {
            "TableName": self.documents,
            "Key": {PRODUCT_KEY: product_id},
            "UpdateExpression": "SET #attributes.#list = list_append(if_not_exists(#attributes.#list, :empty), :child)",
            "ConditionExpression": "attribute_exists(#pk) AND #kind = :kind",
            "ExpressionAttributeNames": {"#pk": PRODUCT_KEY, "#attributes": DOCUMENT_ATTRIBUTES, "#list": name,
                                         "#kind": "kind"},
            "ExpressionAttributeValues": {":empty": [], ":child": [models.stored_json(request.child)], ":kind": kind},
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        try:
            failed = ddb.transact_write([("append", {"Update": append})])
        except ClientError as error:
            if _too_large(error):
                raise item_too_large(product_id) from error
            raise
        if failed is not None:
            if failed.item is None:
                raise NotFoundError(f"no document {product_id}", code="DOCUMENT_NOT_FOUND") from failed.error
            raise ConflictError(
                f"document {product_id} is a {failed.item.get('kind')}; {name} belong to a {kind}",
                code="DOCUMENT_KIND_MISMATCH",
            ) from failed.error
        return models.DocumentChild(product_id=product_id, kind=request.kind, child=request.child,
                             list=f"attributes.{name}")


def product_not_found(product_id: str, kind: str) -> NotFoundError:
    return NotFoundError(f"no {kind} with ProductID {product_id}", code="PRODUCT_NOT_FOUND")


def product_item(item: dict[str, Any]) -> BaseModel:
    """A stored item of the Products table as its model, by the kind its sort key names."""
    kind, child_id = parse_type(str(item[SORT_KEY]))
    fields = {name: value for name, value in item.items() if name not in _KEYS}
    keys: dict[str, Any] = {"productId": item[PRODUCT_KEY], "type": item[SORT_KEY], "kind": kind}
    if child_id is not None:
        keys["childId"] = child_id
    return models.ITEM_MODELS[kind].model_validate({**fields, **keys})


def document_of(item: dict[str, Any]) -> models.Document:
    fields = {name: value for name, value in item.items() if name not in (PRODUCT_KEY, DOCUMENT_ATTRIBUTES)}
    return models.Document.model_validate(
        {**fields, "productId": item[PRODUCT_KEY], "attributes": models.plain_json(item.get(DOCUMENT_ATTRIBUTES, {}))}
    )


def _too_large(error: ClientError) -> bool:
    """Whether DynamoDB refused the write because the item would pass 400 KB: a ValidationException, or a
    transaction cancelled with a ValidationError reason, that says so."""
    code = ddb.error_code(error)
    if code == "TransactionCanceledException":
        return any(reason.get("Code") == "ValidationError" and _ITEM_TOO_LARGE.search(reason.get("Message") or "")
                   for reason in error.response.get("CancellationReasons", []))
    message = error.response.get("Error", {}).get("Message", "")
    return code == "ValidationException" and bool(_ITEM_TOO_LARGE.search(message))
