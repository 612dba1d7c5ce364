"""The Cart tables (seed 002, "Data Modeling Exercise #1", "Cost estimation", "Using TTL to age out cold data").

The seed's cart is one item per `cartId` with a date-time and a set of SKUs, expired by TTL, read with one GetItem
and written with one write. So is ours (docs/adr/0107-cart-one-item-holders-from-the-stream.md): the SKU set is the
keys of the cart's `lines` map, each with its quantity. A GSI cannot index the elements of a set or the keys of a
map, so "which carts hold this SKU" is a holder index of its own, kept from the Carts stream by
`holder_index.py`, under keys sharded by cart (`<sku>#<n>`) so that no SKU, however popular, is one hot key.

- Carts: `cartId`. `owner`, `status` (OPEN | CHECKED_OUT), `lines` (Map sku -> {`quantity`, `updatedAt`}; `{}` when
  empty), `createdAt`, `updatedAt`, `expiresAt` (TTL, epoch seconds, refreshed by every change). Stream:
  NEW_AND_OLD_IMAGES (the holder index compares the old and the new lines; the abandoned-carts consumer reads the
  removed cart).
- CartHolders: `holder` (`<sku>#<n>`, n = hash(cartId) mod HOLDER_SHARDS) + `cartId`; `expiresAt` (TTL, past the
  cart's own expiry: see `holder_expiry`). A superset of the open carts that hold the SKU: a holder is never deleted
  by a write, it ages out; the notifier reads the carts themselves before it notifies anyone.
- Prices: `sku`; `price`, `currency`, `version` (+1 on every change), `updatedAt`. Stream: NEW_AND_OLD_IMAGES (the
  notifier compares the old and the new price). No route deletes a price.
- CartNotifications: `owner` + `sk`. A notification (`sk = "NOTE#<changedAt>#<sku>"`) and, per (owner, SKU), the
  marker of the last price version notified (`sk = "SKU#<sku>"`, `lastNotifiedVersion`).
- CartStats: `pk`. Abandoned carts per UTC day (`pk = "DAY#<yyyy-mm-dd>"`, `abandonedCarts`) and one marker per
  counted cart (`pk = "ABANDONED#<cartId>"`, expiring by TTL after the stream has forgotten the record).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from functions.shared.table_spec import KeyAttribute, TableSpec

NOTE_PREFIX = "NOTE#"
MARKER_PREFIX = "SKU#"
DAY_PREFIX = "DAY#"
ABANDONED_PREFIX = "ABANDONED#"
OPEN = "OPEN"
CHECKED_OUT = "CHECKED_OUT"
# A cart holds at most this many lines (the count is `size(lines)` in the write's condition).
MAX_LINES = 50

# An idle cart expires this long after its last change (set per stage through the environment, from infra).
IDLE_TTL_ENV = "CART_IDLE_TTL_SECONDS"
DEFAULT_IDLE_TTL_SECONDS = 7 * 24 * 3600
# A counted cart's marker outlives the stream's 24 h retention, so a redelivered REMOVE still finds it.
ABANDONED_MARKER_SECONDS = 3 * 24 * 3600

CART_TABLE = TableSpec(
    "CartTable",
    partition_key=KeyAttribute("cartId"),
    ttl_attribute="expiresAt",
    stream_view="NEW_AND_OLD_IMAGES",
)

HOLDER_TABLE = TableSpec(
    "HolderTable",
    env_var="CART_HOLDER_TABLE_NAME",
    partition_key=KeyAttribute("holder"),
    sort_key=KeyAttribute("cartId"),
    ttl_attribute="expiresAt",
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

TABLES = (CART_TABLE, HOLDER_TABLE, PRICE_TABLE, NOTIFICATION_TABLE, STATS_TABLE)


# --- the holder index's shards, from a stated peak (docs/adr/0107-cart-one-item-holders-from-the-stream.md) ---------

@dataclass(frozen=True)
class HolderPeak:
    """The figures N is computed from: the most holder writes one SKU must take a second."""

    sku_adds_per_s: int = 10_000  # a flash sale: every write of the seed's 10,000 a second adds the same SKU
    units_per_add: int = 1  # a holder item is far under 1 KB: one write unit
    key_wcu: int = 1_000  # one partition key's write units a second
    headroom: float = 0.5  # each shard kept at half its limit (room for the bucket refreshes and for bursts)


def holder_shards(peak: HolderPeak = HolderPeak()) -> int:
    """N: the peak's write units over what one key may take, rounded up (10,000 / 500 = 20)."""
    return max(1, math.ceil(peak.sku_adds_per_s * peak.units_per_add / (peak.key_wcu * peak.headroom)))


# N may grow (the notifier reads every shard up to it; an old holder's shard is one of them) but never shrink.
HOLDER_SHARDS = holder_shards()


def holder_shard(cart_id: str, shards: int = HOLDER_SHARDS) -> int:
    """A cart's shard: a hash of its id, the same for every SKU and every write of the cart."""
    return int.from_bytes(hashlib.sha256(cart_id.encode("utf-8")).digest()[:8], "big") % shards


def holder_key(sku: str, shard: int) -> str:
    return f"{sku}#{shard}"


def holder_keys(sku: str, shards: int = HOLDER_SHARDS) -> list[str]:
    """Every shard of a SKU: what the notifier reads."""
    return [holder_key(sku, n) for n in range(shards)]


# A holder's TTL: past the end of the week (a fixed bucket of the cart's expiry) its cart expires in, plus a day. While
# the cart's expiry stays in that bucket no holder needs rewriting; when a change moves it into a later bucket, the
# holder index rewrites the cart's holders (holder_index.py), and the old ones still have at least a day to run
# (the cart was live, so its old expiry, and the change, came before the old bucket's end).
HOLDER_BUCKET_SECONDS = 7 * 24 * 3600
HOLDER_MARGIN_SECONDS = 24 * 3600


def holder_bucket(cart_expires_at: int) -> int:
    return cart_expires_at // HOLDER_BUCKET_SECONDS


def holder_expiry(cart_expires_at: int) -> int:
    return (holder_bucket(cart_expires_at) + 1) * HOLDER_BUCKET_SECONDS + HOLDER_MARGIN_SECONDS


def holder_item(sku: str, cart_id: str, cart_expires_at: int) -> dict[str, object]:
    return {"holder": holder_key(sku, holder_shard(cart_id)), "cartId": cart_id,
            "expiresAt": holder_expiry(cart_expires_at)}


def marker_sk(sku: str) -> str:
    return f"{MARKER_PREFIX}{sku}"


def note_sk(changed_at: str, sku: str) -> str:
    return f"{NOTE_PREFIX}{changed_at}#{sku}"


def day_pk(day: str) -> str:
    return f"{DAY_PREFIX}{day}"


def abandoned_pk(cart_id: str) -> str:
    return f"{ABANDONED_PREFIX}{cart_id}"
