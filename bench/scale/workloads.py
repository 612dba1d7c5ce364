"""Workloads of the seeds' shape, through our own key code: for each seed claim, our design and the design the seed
warns against (or argues for), as operations, rates and key distributions. Keys come from each domain's key builders
(functions/<domain>/schema.py and repository.py), item sizes from the items its repository builds, and units from
functions/shared/capacity.py, the rules the local runtime bills by: a change to a key design, a projection or an
item changes these rows. Rates the seeds do not give are marked "plausible" where they are used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import Any

from bench.cart import ITEM_OVERHEAD  # bytes DynamoDB adds per stored item and index entry
from bench.scale.model import Load, Op, Table, Touch, simulate, uniform, zipf
from functions.shared.capacity import item_size, read_units, write_units
from functions.shared.table_spec import TableSpec

def projected(item: Mapping[str, Any], spec: TableSpec, index_name: str) -> dict[str, Any]:
    """The entry an index holds for an item, from the table spec's projection (what an index write is billed by)."""
    index = spec.index(index_name)
    keys = {a.name for a in (*spec.key_attributes, *index.key_attributes)}
    if index.projection == "ALL":
        return dict(item)
    extra = set() if index.projection == "KEYS_ONLY" else set(index.projection)
    return {k: v for k, v in item.items() if k in keys | extra}


# --- the cart: 100 million carts, 10,000 reads and 10,000 writes a second ------------------------------------------

CARTS = 100_000_000
CART_RATE = 10_000
SKUS = 100_000  # plausible: a catalogue of 100,000 SKUs, asked Zipf-popular (the seed gives no figure)
SEED_JOB = "~1,200 RCU and WCU for 24 h: ~$22 a run"


def cart_items(cart_id: str, sku: str) -> dict[str, dict[str, Any]]:
    """Our cart's items as bench/cart.py builds them (a header and a line), the seed's one item, a price."""
    from bench.cart import SKUS_PER_CART, _our_items, _seed_item
    from functions.cart.schema import line_sk

    skus = [sku, *[f"SKU-{n:06d}" for n in range(1, SKUS_PER_CART)]]
    header, line, *_ = _our_items(cart_id, "user-000001", skus, 1_800_000_000)
    assert line["sk"] == line_sk(sku)  # the builder and the schema agree on the line's key
    return {"header": header, "line": line, "seed": _seed_item(cart_id, set(skus)),
            "price": {"sku": sku, "price": Decimal("45.00"), "currency": "USD", "version": 3,
                      "updatedAt": "2026-11-22T12:00:00+00:00"}}


def line_change_units(header: Mapping[str, Any], line: Mapping[str, Any], price: Mapping[str, Any]) -> dict[str, int]:
    """Write units of one `set_line` (functions/cart/repository.py), given the items as they stand after it: a
    transaction of the header Update, the price's ConditionCheck and the line Update (base-table units doubled), and
    the CartsBySku entry the line adds (not doubled: indexes are written after the commit)."""
    from functions.cart.schema import CART_TABLE, CARTS_BY_SKU_INDEX

    entry = projected(line, CART_TABLE, CARTS_BY_SKU_INDEX)
    return {"cart": 2 * write_units(item_size(header)) + 2 * write_units(item_size(line)),
            "price": 2 * write_units(item_size(price)), "index": write_units(item_size(entry))}


def cart_read_units(header: Mapping[str, Any], lines: list[Mapping[str, Any]]) -> float:
    """`get_cart`: one Query of the header and its lines, strongly consistent."""
    return read_units([item_size(header), *(item_size(line) for line in lines)], consistent=True)


@lru_cache(maxsize=64)
def _line_change_units(cart_id_length: int, sku_length: int) -> dict[str, int]:
    # Sizes depend on the ids' lengths only: one build per shape instead of one per sampled cart.
    items = cart_items("0" * cart_id_length, "S" * sku_length)
    return line_change_units(items["header"], items["line"], items["price"])


def line_change_touches(cart_id: str, sku: str) -> list[Touch]:
    from functions.cart.schema import CARTS_BY_SKU_INDEX

    units = _line_change_units(len(cart_id), len(sku))
    return [Touch("Cart", cart_id, wcu=units["cart"]), Touch("Price", sku, wcu=units["price"]),
            Touch("Cart", sku, wcu=units["index"], index=CARTS_BY_SKU_INDEX, one_item=False)]


@lru_cache(maxsize=64)
def _cart_read_units(cart_id_length: int) -> float:
    from bench.cart import SKUS_PER_CART

    items = cart_items("0" * cart_id_length, "SKU-000000")
    return cart_read_units(items["header"], [items["line"]] * SKUS_PER_CART)


def cart_read_touches(cart_id: str) -> list[Touch]:
    return [Touch("Cart", cart_id, rcu=_cart_read_units(len(cart_id)))]


def cart_rows() -> list[Load]:
    from bench.cart import SKUS_PER_CART, monthly_estimate

    def cart_id(i: int) -> str:
        return f"{i:032x}"  # a uuid4().hex-shaped id, as create_cart makes them

    def sku(i: int) -> str:
        return f"SKU-{i:06d}"

    sample = cart_items(cart_id(0), sku(0))
    seed_size, header, line = (item_size(sample[k]) for k in ("seed", "header", "line"))
    entry = item_size(projected(sample["line"], *_cart_index()))
    seed_bytes = CARTS * (seed_size + ITEM_OVERHEAD)
    ours_bytes = CARTS * (header + ITEM_OVERHEAD + SKUS_PER_CART * (line + entry + 2 * ITEM_OVERHEAD))
    estimate = monthly_estimate(echo=False)
    carts = uniform(CARTS)
    seed = simulate(
        "cart", "100M carts, 10K reads + 10K writes/s", "seed: one item per cart (GetItem, PutItem)",
        [Op("read", CART_RATE, carts, lambda i: [Touch("Cart", cart_id(i), rcu=read_units([seed_size]))]),
         Op("write", CART_RATE, carts, lambda i: [Touch("Cart", cart_id(i), wcu=write_units(seed_size))])],
        [Table("Cart", seed_bytes)], rate=CART_RATE, seed_figure="~$6,300/month (provisioned)")
    rows = [seed]
    for label, skus in (("SKUs uniform", uniform(SKUS)), ("SKUs Zipf s=1 (plausible)", zipf(SKUS))):
        # A write is a line change of a cart (uniform) for a SKU (popular or not): the two populations are
        # independent, so each op spreads over one of them and books the other's units on keys of their own.
        ops = [Op("read", CART_RATE, carts, lambda i: cart_read_touches(cart_id(i))),
               Op("line change: cart", CART_RATE, carts,
                  lambda i: [t for t in line_change_touches(cart_id(i), sku(0)) if t.table == "Cart" and t.index is None]),
               Op("line change: SKU", CART_RATE, skus,
                  lambda i: [t for t in line_change_touches(cart_id(0), sku(i)) if t.table == "Price" or t.index])]
        rows.append(simulate("cart", "100M carts, 10K reads + 10K writes/s",
                             f"ours: header + lines, SKU index, price check; {label}", ops,
                             [Table("Cart", ours_bytes)], rate=CART_RATE, seed_figure="~$6,300/month (provisioned)"))
    for row in rows[1:]:
        row.extra["make_cost_ours_month"] = round(estimate["ours_month"], 2)
    seed.extra["make_cost_seed_month"] = round(estimate["seed_month"], 2)
    # The seed's daily price job: a Scan and update of every cart over 24 h, at the seed's own ~1,200 RCU and WCU.
    job = simulate("cart", "daily price-notification job", "seed: Scan + update 100M carts over 24 h",
                   [Op("scan+update", CARTS / 86_400, carts,
                       lambda i: [Touch("Cart", cart_id(i), rcu=seed_size / 4096 / 2, wcu=write_units(seed_size))])],
                   rate=CARTS / 86_400, seed_figure=SEED_JOB,
                   note="monthly = 30 daily runs")
    job.extra["seed_run_usd_provisioned"] = round(1_200 * 24 * (0.00065 + 0.00013), 2)
    rows.append(job)
    return rows


def _cart_index() -> tuple[TableSpec, str]:
    from functions.cart.schema import CART_TABLE, CARTS_BY_SKU_INDEX

    return CART_TABLE, CARTS_BY_SKU_INDEX


def cart_break_even(rows: list[Load]) -> dict[str, float]:
    """When ours, which notifies a price change to its holders as it happens, costs no more than the seed's one-item
    cart plus its price job (a Scan and update of every cart, whose interval is how stale a notification may be).
    Per capacity mode: the extra a month at the seed's rate, a job run, how many runs a month (and so how many
    minutes between runs) cost that extra, and the read + write rate below which ours costs less than the seed's
    design with a daily job (throughput scales with the rate, storage does not)."""
    from bench.scale.model import monthly_on_demand, monthly_provisioned

    seed, ours, job = rows[0], rows[1], rows[-1]
    out: dict[str, float] = {}
    for mode, month, total in (("on_demand", monthly_on_demand, "monthly_usd"),
                               ("provisioned", monthly_provisioned, "provisioned_monthly_usd")):
        throughput = month(ours.table_rcu, ours.table_wcu) - month(seed.table_rcu, seed.table_wcu)
        storage = (getattr(ours, total) - month(ours.table_rcu, ours.table_wcu)) - (
            getattr(seed, total) - month(seed.table_rcu, seed.table_wcu))
        run = getattr(job, total) / 30
        extra = throughput + storage
        out[f"extra_per_month_{mode}"] = extra
        out[f"job_run_{mode}"] = run
        out[f"jobs_per_month_{mode}"] = extra / run
        out[f"minutes_between_jobs_{mode}"] = 30 * 24 * 60 / (extra / run)
        out[f"rate_for_daily_job_{mode}"] = max(0.0, (30 * run - storage) / (throughput / CART_RATE))
    return out


# --- time series: 100,000 data points a second ------------------------------------------------------------------------

POINTS = 100_000
SECONDS_PER_WRITE = 10  # the seed's "10x less": a batching stage hands each device's 10 s of readings to one write


def bin_update(item: dict[str, Any] | None, readings: list[Any]) -> tuple[dict[str, Any], int]:
    """One ingest UpdateItem of a device's bin (functions/measurements/repository.py `_write_bin`): the bin after it
    (each reading's slot and the bin's `expiresAt` SET) and its write units, billed by the larger of the item before
    and after."""
    from functions.measurements.repository import _slot_value
    from functions.measurements.schema import EXPIRES_AT, bin_of, expires_at, slot_of

    first = readings[0]
    start = bin_of(first.epoch)
    after = dict(item or {"DeviceId": first.device_id, "bin": start})
    after[EXPIRES_AT] = expires_at(start)
    for reading in readings:
        after[slot_of(reading.epoch)] = _slot_value(reading)
    return after, write_units(max(item_size(item or {}), item_size(after)))


def bin_write_units(seconds_per_write: int = SECONDS_PER_WRITE) -> float:
    """Average write units of one ingest write as a 5-minute bin fills at one reading a second, in writes of
    `seconds_per_write` readings: a write near the bin's end pays for the whole bin."""
    from functions.measurements.models import Reading
    from functions.measurements.schema import BIN_SECONDS, bin_of

    start = bin_of(1_790_000_000)
    item: dict[str, Any] | None = None
    units: list[int] = []
    for first in range(0, BIN_SECONDS, seconds_per_write):
        readings = [Reading(device_id="sensor-000001", epoch=start + second, temperature=21.4, pressure=1013.2)
                    for second in range(first, min(first + seconds_per_write, BIN_SECONDS))]
        item, cost = bin_update(item, readings)
        units.append(cost)
    return sum(units) / len(units)


def measurement_rows() -> list[Load]:
    devices = POINTS  # our bins hold one reading a second per device (slot r000..r299): 100,000 devices at 1/s
    keys = uniform(devices)
    claim = "100,000 data points/s"

    def device(i: int) -> str:
        return f"sensor-{i:06d}"

    rows = [
        simulate("measurements", claim, "seed: unbinned, one item per data point",
                 [Op("put", POINTS, keys, lambda i: [Touch("Measurements", device(i), wcu=1)])],
                 rate=POINTS, seed_figure="100,000 WCU, ~$50K/month"),
        simulate("measurements", claim, "seed: binned, 10 data points per write",
                 [Op("put", POINTS / 10, keys, lambda i: [Touch("Measurements", device(i), wcu=1)])],
                 rate=POINTS, seed_figure="10,000 WCU, ~$5,000/month"),
    ]
    for seconds in (SECONDS_PER_WRITE, 60):
        per_write = bin_write_units(seconds)
        rows.append(simulate(
            "measurements", claim, f"ours: 5-min bins, {seconds} readings per UpdateItem",
            [Op("update bin", POINTS / seconds, keys, lambda i, u=per_write: [Touch("Measurements", device(i), wcu=u)])],
            rate=POINTS, seed_figure="10,000 WCU, ~$5,000/month",
            note=f"{per_write:.2f} WCU a write, {per_write / seconds:.3f} a data point: an update pays for the bin so far"))
        rows[-1].extra["wcu_per_write"] = round(per_write, 3)
    return rows


# --- voting: one candidate's counter is one partition key -----------------------------------------------------------

CANDIDATES = 10  # plausible: a poll of 10 candidates, asked Zipf-popular (s = 1: the favourite takes 34%)
VOTE_RATE = 10_000  # plausible: a televised poll's peak, votes a second (the seed gives no figure)
FLUSHES_PER_STREAM_SHARD = 10  # functions/voting/schema.py: ~10 invocations a second on a saturated stream shard
RECORDS_PER_STREAM_SHARD = 1_000  # a stream shard takes ~1,000 writes a second of its table's partition


def ballot_units() -> float:
    """`cast_vote`: an UpdateItem of the voter's RawVotes item (pollId, userId), billed by its size."""
    item = {"pollId": "favourite-feature", "userId": "3f1c2d4e-0000-4000-8000-000000000001", "candidate": "TTL",
            "votedAt": "2026-11-27T02:00:00+00:00", "updatedAt": "2026-11-27T02:00:00+00:00", "version": 1}
    return write_units(item_size(item))


def voting_rows(rate: float = VOTE_RATE) -> list[Load]:
    from functions.voting.schema import DEFAULT_SEGMENTS, applied_sk, total_sk

    poll = "favourite-feature"
    candidates = zipf(CANDIDATES)
    claim = "one candidate's counter is one partition key"
    counter = write_units(item_size({"Segment": "A_1", "Votes": 123_456}))

    def seed(shards: int) -> Load:
        return simulate("voting", claim, f"seed: counter per candidate, {shards} shard(s), one increment per vote",
                        [Op("increment", rate, candidates,
                            lambda i: [Touch("Votes", f"{'ABCDEFGHIJ'[i]}_{s + 1}", wcu=counter / shards)
                                       for s in range(shards)])],
                        seed_figure="shards trade read cost for write scalability")

    # Ours: the ballot (RawVotes, partition key pollId) and the stream aggregator's flushes (Votes, partition key
    # pollId, a segment per sort key): a flush is one transaction adding every changed candidate's delta to one of
    # its segments plus the APPLIED counter; stream shards grow with the table's write rate.
    stream_shards = max(1, -(-int(rate) // RECORDS_PER_STREAM_SHARD))
    flushes = stream_shards * FLUSHES_PER_STREAM_SHARD
    segment_item = {"pollId": poll, "sk": total_sk("candidate-10", DEFAULT_SEGMENTS), "candidate": "candidate-10",
                    "votes": 1_234_567}
    applied_item = {"pollId": poll, "sk": applied_sk(DEFAULT_SEGMENTS), "changes": 1_234_567}
    flush_wcu = 2 * (CANDIDATES * write_units(item_size(segment_item)) + write_units(item_size(applied_item)))
    ours = simulate("voting", claim, f"ours: ballots under pollId, {DEFAULT_SEGMENTS} segments per candidate under pollId",
                    [Op("ballot", rate, uniform(1), lambda _: [Touch("RawVotes", poll, wcu=ballot_units(), one_item=False)]),
                     Op("flush", flushes, uniform(1), lambda _: [Touch("Votes", poll, wcu=flush_wcu, one_item=False)])],
                    rate=rate, seed_figure="shards trade read cost for write scalability",
                    note="RawVotes's partition key is the poll: every ballot of a poll is one key")
    return [seed(1), seed(CANDIDATES), ours]


# --- order entry: GSI2 over N shards, the OPEN orders read at once ------------------------------------------------

ORDERS = 3_000_000
OPEN_SHARE = 0.20


def order_header(order_id: str, shards: int) -> dict[str, Any]:
    """An order's header as `place_order` writes it (GSI2PK = the order's shard), from the repository's builder."""
    from functions.order_entry.models import Order
    from functions.order_entry.repository import OrderEntryRepository
    from functions.order_entry.schema import customer_key, shard_of, shard_pk
    from functions.shared.settings import Settings

    order = Order(order_id=order_id, customer_id="C1042", rep_id="180", status="OPEN", order_date="2026-03-14",
                  total_cents=12_950)
    header = OrderEntryRepository(Settings({}), shards=shards)._order_item(order, customer_key(order.customer_id),
                                                                          "order")
    header.update(GSI2PK=shard_pk(shard_of(order_id, shards)), GSI2SK=header["Data"])
    return header


def order_entry_rows() -> list[Load]:
    from functions.order_entry.schema import GSI2, SEED_WORKLOAD, ORDER_ENTRY_TABLE, shard_count, shard_of, shard_pk

    open_orders = round(ORDERS * OPEN_SHARE)
    rows = []
    for shards in (1, shard_count(SEED_WORKLOAD)):
        size = item_size(projected(order_header("O-0000001", shards), ORDER_ENTRY_TABLE, GSI2))
        # The burst: every OPEN order read within one second (the seed's MaxRequiredIO), eventually consistent (an
        # index Query cannot be strongly consistent), one order's entry at a time; every 6th order's id is hashed
        # to its shard (a shard's share is then known to about 1%).
        rows.append(simulate(
            "order-entry", "3M orders, 20% OPEN, read at once through GSI2",
            f"{'seed warns: one status key' if shards == 1 else 'ours'}: GSI2 over N = {shards}",
            [Op("OPEN orders burst", open_orders, uniform(open_orders, sample=100_000),
                lambda i, n=shards, s=size: [Touch("OrderEntry", shard_pk(shard_of(f"O-{i:07d}", n)),
                                                   rcu=s / 4096 / 2, index=GSI2, one_item=False)])],
            rate=open_orders, seed_figure="N = 13 for 3,000 RCU per partition, padded to 15",
            note=f"{size} B per GSI2 entry (the seed: 250 B)"))
    return rows


# --- messaging: an inbox page of 50 with bodies, or headers only -------------------------------------------------------

INBOX_RATE = 10_000  # plausible: inbox pages a second
RECIPIENTS = 20_000  # plausible: a Zipf-popular population (shared mailboxes at the head), enumerated whole
PAGE = 50
BODY_BYTES = 256 * 1024  # the seed's 256 KB messages


def inbox_page_units(messages: list[Any], *, headers_only: bool) -> float:
    """Read units of one inbox page of these messages: the Inbox index's entries (our projection) or the whole
    messages (the seed's v.1), one Query, eventually consistent."""
    from functions.messaging.repository import message_item
    from functions.messaging.schema import INBOX_INDEX, MESSAGES_TABLE

    items = [message_item(message) for message in messages]
    return read_units([item_size(projected(item, MESSAGES_TABLE, INBOX_INDEX) if headers_only else item)
                       for item in items])


def inbox_page_rcu(body_bytes: int = BODY_BYTES, *, headers_only: bool) -> float:
    """One page of 50 of the seed's messages (256 KB bodies)."""
    from functions.messaging.models import Message

    start = datetime(2014, 10, 1, tzinfo=UTC)
    return inbox_page_units([Message(msg_id=f"m{n:04x}", sender="bob", recipient="david",
                                     date=(start + timedelta(minutes=n)).isoformat(timespec="milliseconds"),
                                     subject=f"Re: the plan, part {n}", body="x" * body_bytes)
                             for n in range(PAGE)], headers_only=headers_only)


def messaging_rows() -> list[Load]:
    from functions.messaging.schema import INBOX_INDEX

    recipients = zipf(RECIPIENTS)
    rows = []
    for label, rcu, index in (("seed v.1: bodies in the queried items", inbox_page_rcu(headers_only=False), None),
                              ("ours: header-only Inbox index", inbox_page_rcu(headers_only=True), INBOX_INDEX)):
        rows.append(simulate("messaging", "inbox page of 50: 1,600 RCU against 1", label,
                             [Op("inbox page", INBOX_RATE, recipients,
                                 lambda i, r=rcu, x=index: [Touch("Messages", f"user-{i:05d}", rcu=r, index=x, one_item=False)])],
                             seed_figure="1,600 RCU (bodies) / 1 RCU (headers) a page",
                             note=f"{rcu:g} RCU a page"))
        rows[-1].extra["rcu_per_page"] = rcu
    return rows


# --- connected car: a status index with few values ---------------------------------------------------------------------

CUSTOMERS = 10_000_000  # plausible
CUSTOMER_WRITES = 2_000  # plausible: customer writes a second (profile changes, isActive syncs)
ACTIVE_SHARE = 0.6  # plausible


def connected_car_rows() -> list[Load]:
    from functions.connected_car.schema import ACTIVE_CUSTOMER_INDEX, ACTIVE_FLAG, CUSTOMER_TABLE

    customer = {"username": "customer-0000001", "firstName": "Alice", "lastName": "Liddell",
                "email": "alice@example.com", "isActive": True, "activeFlag": ACTIVE_FLAG, "regVersion": 3}
    entry = write_units(item_size(projected(customer, CUSTOMER_TABLE, ACTIVE_CUSTOMER_INDEX)))
    base = write_units(item_size(customer))
    customers = uniform(CUSTOMERS)
    active_cut = int(CUSTOMERS * ACTIVE_SHARE)
    claim = "a status index with few values makes a hot partition"

    def write(index_key: Callable[[int], str | None]) -> Callable[[int], list[Touch]]:
        def touches(i: int) -> list[Touch]:
            out = [Touch("Customer", f"customer-{i:07d}", wcu=base)]
            if (key := index_key(i)) is not None:
                out.append(Touch("Customer", key, wcu=entry, index=ACTIVE_CUSTOMER_INDEX, one_item=False))
            return out
        return touches

    # Customers are spread evenly over ids; the first ACTIVE_SHARE of them are the active ones.
    seed = simulate("connected-car", claim, "seed warns: status index (active / inactive)",
                    [Op("customer write", CUSTOMER_WRITES, customers,
                        write(lambda i: "active" if i < active_cut else "inactive"))],
                    seed_figure="no figure: 'partition keys are GUIDs or long strings'")
    ours = simulate("connected-car", claim, f"ours: sparse activeFlag = {ACTIVE_FLAG!r}, ALL projected",
                    [Op("customer write", CUSTOMER_WRITES, customers,
                        write(lambda i: ACTIVE_FLAG if i < active_cut else None))],
                    seed_figure="no figure: 'partition keys are GUIDs or long strings'",
                    note="sparse: fewer entries, but every active customer's write is one index key")
    return [seed, ours]


# --- the rest: no seed figure, a plausible load on each domain's one constant key ------------------------------------

@dataclass(frozen=True)
class Singleton:
    model: str
    claim: str
    design: str
    table: str
    key: str
    item: dict[str, Any]
    reads: float
    writes: float
    index: str | None = None
    one_item: bool = True


def other_rows() -> list[Load]:
    """Domains whose seed gives no rate: each one's key with the fewest values under a plausible load."""
    from functions.contacts.repository import person_item
    from functions.contacts.schema import TYPE_INDEX
    from functions.patterns.schema import FEATURED_KEY

    person = person_item(_person())
    cases = [
        Singleton("contacts", "plausible: 2,000 persons created/s", "ours: TypeIndex partition key `Type`",
                  "Contacts", str(person["Type"]), person, 0, 2_000, TYPE_INDEX, one_item=False),
        Singleton("patterns", "plausible: 10,000 featured reads/s", "ours: the singleton's fixed key",
                  "Patterns", "#".join(str(v) for v in FEATURED_KEY.values()),
                  {**FEATURED_KEY, "type": "featured", "repos": ["alexdebrie/dynamodb-book"] * 10}, 10_000, 1),
    ]
    rows = []
    for c in cases:
        rcu, wcu = read_units([item_size(c.item)]), write_units(item_size(c.item))
        rows.append(simulate(c.model, c.claim, c.design,
                             [Op("read", c.reads, uniform(1),
                                 lambda _, c=c, r=rcu: [Touch(c.table, c.key, rcu=r, index=c.index, one_item=c.one_item)]),
                              Op("write", c.writes, uniform(1),
                                 lambda _, c=c, w=wcu: [Touch(c.table, c.key, wcu=w, index=c.index, one_item=c.one_item)])],
                             seed_figure="none (plausible load)"))
    return rows


def _person() -> Any:
    from functions.contacts.models import Person

    return Person(id="1302c80a-7c61-4920-93a4-23c44c931945", first_name="Bob", last_name="Smith")


def rest_rows() -> list[Load]:
    """Domains whose seed quotes no rate: a plausible load on each one's entity keys, the popular ones Zipf."""
    from functions.games.models import Game, Membership
    from functions.games.repository import game_item, membership_item
    from functions.games.schema import GAME_USERS_INDEX
    from functions.sessions.models import Session
    from functions.sessions.repository import session_item
    from functions.sessions.schema import USER_INDEX
    from functions.users.models import User
    from functions.users.repository import _user_item

    now = datetime(2026, 11, 27, tzinfo=UTC)
    game = game_item(Game(game_id="game-00001", name="Friday night", max_players=100, player_count=42))
    member = membership_item(Membership(user_id="user-0000001", game_id="game-00001", joined_at=now))
    session = session_item(Session(session_token="t" * 43, username="user-0000001", created_at=now,
                                   expires_at=now + timedelta(days=7)), 1_800_000_000)
    user = _user_item(User(user_id="user-0000001", email="user-0000001@example.com", join_date=now.date()))
    # A join (functions/games/repository.py): Update the game's playerCount and Put the membership in one transaction
    # (base units doubled), plus the membership's GameUsersIndex entry under the game.
    join = [2 * write_units(item_size(game)), 2 * write_units(item_size(member)), write_units(item_size(member))]
    games = zipf(10_000)
    rows = [
        simulate("games", "plausible: 1,000 joins/s, 10,000 games Zipf s=1", "ours: playerCount on the game item",
                 [Op("join", 1_000, games, lambda i: [
                     Touch("Games", f"game-{i:05d}", wcu=join[0]),
                     Touch("UserGames", f"user-of-game-{i:05d}", wcu=join[1] / 1_000),  # members: many users
                     Touch("UserGames", f"game-{i:05d}", wcu=join[2], index=GAME_USERS_INDEX, one_item=False)])],
                 seed_figure="none (plausible load)"),
        simulate("sessions", "plausible: 20,000 reads + 1,000 sign-ins/s, 10M sessions",
                 "ours: token key; UserIndex (KEYS_ONLY) by username",
                 [Op("read", 20_000, uniform(10_000_000),
                     lambda i: [Touch("Sessions", f"token-{i:08d}", rcu=read_units([item_size(session)]))]),
                  Op("sign-in", 1_000, uniform(1_000_000), lambda i: [
                      Touch("Sessions", f"token-of-{i:07d}", wcu=write_units(item_size(session))),
                      Touch("Sessions", f"user-{i:07d}", wcu=1, index=USER_INDEX, one_item=False)])],
                 seed_figure="none (plausible load)"),
        simulate("users", "plausible: 10,000 reads/s, 10M users", "ours: UserId key",
                 [Op("read", 10_000, uniform(10_000_000),
                     lambda i: [Touch("Users", f"user-{i:07d}", rcu=read_units([item_size(user)]))])],
                 seed_figure="none (plausible load)"),
    ]
    rows.extend([_catalog_row(), _ecommerce_row()])
    return rows


def _catalog_row() -> Load:
    """A product's document read (`get_document`: one GetItem), Zipf-popular products; the item as `put_document`
    stores it, for the seed's album."""
    from functions.catalog.models import stored_json
    from functions.catalog.schema import DOCUMENT_ATTRIBUTES, PRODUCT_KEY
    from seeds.catalog import DOCUMENTS

    document = DOCUMENTS["2"]
    item = {PRODUCT_KEY: "2", **document.model_dump(by_alias=True, exclude_none=True, exclude={"attributes"}),
            DOCUMENT_ATTRIBUTES: stored_json(document.attributes)}
    rcu = read_units([item_size(item)])
    return simulate("catalog", "plausible: 10,000 document reads/s, 100,000 products Zipf s=1",
                    "ours: one document item per product",
                    [Op("read", 10_000, zipf(100_000),
                        lambda i: [Touch("Documents", str(i), rcu=rcu)])],
                    seed_figure="none (plausible load)", note=f"{item_size(item)} B document (the seed's album)")


def _ecommerce_row() -> Load:
    """The customer and 10 newest orders (one Query on `CUSTOMER#<username>`), customers uniform; items as the
    repository stores the seed's customer and orders."""
    from functions.ecommerce.schema import customer_key, order_key
    from functions.shared.models import to_item
    from seeds.ecommerce import ALEX, ORDERS

    customer = to_item(ALEX, **customer_key(ALEX.username), entityType="Customer")
    order = to_item(ORDERS[0][0], **order_key(ALEX.username, ORDERS[0][0].order_id), entityType="Order")
    rcu = read_units([item_size(customer)] + [item_size(order)] * 10)
    return simulate("ecommerce", "plausible: 10,000 customer pages/s, 10M customers",
                    "ours: customer + 10 newest orders in one Query",
                    [Op("read", 10_000, uniform(10_000_000),
                        lambda i: [Touch("Ecommerce", customer_key(f"user{i:08d}")["PK"], rcu=rcu)])],
                    seed_figure="none (plausible load)")


def all_rows() -> list[Load]:
    return [*cart_rows(), *measurement_rows(), *voting_rows(), *order_entry_rows(), *messaging_rows(),
            *connected_car_rows(), *other_rows(), *rest_rows()]
