"""The Cart tables (seed 002, "Data Modeling Exercise #1", "Cost estimation", "Using TTL to age out cold data").

The seed's cart is one item per `cartId` with a date-time and a set of SKUs, expired by TTL. Kept: the cart is read
by `cartId` alone (one Query), its header keeps the seed's set of SKUs (`skus`) and a TTL (`expiresAt`).
Changed: each SKU is also a line item of its own (`sk = "LINE#<sku>"`), because a GSI cannot index the elements of
a set, and "which carts hold this SKU" must be a key read (`CartsBySkuIndex`) instead of the seed's daily Scan of
every cart.

- Carts: `cartId` + `sk`. The header (`sk = "#cart"`): `owner`, `status` (OPEN | CHECKED_OUT), `skus` (String Set,
  absent when empty), `version` (+1 on every change), `createdAt`, `updatedAt`, `expiresAt` (TTL, epoch seconds,
  refreshed by every change). A line (`sk = "LINE#<sku>"`): `sku`, `quantity`, `owner`, `updatedAt` and, while the
  cart is open, `lineSku` (= sku): the sparse `CartsBySkuIndex` key. Lines carry no TTL: when TTL removes the
  header, the abandoned-carts consumer deletes them. Stream: OLD_IMAGE (what was removed, and by whom).
- Prices: `sku`; `price`, `currency`, `version` (+1 on every change), `updatedAt`. Stream: NEW_AND_OLD_IMAGES (the
  notifier compares the old and the new price).
- CartNotifications: `owner` + `sk`. A notification (`sk = "NOTE#<changedAt>#<sku>"`) and, per (owner, SKU), the
  marker of the last price version notified (`sk = "SKU#<sku>"`, `lastNotifiedVersion`).
- CartStats: `pk`. Abandoned carts per UTC day (`pk = "DAY#<yyyy-mm-dd>"`, `abandonedCarts`) and one marker per
  counted cart (`pk = "ABANDONED#<cartId>"`, expiring by TTL after the stream has forgotten the record).
"""

from __future__ import annotations

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

HEADER_SK = "#cart"
LINE_PREFIX = "LINE#"
NOTE_PREFIX = "NOTE#"
MARKER_PREFIX = "SKU#"
DAY_PREFIX = "DAY#"
ABANDONED_PREFIX = "ABANDONED#"
OPEN = "OPEN"
CHECKED_OUT = "CHECKED_OUT"
# A cart holds at most this many lines: clearing or checking out touches header + lines in one transaction (≤ 100).
MAX_LINES = 50

# An idle cart expires this long after its last change (set per stage through the environment, from infra).
IDLE_TTL_ENV = "CART_IDLE_TTL_SECONDS"
DEFAULT_IDLE_TTL_SECONDS = 7 * 24 * 3600
# A counted cart's marker outlives the stream's 24 h retention, so a redelivered REMOVE still finds it.
ABANDONED_MARKER_SECONDS = 3 * 24 * 3600

CARTS_BY_SKU_INDEX = "CartsBySkuIndex"

CART_TABLE = TableSpec(
    "CartTable",
    partition_key=KeyAttribute("cartId"),
    sort_key=KeyAttribute("sk"),
    # Sparse: only open carts' lines carry `lineSku`. The notifier needs the cart and its owner, nothing else.
    indexes=(IndexSpec(CARTS_BY_SKU_INDEX, KeyAttribute("lineSku"), KeyAttribute("cartId"), projection=("owner",)),),
    ttl_attribute="expiresAt",
    stream_view="OLD_IMAGE",
)

PRICE_TABLE = TableSpec(
    "PriceTable", env_var="CART_PRICE_TABLE_NAME", partition_key=KeyAttribute("sku"), stream_view="NEW_AND_OLD_IMAGES"
)

NOTIFICATION_TABLE = TableSpec(
    "NotificationTable",
    env_var="CART_NOTIFICATION_TABLE_NAME",
    partition_key=KeyAttribute("owner"),
    sort_key=KeyAttribute("sk"),
)

STATS_TABLE = TableSpec(
    "StatsTable",
    env_var="CART_STATS_TABLE_NAME",
    partition_key=KeyAttribute("pk"),
    ttl_attribute="expiresAt",  # markers only: the daily counts stay
)

TABLES = (CART_TABLE, PRICE_TABLE, NOTIFICATION_TABLE, STATS_TABLE)


def line_sk(sku: str) -> str:
    return f"{LINE_PREFIX}{sku}"


def marker_sk(sku: str) -> str:
    return f"{MARKER_PREFIX}{sku}"


def note_sk(changed_at: str, sku: str) -> str:
    return f"{NOTE_PREFIX}{changed_at}#{sku}"


def day_pk(day: str) -> str:
    return f"{DAY_PREFIX}{day}"


def abandoned_pk(cart_id: str) -> str:
    return f"{ABANDONED_PREFIX}{cart_id}"
