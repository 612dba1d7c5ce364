"""Catalog in the template: the seed's two tables (a product as an item collection, a product as one document),
no index, stream or TTL, and the API function's environment (its grants: test_stack.py, from domain.toml)."""

from __future__ import annotations

from typing import Any

from tests.infra.test_stack import logical_id


def table_id(raw: dict[str, Any], construct_id: str) -> str:
    return logical_id(raw, "AWS::DynamoDB::Table", f"Catalog{construct_id}")


def key_schema(props: dict[str, Any]) -> list[tuple[str, str]]:
    return [(k["AttributeName"], k["KeyType"]) for k in props["KeySchema"]]


def test_products_are_item_collections_keyed_by_product_and_type(dev):
    raw = dev.merged
    props = raw["Resources"][table_id(raw, "ProductsTable")]["Properties"]
    assert key_schema(props) == [("ProductID", "HASH"), ("type", "RANGE")]
    assert props["AttributeDefinitions"] == [
        {"AttributeName": "ProductID", "AttributeType": "S"}, {"AttributeName": "type", "AttributeType": "S"}]
    # every pattern reads the table's own keys: no index to pay for, no stream or TTL to run
    assert not {"GlobalSecondaryIndexes", "LocalSecondaryIndexes", "StreamSpecification",
                "TimeToLiveSpecification"} & set(props)
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_documents_are_one_item_per_product(dev):
    raw = dev.merged
    props = raw["Resources"][table_id(raw, "ProductDocumentsTable")]["Properties"]
    assert key_schema(props) == [("ProductID", "HASH")]
    assert not {"GlobalSecondaryIndexes", "LocalSecondaryIndexes", "StreamSpecification",
                "TimeToLiveSpecification"} & set(props)
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_the_api_function_knows_its_two_tables_the_cursor_key_and_the_idempotency_table(dev):
    raw = dev.merged
    function = raw["Resources"][logical_id(raw, "AWS::Lambda::Function", "CatalogApiFunction")]["Properties"]
    variables = function["Environment"]["Variables"]
    products, documents = table_id(raw, "ProductsTable"), table_id(raw, "ProductDocumentsTable")
    assert variables["CATALOG_PRODUCTS_TABLE_NAME"] == {"Ref": products}
    assert variables["CATALOG_DOCUMENTS_TABLE_NAME"] == {"Ref": documents}
    assert "IDEMPOTENCY_TABLE_NAME" in variables and "CURSOR_SECRET_ARN" in variables
