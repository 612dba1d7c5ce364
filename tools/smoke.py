"""`make smoke URL=<base url> [STAGE=<stage>]`: the README's tour as one command, against the local runtime or a
deployed stage. One line per domain (`ok   contacts ...` or `FAIL contacts ...reason`; `skip` for a domain with no
check here yet, as `make new-domain` leaves it); exit status 0 only if no domain failed.

Per domain: a couple of the example data's answers that the docs pages and e2e tests state, a write -> read ->
delete round trip of its own data (fresh ids, so it disturbs nothing else; where the API has no delete, what it wrote
is named by a fresh id no list of the example data shows), the `Server-Timing` header on the read, 401 without a
token, and 403 for a signed-in non-admin's write.

Tokens come the way `make token` gives them: minted locally without --stage; with --stage, ID tokens of the deployed
stage's users `smoke-admin` (group admin) and `smoke-user` (tools/cognito_users.py), which you create once:
    make user STAGE=<stage> USER=smoke-admin GROUPS=admin && make user STAGE=<stage> USER=smoke-user
The example data is loaded by the local runtime only (seeds/), so with --stage the example checks are off unless
--examples asks for them (they then also need the seed's users: bob, david... made with `make user`).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests

log = logging.getLogger("smoke")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "http://127.0.0.1:3000"
ADMIN = ("smoke-admin", ("admin",))
USER = ("smoke-user", ())
Identity = tuple[str, tuple[str, ...]]
TokenSource = Callable[[str, tuple[str, ...]], str]


class CheckFailed(Exception):
    """A promise the API did not keep: the line's reason."""


class NoCheck(Exception):
    """A domain the tour has no check for yet (`make new-domain` made it): a `skip` line, not a failure."""


@dataclass(frozen=True)
class Reply:
    method: str
    path: str
    status: int
    body: Any
    headers: Any

    def text(self) -> str:
        return str(self.body)[:160]


class Client:
    """HTTP calls as a given identity (a token from `tokens`, cached per identity) or as nobody."""

    def __init__(self, base_url: str, tokens: TokenSource, timeout: float = 30.0):
        self.base_url = base_url.rstrip("/")
        self._tokens = tokens
        self._cache: dict[Identity, str] = {}
        self.session = requests.Session()
        self.timeout = timeout

    def token(self, who: Identity) -> str:
        if who not in self._cache:
            try:
                self._cache[who] = self._tokens(*who)
            except Exception as exc:  # a user not created on the stage, no AWS credentials: this domain's reason
                raise CheckFailed(f"no token for {who[0]}: {exc}") from exc
        return self._cache[who]

    def call(self, method: str, path: str, who: Identity | None = USER, **kwargs: Any) -> Reply:
        headers = dict(kwargs.pop("headers", {}))
        if who is not None:
            headers["Authorization"] = f"Bearer {self.token(who)}"
        reply = self.session.request(method, self.base_url + path, headers=headers, timeout=self.timeout, **kwargs)
        try:
            body = reply.json() if reply.content else None
        except ValueError:
            body = reply.text
        return Reply(method, path, reply.status_code, body, reply.headers)

    def expect(self, status: int, method: str, path: str, who: Identity | None = USER, **kwargs: Any) -> Any:
        """The body of a reply that must have `status`; CheckFailed naming the call otherwise."""
        reply = self.call(method, path, who, **kwargs)
        if reply.status != status:
            raise CheckFailed(f"{method} {path}: expected {status}, got {reply.status} {reply.text()}")
        return reply.body


def same(what: str, got: Any, expected: Any) -> None:
    if got != expected:
        raise CheckFailed(f"{what}: expected {expected!r}, got {got!r}")


def includes(what: str, got: list[Any], expected: list[Any]) -> None:
    """The example data's answer, in its order, among what a shared stage answers (others' data may add to it)."""
    if [item for item in got if item in expected] != expected:
        raise CheckFailed(f"{what}: expected {expected!r} among {got!r}")


@dataclass(frozen=True)
class DomainCheck:
    """What the smoke tour asks of one domain."""

    examples: Callable[[Client], None]
    round_trip: Callable[[Client, str], Reply]  # returns the round trip's read, which must carry Server-Timing
    unauthenticated: str  # a GET path that needs a token
    forbidden: tuple[str, str, Any] | None  # (method, path, body) a signed-in non-admin may not write
    note: str = ""  # what the line says in place of a check the domain has no route for


# --- the domains --------------------------------------------------------------------------------------------

def streets(body: dict[str, Any]) -> list[str]:
    return [item["address"]["streetAddress"] for item in body["items"]]


def contacts_examples(c: Client) -> None:
    from seeds.contacts import BOB

    base = f"/contacts/persons/{BOB}/addresses"
    worked = c.expect(200, "GET", f"{base}?relationship=Business&on=2005-01-01")
    same("Bob's work address on 2005-01-01", streets(worked), ["1850 Wazee Street"])
    same("Bob's home now", streets(c.expect(200, "GET", f"{base}?relationship=Residential&current=true")),
         ["1600 15th Street"])


def contacts_round_trip(c: Client, run: str) -> Reply:
    street = f"{run} Smoke Street"
    created = c.expect(201, "POST", "/contacts/addresses", ADMIN,
                       json={"streetAddress": street, "city": "Denver", "state": "CO", "zipCode": "80202"})
    read = c.call("GET", f"/contacts/items/{created['id']}")
    same("the address read back", (read.status, [i.get("streetAddress") for i in (read.body or {}).get("items", [])]),
         (200, [street]))
    return read


def users_examples(c: Client) -> None:
    same("bob's join date", c.expect(200, "GET", "/users/bob", ("bob", ()))["joinDate"], "2011-11-15")
    same("the user of fred@yahoo.com", c.expect(200, "GET", "/users/by-email/fred@yahoo.com", ADMIN)["userId"], "fred")


def users_round_trip(c: Client, run: str) -> Reply:
    user_id, email = f"smoke-{run}", f"smoke-{run}@example.com"
    c.expect(201, "POST", "/users", ADMIN, json={"userId": user_id, "email": email})
    read = c.call("GET", f"/users/by-email/{email}", ADMIN)
    same("the user found by email", (read.status, (read.body or {}).get("userId")), (200, user_id))
    # another user's email is not a non-admin's to change (checked while the user exists)
    c.expect(403, "PUT", f"/users/{user_id}/email", USER, json={"email": f"x-{email}"})
    c.expect(204, "DELETE", f"/users/{user_id}", ADMIN)
    c.expect(404, "GET", f"/users/{user_id}", ADMIN)
    return read


def games_examples(c: Client) -> None:
    same("Game1", c.expect(200, "GET", "/games/Game1"),
         {"gameId": "Game1", "name": "Game 1", "maxPlayers": 4, "playerCount": 1})
    includes("bob's games", [m["gameId"] for m in c.expect(200, "GET", "/games/by-user/bob", ("bob", ()))["items"]],
             ["Game1", "Game3"])


def games_round_trip(c: Client, run: str) -> Reply:
    game = f"smoke-{run}"
    c.expect(201, "POST", "/games", ADMIN, json={"gameId": game, "name": "Smoke game", "maxPlayers": 2})
    me = USER[0]
    c.expect(201, "PUT", f"/games/{game}/players/{me}")
    read = c.call("GET", f"/games/{game}/players")
    same("the game's players", (read.status, [m["userId"] for m in (read.body or {}).get("items", [])]), (200, [me]))
    c.expect(204, "DELETE", f"/games/{game}/players/{me}")
    same("players after leaving", c.expect(200, "GET", f"/games/{game}/players")["items"], [])
    return read


def catalog_examples(c: Client) -> None:
    album = c.expect(200, "GET", "/catalog/products/2")["items"]
    same("album 2's item collection", [i["type"] for i in album],
         ["album", "album:track#1", "album:track#2", "album:track#3"])
    actors = c.expect(200, "GET", "/catalog/products/3/children/actor?limit=10")["items"]
    same("movie 3's actors", len(actors), 3)


def catalog_round_trip(c: Client, run: str) -> Reply:
    product = f"/catalog/products/smoke-{run}"
    c.expect(200, "PUT", product, ADMIN, json={"kind": "album", "title": "Smoke album"})
    c.expect(200, "PUT", f"{product}/children/track/1", ADMIN, json={"title": "Smoke track"})
    read = c.call("GET", f"{product}/children/track/1")
    same("the track read back", (read.status, (read.body or {}).get("title")), (200, "Smoke track"))
    c.expect(204, "DELETE", f"{product}/children/track/1", ADMIN)
    c.expect(404, "GET", f"{product}/children/track/1")
    return read


def measurements_examples(c: Client) -> None:
    now = int(time.time())
    items = c.expect(200, "GET", f"/measurements/devices/1/readings?from={now - 2 * 86400}&to={now}&limit=2")["items"]
    same("device 1's first readings", [(r["temperature"], r["pressure"]) for r in items], [(30.0, 90.0)] * 2)


def measurements_round_trip(c: Client, run: str) -> Reply:
    device, now = f"smoke-{run}", int(time.time())
    reading = {"deviceId": device, "epoch": now, "temperature": 21.5, "pressure": 1013.0}
    same("the ingest's answer", c.expect(200, "POST", "/measurements/readings", ADMIN, json={"readings": [reading]}),
         {"readings": 1, "writes": 1})
    read = c.call("GET", f"/measurements/devices/{device}/readings?from={now - 60}&to={now + 60}")
    same("the reading read back", (read.status, (read.body or {}).get("items")),
         (200, [{**reading, "epochMs": now * 1000}]))  # every reading answers its millisecond too
    return read


def messaging_examples(c: Client) -> None:
    david = ("david", ())
    same("David's newest message", [m["msgId"] for m in c.expect(200, "GET", "/messaging/inbox", david)["items"]][:1],
         ["3kf8"])
    message = c.expect(200, "GET", "/messaging/messages/3kf8", david)
    same("message 3kf8's sender and attachments", (message["sender"], len(message["attachments"])), ("alice", 1))


def messaging_round_trip(c: Client, run: str) -> Reply:
    subject = f"smoke {run}"
    sent = c.expect(201, "POST", "/messaging/messages", USER,
                    json={"recipient": ADMIN[0], "subject": subject, "body": "Hello from make smoke"})
    read = c.call("GET", f"/messaging/messages/{sent['msgId']}", ADMIN)
    same("the message its recipient reads", (read.status, (read.body or {}).get("subject")), (200, subject))
    return read


def sessions_examples(c: Client) -> None:
    from seeds.sessions import DAVE_TOKEN

    same("dave's example session", c.expect(200, "GET", f"/sessions/{DAVE_TOKEN}", ("dave", ()))["username"], "dave")


def sessions_round_trip(c: Client, run: str) -> Reply:
    token = c.expect(201, "POST", "/sessions")["sessionToken"]
    read = c.call("GET", f"/sessions/{token}")
    same("the session read back", (read.status, (read.body or {}).get("username")), (200, USER[0]))
    c.expect(204, "DELETE", f"/sessions/{token}")
    c.expect(404, "GET", f"/sessions/{token}")
    return read


def voting_examples(c: Client) -> None:
    poll = c.expect(200, "GET", "/voting/polls/favourite-feature")
    same("the example poll's candidates", poll["candidates"], ["Streams", "Transactions", "TTL", "Global tables"])
    c.expect(404, "GET", "/voting/polls/favourite-feature/votes/me", ("heidi", ()))  # heidi withdrew her vote


def voting_round_trip(c: Client, run: str) -> Reply:
    poll = f"/voting/polls/smoke-{run}"
    c.expect(201, "PUT", poll, ADMIN, json={"question": "Smoke?", "candidates": ["Yes", "No"]})
    c.expect(201, "POST", f"{poll}/votes", json={"candidate": "Yes"})
    read = c.call("GET", f"{poll}/votes/me")
    same("the ballot read back", (read.status, (read.body or {}).get("candidate")), (200, "Yes"))
    c.expect(204, "DELETE", f"{poll}/votes/me")
    c.expect(404, "GET", f"{poll}/votes/me")
    return read


def cart_examples(c: Client) -> None:
    from seeds.cart import ALICE_CART, CARTS

    cart = c.expect(200, "GET", f"/cart/carts/{ALICE_CART}", ("alice", ()))
    same("alice's open cart", (cart["status"], {x["sku"]: x["quantity"] for x in cart["lines"]}),
         ("OPEN", CARTS[ALICE_CART][1]))
    c.expect(404, "GET", f"/cart/carts/{ALICE_CART}", ("bob", ()))  # someone else's cart does not exist for bob


def cart_round_trip(c: Client, run: str) -> Reply:
    sku = f"SMOKE-{run}"
    c.expect(200, "PUT", f"/cart/prices/{sku}", ADMIN, json={"price": "1.00"})
    cart = c.expect(201, "POST", "/cart/carts")["cartId"]
    c.expect(200, "PUT", f"/cart/carts/{cart}/lines/{sku}", json={"quantity": 2})
    read = c.call("GET", f"/cart/carts/{cart}")
    same("the cart's lines", (read.status, [(x["sku"], x["quantity"]) for x in (read.body or {}).get("lines", [])]),
         (200, [(sku, 2)]))
    c.call("DELETE", f"/cart/carts/{cart}/lines/{sku}")
    same("the lines after removing", c.expect(200, "GET", f"/cart/carts/{cart}")["lines"], [])
    return read


def ecommerce_examples(c: Client) -> None:
    alex = c.expect(200, "GET", "/ecommerce/customers/alexdebrie", ADMIN)
    same("alexdebrie's name", alex["customer"]["name"], "Alex DeBrie")
    same("alexdebrie's orders, newest first", [o["orderId"] for o in alex["orders"]],
         ["1YRfXS14inXwIJEf9tO5hWnL2pi", "1VrgXBQ0VCshuQUnh1HrDIHQNwY"])


def ecommerce_round_trip(c: Client, run: str) -> Reply:
    customer = f"/ecommerce/customers/smoke-{run}"
    c.expect(201, "POST", "/ecommerce/customers", ADMIN,
             json={"username": f"smoke-{run}", "name": "Smoke Customer", "email": f"smoke-{run}@example.com"})
    address = {"name": "Home", "street": "1 Smoke St", "city": "Omaha"}
    c.expect(200, "PUT", f"{customer}/addresses", ADMIN, json=address)
    read = c.call("GET", customer, ADMIN)
    same("the customer's addresses", (read.status, sorted((read.body or {}).get("customer", {}).get("addresses", {}))),
         (200, ["Home"]))
    c.expect(403, "PUT", f"{customer}/addresses", USER, json=address)  # not the non-admin's customer
    removed = c.expect(200, "DELETE", f"{customer}/addresses", ADMIN, params={"name": "Home"})
    same("the addresses after removing", removed["addresses"], {})
    return read


def order_entry_examples(c: Client) -> None:
    employee = c.expect(200, "GET", "/order-entry/employees/150")
    same("employee 150", (employee["name"], employee["jobId"]), ("Peter Tucker", "SA_REP"))
    same("employee 125's current job", c.expect(200, "GET", "/order-entry/employees/125/current-job")["jobId"],
         "SH_CLERK")


def order_entry_round_trip(c: Client, run: str) -> Reply:
    product = f"/order-entry/products/SMOKE-{run}"
    c.expect(200, "PUT", product, ADMIN, json={"name": "Smoke product", "priceCents": 199})
    read = c.call("GET", product)
    same("the product read back", (read.status, (read.body or {}).get("name")), (200, "Smoke product"))
    return read


def patterns_examples(c: Client) -> None:
    same("McDonalds' users", len(c.expect(200, "GET", "/patterns/orgs/McDonalds?limit=10")["items"]), 4)
    same("McDonalds' admins", len(c.expect(200, "GET", "/patterns/orgs/McDonalds/admins?limit=10")["items"]), 2)
    same("the featured repos", c.expect(200, "GET", "/patterns/featured")["repos"], ["alexdebrie/dynamodb-book"])


def patterns_round_trip(c: Client, run: str) -> Reply:
    repo, me = f"/patterns/repos/smoke/repo-{run}", USER[0]
    c.expect(200, "PUT", repo, ADMIN, json={"description": "make smoke"})
    c.expect(201, "PUT", f"{repo}/stars/{me}")
    read = c.call("GET", repo)
    same("the repo's stars", (read.status, (read.body or {}).get("starCount")), (200, 1))
    c.expect(204, "DELETE", f"{repo}/stars/{me}")
    same("stars after unstarring", c.expect(200, "GET", repo)["starCount"], 0)
    return read


def connected_car_examples(c: Client) -> None:
    day = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    slots = c.expect(200, "GET", f"/connected-car/dealers/boulder-north/timeslots?from={day}&to={day}")["items"]
    same("boulder-north's timeslots tomorrow", [(s["serviceDateHour"][-2:], s["serviceBayCount"]) for s in slots],
         [(f"{hour:02d}", 2) for hour in range(9, 17)])
    same("alice is active", c.expect(200, "GET", "/connected-car/customers/alice", ("alice", ()))["isActive"], True)


def vin_of(run: str) -> str:
    alphabet = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"  # no I, O or Q (ISO 3779)
    number = int(uuid.uuid5(uuid.NAMESPACE_URL, run).hex, 16)
    return "".join(alphabet[(number >> (5 * i)) % len(alphabet)] for i in range(17))


def connected_car_round_trip(c: Client, run: str) -> Reply:
    base, dealer, username, vin = "/connected-car", f"smoke-{run}", f"smoke-{run}", vin_of(run)
    day = datetime.now(UTC).date() + timedelta(days=400 + int(run, 16) % 3000)
    hour = f"{day.isoformat()}T10"
    c.expect(200, "PUT", f"{base}/dealers/{dealer}", ADMIN, json={"name": "Smoke Motors"})
    c.expect(200, "PUT", f"{base}/dealers/{dealer}/timeslots/{hour}", ADMIN, json={"serviceBayCount": 1})
    c.expect(200, "PUT", f"{base}/customers/{username}", ADMIN,
             json={"name": "Smoke Driver", "email": f"{username}@example.com"})
    c.expect(200, "PUT", f"{base}/vehicles/{vin}", ADMIN, json={"make": "Volvo", "model": "V70", "year": 2015})
    c.expect(200, "PUT", f"{base}/customers/{username}/registrations/{vin}", ADMIN, json={"statusCode": "active"})
    booked = c.expect(201, "POST", f"{base}/appointments", ADMIN,
                      json={"dealerId": dealer, "serviceDateHour": hour, "username": username, "vin": vin})
    read = c.call("GET", f"{base}/appointments/{booked['appointmentId']}", ADMIN)
    same("the appointment read back", (read.status, (read.body or {}).get("serviceDateHour")), (200, hour))
    c.expect(204, "DELETE", f"{base}/appointments/{booked['appointmentId']}", ADMIN)
    slot = c.expect(200, "GET", f"{base}/dealers/{dealer}/timeslots?from={hour}&to={hour}", ADMIN)["items"]
    same("the timeslot's free bays after cancelling", [s["availableBays"] for s in slot], [1])
    c.expect(200, "PUT", f"{base}/customers/{username}/registrations/{vin}", ADMIN, json={"statusCode": "inactive"})
    return read


CHECKS: dict[str, DomainCheck] = {
    "cart": DomainCheck(cart_examples, cart_round_trip, "/cart/notifications",
                        ("PUT", "/cart/prices/SKU-COFFEE", {"price": "0.01"})),
    "catalog": DomainCheck(catalog_examples, catalog_round_trip, "/catalog/products/2",
                           ("PUT", "/catalog/products/2", {"kind": "album", "title": "Not yours"})),
    "connected_car": DomainCheck(connected_car_examples, connected_car_round_trip,
                                 "/connected-car/dealers/boulder-north",
                                 ("PUT", "/connected-car/dealers/boulder-north", {"name": "Not yours"})),
    "contacts": DomainCheck(contacts_examples, contacts_round_trip, "/contacts/persons",
                            ("POST", "/contacts/persons", {"firstName": "Eve", "lastName": "Smoke"}),
                            note="no delete route: the address written is named by a fresh id only"),
    "ecommerce": DomainCheck(ecommerce_examples, ecommerce_round_trip, "/ecommerce/customers/alexdebrie",
                             ("PUT", "/ecommerce/customers/alexdebrie/email", {"email": "eve@example.com"})),
    "games": DomainCheck(games_examples, games_round_trip, "/games/Game1",
                         ("POST", "/games", {"gameId": "not-yours", "name": "Not yours", "maxPlayers": 2})),
    "measurements": DomainCheck(measurements_examples, measurements_round_trip,
                                "/measurements/devices/1/readings?from=0&to=1",
                                ("POST", "/measurements/readings", {"readings": [
                                    {"deviceId": "1", "epoch": int(time.time()), "temperature": 1, "pressure": 1}]}),
                                note="readings expire by TTL: no delete route"),
    "messaging": DomainCheck(messaging_examples, messaging_round_trip, "/messaging/inbox", None,
                             note="no admin-only write (a caller sends as itself); no delete route"),
    "order_entry": DomainCheck(order_entry_examples, order_entry_round_trip, "/order-entry/employees/150",
                               ("PUT", "/order-entry/products/P100", {"name": "Not yours", "priceCents": 1}),
                               note="no delete route: the product written is named by a fresh id only"),
    "patterns": DomainCheck(patterns_examples, patterns_round_trip, "/patterns/featured",
                            ("PUT", "/patterns/featured", {"repos": []})),
    "sessions": DomainCheck(sessions_examples, sessions_round_trip, "/sessions/users/smoke-user",
                            ("DELETE", "/sessions/users/smoke-admin", None)),
    "users": DomainCheck(users_examples, users_round_trip, "/users/bob",
                         ("PUT", "/users/bob/email", {"email": "eve@example.com"})),
    "voting": DomainCheck(voting_examples, voting_round_trip, "/voting/polls/favourite-feature/results",
                          ("PUT", "/voting/polls/favourite-feature", {"question": "Mine?", "candidates": ["A", "B"]})),
}


def platform_check(c: Client, examples: bool) -> str:
    """The platform domain's routes are public: health and the OpenAPI description of every route."""
    same("GET /health", c.call("GET", "/health", None).status, 200)
    spec = c.expect(200, "GET", "/docs?format=json", None)
    if not spec.get("paths"):
        raise CheckFailed("GET /docs?format=json: no paths in the OpenAPI description")
    return f"health, OpenAPI ({len(spec['paths'])} paths), public: no 401/403"


def domain_names(root: Path = ROOT) -> list[str]:
    """Every domain of infra/domains/ (one module each), read from the folder: importing it would start jsii."""
    return sorted(p.stem for p in (root / "infra" / "domains").glob("*.py") if not p.stem.startswith("_"))


def check_domain(c: Client, name: str, examples: bool, run: str) -> str:
    """The summary of a passed domain; CheckFailed with the first broken promise."""
    if name == "platform":
        return platform_check(c, examples)
    check = CHECKS.get(name)
    if check is None:
        raise NoCheck("no smoke check yet: add one to CHECKS in tools/smoke.py")
    done = []
    if examples:
        check.examples(c)
        done.append("examples")
    read = check.round_trip(c, run)
    done.append("round trip")
    timing = read.headers.get("Server-Timing", "")
    if not timing.startswith("ddb;"):
        raise CheckFailed(f"{read.method} {read.path}: no Server-Timing ddb entry (got {timing!r})")
    done.append("Server-Timing")
    unauthenticated = c.call("GET", check.unauthenticated, None)
    same(f"GET {check.unauthenticated} without a token", unauthenticated.status, 401)
    done.append("401")
    if check.forbidden:
        method, path, body = check.forbidden
        refused = c.call(method, path, USER, **({"json": body} if body is not None else {}))
        same(f"{method} {path} by a non-admin", refused.status, 403)
        done.append("403")
    return "; ".join([", ".join(done)] + ([check.note] if check.note else []))


def run_tour(c: Client, names: Iterable[str], examples: bool, out: Callable[[str], None] = print) -> bool:
    names = list(names)
    width = max(len(n) for n in names)
    run = uuid.uuid4().hex[:10]
    passed = True
    for name in names:
        try:
            detail = check_domain(c, name, examples, run)
            out(f"ok   {name:<{width}}  {detail}")
        except NoCheck as exc:
            out(f"skip {name:<{width}}  {exc}")
        except (CheckFailed, requests.RequestException, KeyError, TypeError, ValueError) as exc:
            passed = False
            reason = str(exc) if isinstance(exc, CheckFailed) else f"{type(exc).__name__}: {exc}"
            out(f"FAIL {name:<{width}}  {reason}")
    return passed


def local_tokens(keys_dir: Path | None) -> TokenSource:
    from local.auth import mint_token

    return lambda user, groups: mint_token(user, groups, keys_dir=keys_dir)


def stage_tokens(stage: str) -> TokenSource:
    """The deployed stage's ID tokens; the groups are the ones the pool holds for the user (set by `make user`)."""
    from tools.cognito_users import stage_token

    return lambda user, groups: stage_token(stage, user)


def main(argv: list[str] | None = None, tokens: TokenSource | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.smoke", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=None, help=f"the API's base URL (default {DEFAULT_URL}, or with --stage "
                                                     "the stack's ApiUrl output)")
    parser.add_argument("--stage", default=None, help="a deployed stage: Cognito tokens of smoke-admin and smoke-user")
    parser.add_argument("--keys-dir", type=Path, default=None, help="local token keys (default .local/keys)")
    parser.add_argument("--examples", action=argparse.BooleanOptionalAction, default=None,
                        help="check the example data's answers (default: on locally, off with --stage)")
    parser.add_argument("--domain", action="append", default=None, help="only this domain (repeatable)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        if tokens is None:
            tokens = stage_tokens(args.stage) if args.stage else local_tokens(args.keys_dir)
        url = args.url or (api_url(args.stage) if args.stage else DEFAULT_URL)
    except (BotoCoreError, ClientError, KeyError) as exc:  # no credentials, no stack, no ApiUrl: one line
        log.error("%s: %s", type(exc).__name__, exc)
        return 1
    examples = args.examples if args.examples is not None else args.stage is None
    names = args.domain or domain_names()
    log.info("smoke tour of %s (%s tokens, examples %s)", url, f"stage {args.stage}" if args.stage else "local",
             "on" if examples else "off")
    return 0 if run_tour(Client(url, tokens), names, examples) else 1


def api_url(stage: str) -> str:
    """The stage's API base URL, from its stack's ApiUrl output."""
    import boto3

    from tools.cognito_users import stack_name

    (stack,) = boto3.client("cloudformation").describe_stacks(StackName=stack_name(stage))["Stacks"]
    return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}["ApiUrl"]


if __name__ == "__main__":
    sys.exit(main())
