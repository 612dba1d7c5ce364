"""The Catalog tables (seed 002, "Hierarchical data structures as items ... or as documents (JSON)") as data.

Products: the seed's hierarchy as items. Partition key `ProductID`, sort key `type`: a product's parent item has
`type` = its kind (`book`, `album`, `movie`; the seed's `bookID`, `albumID`, `movieID`) and each child item
`type` = `<kind>:<childKind>#<childId>` (`album:track#1`, `movie:actor#2`; the seed's `albumID:trackID`), so a
product and all its children are one item collection, and one kind of child is a `begins_with` of the sort key.

ProductDocuments: the same products as one item each (partition key `ProductID` only), children nested in the
`Attributes` map's lists (`tracks`, `actors`): one read, but the whole product lives under the 400 KB item limit.
"""

from functions.shared.table_spec import KeyAttribute, TableSpec

PRODUCT_KEY = "ProductID"
SORT_KEY = "type"
DOCUMENT_ATTRIBUTES = "Attributes"  # the seed's name for the document's nested map

KINDS = ("book", "album", "movie")
# Each child kind belongs to one product kind (the seed: albums have tracks, movies have actors; books none).
CHILD_KINDS = {"track": "album", "actor": "movie"}
# The list of the document's `Attributes` map that holds each child kind.
DOCUMENT_LISTS = {"track": "tracks", "actor": "actors"}
KIND_SEPARATOR = ":"
ID_SEPARATOR = "#"

PRODUCTS_TABLE = TableSpec(
    "ProductsTable",
    env_var="CATALOG_PRODUCTS_TABLE_NAME",
    partition_key=KeyAttribute(PRODUCT_KEY),
    sort_key=KeyAttribute(SORT_KEY),
)

DOCUMENTS_TABLE = TableSpec(
    "ProductDocumentsTable", env_var="CATALOG_DOCUMENTS_TABLE_NAME", partition_key=KeyAttribute(PRODUCT_KEY)
)

TABLES = (PRODUCTS_TABLE, DOCUMENTS_TABLE)


def parent_type(kind: str) -> str:
    """The parent item's sort key: its kind (`album`), which sorts before every child (`album:...`)."""
    return kind


def children_prefix(child_kind: str) -> str:
    """The sort-key prefix of one kind of child: `album:track#`."""
    return f"{CHILD_KINDS[child_kind]}{KIND_SEPARATOR}{child_kind}{ID_SEPARATOR}"


def child_type(child_kind: str, child_id: str) -> str:
    """A child item's sort key: `album:track#1` (child ids never contain `:` or `#`)."""
    return children_prefix(child_kind) + child_id


def parse_type(sort_key: str) -> tuple[str, str | None]:
    """(kind, child id) of a sort key: ("album", None) for a parent, ("track", "1") for `album:track#1`."""
    if KIND_SEPARATOR not in sort_key:
        return sort_key, None
    child_kind, _, child_id = sort_key.split(KIND_SEPARATOR, 1)[1].partition(ID_SEPARATOR)
    return child_kind, child_id
