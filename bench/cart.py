"""Cart figures (docs/adr/0107-cart-one-item-holders-from-the-stream.md): what one price change costs, ours against
the seed's daily Scan, and the seed's monthly estimate recomputed beside ours from our item sizes and the write mix
below. In-process on moto (item counts), sizes and units by DynamoDB's rules (functions/shared/capacity.py: moto's
ConsumedCapacity is a constant, whatever the item sizes).

Prices used (US East (N. Virginia), on-demand, Standard table class): $0.625 per million write request units, $0.125
per million read request units, $0.25 per GB-month of storage (first 25 GB free), defined once, with where each was
read, in functions/platform/scale/model.py (WRU_PRICE, RRU_PRICE, STORAGE_PRICE, PRICES_NOTE), which `make scale` and
the explorer's what-if price by too. The seed's ~$6,300 and ~$22 were provisioned-capacity estimates of its day; the
figures below are on-demand.

The write mix (what the seed's "10K writes" are; the seed gives none of it, each figure says where it comes from):
- SKU_CHANGE_SHARE: half the writes add or remove a SKU (the least the design review asked to assume), the rest
  change a quantity, create, or check out a cart;
- a cart is created, gathers its lines for ACTIVE_DAYS (plausible: one day), then idles IDLE_DAYS (the TTL) until
  DynamoDB removes it: 100M carts / 8 days = 145 created (and removed) a second; it ends with SKUS_PER_CART lines,
  so adds - removes = 145 x 5 a second, and adds + removes = 5,000;
- CHECKOUT_SHARE of the carts are checked out (plausible: the ~70% average abandonment rate retailers report), the
  rest are counted as abandoned by the stream consumer (a transaction of two items: 4 write units);
- a holder is written per SKU added, and again for every SKU held when a change moves the cart's expiry into a later
  week (ACTIVE_DAYS / 7 of the carts, once);
- PRICE_CHANGES_PER_DAY (plausible: 1% of a 100,000-SKU catalogue a day) on SKUs drawn evenly, each held by
  100M x 5 / 100,000 = 5,000 carts: one notification transaction (4 write units) per holder, and the reads that find
  them (the SKU's N holder Queries, the carts, the owners' markers);
- every line change reads the SKU's price (eventually consistent, 0.5 RRU): the per-container memory of priced SKUs
  is not credited.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from functions.platform.scale.model import PRICES_NOTE, RRU_PRICE, SECONDS_PER_MONTH, STORAGE_PRICE, WRU_PRICE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.service_resource import Table

SEED_CARTS = 100_000_000
SEED_RATE = 10_000  # reads and writes per second
SKUS_PER_CART = 5
HOLDERS = 10
ITEM_OVERHEAD = 100  # bytes of storage DynamoDB bills per item, in a table and in an index
GB = 1024 ** 3

CATALOGUE = 100_000  # plausible: SKUs (the seed gives no figure)
SKU_CHANGE_SHARE = 0.5
ACTIVE_DAYS = 1.0
IDLE_DAYS = 7.0
CHECKOUT_SHARE = 0.3
PRICE_CHANGES_PER_DAY = 1_000
DAY = 86_400
WEEK_DAYS = 7.0  # functions/cart/schema.py HOLDER_BUCKET_SECONDS, in days
HOLDER_MARGIN_DAYS = 1.0  # functions/cart/schema.py HOLDER_MARGIN_SECONDS, in days


@dataclass(frozen=True)
class Mix:
    """Requests a second of each kind, at the seed's rate (the module docstring says where each comes from)."""

    reads: float
    creates: float
    adds: float
    removes: float
    quantities: float
    checkouts: float
    abandoned: float
    refreshed_holders: float
    price_changes: float
    notifications: float

    @property
    def writes(self) -> float:
        return self.creates + self.adds + self.removes + self.quantities + self.checkouts


def write_mix(rate: float = SEED_RATE, carts: int = SEED_CARTS) -> Mix:
    creates = carts / ((ACTIVE_DAYS + IDLE_DAYS) * DAY)
    sku_changes = rate * SKU_CHANGE_SHARE
    adds = (sku_changes + creates * SKUS_PER_CART) / 2
    checkouts = creates * CHECKOUT_SHARE
    price_changes = PRICE_CHANGES_PER_DAY / DAY
    return Mix(
        reads=rate, creates=creates, adds=adds, removes=sku_changes - adds,
        quantities=rate - creates - sku_changes - checkouts, checkouts=checkouts,
        abandoned=creates * (1 - CHECKOUT_SHARE),
        refreshed_holders=creates * min(1.0, ACTIVE_DAYS / WEEK_DAYS) * SKUS_PER_CART,
        price_changes=price_changes, notifications=price_changes * carts * SKUS_PER_CART / CATALOGUE,
    )


def holder_lifetime_s() -> float:
    """A holder lasts from its write to its TTL: the cart's idle TTL, half a week (its bucket's rest) on average, the
    margin, and the days DynamoDB takes to delete an expired item (counted as two)."""
    return (IDLE_DAYS + WEEK_DAYS / 2 + HOLDER_MARGIN_DAYS + 2) * DAY


def _seed_item(cart_id: str, skus: set[str]) -> dict:
    """The seed's cart: cartId, a date-time, a set of SKUs."""
    return {"cartId": cart_id, "dateTime": "2026-11-22T12:00:00Z", "skus": skus}


def _our_cart(cart_id: str, owner: str, skus: list[str], expires_at: int) -> dict:
    """Our cart as the repository stores it: one item, its lines a map of SKU -> quantity and time."""
    now = "2026-11-22T12:00:00+00:00"
    return {"cartId": cart_id, "owner": owner, "status": "OPEN",
            "lines": {sku: {"quantity": 1, "updatedAt": now} for sku in skus},
            "createdAt": now, "updatedAt": now, "expiresAt": expires_at}


def _holders(cart_id: str, skus: list[str], expires_at: int) -> list[dict]:
    """The holder items the Carts stream's consumer writes for these SKUs of the cart."""
    from functions.cart.schema import holder_item

    return [holder_item(sku, cart_id, expires_at) for sku in skus]


def _price_item(sku: str) -> dict:
    return {"sku": sku, "price": Decimal("45.00"), "currency": "USD", "version": 3,
            "updatedAt": "2026-11-22T12:00:00+00:00"}


def _note(owner: str, sku: str, cart_id: str) -> tuple[dict, dict]:
    """A notification and its owner's marker, as the notifier writes them."""
    from functions.cart.schema import marker_sk, note_sk

    changed = "2026-11-22T12:00:00+00:00"
    note = {"owner": owner, "sk": note_sk(changed, sku), "sku": sku, "oldPrice": Decimal("45.00"),
            "newPrice": Decimal("44.00"), "currency": "USD", "oldCurrency": "USD", "priceVersion": 4,
            "changedAt": changed, "cartIds": [cart_id]}
    return note, {"owner": owner, "sk": marker_sk(sku), "lastNotifiedVersion": 4}


def unit_costs(cart_id: str = "0" * 32, sku: str = "SKU-000000", owner: str = "user-000001") -> dict[str, dict]:
    """Units of one request of each kind, by DynamoDB's rules, from the items as the code writes them: a cart of
    SKUS_PER_CART lines (`sku` first), its holders, a price, a notification."""
    from functions.cart.schema import HOLDER_SHARDS, abandoned_pk, day_pk
    from functions.shared.capacity import item_size, read_units, write_units

    skus = [sku, *[f"SKU-{n:06d}" for n in range(1, SKUS_PER_CART)]]
    full = _our_cart(cart_id, owner, skus, 1_800_000_000)
    before = _our_cart(cart_id, owner, skus[1:], 1_800_000_000)
    empty = _our_cart(cart_id, owner, [], 1_800_000_000)
    holder = _holders(cart_id, [sku], 1_800_000_000)[0]
    note, marker = _note(owner, sku, cart_id)
    stats_marker = {"pk": abandoned_pk(cart_id), "day": "2026-11-22", "expiresAt": 1_800_000_000}
    day = {"pk": day_pk("2026-11-22"), "abandonedCarts": 123_456}
    cart_write = write_units(max(item_size(before), item_size(full)))  # the larger of before and after
    price_read = read_units([item_size(_price_item(sku))])  # GetItem, eventually consistent
    mix = write_mix()
    holders_per_sku = holders_stored(mix) / CATALOGUE
    per_shard = holders_per_sku / HOLDER_SHARDS
    return {
        "read": {"cart_rru": read_units([item_size(full)])},  # GetItem, eventually consistent (as the seed's)
        "create": {"cart_wru": write_units(item_size(empty))},
        "add": {"price_rru": price_read, "cart_wru": cart_write, "holder_wru": write_units(item_size(holder))},
        "remove": {"cart_wru": cart_write},
        "quantity": {"price_rru": price_read, "cart_wru": cart_write},
        "checkout": {"cart_wru": write_units(item_size(full))},
        # a transaction bills two units per item written (functions/cart/repository.py count_abandoned, notify)
        "abandoned": {"marker_wru": 2 * write_units(item_size(stats_marker)),
                      "day_wru": 2 * write_units(item_size(day))},
        "refresh": {"holder_wru": write_units(item_size(holder))},
        "notification": {"marker_rru": 0.5, "marker_wru": 2 * write_units(item_size(marker)),
                         "note_wru": 2 * write_units(item_size(note))},
        # a price change reads every holder of the SKU (N Queries; stale ones too) and each holder's cart
        "price change": {"holder_query_rru": HOLDER_SHARDS * read_units([item_size(holder)] * max(1, round(per_shard))),
                         "cart_rru": holders_per_sku * read_units([item_size(full)])},
        "_sizes": {"cart": item_size(full), "holder": item_size(holder),
                   "seed": item_size(_seed_item(cart_id, set(skus))), "note": item_size(note) + item_size(marker),
                   "stats": item_size(stats_marker)},
    }


def holders_stored(mix: Mix) -> float:
    """Holder items alive at a time: written a second, times how long each lasts."""
    return (mix.adds + mix.refreshed_holders) * holder_lifetime_s()


def ours_per_second(mix: Mix | None = None) -> dict[str, tuple[float, float]]:
    """(RRU, WRU) a second of each kind of request at the seed's rate: the rates of `write_mix` times `unit_costs`."""
    mix = mix or write_mix()
    units = unit_costs()
    rates = {"read": mix.reads, "create": mix.creates, "add": mix.adds, "remove": mix.removes,
             "quantity": mix.quantities, "checkout": mix.checkouts, "abandoned": mix.abandoned,
             "refresh": mix.refreshed_holders, "notification": mix.notifications, "price change": mix.price_changes}
    out = {}
    for kind, rate in rates.items():
        rru = sum(v for k, v in units[kind].items() if k.endswith("_rru"))
        wru = sum(v for k, v in units[kind].items() if k.endswith("_wru"))
        out[kind] = (rate * rru, rate * wru)
    return out


def ours_stored_bytes(mix: Mix | None = None) -> dict[str, float]:
    """What ours stores, by table: 100M carts, the holders alive, a month of notifications (they are kept), the
    abandoned-cart markers (3 days)."""
    mix = mix or write_mix()
    sizes = unit_costs()["_sizes"]
    return {"Cart": SEED_CARTS * (sizes["cart"] + ITEM_OVERHEAD),
            "CartHolders": holders_stored(mix) * (sizes["holder"] + ITEM_OVERHEAD),
            "CartNotifications": mix.notifications * SECONDS_PER_MONTH * (sizes["note"] + 2 * ITEM_OVERHEAD),
            "CartStats": mix.abandoned * 3 * DAY * (sizes["stats"] + ITEM_OVERHEAD)}


def notification_cost(sizes: tuple[int, ...] = (100, 1_000, 10_000), holders: int = HOLDERS) -> None:
    import boto3
    from moto import mock_aws

    from functions.cart import price_notifier
    from functions.cart.schema import CART_TABLE, HOLDER_TABLE, TABLES
    from functions.shared import ddb
    from functions.shared.capacity import item_size, read_units
    from functions.shared.settings import settings

    print(f"\n6. Cart: one price change for a SKU held by {holders} of N carts: what is read and written")
    print(f"   {'N carts':>8} {'ours: items read':>17} {'ours: RRU':>10} {'ours: items written':>20} "
          f"{'seed scan: items read':>22} {'seed scan: RRU':>15}")
    import os

    expires = int((datetime.now(UTC) + timedelta(days=7)).timestamp())
    for n in sizes:
        with mock_aws():
            ddb.resource.cache_clear()
            client = boto3.client("dynamodb")
            for spec in TABLES:
                client.create_table(**spec.create_table_kwargs(f"bench-{spec.construct_id}"))
                os.environ[spec.env_var] = f"bench-{spec.construct_id}"
            client.create_table(TableName="bench-seed-carts", BillingMode="PAY_PER_REQUEST",
                                KeySchema=[{"AttributeName": "cartId", "KeyType": "HASH"}],
                                AttributeDefinitions=[{"AttributeName": "cartId", "AttributeType": "S"}])
            settings.cache_clear()
            price_notifier.repository.cache_clear()
            ours, seed = ddb.table(os.environ[CART_TABLE.env_var]), ddb.table("bench-seed-carts")
            index = ddb.table(os.environ[HOLDER_TABLE.env_var])
            with ours.batch_writer() as ours_batch, seed.batch_writer() as seed_batch, \
                    index.batch_writer() as index_batch:
                for i in range(n):
                    skus = [f"SKU-{(i + j) % 997:04d}" for j in range(SKUS_PER_CART - 1)]
                    skus.append("HOT" if i < holders else f"SKU-X{i % 13}")
                    cart_id = uuid.uuid4().hex
                    ours_batch.put_item(Item=_our_cart(cart_id, f"user-{i}", skus, expires))
                    for holder in _holders(cart_id, skus, expires):  # what the Carts stream's consumer writes
                        index_batch.put_item(Item=holder)
                    seed_batch.put_item(Item=_seed_item(cart_id, set(skus)))

            read: list[dict] = []
            events = ddb.resource().meta.client.meta.events

            def record(parsed, model, __read=read, **_):
                __read.append({"op": model.name, "parsed": parsed})

            events.register("after-call.dynamodb", record)
            change = price_notifier.PriceChange(sku="HOT", old_price=Decimal("10.00"), new_price=Decimal("9.00"),
                                                currency="USD", old_currency="USD", version=2,
                                                changed_at="2026-11-22T12:00:00+00:00")
            notified = price_notifier.notify_holders(change, datetime.now(UTC))
            events.unregister("after-call.dynamodb", record)
            index_items = [item for r in read if r["op"] == "Query" for item in r["parsed"]["Items"]]
            headers = [item for r in read if r["op"] == "BatchGetItem"
                       for items in r["parsed"]["Responses"].values() for item in items]
            written = 2 * sum(1 for r in read if r["op"] == "TransactWriteItems")
            # each Query (one per holder shard) costs its items, at least half a unit; each item read in a batch too
            ours_rru = sum(read_units([item_size(i) for i in r["parsed"]["Items"]]) for r in read
                           if r["op"] == "Query") + sum(read_units([item_size(h)]) for h in headers)
            if notified != holders:
                raise RuntimeError(f"the price change notified {notified} carts, not the {holders} holding the SKU")
            scanned, seed_rru = _seed_scan(seed, "HOT")
            print(f"   {n:>8} {len(index_items) + len(headers):>17} {ours_rru:>10.1f} {written:>20} "
                  f"{scanned:>22} {seed_rru:>15.1f}")
        ddb.resource.cache_clear()
    print("   ours grows with the carts holding the SKU (their holders over N shards + the carts); the seed's with all "
          "carts")


def _seed_scan(seed: Table, sku: str) -> tuple[int, float]:
    """The seed's job for a price change: read every cart, keep those holding the SKU (a Scan with a filter reads
    them all). Items scanned, and the read units of reading them all."""
    from boto3.dynamodb.conditions import Attr

    from functions.shared.capacity import item_size, read_units

    scanned, start = 0, None
    while True:
        kwargs: dict[str, Any] = {"FilterExpression": Attr("skus").contains(sku)}
        if start:
            kwargs["ExclusiveStartKey"] = start
        page = seed.scan(**kwargs)
        scanned += page["ScannedCount"]
        start = page.get("LastEvaluatedKey")
        if not start:
            break
    return scanned, read_units([item_size(item) for item in seed.scan()["Items"]])


def monthly_estimate(echo: bool = True) -> dict:
    from functions.shared.capacity import read_units, write_units

    say = print if echo else (lambda *_, **__: None)
    say(f"\n7. Cart: the seed's monthly estimate recomputed beside ours ({PRICES_NOTE})")
    units = unit_costs()
    seed_size = units["_sizes"]["seed"]
    writes, reads = SEED_RATE * SECONDS_PER_MONTH, SEED_RATE * SECONDS_PER_MONTH

    seed_write = writes * write_units(seed_size) * WRU_PRICE
    seed_read = reads * read_units([seed_size]) * RRU_PRICE  # eventually consistent GetItem
    seed_bytes = SEED_CARTS * (seed_size + ITEM_OVERHEAD)
    seed_storage = max(0.0, seed_bytes / GB - 25) * STORAGE_PRICE
    say(f"   seed: one item per cart, {seed_size} B ({SKUS_PER_CART} SKUs): 10K writes/s ${seed_write:,.0f}, "
          f"10K reads/s ${seed_read:,.0f}, {seed_bytes / GB:,.0f} GB ${seed_storage:,.0f} "
          f"-> ${seed_write + seed_read + seed_storage:,.0f}/month")
    mix = write_mix()
    per_second = ours_per_second(mix)
    stored = ours_stored_bytes(mix)
    ours_storage = max(0.0, sum(stored.values()) / GB - 25) * STORAGE_PRICE
    ours_rru = sum(r for r, _ in per_second.values())
    ours_wru = sum(w for _, w in per_second.values())
    ours_throughput = (ours_rru * RRU_PRICE + ours_wru * WRU_PRICE) * SECONDS_PER_MONTH
    say(f"   ours: one item per cart, {units['_sizes']['cart']} B ({SKUS_PER_CART} lines), holders of "
          f"{units['_sizes']['holder']} B; the seed's 10K writes/s as {mix.creates:,.0f} creates, {mix.adds:,.0f} "
          f"SKU adds, {mix.removes:,.0f} removes, {mix.quantities:,.0f} quantity changes, {mix.checkouts:,.0f} "
          "checkouts a second:")
    for kind, (rru, wru) in per_second.items():
        say(f"     {kind:<13} {rru:>9,.1f} RRU/s {wru:>9,.1f} WRU/s  "
            f"${(rru * RRU_PRICE + wru * WRU_PRICE) * SECONDS_PER_MONTH:>9,.0f}/month")
    say(f"     storage: {', '.join(f'{name} {size / GB:,.0f} GB' for name, size in stored.items())} "
        f"${ours_storage:,.0f}/month")
    ours_month = ours_throughput + ours_storage
    seed_month = seed_write + seed_read + seed_storage
    say(f"   -> ours ${ours_month:,.0f}/month = {ours_month / seed_month:.2f}x the seed's ${seed_month:,.0f}")
    seed_scan_size = seed_size
    scan_rru = SEED_CARTS * seed_scan_size / (4 * 1024) / 2  # an eventually consistent Scan: its bytes / 4 KB / 2
    say(f"   the seed's daily price-notification Scan of {SEED_CARTS:,} carts: {scan_rru:,.0f} RRU a day, "
          f"${scan_rru * RRU_PRICE * 30:,.2f}/month (the seed: ~$22 provisioned); ours: a price change reads its "
          f"holders only (section 6) and notifies within seconds, counted above at {PRICE_CHANGES_PER_DAY:,} a day")
    per_change = units["add"]["cart_wru"] + units["add"]["holder_wru"]
    return {"seed_month": seed_month, "ours_month": ours_month, "scan_rru_per_day": scan_rru,
            "per_change_wru": per_change, "ours_rru_per_s": ours_rru, "ours_wru_per_s": ours_wru,
            "ours_stored_bytes": sum(stored.values())}


def run() -> None:
    notification_cost()
    monthly_estimate()
