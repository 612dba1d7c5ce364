"""`make smoke URL=<base url> [STAGE=<stage>]`: the README's tour as one command, against the local runtime or a
deployed stage. One line per domain (`ok   contacts ...` or `FAIL contacts ...reason`; `skip` for a domain with no
check here yet, as `make new-domain` leaves it); exit status 0 only if no domain failed.

Per domain: a couple of the example data's answers that the docs pages and e2e tests state, a write -> read ->
delete round trip of its own data (ids named by the run, `smoke-<run>`, so it disturbs nothing else), the
`Server-Timing` header on the read, 401 without a token, and 403 for a signed-in non-admin's write. Then, whatever
failed, everything the domain's round trip wrote is deleted (tools/leftovers.py): through the API where a route deletes
it, else in the tables by the keys it wrote, with your AWS credentials on a stage (the stage's tables, found through
its stack: tools/stage.py) or on the local runtime's DynamoDB endpoint (`--dynamodb-endpoint`, default
127.0.0.1:$LOCAL_AWS_PORT or 8000). Each domain's `leaves` says how; the README's smoke table says the same, and a test
holds them equal. What stays: the users `smoke-admin` and `smoke-user`, and the connected-car customer `smoke-driver`,
reused by name from run to run.

Tokens come the way `make token` gives them: minted locally without --stage; with --stage, ID tokens of the deployed
stage's users `smoke-admin` (group admin) and `smoke-user` (tools/cognito_users.py), which you create once:
    make user STAGE=<stage> USER=smoke-admin GROUPS=admin && make user STAGE=<stage> USER=smoke-user
The example data is loaded by the local runtime only (seeds/), so with --stage the example checks are off unless
--examples asks for them (they then also need the seed's users: bob, david... made with `make user`).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests

from functions.cart.schema import CART_TABLE, HOLDER_TABLE, PRICE_TABLE, holder_key, holder_shard
from functions.catalog.schema import PRODUCTS_TABLE
from functions.connected_car.schema import DEALER_TABLE, REGISTRATION_TABLE, TIMESLOT_TABLE, VEHICLE_TABLE
from functions.contacts.schema import CONTACT_TABLE
from functions.ecommerce.schema import ECOMMERCE_TABLE, customer_key, email_key
from functions.games.schema import GAMES_TABLE
from functions.measurements.schema import MEASUREMENTS_TABLE
from functions.messaging.schema import MESSAGES_TABLE
from functions.order_entry.schema import ORDER_ENTRY_TABLE, entity_key
from functions.patterns.schema import PATTERNS_TABLE, repo_pk
from functions.voting.schema import APPLIED_SK, POLL_SK, RAW_VOTES_TABLE, VOTES_TABLE, ballot_pk, segment_pk
from tools.leftovers import Cleanup, CleanupError, Tables, local_tables, stage_tables, wait_until

log = logging.getLogger("smoke")

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "http://127.0.0.1:3000"
ADMIN = ("smoke-admin", ("admin",))
USER = ("smoke-user", ())
DRIVER = "smoke-driver"  # the connected-car customer of every run, reused by name (connected_car_round_trip says why)
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
    # Returns the round trip's read, which must carry Server-Timing; registers the undoing of each write it makes.
    round_trip: Callable[[Client, str, Cleanup], Reply]
    unauthenticated: str  # a GET path that needs a token
    # (method, path, body) a signed-in non-admin may not write: `{run}` in the path is the run's id, so that a broken
    # group check would write only what the run owns, never the example data
    forbidden: tuple[str, str, Any] | None
    leaves: str  # how the cleanup removes what the round trip wrote (the README's smoke table, word for word)
    note: str = ""  # what the line says in place of a check the domain has no route for


def route_deleter(c: Client) -> Callable[[str, Any], None]:
    """DELETE through the API for a cleanup; a 404 is fine (gone already)."""
    def delete(path: str, who: Identity) -> None:
        reply = c.call("DELETE", path, who)
        if reply.status not in (200, 204, 404):
            raise CleanupError(f"{reply.status} {reply.text()}")

    return delete


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


def contacts_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    street = f"{run} Smoke Street"
    created = c.expect(201, "POST", "/contacts/addresses", ADMIN,
                       json={"streetAddress": street, "city": "Denver", "state": "CO", "zipCode": "80202"})
    undo.partition(CONTACT_TABLE, created["id"])  # the address's item
    read = c.call("GET", f"/contacts/items/{created['id']}")
    same("the address read back", (read.status, [i.get("streetAddress") for i in (read.body or {}).get("items", [])]),
         (200, [street]))
    return read


def users_examples(c: Client) -> None:
    same("bob's join date", c.expect(200, "GET", "/users/bob", ("bob", ()))["joinDate"], "2011-11-15")
    same("the user of fred@yahoo.com", c.expect(200, "GET", "/users/by-email/fred@yahoo.com", ADMIN)["userId"], "fred")


def users_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    user_id, email = f"smoke-{run}", f"smoke-{run}@example.com"
    undo.route(f"/users/{user_id}", ADMIN)  # the user and its email's item
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


def games_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    game = f"smoke-{run}"
    undo.item(GAMES_TABLE, {"GameId": game})
    c.expect(201, "POST", "/games", ADMIN, json={"gameId": game, "name": "Smoke game", "maxPlayers": 2})
    me = USER[0]
    undo.route(f"/games/{game}/players/{me}", USER)  # the membership, before the game
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


def catalog_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    product = f"/catalog/products/smoke-{run}"
    undo.partition(PRODUCTS_TABLE, f"smoke-{run}")  # the product's item collection
    c.expect(200, "PUT", product, ADMIN, json={"kind": "album", "title": "Smoke album"})
    undo.route(f"{product}/children/track/1", ADMIN)
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


def measurements_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    device, now = f"smoke-{run}", int(time.time())
    undo.partition(MEASUREMENTS_TABLE, device)  # its bins
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


def messaging_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    subject = f"smoke {run}"
    sent = c.expect(201, "POST", "/messaging/messages", USER,
                    json={"recipient": ADMIN[0], "subject": subject, "body": "Hello from make smoke"})
    undo.item(MESSAGES_TABLE, {"MsgId": sent["msgId"]})  # the message (its inbox and outbox entries are its indexes)
    read = c.call("GET", f"/messaging/messages/{sent['msgId']}", ADMIN)
    same("the message its recipient reads", (read.status, (read.body or {}).get("subject")), (200, subject))
    return read


def sessions_examples(c: Client) -> None:
    from seeds.sessions import DAVE_TOKEN

    same("dave's example session", c.expect(200, "GET", f"/sessions/{DAVE_TOKEN}", ("dave", ()))["username"], "dave")


def sessions_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    token = c.expect(201, "POST", "/sessions")["sessionToken"]
    undo.route(f"/sessions/{token}", USER)
    read = c.call("GET", f"/sessions/{token}")
    same("the session read back", (read.status, (read.body or {}).get("username")), (200, USER[0]))
    c.expect(204, "DELETE", f"/sessions/{token}")
    c.expect(404, "GET", f"/sessions/{token}")
    return read


def voting_examples(c: Client) -> None:
    poll = c.expect(200, "GET", "/voting/polls/favourite-feature")
    same("the example poll's candidates", poll["candidates"], ["Streams", "Transactions", "TTL", "Global tables"])
    c.expect(404, "GET", "/voting/polls/favourite-feature/votes/me", ("heidi", ()))  # heidi withdrew her vote


def voting_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    poll = f"/voting/polls/smoke-{run}"
    undo.then(f"poll smoke-{run}", lambda tables: remove_poll(tables, f"smoke-{run}"))
    c.expect(201, "PUT", poll, ADMIN, json={"question": "Smoke?", "candidates": ["Yes", "No"]})
    undo.route(f"{poll}/votes/me", USER)  # the ballot withdrawn, before the poll goes
    c.expect(201, "POST", f"{poll}/votes", json={"candidate": "Yes"})
    read = c.call("GET", f"{poll}/votes/me")
    same("the ballot read back", (read.status, (read.body or {}).get("candidate")), (200, "Yes"))
    c.expect(204, "DELETE", f"{poll}/votes/me")
    c.expect(404, "GET", f"{poll}/votes/me")
    return read


def remove_poll(tables: Tables, poll_id: str) -> int:
    """The poll, its ballots and its aggregates, once the stream aggregator has applied every change of its ballots.

    The aggregator parks a ballot's record whose poll is gone (functions/voting/aggregator.py), and a ballot's delete
    is a record too. Each bucket's applied-change counter (`APPLIED`) sums the versions of the bucket's changes it has
    applied: when it equals the sum of its ballots' versions, none is in flight; after the ballots are deleted it goes
    back to 0 (each delete takes its ballot's version off). Only then do the aggregates and the poll go."""
    poll = tables.get(VOTES_TABLE, {"pollId": poll_id, "sk": POLL_SK})
    if poll is None:  # never created, or removed by a cleanup before: a ballot needs its poll, so there is none
        return 0
    buckets = range(int(poll.get("buckets", 1)))
    deleted = sum(remove_ballots(tables, poll_id, bucket) for bucket in buckets)
    deleted += sum(tables.delete_partition(VOTES_TABLE, segment_pk(poll_id, bucket)) for bucket in buckets)
    return deleted + tables.delete_partition(VOTES_TABLE, poll_id)


def remove_ballots(tables: Tables, poll_id: str, bucket: int) -> int:
    ballots = tables.items(RAW_VOTES_TABLE, ballot_pk(poll_id, bucket))
    if not ballots:
        return 0
    versions = sum(int(ballot.get("version", 0)) for ballot in ballots)
    wait_until(f"the aggregator applying the ballots of {poll_id} (bucket {bucket})",
               lambda: applied_changes(tables, poll_id, bucket) == versions)
    deleted = sum(tables.delete(RAW_VOTES_TABLE, {"pollBucket": b["pollBucket"], "userId": b["userId"]})
                  for b in ballots)
    wait_until(f"the aggregator applying the deletes of {poll_id}'s ballots (bucket {bucket})",
               lambda: applied_changes(tables, poll_id, bucket) == 0)
    return deleted


def applied_changes(tables: Tables, poll_id: str, bucket: int) -> int:
    item = tables.get(VOTES_TABLE, {"pollId": segment_pk(poll_id, bucket), "sk": APPLIED_SK})
    return int((item or {}).get("changes", 0))


def cart_examples(c: Client) -> None:
    from seeds.cart import ALICE_CART, CARTS

    cart = c.expect(200, "GET", f"/cart/carts/{ALICE_CART}", ("alice", ()))
    same("alice's open cart", (cart["status"], {x["sku"]: x["quantity"] for x in cart["lines"]}),
         ("OPEN", CARTS[ALICE_CART][1]))
    c.expect(404, "GET", f"/cart/carts/{ALICE_CART}", ("bob", ()))  # someone else's cart does not exist for bob


def cart_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    sku = f"SMOKE-{run}"
    undo.item(PRICE_TABLE, {"sku": sku})  # no route deletes a price (its stream's consumer ignores a REMOVE)
    c.expect(200, "PUT", f"/cart/prices/{sku}", ADMIN, json={"price": "1.00"})
    cart = c.expect(201, "POST", "/cart/carts")["cartId"]
    undo.item(CART_TABLE, {"cartId": cart})  # no route deletes a cart (a delete that is not TTL's counts nothing)
    c.expect(200, "PUT", f"/cart/carts/{cart}/lines/{sku}", json={"quantity": 2})
    undo.then(f"the holder of {sku} in cart {cart}", lambda tables: remove_holder(tables, sku, cart))
    read = c.call("GET", f"/cart/carts/{cart}")
    same("the cart's lines", (read.status, [(x["sku"], x["quantity"]) for x in (read.body or {}).get("lines", [])]),
         (200, [(sku, 2)]))
    c.call("DELETE", f"/cart/carts/{cart}/lines/{sku}")
    same("the lines after removing", c.expect(200, "GET", f"/cart/carts/{cart}")["lines"], [])
    return read


def remove_holder(tables: Tables, sku: str, cart: str) -> int:
    """The holder index item the Carts stream consumer writes for a line added (functions/cart/holder_index.py), once
    it is there: deleted before, it would be written after and stay until its TTL (past the cart's expiry)."""
    key = {"holder": holder_key(sku, holder_shard(cart)), "cartId": cart}
    wait_until(f"the Carts stream consumer writing {HOLDER_TABLE.construct_id} {key} (else it expires by TTL)",
               lambda: tables.get(HOLDER_TABLE, key) is not None)
    return tables.delete(HOLDER_TABLE, key)


def ecommerce_examples(c: Client) -> None:
    alex = c.expect(200, "GET", "/ecommerce/customers/alexdebrie", ADMIN)
    same("alexdebrie's name", alex["customer"]["name"], "Alex DeBrie")
    same("alexdebrie's orders, newest first", [o["orderId"] for o in alex["orders"]],
         ["1YRfXS14inXwIJEf9tO5hWnL2pi", "1VrgXBQ0VCshuQUnh1HrDIHQNwY"])


def ecommerce_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    customer = f"/ecommerce/customers/smoke-{run}"
    undo.item(ECOMMERCE_TABLE, email_key(f"smoke-{run}@example.com"))  # the email's uniqueness item
    undo.partition(ECOMMERCE_TABLE, customer_key(f"smoke-{run}")["PK"])  # the customer (its addresses are in it)
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


def order_entry_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    product = f"/order-entry/products/SMOKE-{run}"
    undo.partition(ORDER_ENTRY_TABLE, entity_key("product", f"SMOKE-{run}")["PK"])
    c.expect(200, "PUT", product, ADMIN, json={"name": "Smoke product", "priceCents": 199})
    read = c.call("GET", product)
    same("the product read back", (read.status, (read.body or {}).get("name")), (200, "Smoke product"))
    return read


def patterns_examples(c: Client) -> None:
    same("McDonalds' users", len(c.expect(200, "GET", "/patterns/orgs/McDonalds?limit=10")["items"]), 4)
    same("McDonalds' admins", len(c.expect(200, "GET", "/patterns/orgs/McDonalds/admins?limit=10")["items"]), 2)
    same("the featured repos", c.expect(200, "GET", "/patterns/featured")["repos"], ["alexdebrie/dynamodb-book"])


def patterns_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    repo, me = f"/patterns/repos/smoke/repo-{run}", USER[0]
    undo.partition(PATTERNS_TABLE, repo_pk("smoke", f"repo-{run}"))  # the repo's item collection
    c.expect(200, "PUT", repo, ADMIN, json={"description": "make smoke"})
    undo.route(f"{repo}/stars/{me}", USER)
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


def connected_car_round_trip(c: Client, run: str, undo: Cleanup) -> Reply:
    """The customer is `smoke-driver`, the same every run (PUT is an upsert), and never deleted: the Registration
    stream's consumer parks a record whose customer is gone (functions/connected_car/active_customers.py), and
    nothing tells when the records of the registration's writes and delete have all been read."""
    base, dealer, username, vin = "/connected-car", f"smoke-{run}", DRIVER, vin_of(run)
    day = datetime.now(UTC).date() + timedelta(days=400 + int(run, 16) % 3000)
    hour = f"{day.isoformat()}T10"
    undo.partition(DEALER_TABLE, dealer)
    undo.partition(TIMESLOT_TABLE, dealer)  # its timeslots
    c.expect(200, "PUT", f"{base}/dealers/{dealer}", ADMIN, json={"name": "Smoke Motors"})
    c.expect(200, "PUT", f"{base}/dealers/{dealer}/timeslots/{hour}", ADMIN, json={"serviceBayCount": 1})
    c.expect(200, "PUT", f"{base}/customers/{username}", ADMIN,
             json={"name": "Smoke Driver", "email": f"{username}@example.com"})
    undo.item(VEHICLE_TABLE, {"vin": vin})
    c.expect(200, "PUT", f"{base}/vehicles/{vin}", ADMIN, json={"make": "Volvo", "model": "V70", "year": 2015})
    undo.item(REGISTRATION_TABLE, {"username": username, "vin": vin})  # its delete syncs the (kept) customer
    c.expect(200, "PUT", f"{base}/customers/{username}/registrations/{vin}", ADMIN, json={"statusCode": "active"})
    booked = c.expect(201, "POST", f"{base}/appointments", ADMIN,
                      json={"dealerId": dealer, "serviceDateHour": hour, "username": username, "vin": vin})
    undo.route(f"{base}/appointments/{booked['appointmentId']}", ADMIN)
    read = c.call("GET", f"{base}/appointments/{booked['appointmentId']}", ADMIN)
    same("the appointment read back", (read.status, (read.body or {}).get("serviceDateHour")), (200, hour))
    c.expect(204, "DELETE", f"{base}/appointments/{booked['appointmentId']}", ADMIN)
    slot = c.expect(200, "GET", f"{base}/dealers/{dealer}/timeslots?from={hour}&to={hour}", ADMIN)["items"]
    same("the timeslot's free bays after cancelling", [s["availableBays"] for s in slot], [1])
    c.expect(200, "PUT", f"{base}/customers/{username}/registrations/{vin}", ADMIN, json={"statusCode": "inactive"})
    return read


CHECKS: dict[str, DomainCheck] = {
    "cart": DomainCheck(
        cart_examples, cart_round_trip, "/cart/notifications", ("PUT", "/cart/prices/SMOKE-{run}", {"price": "0.01"}),
        leaves="the cart (its lines in it) and the price in the tables (no route deletes them); the holder index "
               "item once the Carts stream consumer has written it (if it has not within a minute, it expires by its "
               "TTL, at most 15 days on)"),
    "catalog": DomainCheck(
        catalog_examples, catalog_round_trip, "/catalog/products/2",
        ("PUT", "/catalog/products/smoke-{run}-refused", {"kind": "album", "title": "Not yours"}),
        leaves="the track through the API; the product's items in the table (no route deletes a product)"),
    "connected_car": DomainCheck(
        connected_car_examples, connected_car_round_trip, "/connected-car/dealers/boulder-north",
        ("PUT", "/connected-car/dealers/smoke-{run}-refused", {"name": "Not yours"}),
        leaves="the appointment through the API; the dealer, its timeslots, the vehicle and the registration in the "
               "tables; the customer `smoke-driver` stays, reused by name (a registration's stream record that found "
               "its customer deleted would be parked)"),
    "contacts": DomainCheck(
        contacts_examples, contacts_round_trip, "/contacts/persons",
        ("POST", "/contacts/persons", {"firstName": "Eve", "lastName": "Smoke"}),
        leaves="the address in the table (no delete route)"),
    "ecommerce": DomainCheck(
        ecommerce_examples, ecommerce_round_trip, "/ecommerce/customers/alexdebrie",
        ("PUT", "/ecommerce/customers/smoke-{run}-refused/email", {"email": "eve@example.com"}),
        leaves="the customer (its addresses in it) and its email's item in the table (no route deletes a "
               "customer)"),
    "games": DomainCheck(
        games_examples, games_round_trip, "/games/Game1",
        ("POST", "/games", {"gameId": "smoke-{run}-refused", "name": "Not yours", "maxPlayers": 2}),
        leaves="the membership through the API; the game in the table (no route deletes a game)"),
    "measurements": DomainCheck(
        measurements_examples, measurements_round_trip, "/measurements/devices/1/readings?from=0&to=1",
        ("POST", "/measurements/readings", {"readings": [
            {"deviceId": "smoke-{run}-refused", "epoch": int(time.time()), "temperature": 1, "pressure": 1}]}),
        leaves="the device's readings in the table (no delete route; their TTL is 90 days)"),
    "messaging": DomainCheck(
        messaging_examples, messaging_round_trip, "/messaging/inbox", None,
        leaves="the message in the table (no delete route)",
        note="no admin-only write (a caller sends as itself)"),
    "order_entry": DomainCheck(
        order_entry_examples, order_entry_round_trip, "/order-entry/employees/150",
        ("PUT", "/order-entry/products/smoke-{run}-refused", {"name": "Not yours", "priceCents": 1}),
        leaves="the product in the table (no delete route)"),
    "patterns": DomainCheck(
        patterns_examples, patterns_round_trip, "/patterns/featured",
        ("PUT", "/patterns/orgs/smoke-{run}-refused", {"name": "Not yours"}),
        leaves="the star through the API; the repo's items in the table (no route deletes a repo)"),
    "sessions": DomainCheck(
        sessions_examples, sessions_round_trip, "/sessions/users/smoke-user",
        ("DELETE", "/sessions/users/smoke-admin", None),
        leaves="the session through the API"),
    "users": DomainCheck(
        users_examples, users_round_trip, "/users/bob",
        ("PUT", "/users/smoke-{run}-refused/email", {"email": "eve@example.com"}),
        leaves="the user through the API"),
    "voting": DomainCheck(
        voting_examples, voting_round_trip, "/voting/polls/favourite-feature/results",
        ("PUT", "/voting/polls/smoke-{run}-refused", {"question": "Mine?", "candidates": ["A", "B"]}),
        leaves="the ballot withdrawn through the API; once the stream aggregator has applied it, the ballot's "
               "tombstone, the poll's aggregates and the poll in the tables (no route deletes a poll)"),
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


FAILURES = (CheckFailed, CleanupError, requests.RequestException, KeyError, TypeError, ValueError)


def check_domain(c: Client, name: str, examples: bool, run: str, tables: Tables) -> str:
    """The summary of a passed domain; CheckFailed with the first broken promise. Whatever happens, what the round
    trip wrote is deleted before this returns (try/finally); what could not be is the line's failure."""
    if name == "platform":
        return platform_check(c, examples)
    check = CHECKS.get(name)
    if check is None:
        raise NoCheck("no smoke check yet: add one to CHECKS in tools/smoke.py")
    cleanup = Cleanup(tables, route_deleter(c))
    try:
        done = domain_checks(c, check, examples, run, cleanup)
    except BaseException as exc:
        errors = cleanup.run()
        if errors and isinstance(exc, FAILURES):
            raise CheckFailed(f"{reason(exc)}; and left: {'; '.join(errors)}") from exc
        for error in errors:  # interrupted (Ctrl-C): said on stderr before the traceback
            log.error("%s: left %s", name, error)
        raise
    errors = cleanup.run()
    if errors:
        raise CheckFailed(f"{', '.join(done)}; but left: {'; '.join(errors)}")
    return "; ".join([", ".join(done), cleanup.summary()] + ([check.note] if check.note else []))


def domain_checks(c: Client, check: DomainCheck, examples: bool, run: str, cleanup: Cleanup) -> list[str]:
    done = []
    if examples:
        check.examples(c)
        done.append("examples")
    read = check.round_trip(c, run, cleanup)
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
        path = path.format(run=run)
        body = None if body is None else json.loads(json.dumps(body).replace("{run}", run))
        refused = c.call(method, path, USER, **({"json": body} if body is not None else {}))
        same(f"{method} {path} by a non-admin", refused.status, 403)
        done.append("403")
    return done


def reason(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, CheckFailed | CleanupError) else f"{type(exc).__name__}: {exc}"


def run_tour(c: Client, names: Iterable[str], examples: bool, tables: Tables, run: str) -> bool:
    """One line per domain on stdout; whether none failed."""
    names = list(names)
    width = max(len(n) for n in names)
    passed = True
    for name in names:
        try:
            detail = check_domain(c, name, examples, run, tables)
            print(f"ok   {name:<{width}}  {detail}")
        except NoCheck as exc:
            print(f"skip {name:<{width}}  {exc}")
        except FAILURES as exc:
            passed = False
            print(f"FAIL {name:<{width}}  {reason(exc)}")
    return passed


def new_run() -> str:
    return uuid.uuid4().hex[:10]


def run_id(text: str) -> str:
    """A run id as --run takes it: hex digits (connected car derives a date and a VIN from it)."""
    if not 6 <= len(text) <= 32 or any(ch not in "0123456789abcdef" for ch in text):
        raise argparse.ArgumentTypeError(f"{text!r}: 6 to 32 lowercase hex digits")
    return text


def local_tokens(keys_dir: Path | None) -> TokenSource:
    from local.cognito import mint_token

    return lambda user, groups: mint_token(user, groups, keys_dir=keys_dir)


def stage_tokens(stage: str, session: Any) -> TokenSource:
    """The deployed stage's ID tokens; the groups are the ones the pool holds for the user (set by `make user`)."""
    from tools.cognito_users import stage_token

    return lambda user, groups: stage_token(stage, user, session=session)


def local_dynamodb_endpoint() -> str:
    """The local runtime's DynamoDB endpoint, as `make run` serves it (LOCAL_AWS_PORT, default 8000)."""
    return f"http://127.0.0.1:{os.environ.get('LOCAL_AWS_PORT') or 8000}"


def main(argv: list[str] | None = None, tokens: TokenSource | None = None, tables: Tables | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.smoke", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default=None, help=f"the API's base URL (default {DEFAULT_URL}, or with --stage "
                                                     "the stack's ApiUrl output)")
    parser.add_argument("--stage", default=None, help="a deployed stage: Cognito tokens of smoke-admin and smoke-user, "
                                                      "and the stage's tables for what no route deletes")
    parser.add_argument("--keys-dir", type=Path, default=None, help="local token keys (default .local/keys)")
    parser.add_argument("--dynamodb-endpoint", default=None,
                        help="without --stage: the local runtime's DynamoDB endpoint, for what no route deletes "
                             "(default http://127.0.0.1:$LOCAL_AWS_PORT, or 8000)")
    parser.add_argument("--examples", action=argparse.BooleanOptionalAction, default=None,
                        help="check the example data's answers (default: on locally, off with --stage)")
    parser.add_argument("--domain", action="append", default=None, help="only this domain (repeatable)")
    parser.add_argument("--run", type=run_id, default=None,
                        help="the id the run's writes are named by, `smoke-<run>` (default: a fresh one)")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(message)s")
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        session = _session() if args.stage else None
        if tokens is None:
            tokens = stage_tokens(args.stage, session) if args.stage else local_tokens(args.keys_dir)
        url = args.url or (api_url(session, args.stage) if args.stage else DEFAULT_URL)
        if args.stage and args.url and args.url.rstrip("/") != api_url(session, args.stage).rstrip("/"):
            # the cleanup deletes in the stage's tables: writes through another API would stay, its lines saying ok
            log.error("URL= is not stage %s's ApiUrl (%s): the cleanup would delete in that stage's tables, not "
                      "behind %s; drop URL= or STAGE=", args.stage, api_url(session, args.stage), args.url)
            return 2
        if tables is None:
            tables = stage_tables(session, args.stage) if args.stage else local_tables(
                url, args.dynamodb_endpoint or local_dynamodb_endpoint())
    except (BotoCoreError, ClientError, KeyError) as exc:  # no credentials, no stack, no ApiUrl: one line
        log.error("%s: %s", type(exc).__name__, exc)
        return 1
    examples = args.examples if args.examples is not None else args.stage is None
    names = args.domain or domain_names()
    run = args.run or new_run()
    log.info("smoke tour of %s (%s tokens, examples %s), run %s", url,
             f"stage {args.stage}" if args.stage else "local", "on" if examples else "off", run)
    return 0 if run_tour(Client(url, tokens), names, examples, tables, run) else 1


def _session() -> Any:
    from tools.region import session

    return session()  # AWS_REGION, then AWS_DEFAULT_REGION, then the profile, said on stderr (tools/region.py)


def api_url(session: Any, stage: str) -> str:
    """The stage's API base URL, from its stack's ApiUrl output."""
    from tools.cognito_users import stack_name

    (stack,) = session.client("cloudformation").describe_stacks(StackName=stack_name(stage))["Stacks"]
    return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}["ApiUrl"]


if __name__ == "__main__":
    sys.exit(main())
