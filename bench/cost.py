"""Cost tables and the scale audit: `make cost`, and section 11 of `make bench`
(docs/adr/0074-scale-audit-with-look-alike-items.md).

One local runtime, seeded. Every GET route of the OpenAPI description (`/docs?format=json`) has an entry in ROUTES
with a concrete URL built from the seed data (a route without one is printed and fails the run), and each domain has
its main writes. Each call goes through the API (HTTP, authorizer, worker, moto) and its bill is read from the
`Server-Timing` header the resolver adds (functions/shared/cost.py): requests, items read, RCU, WCU.

Two sizes: the seeds only, then +20,000 unrelated items in every domain. The items are copies of the domain's own
seeded items, which its repository's item builders wrote, with every entity identifier renamed (`alice` ->
`alice~17`): other persons, carts, devices, polls, orders..., so they never belong to the answers of the measured
calls, while the values that are not identifiers (a status, a type, a date, a shard, a country, a last name) are kept,
so the copies share the index partitions a real workload would share (the OPEN orders of GSI2's shards, `Type =
Person`, `lastName = Smith`, the stores of US#WA...). An identifier is a `#`-separated segment of a base-table
partition key that is not an upper-case constant (`ORDER`, `SEA`, `SA_REP` stay), or one of the seeds' people. They
are written straight into moto's backend (streams off during the load, as a bulk import), not through HTTP.

The verdict of a read: per DynamoDB request, a key-based read reads what it answers plus at most one item (a cursor's
look-ahead). A read that, with +20,000 items, reads more items than that and more than with the seeds only, makes
more requests, or consumes more RCU than its items read grew, has a cost that follows the table: FAIL, and the run
exits non-zero at the end, after printing everything. A read whose answer grew shares an index partition with the
copies (a page of a shared index fills up to its limit): said, not failed.
"""

from __future__ import annotations

import math
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The seeds-only figures of every measured call, which the docs quote (`<!-- cost: ... -->` markers, rendered by
# `make docs`, tools/docs.py): rewritten by every run, committed.
FIGURES = ROOT / "docs" / "cost-figures.json"
FIELDS = ("requests", "items", "answered", "rcu", "wcu")
LARGE = 20_000  # unrelated items added to every domain
SIZES = ("small", "+20k")
# Not identifiers of any table's partition key, but the people the seeds' items belong to (a message's recipient, a
# session's user): renamed too, so that the copies are other people's.
PEOPLE = {"alice", "bob", "carol", "dave", "david", "fred", "zoe", "heidi"}
ADMIN = ("admin",)

# Domain -> the logical-id prefix of its tables in the template.
DOMAINS = {
    "contacts": "Contacts", "connected-car": "ConnectedCar", "voting": "Voting", "catalog": "Catalog", "users": "Users",
    "games": "Games", "measurements": "Measurements", "messaging": "Messaging", "cart": "Cart", "sessions": "Sessions",
    "ecommerce": "Ecommerce", "patterns": "Patterns", "order-entry": "OrderEntry",
}


@dataclass(frozen=True)
class Call:
    """One access pattern: the OpenAPI path it exercises and a concrete request. `url` and `body` are format strings
    filled from the context (`{tomorrow}`, `{now}`, `{size}`: a unique suffix per measurement...)."""

    route: str
    url: str
    user: str = "alice"
    method: str = "GET"
    body: Any = None
    groups: tuple[str, ...] = ADMIN


def _calls() -> dict[str, list[Call]]:
    from seeds import cart, contacts, sessions

    b, book, oe = "/connected-car", "/patterns/repos/alexdebrie/dynamodb-book", "/order-entry"
    h1 = "from=2026-01-01&to=2026-06-30"
    vin = "1HGCM82633A004352"
    return {
        "contacts": [
            Call("/contacts/items/{id}", f"/contacts/items/{contacts.BOB}"),
            Call("/contacts/persons/{personId}/addresses",
                 f"/contacts/persons/{contacts.BOB}/addresses?relationship=Business&on=2005-01-01"),
            Call("/contacts/persons", "/contacts/persons?lastName=Smith"),
            Call("/contacts/persons", "/contacts/persons", method="POST",
                 body={"firstName": "Ada", "lastName": "Lovelace {size}"}),
        ],
        "connected-car": [
            Call(b + "/dealers/{dealerId}", b + "/dealers/denver-downtown"),
            Call(b + "/dealers/{dealerId}/timeslots",
                 b + "/dealers/denver-downtown/timeslots?from={tomorrow}&to={tomorrow}"),
            Call(b + "/dealers/{dealerId}/timeslots/{serviceDateHour}/appointments",
                 b + "/dealers/denver-downtown/timeslots/{tomorrow}T09/appointments"),
            Call(b + "/customers/{username}", b + "/customers/alice"),
            Call(b + "/vehicles/{vin}", f"{b}/vehicles/{vin}"),
            Call(b + "/customers/{username}/registrations", b + "/customers/alice/registrations"),
            Call(b + "/vehicles/{vin}/registrations", f"{b}/vehicles/{vin}/registrations"),
            Call(b + "/customers/{username}/registrations/{vin}/appointments",
                 f"{b}/customers/alice/registrations/{vin}/appointments"),
            Call(b + "/appointments/{appointmentId}", b + "/appointments/{appointment}"),
            Call(b + "/vehicles/{vin}/events", f"{b}/vehicles/{vin}/events"),
            Call(b + "/customers", b + "/customers?active=true"),
            Call(b + "/appointments", b + "/appointments", method="POST",
                 body={"dealerId": "boulder-north", "serviceDateHour": "{tomorrow}T11", "username": "bob",
                       "vin": "5YJ3E1EA7KF317000"}),
        ],
        "voting": [
            Call("/voting/polls/{pollId}", "/voting/polls/favourite-feature"),
            Call("/voting/polls/{pollId}/votes/me", "/voting/polls/favourite-feature/votes/me"),
            Call("/voting/polls/{pollId}/results", "/voting/polls/favourite-feature/results"),
            Call("/voting/polls/{pollId}/votes", "/voting/polls/bench-poll/votes", method="POST",
                 user="voter-{size}", body={"candidate": "TTL"}),
        ],
        "catalog": [
            Call("/catalog/products/{productId}", "/catalog/products/2"),
            Call("/catalog/products/{productId}/children/{childKind}", "/catalog/products/2/children/track"),
            Call("/catalog/products/{productId}/children/{childKind}/{childId}",
                 "/catalog/products/2/children/track/2"),
            Call("/catalog/documents/{productId}", "/catalog/documents/3"),
            Call("/catalog/products/{productId}", "/catalog/products/900", method="PUT",
                 body={"kind": "book", "title": "Bench {size}"}),
            Call("/catalog/documents/{productId}/children", "/catalog/documents/2/children", method="POST",
                 body={"kind": "track", "child": {"title": "Bench {size}"}}),
        ],
        "users": [
            Call("/users/{userId}", "/users/bob", user="bob"),
            Call("/users/by-email/{email}", "/users/by-email/fred@yahoo.com"),
            Call("/users", "/users", method="POST", user="u-{size}", groups=(),
                 body={"userId": "u-{size}", "email": "u-{size}@example.com"}),
        ],
        "games": [
            Call("/games/{gameId}", "/games/Game1"),
            Call("/games", "/games?gameId=Game1&gameId=Game2&gameId=Game3"),
            Call("/games/{gameId}/players", "/games/Game1/players"),
            Call("/games/by-user/{userId}", "/games/by-user/bob", user="bob"),
            Call("/games/{gameId}/players/{userId}", "/games/Game1/players/bob", user="bob", groups=()),
            Call("/games/{gameId}/players/{userId}", "/games/Game2/players/p-{size}", method="PUT", user="p-{size}",
                 groups=()),
        ],
        "measurements": [
            Call("/measurements/devices/{deviceId}/readings",
                 "/measurements/devices/1/readings?from={two_days_ago}&to={now}"),
            Call("/measurements/readings", "/measurements/readings", method="POST", body="{readings}"),
        ],
        "messaging": [
            Call("/messaging/inbox", "/messaging/inbox", user="david"),
            Call("/messaging/outbox", "/messaging/outbox", user="bob"),
            Call("/messaging/messages/{msgId}", "/messaging/messages/3kf8", user="david"),
            Call("/messaging/messages", "/messaging/messages", method="POST", user="alice",
                 body={"recipient": "carol", "subject": "Bench {size}", "body": "Lunch?"}),
        ],
        "cart": [
            Call("/cart/carts/{cartId}", f"/cart/carts/{cart.ALICE_CART}"),
            Call("/cart/carts/{cartId}/prices", f"/cart/carts/{cart.ALICE_CART}/prices"),
            Call("/cart/prices/{sku}", "/cart/prices/SKU-COFFEE"),
            Call("/cart/notifications", "/cart/notifications"),
            Call("/cart/abandoned", "/cart/abandoned?day={today}"),
            Call("/cart/carts", "/cart/carts", method="POST", groups=()),
            Call("/cart/carts/{cartId}/lines/{sku}", f"/cart/carts/{cart.BOB_CART}/lines/SKU-MUG", method="PUT",
                 user="bob", groups=(), body={"quantity": 2}),
            Call("/cart/prices/{sku}", "/cart/prices/SKU-GRINDER", method="PUT",
                 body={"price": "45.00", "currency": "USD"}),
        ],
        "sessions": [
            Call("/sessions/{token}", f"/sessions/{sessions.DAVE_TOKEN}", user="dave"),
            Call("/sessions/users/{username}", "/sessions/users/alice"),
            Call("/sessions", "/sessions", method="POST", user="erin", groups=()),
        ],
        "ecommerce": [
            Call("/ecommerce/customers/{username}", "/ecommerce/customers/alexdebrie", user="alexdebrie"),
            Call("/ecommerce/customers/{username}/orders", "/ecommerce/customers/alexdebrie/orders", user="alexdebrie"),
            Call("/ecommerce/customers/{username}/orders/{orderId}",
                 "/ecommerce/customers/alexdebrie/orders/1VrgXBQ0VCshuQUnh1HrDIHQNwY", user="alexdebrie"),
            Call("/ecommerce/customers/{username}/orders", "/ecommerce/customers/the_don/orders", method="POST",
                 user="the_don", groups=(),
                 body={"items": [{"itemId": "book-{size}", "description": "Book", "price": "4.25", "quantity": 1}]}),
        ],
        "patterns": [
            Call("/patterns/repos/{owner}/{repo}", book),
            Call("/patterns/repos/{owner}/{repo}/stars", book + "/stars"),
            Call("/patterns/repos/{owner}/{repo}/issues", book + "/issues"),
            Call("/patterns/repos/{owner}/{repo}/issues/{number}", book + "/issues/2"),
            Call("/patterns/repos/{owner}/{repo}/open-issues", book + "/open-issues"),
            Call("/patterns/repos/{owner}/{repo}/recently-updated-issues", book + "/recently-updated-issues"),
            Call("/patterns/orgs/{org}", "/patterns/orgs/McDonalds"),
            Call("/patterns/orgs/{org}/admins", "/patterns/orgs/McDonalds/admins"),
            Call("/patterns/stores/{country}", "/patterns/stores/US"),
            Call("/patterns/stores/{country}/{state}", "/patterns/stores/US/WA"),
            Call("/patterns/stores/{country}/{state}/{city}", "/patterns/stores/US/WA/Seattle"),
            Call("/patterns/stores/{country}/{state}/{city}/{zipCode}", "/patterns/stores/US/WA/Seattle/98101"),
            Call("/patterns/customers/{customer}/orders",
                 "/patterns/customers/2b5a41c0/orders?status=CANCELLED&from=2019-07-01&to=2019-10-01", user="2b5a41c0"),
            Call("/patterns/featured", "/patterns/featured"),
            Call("/patterns/repos/{owner}/{repo}/stars/{user}", book + "/stars/s-{size}", method="PUT",
                 user="s-{size}", groups=()),
        ],
        "order-entry": [
            Call(oe + "/products/{productId}", oe + "/products/P100"),
            Call(oe + "/employees/{employeeId}", oe + "/employees/150"),
            Call(oe + "/employees/{employeeId}/current-job", oe + "/employees/150/current-job"),
            Call(oe + "/warehouses/{warehouseId}/employees", oe + "/warehouses/SEA/employees"),
            Call(oe + "/jobs/{jobId}/employees", oe + "/jobs/SA_REP/employees"),
            Call(oe + "/products/{productId}/order-items", oe + "/products/P100/order-items"),
            Call(oe + "/warehouses/{warehouseId}/inventory/{productId}", oe + "/warehouses/SEA/inventory/P300"),
            Call(oe + "/orders/{orderId}", oe + "/orders/O-1003"),
            Call(oe + "/customers/{customerId}/orders", f"{oe}/customers/C1/orders?{h1}"),
            Call(oe + "/reps/{repId}/customers", oe + "/reps/180/customers"),
            Call(oe + "/reps/{repId}/orders", f"{oe}/reps/180/orders?{h1}"),
            Call(oe + "/quarters/{quarter}/reps", oe + "/quarters/2026-Q1/reps"),
            Call(oe + "/employees", oe + "/employees?name=John%20Russell"),
            Call(oe + "/recent-hires", oe + "/recent-hires?since=2025-01-01"),
            Call(oe + "/orders", f"{oe}/orders?status=OPEN&{h1}"),
            Call(oe + "/orders", oe + "/orders", method="POST",
                 body={"customerId": "C3", "lines": [{"productId": "P300", "quantity": 1}]}),
        ],
    }


# --- the bill of one answer -------------------------------------------------------------------------------------

@dataclass
class Bill:
    status: int
    requests: float = 0
    items: float = 0
    answered: int = 0
    rcu: float = 0
    wcu: float = 0
    error: str = ""


def bill(server_timing: str) -> dict[str, float]:
    """The totals of a `Server-Timing` header (`ddb;dur=..;desc="requests=N items=N rcu=N wcu=N"`)."""
    for entry in server_timing.split(", "):
        if entry.startswith("ddb;"):
            return {key: float(value) for key, value in re.findall(r"(\w+)=([\d.]+)", entry.split("desc=", 1)[1])}
    return {}


def answered(body: Any) -> int:
    """Items in an answer: the length of its `items` (or of the list it is), else 1 (one entity)."""
    if isinstance(body, list):
        return len(body)
    return len(body["items"]) if isinstance(body, dict) and isinstance(body.get("items"), list) else 1


# --- unrelated items shaped like real ones ------------------------------------------------------------------------

_CONSTANT = re.compile(r"^[A-Z][A-Z_]*$")


def _identifiers(tables: list[Any]) -> set[str]:
    """The entity identifiers of a domain: `#`-segments of its base tables' partition key values that are not
    upper-case constants (entity-type prefixes, statuses, warehouse and job codes)."""
    found: set[str] = set()
    for table in tables:
        for item in table.all_items():
            value = item.attrs[table.hash_key_attr].value
            for segment in str(value).split("#"):
                if segment and not _CONSTANT.match(segment):
                    found.add(segment)
    return found


def _renamed(value: Any, ids: set[str], suffix: str) -> Any:
    """A DynamoDB-JSON value with every identifier segment of its strings renamed."""
    if isinstance(value, dict):
        (kind, inner), = value.items()
        if kind == "S":
            return {"S": _rename(inner, ids, suffix)}
        if kind == "SS":
            return {"SS": [_rename(s, ids, suffix) for s in inner]}
        if kind == "L":
            return {"L": [_renamed(v, ids, suffix) for v in inner]}
        if kind == "M":
            return {"M": {k: _renamed(v, ids, suffix) for k, v in inner.items()}}
        return value
    return value


def _rename(text: str, ids: set[str], suffix: str) -> str:
    if text in ids:
        return text + suffix
    if "#" in text:
        return "#".join(s + suffix if s in ids else s for s in text.split("#"))
    return text


class Loader:
    """Writes copies of a domain's seeded items, identifiers renamed, into the runtime's moto backend."""

    def __init__(self, runtime: Any):
        from local.dynamodb import fidelity as moto_fidelity

        self.exclusive = runtime.moto.dynamodb_exclusive  # the TTL sweeper and the pollers read these tables meanwhile
        self.tables: dict[str, list[Any]] = {}
        for domain, prefix in DOMAINS.items():
            names = [t.name for stack in runtime.stacks for lid, t in stack.tables.items() if lid.startswith(prefix)]
            self.tables[domain] = [moto_fidelity.stored_table(name) for name in names]
        self.ids = {d: _identifiers(ts) | PEOPLE for d, ts in self.tables.items()}
        # The seeds, as they are now (before any measured write): the shapes to copy. An item whose key has no
        # identifier (a singleton, an item keyed by constants only) has no copy.
        self.seed = {d: [(t, [item for item in (i.to_json()["Attributes"] for i in t.all_items())
                              if _has_copies(t, item, self.ids[d])]) for t in ts]
                     for d, ts in self.tables.items()}
        self.copies = {d: 0 for d in DOMAINS}
        self.written = {d: 0 for d in DOMAINS}

    def add(self, domain: str, count: int) -> None:
        from local.dynamodb import fidelity as moto_fidelity

        rounds = math.ceil(count / max(sum(len(items) for _, items in self.seed[domain]), 1))
        for table, items in self.seed[domain]:
            with self.exclusive:  # no request reads the table while it changes under it
                stream, table.stream_shard = table.stream_shard, None  # a bulk import, not changes to react to
                try:
                    for copy in range(self.copies[domain], self.copies[domain] + rounds):
                        suffix = f"~{copy}"
                        for item in items:
                            table.put_item({name: _renamed(value, self.ids[domain], suffix)
                                            for name, value in item.items()})
                            self.written[domain] += 1
                finally:
                    table.stream_shard = stream
            moto_fidelity.written(table.name)
        self.copies[domain] += rounds


def _has_copies(table: Any, item: dict[str, Any], ids: set[str]) -> bool:
    keys = [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])
    return any(_renamed(item[k], ids, "~") != item[k] for k in keys)


# --- measuring -------------------------------------------------------------------------------------------------------

@dataclass
class Row:
    domain: str
    call: Call
    bills: dict[str, Bill] = field(default_factory=dict)
    verdict: str = ""


def _fill(value: Any, context: dict[str, Any]) -> Any:
    if isinstance(value, str):
        if value.startswith("{") and value.endswith("}") and value[1:-1] in context:
            return context[value[1:-1]]
        return value.format(**context)
    if isinstance(value, dict):
        return {k: _fill(v, context) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, context) for v in value]
    return value


def _measure(session: Any, base: str, call: Call, context: dict[str, Any], token: Callable[..., str]) -> Bill:
    url, user = _fill(call.url, context), _fill(call.user, context)
    reply = session.request(call.method, base + url, json=_fill(call.body, context),
                            headers={"Authorization": f"Bearer {token(user, call.groups)}"}, timeout=60)
    figures = bill(reply.headers.get("Server-Timing", ""))
    body = reply.json() if reply.content else None
    error = body.get("error", {}).get("code", "") if isinstance(body, dict) and reply.status_code >= 300 else ""
    return Bill(reply.status_code, figures.get("requests", 0), figures.get("items", 0),
                answered(body) if call.method == "GET" else 0, figures.get("rcu", 0), figures.get("wcu", 0), error)


def _verdict(call: Call, bills: dict[str, Bill]) -> str:
    failed = [f"{size} {b.status} {b.error}".strip() for size, b in bills.items() if not 200 <= b.status < 300]
    if failed:
        return "FAIL: " + "; ".join(failed)
    if call.method != "GET":
        return "write"
    if "+20k" not in bills:
        return "seeds only"
    small, large = bills["small"], bills["+20k"]
    # Per request, a key-based read reads what it answers plus at most one item (the look-ahead of a cursor). More
    # than that, and more than with the seeds only, is items read and not answered: the cost follows the table.
    grew = []
    if large.requests > small.requests:
        grew.append("requests")
    if large.items > small.items and large.items > large.requests * (large.answered + 1):
        grew.append("items read")
    if large.rcu > small.rcu * max(1.0, large.items / max(small.items, 1)) + 0.5:
        grew.append("RCU")
    if grew:
        return "FAIL: " + ", ".join(grew) + " grow with the table"
    if large.answered != small.answered:
        return f"ok (shared partition: answer {small.answered} -> {large.answered})"
    return "ok"


def _context(size: str) -> dict[str, Any]:
    now = int(time.time())
    tomorrow = date.today() + timedelta(days=1)
    bin_start = (now * 1000 // 400 - 1) * 400  # the previous 400 ms bin: ten readings of one new device
    device = f"bench-{uuid.uuid4().hex[:6]}"
    readings = {"readings": [{"deviceId": device, "epochMs": bin_start + 40 * i, "temperature": 20 + i, "pressure": 90}
                             for i in range(10)]}
    return {"tomorrow": tomorrow.isoformat(), "today": datetime.now(UTC).date().isoformat(), "now": now,
            "two_days_ago": now - 172_800, "size": f"{size.strip('+')}-{uuid.uuid4().hex[:6]}", "readings": readings}


def figures(rows: list[Row]) -> dict[str, dict[str, dict[str, float]]]:
    """{domain: {"METHOD /route": {requests, items, answered, rcu, wcu}}}: the seeds-only bill of every call."""
    found: dict[str, dict[str, dict[str, float]]] = {}
    for row in rows:
        name = f"{row.call.method} {row.call.route}"
        if name in found.get(row.domain, {}):
            raise RuntimeError(f"two measured calls are {row.domain} {name}")
        small = row.bills["small"]
        found.setdefault(row.domain, {})[name] = {field: float(getattr(small, field)) for field in FIELDS}
    return found


def write_figures(found: dict[str, dict[str, dict[str, float]]], path: Path = FIGURES) -> None:
    """JSON, one call a line (a diff shows which figures a change moved)."""
    import json

    def number(value: float) -> float | int:
        return int(value) if float(value).is_integer() else value

    domains = []
    for domain in sorted(found):
        calls = [f"  {json.dumps(name)}: {json.dumps({k: number(v) for k, v in sorted(bill.items())})}"
                 for name, bill in sorted(found[domain].items())]
        domains.append(f" {json.dumps(domain)}: {{\n" + ",\n".join(calls) + "\n }")
    path.write_text("{\n" + ",\n".join(domains) + "\n}\n", encoding="utf-8")


def run(*, seeds_only: bool = False) -> None:
    """Measure every call. `seeds_only` (`python -m bench.cost --seeds-only`, about a minute) skips the +20,000 items
    and with them the scale audit: the figures the docs quote, without the verdicts."""
    import requests

    from bench.runtime import BENCH_KEYS, bench_runtime
    from local.cognito import mint_token

    started = time.perf_counter()
    print("\n11. Cost tables and scale audit: every GET route and each domain's main writes, through the local API, "
          + ("with the seeds only (no scale audit)" if seeds_only else
             f"with the seeds only and with +{LARGE:,} unrelated items per domain"))
    keys = BENCH_KEYS
    calls = _calls()
    failures: list[str] = []
    with bench_runtime(2) as runtime:
        base, streams = runtime.url, runtime.streams
        if base is None or streams is None:
            raise SystemExit("bench: the runtime serves no API")
        streams.wait_idle(timeout=10)
        session = requests.Session()
        tokens: dict[tuple[str, tuple[str, ...]], str] = {}

        def token(user: str, groups: tuple[str, ...]) -> str:
            if (user, groups) not in tokens:
                tokens[(user, groups)] = mint_token(user, groups, 3600, keys_dir=keys)
            return tokens[(user, groups)]

        def get(url: str) -> Any:
            return session.get(base + url, headers={"Authorization": f"Bearer {token('alice', ADMIN)}"},
                               timeout=30).json()

        failures += _coverage_failures(get("/docs?format=json"), calls)

        # Set-up, not measured: the appointment to read (alice's, from the seed) and a poll of the bench's own to
        # vote in (a vote in the seed's poll would add to the results the audit reads).
        appointment = get("/connected-car/customers/alice/registrations/1HGCM82633A004352/appointments")[
            "items"][0]["appointmentId"]
        session.put(base + "/voting/polls/bench-poll", json={"question": "Which?", "candidates": ["TTL", "GSI"]},
                    headers={"Authorization": f"Bearer {token('root', ADMIN)}"}, timeout=30).raise_for_status()
        streams.wait_idle(timeout=10)

        loader = Loader(runtime)
        rows = [Row(domain, call) for domain, domain_calls in calls.items() for call in domain_calls]
        context = {**_context("small"), "appointment": appointment}
        # reads first: the writes go to other entities, but nothing they set off is read
        ordered = sorted(rows, key=lambda row: row.call.method != "GET")
        for row in ordered:
            row.bills["small"] = _measure(session, base, row.call, context, token)
        streams.wait_idle(timeout=30)  # what the writes set off is done before the load
        t0 = time.perf_counter()
        for domain in () if seeds_only else DOMAINS:
            loader.add(domain, LARGE)
        load_seconds = time.perf_counter() - t0
        context = {**_context("large"), "appointment": appointment}
        for row in [] if seeds_only else [row for row in rows if row.call.method == "GET"]:
            row.bills["+20k"] = _measure(session, base, row.call, context, token)

    for row in rows:
        row.verdict = _verdict(row.call, row.bills)
    if not seeds_only:
        print(f"   added per domain ({load_seconds:.0f} s, straight into moto): "
              + ", ".join(f"{d} {n:,}" for d, n in loader.written.items()))
    failures += _report(rows, context)
    if all(200 <= row.bills["small"].status < 300 for row in rows):
        write_figures(figures(rows))
        print(f"\n   figures written to {FIGURES.relative_to(ROOT)} (`make docs` renders the ones the docs quote)")
    if not seeds_only:
        seed_figures({(r.domain, r.call.method, r.call.route): r.bills for r in rows})
    print(f"\n   section took {time.perf_counter() - started:.0f} s")
    if failures:
        print("\n   FAILURES:")
        for failure in failures:
            print(f"   - {failure}")
        raise SystemExit(f"bench: the cost audit found {len(failures)} failure(s)")


def _coverage_failures(description: dict[str, Any], calls: dict[str, list[Call]]) -> list[str]:
    """Every GET route of the OpenAPI description has a call here, and every call's route is described."""
    described = {path for path, operations in description["paths"].items() if "get" in operations}
    covered = {c.route for domain in calls.values() for c in domain if c.method == "GET"}
    failures = []
    if missing := sorted(described - covered):
        failures.append(f"GET routes of the OpenAPI description without an entry in bench/cost.py: {missing}")
    if unknown := sorted(covered - described):
        failures.append(f"entries in bench/cost.py that the OpenAPI description does not have: {unknown}")
    return failures


def _report(rows: list[Row], context: dict[str, Any]) -> list[str]:
    """Prints each domain's table of bills; returns the rows whose cost grew with the table."""
    failures = []
    print("   per request: req = DynamoDB requests, read = items DynamoDB read, ans = items answered, "
          "RCU and WCU; a/b = seeds only / +20k (one figure: the same)")
    print("   writes are measured on the seeds only: DynamoDB bills a write by the item's size, not the table's, and "
          "moto deep-copies\n   every table a transaction names, once per action (3.5 s per 20,000 items), which "
          "outlasts the functions' DynamoDB timeout")
    for domain in DOMAINS:
        print(f"\n   {domain}")
        print(f"   {'pattern':<64} {'req':>5} {'read':>7} {'ans':>6} {'RCU':>8} {'WCU':>4}  verdict")
        for row in (r for r in rows if r.domain == domain):
            s, g = row.bills["small"], row.bills.get("+20k", row.bills["small"])
            name = f"{row.call.method} {row.call.route}"
            print(f"   {name[:64]:<64} {_pair(s.requests, g.requests):>5} {_pair(s.items, g.items):>7} "
                  f"{_pair(s.answered, g.answered):>6} {_pair(s.rcu, g.rcu):>8} {_pair(s.wcu, g.wcu):>4}  "
                  f"{row.verdict}")
            if row.verdict.startswith("FAIL"):
                failures.append(f"{name} ({_fill(row.call.url, context)}): {row.verdict}; seeds/+20k: requests "
                                f"{s.requests:g}/{g.requests:g}, items read {s.items:g}/{g.items:g}, answered "
                                f"{s.answered}/{g.answered}, RCU {s.rcu:g}/{g.rcu:g}")
    return failures


def _pair(small: float, large: float) -> str:
    return f"{small:g}" if small == large else f"{small:g}/{large:g}"


# --- the seeds' figures beside ours -------------------------------------------------------------------------------

def seed_figures(bills: dict[tuple[str, str, str], dict[str, Bill]]) -> None:
    """The four figures the issue names, the seed's beside ours, in dollars at on-demand prices."""
    from bench import cart, workshop

    per_million = 1_000_000
    rru, wru = cart.RRU_PRICE * per_million, cart.WRU_PRICE * per_million
    print(f"\n   The seeds' figures beside ours ({cart.PRICES_NOTE}); 'measured' = through the API above (reads +20k, "
          "writes seeds only)")

    inbox = workshop.inbox_cost(echo=False)
    page = bills[("messaging", "GET", "/messaging/inbox")]["+20k"]
    print(f"   - inbox page of 50 headers: seed {inbox['seed_index_rcu']:g} RCU (index), {inbox['seed_bodies_rcu']:g} "
          f"RCU (bodies) = ${inbox['seed_index_rcu'] * rru:.3f} / ${inbox['seed_bodies_rcu'] * rru:.2f} per million "
          f"pages;\n     ours {inbox['index_rcu']:g} RCU for 50 headers (section 4) = "
          f"${inbox['index_rcu'] * rru:.3f} per million; measured: a page of {page.answered} headers {page.rcu:g} "
          f"RCU, {page.items:g} items read")

    ingest = workshop.binned_ingest(echo=False)
    post = bills[("measurements", "POST", "/measurements/readings")]["small"]
    month = 730 * 3600 * 100_000  # the seed's 100,000 data points a second, for a month
    measured = post.wcu / 10
    print(f"   - writes per data point at the seed's 100,000 points/s: seed unbinned 1 WCU (${month * wru / 1e6:,.0f}"
          f"/month), binned ~0.1 WCU (${month * 0.1 * wru / 1e6:,.0f}/month);\n     ours (section 5) "
          + ", ".join(f"{k}/bin {v:.2f} WCU" for k, v in ingest["wcu_per_reading"].items())
          + f"; measured: 10 readings of one bin in one POST {post.wcu:g} WCU = {measured:.2f} WCU/point "
          f"(${month * measured * wru / 1e6:,.0f}/month)")

    estimate = cart.monthly_estimate(echo=False)
    change = bills[("cart", "PUT", "/cart/prices/{sku}")]["small"]
    print(f"   - cart table's monthly bill (10K reads + 10K writes/s, 100M carts): seed ~$6,300 provisioned, "
          f"${estimate['seed_month']:,.0f} on-demand by our rules; ours ${estimate['ours_month']:,.0f}/month "
          f"(section 7)")
    print(f"   - price notification: seed's daily Scan of 100M carts {estimate['scan_rru_per_day']:,.0f} RRU "
          f"(${estimate['scan_rru_per_day'] * cart.RRU_PRICE * 30:,.2f}/month, seed ~$22 provisioned); ours: no "
          f"job, a price change measured {change.wcu:g} WCU + {change.rcu:g} RCU at the API, then its holders only "
          f"through the holder index (section 6)")

    shards = bills[("order-entry", "GET", "/order-entry/orders")]
    small, large = shards["small"], shards["+20k"]
    print(f"   - order entry GSI2 (seed: 250 B headers, 16 per RCU, N = 15 shards): one page of OPEN orders measured "
          f"{small.requests:g} Queries, {small.items:g} -> {large.items:g} items read, {small.rcu:g} -> "
          f"{large.rcu:g} RCU (≥ 15 × 0.5: each shard's Query is billed at least half a unit) = "
          f"${large.rcu * rru:.2f} per million pages")


if __name__ == "__main__":
    import argparse

    from bench import runtime

    parser = argparse.ArgumentParser(prog="python -m bench.cost", description=run.__doc__)
    parser.add_argument("--seeds-only", action="store_true", help="skip the +20,000 items and the scale audit")
    seeds_only = parser.parse_args().seeds_only
    runtime.configure()
    run(seeds_only=seeds_only)
