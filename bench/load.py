"""Load (docs/adr/0067-load-bench-reads-back-every-write.md): every domain's main routes under concurrent clients for a
fixed time, on one local runtime; every write the API acknowledged read back through the API; throttling only above
the stage's limits.

How it is run:
- one local runtime (synth, moto, seeds) under the prod stage's limits (`prod_throttle()`: 500 requests/s, burst
  1000), which this runtime cannot reach: any 429 in the load phase is an error;
- per domain (SCENARIOS: the domain's write, its main reads, its read-back), CLIENTS threads, each with its own
  requests.Session, user and ids (so writes do not collide, except where contention is the domain's point: one
  poll for every voter, one game for every player, one repository's issue counter for every issue, one customer for
  every order entry order), alternate a write (a create) and one of the domain's main reads for SECONDS seconds.
  Printed: requests, requests/s, p50/p99 latency, errors by status (any answer the scenario does not expect, a
  client-side timeout as "timeout"), 429s;
- read-back, after each domain's phase: every acknowledged (2xx) write is read back exactly once through the API, by
  walking every page (following nextCursor) of the list that holds it, so a duplicate or a write nobody acknowledged
  would show, or by GET by id where the domain has no such list (users, carts, votes: there "extra" cannot be seen
  and stays 0). Printed: "writes acknowledged N, read back N, missing 0, extra 0". Plus the counts each domain keeps:
  voting's exact totals (aggregated from the stream), the game's player count, the repository's issue count and
  its numbers 1..N without a gap. A write that timed out client-side is sent again as it was (same Idempotency-Key
  where the route takes one; PUTs are idempotent), so it resolves;
- throttling: a second front end of the same runtime (the same API model, functions and moto: another stage) with
  the dev stage's limits (`StageConfig.named("dev")`: 50 requests/s, burst 100), GET /health: driven below them
  (paced at 80 % of the rate, longer than the burst lasts) no 429; above them (every client unpaced) 429s, each
  with the JSON error envelope (code THROTTLED), x-amzn-ErrorType and Retry-After (the template's THROTTLED gateway
  response), and no more requests admitted than burst + rate x time.

Any failed check ends the bench with a message (SystemExit): a check, not only figures. Not part of `make test`.
(moto and the gateway are Python on two cores: the rates are the local runtime's, not AWS's.)
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = 8
SECONDS = 5.0
TIMEOUT = 30  # seconds, client side; a write that outlasts it is sent again
RETRIES = 3
ADMIN = ("admin",)
CANDIDATES = ["Aurora", "Borealis", "Cirrus", "Drizzle"]


@dataclass
class Stats:
    """What one phase's requests got."""
    latencies: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)  # status (or "timeout") -> count
    samples: dict = field(default_factory=dict)  # status -> the first such answer's body
    throttled: int = 0
    retried: int = 0  # writes that timed out and were sent again
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, seconds: float, status: int | str, expected: bool, text: str = "") -> None:
        with self.lock:
            self.latencies.append(seconds)
            if status == 429:
                self.throttled += 1
            if not expected:
                self.errors[status] += 1
                self.samples.setdefault(status, text[:200])


class Api:
    """The runtime's URL, tokens (minted once per user and groups) and the failed checks so far."""

    def __init__(self, url: str, keys_dir: Path, run: str) -> None:
        self.url, self.keys_dir, self.run = url, keys_dir, run
        self.failures: list[str] = []

    @cache  # noqa: B019 (one Api per run)
    def token(self, user: str, groups: tuple[str, ...] = ()) -> str:
        from local.cognito import mint_token

        return mint_token(user, groups, 3600, keys_dir=self.keys_dir)

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.failures.append(what)


class Client:
    """One client thread: its session, its user, the writes the API acknowledged to it."""

    def __init__(self, api: Api, index: int, stats: Stats, expect: frozenset[int] = frozenset(), *,
                 user: str | None = None, groups: tuple[str, ...] = ()) -> None:
        import requests

        self.api, self.index, self.stats, self.expect = api, index, stats, expect
        self.session = requests.Session()
        self.user, self.groups = user or f"load-{api.run}-c{index}", groups
        self.acked: list[str] = []
        self.last: Any = None  # the last write's key, for reads of "mine"
        self.state: dict[str, Any] = {}

    def call(self, method: str, path: str, *, user: str | None = None, groups: tuple[str, ...] = (),
             key: str | None = None, **kwargs: Any) -> Any:
        """One request, timed and recorded; None if it timed out (or the connection failed)."""
        import requests

        token = self.api.token(user, groups) if user else self.api.token(self.user, self.groups)
        headers = {"Authorization": f"Bearer {token}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        started = time.perf_counter()
        try:
            reply = self.session.request(method, self.api.url + path, headers=headers, timeout=TIMEOUT, **kwargs)
        except requests.RequestException as error:
            self.stats.record(time.perf_counter() - started, "timeout", False, repr(error))
            return None
        ok = 200 <= reply.status_code < 300 or reply.status_code in self.expect
        self.stats.record(time.perf_counter() - started, reply.status_code, ok, reply.text)
        return reply

    def write(self, method: str, path: str, **kwargs: Any) -> dict | None:
        """A write: its answer's body if acknowledged (2xx), else None. A timed-out write is sent again as it was
        (same Idempotency-Key: it resolves to the first answer, or creates once)."""
        key = f"load-{uuid.uuid4().hex}"
        for _ in range(RETRIES):
            reply = self.call(method, path, key=key, **kwargs)
            if reply is not None:
                return reply.json() if 200 <= reply.status_code < 300 else None
            self.stats.retried += 1
        return None

    def get(self, path: str, **kwargs: Any) -> dict:
        """A read-back request: it must succeed."""
        reply = self.call("GET", path, **kwargs)
        if reply is None or reply.status_code != 200:
            raise SystemExit(f"bench: read-back {path} failed: "
                             f"{'timeout' if reply is None else (reply.status_code, reply.text[:300])}")
        return reply.json()

    def walk(self, path: str, key: str, **kwargs: Any) -> list[str]:
        """Every item's `key` over every page of a list, following nextCursor."""
        found, cursor = [], None
        while True:
            params = {"limit": 100, **({"cursor": cursor} if cursor else {})}
            page = self.get(path, params=params, **kwargs)
            found += [str(item[key]) for item in page["items"]]
            if not (cursor := page.get("nextCursor")):
                return found


@dataclass(frozen=True)
class Scenario:
    """A domain under load. `write(client, n)` makes the n-th write and returns the keys it acknowledged;
    `reads` are the main reads (taken in turn); `read_back(client, acked)` returns the keys the API holds: per
    client, or once for all (`shared`, with client 0 and every client's acknowledged keys)."""
    domain: str
    write: Callable[[Client, int], list[str]]
    reads: tuple[Callable[[Client, int], Any], ...]
    read_back: Callable[[Client, list[str]], list[str]]
    prepare: Callable[[Client], None] = lambda client: None  # per client, before the clock starts
    setup: Callable[[Api], dict] = lambda api: {}  # once, before the clients: what they share
    shared: bool = False
    listed: bool = True  # read back through a list (extras would show), not by id
    expect: frozenset[int] = frozenset()  # non-2xx answers that are not errors
    also: str = ""  # what the read-back checks besides the keys


def _ids(body: dict | None, key: str) -> list[str]:
    return [] if body is None else [str(body[key])]


def _by_id(client: Client, acked: list[str], read: Callable[[Client, str], str]) -> list[str]:
    return [read(client, key) for key in acked]


# contacts: persons created by an admin, one last name per client; read back by walking the last-name index.
def _contacts_write(c: Client, n: int) -> list[str]:
    return _ids(c.write("POST", "/contacts/persons", user="load-admin", groups=ADMIN,
                        json={"firstName": f"P{n}", "lastName": c.user}), "id")


def _contacts_reads() -> tuple:
    from seeds import contacts as seed

    return (lambda c, n: c.call("GET", f"/contacts/persons/{seed.BOB}/addresses?relationship=Business&on=2005-01-01"),
            lambda c, n: c.call("GET", "/contacts/persons?lastName=Smith"))


# connected car: a vehicle (admin) registered to the client's customer sends events; read back from its event list.
def _cc_prepare(c: Client) -> None:
    vin = uuid.uuid4().hex[:17].upper()
    c.state["vin"] = vin
    base = "/connected-car"
    for reply in (c.call("PUT", f"{base}/customers/{c.user}", json={"name": "Load", "email": f"{c.user}@example.com"}),
                  c.call("PUT", f"{base}/vehicles/{vin}", user="load-admin", groups=ADMIN,
                         json={"make": "Volvo", "model": "V70", "year": 2015}),
                  c.call("PUT", f"{base}/customers/{c.user}/registrations/{vin}", json={"statusCode": "active"})):
        _ready(reply, "connected car set-up")


def _cc_write(c: Client, n: int) -> list[str]:
    vin = c.state["vin"]
    return _ids(c.write("POST", f"/connected-car/vehicles/{vin}/events", user=vin, groups=("vehicle",),
                        json={"type": ("error", "warning")[n % 2], "code": f"L{n}", "message": "load"}), "eventId")


# voting: every voter of every client on one poll (contention); read back each ballot, then the exact totals.
def _voting_setup(api: Api) -> dict:
    poll = f"load-{api.run}"
    c = _admin_client(api)
    _ready(c.call("PUT", f"/voting/polls/{poll}", json={"question": "Which cloud?", "candidates": CANDIDATES}),
           "voting set-up")
    return {"poll": poll}


def _voter(c: Client, n: int) -> str:
    return f"{c.user}-v{n}"


def _voting_write(c: Client, n: int) -> list[str]:
    poll, candidate = c.state["poll"], CANDIDATES[0] if n % 3 else CANDIDATES[1 + n % 3]
    body = c.write("POST", f"/voting/polls/{poll}/votes", user=_voter(c, n), json={"candidate": candidate})
    return [] if body is None else [f"{_voter(c, n)}={body['candidate']}"]


def _voting_read_back(c: Client, acked: list[str]) -> list[str]:
    poll = c.state["poll"]
    return [f"{voter}={c.get(f'/voting/polls/{poll}/votes/me', user=voter)['candidate']}"
            for voter in (key.partition("=")[0] for key in acked)]


# catalog: an album per client (admin), its tracks written one by one; read back by walking its tracks.
def _catalog_prepare(c: Client) -> None:
    _ready(c.call("PUT", f"/catalog/products/{c.user}", user="load-admin", groups=ADMIN,
                  json={"kind": "album", "title": "Load"}), "catalog set-up")


def _catalog_write(c: Client, n: int) -> list[str]:
    return _ids(c.write("PUT", f"/catalog/products/{c.user}/children/track/{n}", user="load-admin", groups=ADMIN,
                        json={"title": f"Track {n}"}), "childId")


# users: each write signs up a new user (unique email); read back by id, as that user.
def _users_write(c: Client, n: int) -> list[str]:
    user = f"{c.user}-u{n}"
    c.last = user
    return _ids(c.write("POST", "/users", user=user, json={"userId": user, "email": f"{user}@example.com"}), "userId")


# games: every player of every client joins one game (its player count is held in the join transaction).
def _games_setup(api: Api) -> dict:
    game = f"load-{api.run}"
    _ready(_admin_client(api).call("POST", "/games", json={"gameId": game, "name": "Load", "maxPlayers": 1000}),
           "games set-up")
    return {"game": game}


def _games_write(c: Client, n: int) -> list[str]:
    player = f"{c.user}-p{n}"
    c.last = player
    body = c.write("PUT", f"/games/{c.state['game']}/players/{player}", user=player)
    return [] if body is None else [player]


# measurements: a batch of 5 readings per write for the client's device; read back by walking its readings.
def _measurements_write(c: Client, n: int) -> list[str]:
    start = c.state.setdefault("start", int(time.time()) - 7200)
    epochs = [start + 5 * n + k for k in range(5)]
    body = c.write("POST", "/measurements/readings", user="load-pipeline", groups=ADMIN, json={"readings": [
        {"deviceId": c.user, "epoch": epoch, "temperature": 20.5, "pressure": 1000.0} for epoch in epochs]})
    return [] if body is None else [str(epoch) for epoch in epochs]


def _measurements_range(c: Client) -> str:
    return f"/measurements/devices/{c.user}/readings?from={c.state.get('start', 0)}&to={int(time.time()) + 60}"


# messaging: each client sends to its own recipient; read back from the sender's outbox and the recipient's inbox.
def _messaging_write(c: Client, n: int) -> list[str]:
    keys = _ids(c.write("POST", "/messaging/messages",
                        json={"recipient": f"{c.user}-r", "subject": f"Load {n}", "body": "Hi!"}), "msgId")
    c.last = keys[0] if keys else c.last
    return keys


def _messaging_read_back(c: Client, acked: list[str]) -> list[str]:
    outbox = c.walk("/messaging/outbox", "msgId")
    inbox = c.walk("/messaging/inbox", "msgId", user=f"{c.user}-r")
    c.api.check(sorted(inbox) == sorted(outbox), f"messaging: {c.user}'s outbox and its recipient's inbox differ")
    return outbox


# cart: each write creates a cart; read back by id (no route lists a user's carts).
def _cart_write(c: Client, n: int) -> list[str]:
    keys = _ids(c.write("POST", "/cart/carts"), "cartId")
    c.last = keys[0] if keys else c.last
    return keys


# sessions: each write signs in; read back by walking the user's sessions (the index sign-out-everywhere uses).
def _sessions_write(c: Client, n: int) -> list[str]:
    keys = _ids(c.write("POST", "/sessions"), "sessionToken")
    c.last = keys[0] if keys else c.last
    return keys


# e-commerce: a customer per client places orders (one transaction each); read back by walking its orders.
def _ecommerce_prepare(c: Client) -> None:
    _ready(c.call("POST", "/ecommerce/customers", json={"username": c.user, "name": "Load",
                                                        "email": f"{c.user}@example.com"}), "e-commerce set-up")


def _ecommerce_write(c: Client, n: int) -> list[str]:
    items = [{"itemId": f"book-{n}", "description": "Book", "price": "4.25", "quantity": 1}]
    keys = _ids(c.write("POST", f"/ecommerce/customers/{c.user}/orders", json={"items": items}), "orderId")
    c.last = keys[0] if keys else c.last
    return keys


# patterns: every client opens issues on one repository (sequential numbers from one counter, contention).
def _patterns_setup(api: Api) -> dict:
    repo = f"/patterns/repos/load/{api.run}"
    _ready(_admin_client(api).call("PUT", repo, json={"description": "load"}), "patterns set-up")
    return {"repo": repo}


def _patterns_write(c: Client, n: int) -> list[str]:
    return _ids(c.write("POST", f"{c.state['repo']}/issues", json={"title": f"Load {c.index}-{n}"}), "number")


def _patterns_read_back(c: Client, acked: list[str]) -> list[str]:
    numbers = c.walk(f"{c.state['repo']}/issues", "number")
    c.api.check(sorted(map(int, numbers)) == list(range(1, len(numbers) + 1)),
                "patterns: the issue numbers are not 1..N without a gap")
    count = c.get(c.state["repo"])["issueCount"]
    c.api.check(count == len(acked), f"patterns: issueCount {count}, {len(acked)} issues acknowledged")
    return numbers


# order entry: an admin places orders for customer C3 (seed), read back by walking C3's orders of today.
def _today() -> str:
    return datetime.now(UTC).date().isoformat()


def _order_entry_write(c: Client, n: int) -> list[str]:
    return _ids(c.write("POST", "/order-entry/orders", user="load-admin", groups=ADMIN,
                        json={"customerId": "C3", "lines": [{"productId": "P500", "quantity": 1 + n % 3}]}), "orderId")


def _scenarios() -> list[Scenario]:
    cc, games, repo = "/connected-car", "/games", "/order-entry"
    return [
        Scenario("contacts", _contacts_write, _contacts_reads(),
                 lambda c, acked: c.walk(f"/contacts/persons?lastName={c.user}", "id")),
        Scenario("connected_car", _cc_write,
                 (lambda c, n: c.call("GET", f"{cc}/vehicles/{c.state['vin']}/events?limit=10"),
                  lambda c, n: c.call("GET", f"{cc}/customers/{c.user}")),
                 lambda c, acked: c.walk(f"{cc}/vehicles/{c.state['vin']}/events", "eventId"), prepare=_cc_prepare),
        Scenario("voting", _voting_write,
                 (lambda c, n: c.call("GET", f"/voting/polls/{c.state['poll']}/results"),
                  lambda c, n: c.call("GET", f"/voting/polls/{c.state['poll']}")),
                 _voting_read_back, setup=_voting_setup, listed=False,
                 also="results (from the stream) = the ballots' exact totals"),
        Scenario("catalog", _catalog_write,
                 (lambda c, n: c.call("GET", "/catalog/products/2"),
                  lambda c, n: c.call("GET", "/catalog/products/2/children/track"),
                  lambda c, n: c.call("GET", "/catalog/documents/3")),
                 lambda c, acked: c.walk(f"/catalog/products/{c.user}/children/track", "childId"),
                 prepare=_catalog_prepare),
        Scenario("users", _users_write,
                 (lambda c, n: c.call("GET", f"/users/{c.last or 'bob'}", user=c.last or "bob"),
                  lambda c, n: c.call("GET", "/users/by-email/fred@yahoo.com", user="load-admin", groups=ADMIN)),
                 lambda c, acked: _by_id(c, acked, lambda c, user: c.get(f"/users/{user}", user=user)["userId"]),
                 listed=False),
        Scenario("games", _games_write,
                 (lambda c, n: c.call("GET", f"{games}/{c.state['game']}"),
                  lambda c, n: c.call("GET", f"{games}/by-user/{c.last or 'bob'}", user=c.last or "bob")),
                 _games_read_back, setup=_games_setup, shared=True, expect=frozenset({409}),
                 also="playerCount = joins"),
        Scenario("measurements", _measurements_write,
                 (lambda c, n: c.call("GET", _measurements_range(c) + "&limit=25"),
                  lambda c, n: c.call("GET", f"/measurements/devices/1/readings?from={int(time.time()) - 172800}"
                                             f"&to={int(time.time())}&limit=10")),
                 lambda c, acked: c.walk(_measurements_range(c), "epoch")),
        Scenario("messaging", _messaging_write,
                 (lambda c, n: c.call("GET", "/messaging/inbox", user=f"{c.user}-r"),
                  lambda c, n: c.call("GET", f"/messaging/messages/{c.last or '3kf8'}",
                                      user=f"{c.user}-r" if c.last else "david")),
                 _messaging_read_back, also="inbox = outbox"),
        Scenario("cart", _cart_write,
                 (lambda c, n: c.call("GET", f"/cart/carts/{c.last}") if c.last else
                  c.call("GET", "/cart/prices/SKU-COFFEE"),
                  lambda c, n: c.call("GET", "/cart/prices/SKU-COFFEE")),
                 lambda c, acked: _by_id(c, acked, lambda c, cart: c.get(f"/cart/carts/{cart}")["cartId"]),
                 listed=False),
        Scenario("sessions", _sessions_write,
                 (lambda c, n: c.call("GET", f"/sessions/{c.last}") if c.last else
                  c.call("GET", f"/sessions/users/{c.user}"),
                  lambda c, n: c.call("GET", f"/sessions/users/{c.user}?limit=10")),
                 lambda c, acked: c.walk(f"/sessions/users/{c.user}", "sessionToken")),
        Scenario("ecommerce", _ecommerce_write,
                 (lambda c, n: c.call("GET", f"/ecommerce/customers/{c.user}"),
                  lambda c, n: c.call("GET", f"/ecommerce/customers/{c.user}/orders/{c.last}") if c.last else
                  c.call("GET", f"/ecommerce/customers/{c.user}")),
                 lambda c, acked: c.walk(f"/ecommerce/customers/{c.user}/orders", "orderId"),
                 prepare=_ecommerce_prepare),
        Scenario("patterns", _patterns_write,
                 (lambda c, n: c.call("GET", c.state["repo"]),
                  lambda c, n: c.call("GET", f"{c.state['repo']}/open-issues?limit=10")),
                 _patterns_read_back, setup=_patterns_setup, shared=True, also="issue numbers 1..N, issueCount = N"),
        Scenario("order_entry", _order_entry_write,
                 (lambda c, n: c.call("GET", f"{repo}/orders?status=OPEN&from={_today()}&to={_today()}&limit=25"),
                  lambda c, n: c.call("GET", f"{repo}/customers/C1/orders?from=2026-01-01&to=2026-06-30"),
                  lambda c, n: c.call("GET", f"{repo}/quarters/2026-Q1/reps")),
                 lambda c, acked: c.walk(f"{repo}/customers/C3/orders?from={_today()}&to={_today()}", "orderId"),
                 shared=True),
    ]


def _games_read_back(c: Client, acked: list[str]) -> list[str]:
    game = c.state["game"]
    players = c.walk(f"/games/{game}/players", "userId")
    count = c.get(f"/games/{game}")["playerCount"]
    c.api.check(count == len(acked), f"games: playerCount {count}, {len(acked)} joins acknowledged")
    return players


def _admin_client(api: Api) -> Client:
    return Client(api, -1, Stats(), user="load-admin", groups=ADMIN)


def _ready(reply: Any, what: str) -> None:
    if reply is None or not 200 <= reply.status_code < 300:
        raise SystemExit(f"bench: {what} failed: {'timeout' if reply is None else (reply.status_code, reply.text)}")


def _phase(api: Api, scenario: Scenario, runtime: Any) -> str:
    """One domain: prepare, load for SECONDS, read back; its printed lines."""
    stats = Stats()
    shared = scenario.setup(api)
    clients = [Client(api, i, stats, scenario.expect) for i in range(CLIENTS)]
    for client in clients:
        client.state.update(shared)
    def prepare(client: Client) -> None:
        scenario.prepare(client)
        scenario.reads[0](client, 0)  # and warm the domain's function: cold starts are not the steady state

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(prepare, clients))
    stats.latencies.clear()  # set-up and warm-up are not measured (a failed set-up has ended the bench already)

    def drive(client: Client) -> None:
        n = 0
        while time.perf_counter() < deadline:
            client.acked += scenario.write(client, n)
            scenario.reads[n % len(scenario.reads)](client, n)
            n += 1

    started = time.perf_counter()
    deadline = started + SECONDS
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(drive, clients))
    elapsed = time.perf_counter() - started
    latencies = sorted(stats.latencies)
    load_errors, throttled = Counter(stats.errors), stats.throttled

    runtime.streams.wait_idle(timeout=15)  # stream consumers (aggregates, counters) have caught up
    if scenario.shared:
        acked = [key for client in clients for key in client.acked]
        found = scenario.read_back(clients[0], acked)
    else:  # keys are the client's own (a track number, an epoch): told apart by the client
        acked = [f"{client.index}/{key}" for client in clients for key in client.acked]
        with ThreadPoolExecutor(CLIENTS) as pool:
            read = pool.map(lambda c: scenario.read_back(c, c.acked), clients)  # one answer per client
            found = [f"{c.index}/{key}" for c, keys in zip(clients, read, strict=True) for key in keys]
    if scenario.domain == "voting":
        _check_totals(clients[0], acked)
    wanted, got = Counter(acked), Counter(found)
    missing, extra = sum((wanted - got).values()), sum((got - wanted).values())
    doubled = sum(1 for key, count in got.items() if count > 1)
    api.check(not load_errors, f"{scenario.domain}: errors {dict(load_errors)} {stats.samples}")
    api.check(len(wanted) == len(acked), f"{scenario.domain}: the API acknowledged one key twice")
    api.check(missing == 0 and extra == 0 and doubled == 0,
              f"{scenario.domain}: read back {len(found)} of {len(acked)}: missing {missing}, extra {extra}, "
              f"twice {doubled}")
    ms = [x * 1000 for x in latencies]
    errors = ", ".join(f"{status}: {count}" for status, count in sorted(load_errors.items(), key=str)) or "none"
    return (f"   {scenario.domain:<14} {len(ms):>6} {len(ms) / elapsed:>7.0f} {statistics.median(ms):>6.0f} "
            f"{_p99(ms):>6.0f} {throttled:>5}  errors {errors}\n"
            f"   {'':<14} writes acknowledged {len(acked)}, read back {len(found)}, missing {missing}, "
            f"extra {extra}{'' if scenario.listed else ' (by id)'}{f'; {scenario.also}' if scenario.also else ''}"
            + (f"; {stats.retried} timed-out writes sent again" if stats.retried else ""))


def _check_totals(c: Client, acked: list[str]) -> None:
    """Voting: the results (aggregated from the stream) equal the acknowledged ballots, exactly."""
    truth = Counter(key.rpartition("=")[2] for key in acked)
    totals: dict = {}
    until = time.perf_counter() + 15
    while time.perf_counter() < until:
        totals = c.get(f"/voting/polls/{c.state['poll']}/results")["totals"]
        if {k: v for k, v in totals.items() if v} == dict(truth):
            return
        time.sleep(0.1)
    c.api.check(False, f"voting: results {totals}, acknowledged ballots {dict(truth)}")


@dataclass
class Drive:
    """What one drive of GET /health got."""
    statuses: Counter = field(default_factory=Counter)
    bad_envelopes: int = 0  # 429s without the JSON envelope (code THROTTLED) or x-amzn-ErrorType
    retry_after: int = 0  # 429s with a Retry-After header
    seconds: float = 0.0


def _drive_health(url: str, rate: float | None, seconds: float) -> Drive:
    """CLIENTS threads GET url/health for `seconds`, together paced at `rate` requests/s (None: as fast as they can)."""
    import requests

    drive, lock = Drive(), threading.Lock()
    started = time.perf_counter()
    due_next = [started]

    def client(_: int) -> None:
        session = requests.Session()
        while (now := time.perf_counter()) < started + seconds:
            if rate is not None:
                with lock:  # a client that fell behind (a stalled server) does not catch up in a burst
                    due = max(due_next[0], now)
                    due_next[0] = due + 1 / rate
                if due > now:
                    time.sleep(due - now)
            reply = session.get(f"{url}/health", timeout=TIMEOUT)
            with lock:
                drive.statuses[reply.status_code] += 1
                if reply.status_code == 429:
                    drive.bad_envelopes += (reply.json().get("error", {}).get("code") != "THROTTLED"
                                            or reply.headers.get("x-amzn-ErrorType") != "TooManyRequestsException")
                    drive.retry_after += "Retry-After" in reply.headers

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(client, range(CLIENTS)))
    drive.seconds = time.perf_counter() - started
    return drive


def _throttling(api: Api, runtime: Any) -> list[str]:
    """The dev stage's limits on a second front end of the runtime: below them no 429, above them 429s."""
    from functools import partial

    from infra.stack import StageConfig
    from local.apigateway.authorizer import verify_token
    from local.apigateway.gateway import Gateway, GatewayRequestHandler
    from local.apigateway.restapi import Throttle
    from local.aws import WsgiServer

    dev = StageConfig.named("dev")
    limits = Throttle(rate=dev.throttling_rate_limit, burst=dev.throttling_burst_limit)
    lines = []
    for label, rate, seconds in (("below", 0.8 * limits.rate, 2 * limits.burst / limits.rate + 1), ("above", None, 4)):
        gateway = Gateway(runtime.api, runtime.functions.invoke, partial(verify_token, keys_dir=api.keys_dir),
                          throttle=limits)  # a fresh bucket (full) per drive
        server = WsgiServer(gateway, "127.0.0.1", 0, setting="PORT", handler=GatewayRequestHandler).start()
        try:
            drive = _drive_health(server.url, rate, seconds)
        finally:
            server.stop()
        statuses, throttled = drive.statuses, drive.statuses[429]
        admitted, total = statuses[200], sum(statuses.values())
        ceiling = limits.burst + limits.rate * drive.seconds
        api.check(set(statuses) <= {200, 429}, f"throttling {label}: statuses {dict(statuses)}")
        api.check(drive.bad_envelopes == 0, f"throttling {label}: {drive.bad_envelopes} 429s without the envelope")
        api.check(drive.retry_after == throttled, f"throttling {label}: {throttled - drive.retry_after} 429s "
                                                  "without Retry-After")
        api.check(admitted <= ceiling, f"throttling {label}: {admitted} admitted, more than {ceiling:.0f}")
        api.check(throttled == 0 if label == "below" else throttled > 0,
                  f"throttling {label} the limits: {throttled} 429s")
        pace = f"paced at {rate:.0f}/s" if rate else "unpaced"
        lines.append(f"   {label} the limits ({pace}, {drive.seconds:.1f} s): {total} requests, "
                     f"{total / drive.seconds:.0f}/s; 200: {admitted} (at most burst + rate x time = "
                     f"{ceiling:.0f}), 429: {throttled}"
                     + (f" ({drive.retry_after} with Retry-After and the THROTTLED envelope)" if throttled else ""))
    return lines


def run() -> None:
    from bench.runtime import BENCH_KEYS, bench_runtime

    scenarios = _scenarios()
    print(f"\n9. Load: {len(scenarios)} domains, {CLIENTS} clients each for {SECONDS:.0f} s (a write, then a main "
          f"read, in turn) on one local runtime under the prod stage's limits; every acknowledged write read back")
    started = time.perf_counter()
    keys = BENCH_KEYS
    with bench_runtime(4) as runtime:
        if runtime.streams is None or runtime.url is None:
            raise RuntimeError("the bench's runtime serves no API or reads no streams")
        runtime.streams.wait_idle(timeout=15)
        print(f"   start-up {time.perf_counter() - started:.0f} s")
        api = Api(runtime.url, keys, uuid.uuid4().hex[:8])
        print(f"   {'domain':<14} {'reqs':>6} {'req/s':>7} {'p50 ms':>6} {'p99 ms':>6} {'429s':>5}")
        for scenario in scenarios:
            print(_phase(api, scenario, runtime), flush=True)
        print(f"   throttling: the dev stage's limits on a second front end of the same runtime, GET /health, "
              f"{CLIENTS} clients")
        for line in _throttling(api, runtime):
            print(line)
    print(f"   section took {time.perf_counter() - started:.0f} s")
    if api.failures:
        raise SystemExit("bench: load checks failed:\n  " + "\n  ".join(api.failures))
    print("   every check passed: no errors, no lost or duplicated writes, 429 only above the limits")


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
