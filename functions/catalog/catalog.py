"""Catalog: its entities and access patterns, declared once. docs/catalog.md's two tables are rendered from them
(`make docs`); tests/unit/test_docs.py checks each pattern against the routes served, the repository and the tests."""

from __future__ import annotations

from functions.shared.catalog import AccessPattern, Columns, EntityTable, Rule, columns

ENTITIES: EntityTable = EntityTable(
    columns=("table", "entity", "partition key", "sort key", "other attributes"),
    rows=(
        (
            "Products",
            "Book",
            "`ProductID`",
            "`type` = `book`",
            "`title`, `author`, `genre`, `publisher`, `datePublished`, `ISBN`",
        ),
        (
            "Products",
            "Album",
            "`ProductID`",
            "`type` = `album`",
            "`title`, `artist`, `genre`, `label`, `studio`, `released`, `producer`",
        ),
        (
            "Products",
            "Track (child of an album)",
            "`ProductID`",
            "`type` = `album:track#<trackId>`",
            "`title`, `length`, `music`, `vocals`",
        ),
        ("Products", "Movie", "`ProductID`", "`type` = `movie`", "`title`, `genre`, `writer`, `producer`"),
        (
            "Products",
            "Actor (child of a movie)",
            "`ProductID`",
            "`type` = `movie:actor#<actorId>`",
            "`name`, `character`, `image`",
        ),
        (
            "ProductDocuments",
            "Document",
            "`ProductID`",
            "—",
            (
                "`kind` (`book`|`album`|`movie`), `title`, `author`, `artist`, `genre`, `writer`, `publisher`, "
                "`datePublished`, `ISBN`, `Attributes` (map: any JSON; an album's `tracks` and a movie's `actors` are "
                "lists of maps)"
            ),
        ),
    ),
)

COLUMNS: Columns = columns()

PATTERNS: tuple[AccessPattern, ...] = (
    AccessPattern(
        name="a product with all its children",
        route="`GET /catalog/products/{productId}`",
        who="signed in",
        source="Products",
        key_condition=(
            "Query `ProductID = :id` (parent first: its sort key prefixes its children's); the first page reads "
            "`limit` + 1 (the parent and `limit` children), one Query a page"
        ),
        repository_method="`product_items`",
        tests=(
            "`test_a_product_with_all_its_children_is_one_query_parent_first`, "
            "`test_limit_counts_children_only_the_parent_comes_with_the_first_page`, "
            "`test_product_and_children_pages_cover_the_collection_once_with_bound_cursors`, e2e "
            "`test_the_seeds_album_and_movie_are_item_collections`"
        ),
    ),
    AccessPattern(
        name="only its children (of one kind)",
        route="`GET /catalog/products/{productId}/children/{childKind}` (`track`, `actor`)",
        who="signed in",
        source="Products",
        key_condition="Query `ProductID = :id AND begins_with(type, \"album:track#\")`",
        repository_method="`children_of` (`has_parent`, a GetItem, only when the first page is empty: 404 or `[]`)",
        tests=(
            "`test_only_a_products_children_are_one_begins_with_query`, "
            "`test_an_unknown_product_is_404_and_a_product_without_children_has_an_empty_list`"
        ),
    ),
    AccessPattern(
        name="one child",
        route="`GET /catalog/products/{productId}/children/{childKind}/{childId}`",
        who="signed in",
        source="Products",
        key_condition="GetItem `ProductID = :id, type = \"album:track#1\"`",
        repository_method="`get_child`",
        tests="`test_one_child_is_one_getitem`",
    ),
    AccessPattern(
        name="create / replace a product",
        route="`PUT /catalog/products/{productId}` `{kind, title, ...}`",
        who="admin",
        source="Products",
        key_condition=(
            "TransactWriteItems: Put (`ProductID`, kind); ConditionCheck `attribute_not_exists` on the two other "
            "kinds' parents"
        ),
        repository_method="`put_product`",
        tests=(
            "`test_an_admin_puts_a_product_and_replacing_it_keeps_its_children`, `test_a_products_kind_cannot_change`"
        ),
    ),
    AccessPattern(
        name="add / replace a child",
        route="`PUT /catalog/products/{productId}/children/{childKind}/{childId}`",
        who="admin",
        source="Products",
        key_condition=(
            "TransactWriteItems: ConditionCheck `attribute_exists` on the parent (`ProductID`, `album`); Put "
            "(`ProductID`, `album:track#1`)"
        ),
        repository_method="`put_child`",
        tests=(
            "`test_a_child_of_a_missing_product_is_404_and_writes_nothing`, "
            "`test_an_admin_adds_and_replaces_a_child_and_a_repeat_changes_nothing`"
        ),
    ),
    AccessPattern(
        name="delete a child",
        route="`DELETE /catalog/products/{productId}/children/{childKind}/{childId}` → 204",
        who="admin",
        source="Products",
        key_condition="DeleteItem `attribute_exists(ProductID)`",
        repository_method="`delete_child`",
        tests="`test_an_admin_deletes_a_child_once`",
    ),
    AccessPattern(
        name="a product as a document",
        route="`GET /catalog/documents/{productId}`",
        who="signed in",
        source="ProductDocuments",
        key_condition="GetItem `ProductID = :id`",
        repository_method="`get_document`",
        tests=(
            "`test_a_product_as_a_document_is_one_getitem_with_its_nested_lists`, `test_an_unknown_document_is_404`, "
            "e2e `test_the_seeds_documents_are_whole_products`"
        ),
    ),
    AccessPattern(
        name="put a document",
        route="`PUT /catalog/documents/{productId}` `{kind, title, ..., attributes}`",
        who="admin",
        source="ProductDocuments",
        key_condition="PutItem (the whole document)",
        repository_method="`put_document`",
        tests=(
            "`test_an_admin_puts_a_document_of_any_json_and_reads_it_back`, "
            "`test_json_dynamodb_would_refuse_is_400_and_writes_nothing`"
        ),
    ),
    AccessPattern(
        name="append a child to a document",
        route="`POST /catalog/documents/{productId}/children` `{kind: track|actor, child: {...}}` → 201",
        who="admin",
        source="ProductDocuments",
        key_condition=(
            "TransactWriteItems of one Update `SET Attributes.tracks = list_append(if_not_exists(Attributes.tracks, "
            "[]), :child)` if `attribute_exists(ProductID) AND kind = album` (its ClientRequestToken: an SDK retry "
            "after a lost answer appends once)"
        ),
        repository_method="`append_to_document`",
        tests=(
            "`test_appending_a_child_is_one_conditional_update_of_the_documents_list`, "
            "`test_an_append_retried_with_its_idempotency_key_appends_once`, "
            "`test_a_document_grown_past_400_kb_is_413_and_left_unchanged`, "
            "`test_an_append_whose_answer_was_lost_after_it_landed_is_a_201_that_appended_once`, e2e "
            "`test_a_document_grown_past_400_kb_is_413_and_unchanged`"
        ),
    ),
)

# Example values of path and query parameters (and body fields) from the seeds (seeds/catalog.py), for the
# explorer's runs (GET /explorer);
EXAMPLES: dict[str, str] = {
    "productId": "2",
    "childKind": "track",
    "childId": "1",
}

# The seed's user (seeds/catalog.py), whom the explorer runs the patterns as (`make token USER=alice`):
# the catalog is the same for every signed-in caller.
PERSONA = "alice"


# The page's "Rules and errors" table (`make docs`): each rule, where it is enforced, what a client is answered
# and the tests that prove it (tests/unit/test_docs.py checks that they exist).
API = 'tests/functional/test_catalog_api.py::'
DOCS = 'tests/functional/test_catalog_documents.py::'
RULES: tuple[Rule, ...] = (
    Rule(
        rule="a child needs its parent (of the child's kind)",
        enforced_by="ConditionCheck `attribute_exists` on the parent in the child's transaction",
        refusal='404 `PRODUCT_NOT_FOUND`, nothing written',
        tests=(
            API + 'test_a_child_of_a_missing_product_is_404_and_writes_nothing',
        ),
    ),
    Rule(
        rule='a product keeps its kind (one parent per collection)',
        enforced_by="ConditionChecks `attribute_not_exists` on the other kinds' parents, with the Put",
        refusal='409 `PRODUCT_KIND_CONFLICT`',
        tests=(
            API + 'test_a_products_kind_cannot_change',
        ),
    ),
    Rule(
        rule='deleting a child that is not there',
        enforced_by='DeleteItem `attribute_exists(ProductID)`',
        refusal='404 `CHILD_NOT_FOUND`',
        tests=(
            API + 'test_an_admin_deletes_a_child_once',
        ),
    ),
    Rule(
        rule='an append needs the document, of the matching kind',
        enforced_by=(
            "the condition of the append's one Update (a transaction) `attribute_exists(ProductID) AND kind = :kind` "
            '(`ALL_OLD` on failure tells which)'
        ),
        refusal='404 `DOCUMENT_NOT_FOUND` / 409 `DOCUMENT_KIND_MISMATCH`',
        tests=(
            DOCS + 'test_appending_to_a_missing_document_is_404_and_to_another_kind_409',
        ),
    ),
    Rule(
        rule="a document stays within DynamoDB's 400 KB item limit",
        enforced_by='DynamoDB refuses the write',
        refusal='413 `ITEM_TOO_LARGE`, document unchanged',
        tests=(
            DOCS + 'test_a_document_grown_past_400_kb_is_413_and_left_unchanged',
        ),
    ),
    Rule(
        rule='unknown product / child / document',
        enforced_by='GetItem or Query found nothing',
        refusal='404 `PRODUCT_NOT_FOUND` / `CHILD_NOT_FOUND` / `DOCUMENT_NOT_FOUND`',
        tests=(
            API + 'test_an_unknown_product_is_404_and_a_product_without_children_has_an_empty_list',
            API + 'test_one_child_is_one_getitem',
            DOCS + 'test_an_unknown_document_is_404',
        ),
    ),
    Rule(
        rule='bad ids, kinds, bodies, JSON DynamoDB would refuse',
        enforced_by='validation before any write',
        refusal='400 `VALIDATION_FAILED`',
        tests=(
            DOCS + 'test_a_number_dynamodb_cannot_hold_nested_anywhere_is_400_naming_the_field',
        ),
    ),
    Rule(
        rule='writes',
        enforced_by='`admin_only`',
        refusal='403 `FORBIDDEN`',
        tests=(
            API + 'test_only_admins_write_products',
            DOCS + 'test_only_admins_write_documents',
        ),
    ),
)
