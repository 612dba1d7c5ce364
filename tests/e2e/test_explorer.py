"""The model explorer (GET /explorer) in a real browser: Chromium, driven by Playwright, against the shared runtime.

It checks what a person would see: every domain and every access pattern of the catalogs on the page, no table or
cell wider than its box and no word broken across lines, at 1280 and 1440 px; signed in, one pattern run per domain
answering 200 with its items grouped by item collection and its cost; the token in the box winning over a persona's
kept one, and the page naming whose it is; a refusal shown with its code, message and what to do; every stream
consumer's demonstration changing what it derives, twice in a row, as its persona. Screenshots go to
.artifacts/explorer/ (kept by CI as the test's artifacts).

Debian's Chromium is used (`apt-get install chromium`; Playwright's own browser download does not work here): on a
machine without it, these tests skip and say so.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from functions.platform import explorer
from local.cognito import user_sub
from seeds import cart as cart_seed
from seeds import connected_car as car_seed
from seeds import voting as voting_seed
from tests.e2e.test_cart import new_cart, new_sku
from tests.e2e.test_voting import converge
from tests.support.waiting import eventually

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".artifacts" / "explorer"
# As the env notes say: without the background-networking flags Chromium keeps trying to reach Google's hosts.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# CI (.ci/run) installs Chromium and sets this: there, a missing browser fails the tests instead of skipping them.
REQUIRED = os.environ.get("BLUEPRINTS_REQUIRE_BROWSER") == "1"

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not REQUIRED,
    reason="Chromium is not installed: `apt-get install chromium` (Debian's package; .ci/run installs it) to run the "
           "explorer's browser tests",
)

# One pattern run per domain, as the domain's persona (the seed's user, with the admin group to see the items): a read
# of the seeded data that answers something.
RUNS = {
    "cart": "GET /cart/carts/{cartId}",
    "catalog": "GET /catalog/products/{productId}",
    "connected_car": "GET /connected-car/dealers/{dealerId}/timeslots",
    "contacts": "GET /contacts/persons/{personId}/addresses",
    "ecommerce": "GET /ecommerce/customers/{username}",
    "games": "GET /games/by-user/{userId}",
    "measurements": "GET /measurements/devices/{deviceId}/readings",
    "messaging": "GET /messaging/inbox",
    "order_entry": "GET /order-entry/products/{productId}/order-items",
    "patterns": "GET /patterns/repos/{owner}/{repo}/issues",
    "sessions": "GET /sessions/users/{username}",
    "users": "GET /users/by-email/{email}",
    "voting": "GET /voting/polls/{pollId}/results",
}
WIDTHS = (1280, 1440)
# Four domains' views, screenshotted for the record (.artifacts/explorer/view-<domain>.png).
SCREENSHOTS = ("connected_car", "messaging", "order_entry", "voting")
MODEL = explorer.model()
DOMAINS = {domain["name"]: domain for domain in MODEL["domains"]}


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        pytest.fail("BLUEPRINTS_REQUIRE_BROWSER=1 but Chromium is not installed (`apt-get install chromium`)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def open_page(browser, runtime, width: int = 1440, height: int = 900):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{runtime.url}/explorer")
    return context, page, errors


@pytest.fixture
def page(browser, runtime):
    context, page, errors = open_page(browser, runtime)
    yield page
    context.close()
    # a refused call (401, 409) is the browser's console error "Failed to load resource": that one is expected
    assert [e for e in errors if "Failed to load resource" not in e] == [], "the page logged errors"


def sign_in(page, api, user: str = "alice", groups: tuple[str, ...] = ("admin",), ttl: int = 3600) -> None:
    """Paste a token: it signs in at once, no button."""
    page.fill("#token", api.token(user, groups, ttl))
    expected = f"signed in as {user}" + (f" (groups: {', '.join(groups)})" if groups else "")
    assert page.inner_text("#who").startswith(expected)


def view(page, domain: str, pattern: str = "") -> object:
    address = f"#/{DOMAINS[domain]['slug']}" + (f"/{pattern}" if pattern else "")
    page.evaluate("hash => { location.hash = hash; }", address)
    section = page.locator(f"section[data-domain={domain}]")
    section.wait_for()
    return section


def overflow(page) -> int:
    """How many pixels the page is wider than the window (0: no horizontal scroll)."""
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


# What is laid out badly inside `root`: a table wider than the box it sits in, a table, cell or scrolling box whose
# content is wider than itself (scrollWidth over clientWidth), and a word (a run of letters and digits) of a text node
# whose characters lie on more than one line: broken inside. Code answers (`pre`) and form fields are left out: a
# JSON answer's cursor is one long word that has to break somewhere.
LAYOUT_FAULTS = r"""root => {
  const faults = [];
  const name = (node) => `${node.tagName.toLowerCase()}.${node.className || "-"} "${node.textContent.slice(0, 50)}"`;
  for (const node of root.querySelectorAll("table, th, td, .scroll")) {
    if (!node.getClientRects().length) continue;  // hidden (a closed runner's row)
    if (node.scrollWidth > node.clientWidth + 1) {
      faults.push(`${name(node)}: content ${node.scrollWidth} px wide in ${node.clientWidth} px`);
    }
    const box = node.parentElement;
    if (node.tagName === "TABLE" && node.getBoundingClientRect().right > box.getBoundingClientRect().right + 1) {
      faults.push(`${name(node)}: ${Math.round(node.getBoundingClientRect().width)} px wide in a box of ` +
                  `${box.clientWidth} px`);
    }
  }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {acceptNode: (text) =>
    text.parentElement.closest("pre, textarea, select, script, style") ? NodeFilter.FILTER_REJECT
      : NodeFilter.FILTER_ACCEPT});
  const range = document.createRange();
  while (walker.nextNode()) {
    const text = walker.currentNode;
    for (const word of text.data.matchAll(/[\p{L}\p{N}]{2,}/gu)) {
      range.setStart(text, word.index);
      range.setEnd(text, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter((rect) => rect.width > 0)
        .map((rect) => Math.round(rect.top)));
      if (lines.size > 1) faults.push(`"${word[0]}" broken over ${lines.size} lines in ${name(text.parentElement)}`);
    }
  }
  return faults;
}"""


def layout_faults(locator) -> list[str]:
    return locator.evaluate(LAYOUT_FAULTS)


def slug_of(domain: str, route: str) -> str:
    """The slug of the first pattern of the domain's catalog that runs this route."""
    method, path = route.split(" ", 1)
    for pattern in DOMAINS[domain]["patterns"]:
        if any(r["method"] == method and r["path"] == path for r in pattern["requests"]):
            return pattern["slug"]
    raise AssertionError(f"no pattern of {domain} runs {route}")


def run(page, domain: str, slug: str, *, body: str | None = None):
    """Open the pattern by its address, run it, and wait for the answer."""
    section = view(page, domain, slug)
    runner = section.locator(f"tr[data-slug='{slug}'] + tr .runner")
    runner.locator("button.go").wait_for()
    if body is not None:
        runner.locator("textarea[name=body]").fill(body)
    runner.locator("button.go").click()
    runner.locator(".output .status").wait_for()
    return runner


def test_the_landing_view_lists_every_model_with_its_seed_user_and_whole_summary(page):
    assert page.title() == "Blueprints model explorer"
    models = page.locator("#landing .model")
    assert models.count() == len(MODEL["domains"]) >= 13  # the seeds' thirteen, and any domain make new-domain added
    for domain in MODEL["domains"]:
        card = page.locator(f"#landing .model[data-domain={domain['name']}]")
        assert card.locator("h2").inner_text() == domain["title"]
        assert f"seed data as {domain['persona']}" in card.inner_text()
        # the whole summary, its line breaks as spaces (not cut at the first: "…aggregated from the")
        assert card.locator("p").first.inner_text() == " ".join(domain["summary"].split())
    assert page.locator("nav a[data-domain]").all_inner_texts() == [d["title"] for d in MODEL["domains"]]
    # one domain per view, at its own address
    page.locator("#landing .model[data-domain=voting] h2 a").click()
    page.wait_for_url("**#/voting")
    page.locator("section[data-domain=voting] h2").wait_for()  # the view renders after the address changes
    assert page.locator("section.domain").count() == 1 and page.locator("section[data-domain=voting] h2").is_visible()
    page.screenshot(path=ARTIFACTS / "landing.png")


def test_a_views_workbench_model_is_the_json_workbench_imports(browser, page):
    # Given the voting view, which names its NoSQL Workbench model
    hint = view(page, "voting").locator(".hint.workbench")
    path = hint.locator("code").inner_text()
    assert path == DOMAINS["voting"]["workbench"] and "Import data model" in hint.inner_text()
    # When that file is opened in the browser
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        shown = context.new_page()
        shown.goto((ROOT / path).as_uri())
        model = json.loads(shown.locator("body").inner_text())
        shown.screenshot(path=ARTIFACTS / "workbench-voting.png")
    finally:
        context.close()
    # Then it is Workbench's model JSON (version 3.0) with the view's tables, each with a facet and sample items
    assert model["ModelMetadata"]["Version"] == "3.0"
    tables = {table["TableName"]: table for table in model["DataModel"]}
    assert set(tables) == {table["name"] for table in DOMAINS["voting"]["tables"]}
    assert all(table["TableFacets"] and table["TableData"] for table in tables.values())


@pytest.mark.parametrize("width", WIDTHS)
def test_no_view_is_wider_than_the_window_and_each_shows_its_tables_and_patterns(browser, runtime, api, width):
    context, page, errors = open_page(browser, runtime, width=width)
    try:
        assert overflow(page) == 0, "the landing view"
        for domain in MODEL["domains"]:
            section = view(page, domain["name"])
            assert section.locator(".tablespec .name").count() == len(domain["tables"])
            for table in domain["tables"]:
                box = section.locator(f".tablespec[data-table={table['name']}]")
                assert f"partition key {table['partitionKey']['name']}" in box.inner_text()
                assert box.locator("table tr").count() == (len(table["indexes"]) + 1 if table["indexes"] else 0)
                # every index row inside its box (connected car's Appointment: sort key and projection visible)
                inner = box.evaluate("b => [b.getBoundingClientRect().right, ...[...b.querySelectorAll('td')].map("
                                     "c => c.getBoundingClientRect().right)]")
                assert max(inner[1:] or [0]) <= inner[0] + 1, (domain["name"], table["name"])
            # no table or cell wider than its box, no scrolling box that scrolls (the scale table included), no word
            # broken inside (TimeslotAppointmentIndex whole; `<pollId>#<bucket>` wraps after its `#`)
            assert layout_faults(section) == [], (domain["name"], width)
            shown = section.locator("table.patterns > tr[data-pattern] > td:first-child").all_inner_texts()
            assert [n.split("\n")[0] for n in shown] == [re.sub(r"[`*]", "", p["name"]) for p in domain["patterns"]]
            assert overflow(page) == 0, domain["name"]
            # the title is not under the sticky header
            header = page.locator("header").bounding_box()
            assert section.locator("h2").bounding_box()["y"] >= header["y"] + header["height"]
            if width == 1440 and domain["name"] in SCREENSHOTS:
                page.screenshot(path=ARTIFACTS / f"view-{domain['name']}.png", full_page=True)
    finally:
        context.close()
    assert errors == []


def test_a_pattern_address_opens_its_runner_below_the_sticky_header(page, api):
    sign_in(page, api, "alice")
    slug = slug_of("voting", RUNS["voting"])
    section = view(page, "voting", "results")  # a prefix or a word of the pattern's slug is enough
    row = section.locator(f"tr[data-slug='{slug}']")
    row.wait_for()
    assert row.locator("+ tr .runner").is_visible()
    header = page.locator("header").bounding_box()
    assert row.bounding_box()["y"] >= header["y"] + header["height"] - 1
    assert page.evaluate("() => location.hash") == "#/voting/results"


def test_a_pasted_token_signs_in_and_an_expired_one_says_how_to_get_a_new_one(page, api):
    # Given a token pasted, no button pressed
    page.fill("#token", api.token("david", ("admin",)))
    who = page.inner_text("#who")
    assert who.startswith("signed in as david (groups: admin) · expires in ") and who.endswith(" min"), who
    assert page.locator("#signin button").count() == 0
    # When an expired one is pasted
    page.fill("#token", api.token("alice", (), ttl=-60))
    # Then the page says so, and how to get a new one
    assert "expired" in page.inner_text("#who") and "make token USER=alice" in page.inner_text("#who")
    assert "signed in" not in page.inner_text("#who")
    runner = run(page, "voting", slug_of("voting", RUNS["voting"]))
    assert runner.locator(".output .status").get_attribute("data-status") == "401"
    # the refusal first in the output, with its code, the API's message and what to do
    refusal = runner.locator(".output > .refusal")
    assert refusal.get_attribute("data-code") == "UNAUTHORIZED" and refusal.get_attribute("data-status") == "401"
    assert runner.locator(".output > *").first.get_attribute("class") == "refusal"
    assert "the token expired at" in refusal.locator(".message").inner_text()
    hint = refusal.locator(".todo .signin-hint").inner_text()
    assert "expired" in hint and "make token USER=alice" in hint and "admin" not in hint


@pytest.mark.parametrize("domain", sorted(RUNS))
def test_a_pattern_runs_as_the_domains_persona_and_bills_every_call(page, api, domain):
    persona = DOMAINS[domain]["persona"]
    sign_in(page, api, persona)
    section = view(page, domain)
    assert f"Runs as {persona}" in section.locator("#persona").inner_text()
    using = section.locator("#persona .using")
    assert (using.get_attribute("data-user"), using.get_attribute("data-source")) == (persona, "pasted")
    runner = run(page, domain, slug_of(domain, RUNS[domain]))
    status = runner.locator(".output .status")
    assert status.get_attribute("data-status") == "200", runner.locator(".output .answer").inner_text()
    request = runner.locator(".output pre.request").inner_text()
    assert request.startswith("GET /") and "{" not in request.split("\n")[0], request
    # a non-empty answer: the seed's data, read as its user
    answer = json.loads(runner.locator(".output .answer").inner_text())
    assert answer and (answer.get("items") if isinstance(answer, dict) and "items" in answer else answer), answer
    # the bill: one line per DynamoDB call, its table by its logical name, its items, consistency and rule
    lines = runner.locator(".output table.calls tr.call")
    whole = runner.locator(".output tr[data-metric=ddb] td").all_inner_texts()
    assert lines.count() == int(whole[1]) >= 1, whole
    names = {t["name"] for d in MODEL["domains"] for t in d["tables"]} | {t["name"] for t in MODEL["shared"]}
    for where in lines.locator("td.where").all_inner_texts():
        assert where.split(".")[0] in names, where  # a logical name, never a physical one
    rules = lines.locator("td.rule").all_inner_texts()
    rule_shape = r"\d+ items?, [\d.]+ K?B(, each rounded up)? → .* = [\d.]+ [RW]CU"
    assert all(re.search(rule_shape, rule) for rule in rules), rules
    for metric in runner.locator(".output table.cost tr[data-metric] td:first-child").all_inner_texts()[1:]:
        assert metric.split(".")[0] in names, metric
    collections = runner.locator(".output .collection")
    assert collections.count() >= 1
    shown = sum(int(re.search(r"\((\d+) items?\)", text).group(1)) for text in
                collections.locator(".pk").all_inner_texts())
    assert shown == runner.locator(".output .collection tr.item").count() >= 1
    # nothing on the page reads "null" or "undefined" where an element was left out
    stray = page.evaluate("""() => { const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        let found = 0;
        while (walker.nextNode()) { if (/^\\s*(null|undefined)\\s*$/.test(walker.currentNode.data)) found++; }
        return found; }""")
    assert stray == 0
    assert overflow(page) == 0  # a long answer (a nextCursor) wraps inside its box
    runner.screenshot(path=ARTIFACTS / f"run-{domain}.png")


def test_davids_message_is_read_as_david(page, api):
    sign_in(page, api, "david")
    runner = run(page, "messaging", slug_of("messaging", "GET /messaging/messages/{msgId}"))
    assert runner.locator(".output .status").get_attribute("data-status") == "200"
    assert json.loads(runner.locator(".output .answer").inner_text())["msgId"] == "3kf8"


def test_a_fan_out_shows_its_calls_in_parallel_beside_the_wall_time(page, api):
    sign_in(page, api, DOMAINS["order_entry"]["persona"])
    route = "GET /order-entry/orders"
    runner = run(page, "order_entry", slug_of("order_entry", route))
    assert runner.locator(".output .status").get_attribute("data-status") == "200"
    calls = runner.locator(".output table.calls tr.call").count()
    assert calls > 1
    times = runner.locator(".output .times").inner_text()
    assert re.search(rf"in DynamoDB: [\d.]+ ms summed over {calls} calls", times), times
    assert "ms wall (in the browser)" in times
    # the Queries run in parallel threads: their sum is labelled as such, beside the time one was in flight
    assert re.search(r"the calls ran in parallel: [\d.]+ ms wall", times), times
    runner.screenshot(path=ARTIFACTS / "fan-out.png")


def test_a_refused_write_is_billed_and_shown_as_refused(page, api):
    sign_in(page, api, "alice")
    slug = slug_of("voting", "PUT /voting/polls/{pollId}")
    # the example poll exists: another definition under its id is refused by the PutItem's condition
    runner = run(page, "voting", slug, body=json.dumps({"question": "Another question?",
                                                         "candidates": ["Streams", "Indexes"]}))
    assert runner.locator(".output .status").get_attribute("data-status") == "409"
    refused = runner.locator(".output table.calls tr.call.refused")
    assert refused.count() == 1
    line = refused.inner_text()
    assert "PutItem" in line and "refused · estimated" in line and "~1 (refused, estimated)" in line, line
    assert re.search(r"refused: larger of stored [\d.]+ K?B and attempted [\d.]+ K?B → 1 × 1 KB = 1 WCU", line), line
    whole = runner.locator(".output tr[data-metric=ddb] td").all_inner_texts()
    assert whole[4] == "0" and whole[5] == "1 refused, ~1 WCU estimated", whole  # DynamoDB's own figure stays 0
    runner.screenshot(path=ARTIFACTS / "refused-write.png")


def test_an_update_shows_what_it_sets(page, api):
    # a cart and a SKU of their own (the seeded carts are other tests' expectations)
    owner, sku = f"shopper-{uuid.uuid4().hex[:8]}", new_sku(api)
    cart_id = new_cart(api, owner, {})
    sign_in(page, api, owner)
    section = view(page, "cart", slug_of("cart", "PUT /cart/carts/{cartId}/lines/{sku}"))
    runner = section.locator("table.patterns .runner").first
    runner.locator("button.go").wait_for()
    runner.locator("input[name=cartId]").fill(cart_id)
    runner.locator("input[name=sku]").fill(sku)
    runner.locator("textarea[name=body]").fill('{"quantity": 3}')
    runner.locator("button.go").click()
    runner.locator(".output .status").wait_for()
    assert runner.locator(".output .status").get_attribute("data-status") == "200"
    # the UpdateItem (one per line change since ADR 0107) shows what it sets, the line's map entry, not its bare key
    sets = runner.locator(".output .collection td.attributes code.sets").all_inner_texts()
    assert any(json.loads(text).get(f"lines.{sku}", {}).get("quantity") == 3 for text in sets), sets


def test_a_caller_outside_the_admin_group_gets_the_bill_but_not_the_items(page, api):
    sign_in(page, api, user="alice", groups=())
    runner = run(page, "voting", slug_of("voting", RUNS["voting"]))
    assert runner.locator(".output .status").get_attribute("data-status") == "200"
    assert runner.locator(".output table.calls tr.call").count() >= 1  # the bill per call, by logical names
    assert runner.locator(".output table.calls td.where").first.inner_text().startswith("Votes")
    assert runner.locator(".output .collection").count() == 0
    assert "shown to callers of the admin group" in runner.locator(".output").inner_text()


def test_the_token_in_the_box_wins_over_the_personas_and_the_page_says_whose_it_is(page, api):
    # Given alice's token pasted, then bob's: the page keeps alice's for the tab
    sign_in(page, api, "alice")
    sign_in(page, api, "bob", groups=())
    slug = slug_of("voting", "GET /voting/polls/{pollId}/votes/me")
    section = view(page, "voting")
    using = section.locator("#persona .using")
    # Then the voting view, alice's, says runs use bob's token, pasted, by his username and sub from the payload
    assert (using.get_attribute("data-user"), using.get_attribute("data-source")) == ("bob", "pasted")
    assert f"bob (sub {user_sub('bob')}): the token pasted in the box" in using.inner_text()
    # When a pattern runs, it runs as bob (the seed's bob voted Transactions, alice Streams), and the request says so
    runner = run(page, "voting", slug)
    assert json.loads(runner.locator(".output .answer").inner_text())["candidate"] == "Transactions"
    assert f"<the token of bob (sub {user_sub('bob')}): the token pasted in the box>" in runner.locator(
        ".output pre.request").inner_text()
    # When alice's kept token is taken back into the box, it is the one in use
    section.locator("#persona button.use-persona").click()
    assert page.input_value("#token") and page.inner_text("#who").startswith("signed in as alice (groups: admin)")
    assert (using.get_attribute("data-user"), using.get_attribute("data-source")) == ("alice", "pasted")
    runner.locator("button.go").click()
    eventually(lambda: json.loads(runner.locator(".output .answer").inner_text())["candidate"] == "Streams")
    # When the box is emptied, the view's persona's kept token is used, and the page says where it came from
    page.fill("#token", "")
    assert page.inner_text("#who") == "not signed in"
    assert (using.get_attribute("data-user"), using.get_attribute("data-source")) == ("alice", "persona")
    assert "alice's token kept from an earlier paste in this tab (the box is empty)" in using.inner_text()
    runner.locator("button.go").click()
    eventually(lambda: "kept from an earlier paste" in runner.locator(".output pre.request").inner_text())
    assert json.loads(runner.locator(".output .answer").inner_text())["candidate"] == "Streams"


def test_a_refusal_is_shown_first_and_as_large_as_a_success_with_its_code_and_what_to_do(page, api):
    size = "e => parseFloat(getComputedStyle(e).fontSize)"
    sign_in(page, api, "alice", groups=())
    success = run(page, "voting", slug_of("voting", RUNS["voting"])).locator(".output")
    assert success.locator(".refusal").count() == 0  # a success shows no refusal
    success_size = success.locator(".status.ok").evaluate(size)
    # a second ballot: 409 ALREADY_VOTED, the rule that refused it, and the way out (change the vote)
    runner = run(page, "voting", slug_of("voting", "POST /voting/polls/{pollId}/votes"))
    refusal = runner.locator(".output > .refusal")
    assert runner.locator(".output > *").first.get_attribute("class") == "refusal"
    assert (refusal.get_attribute("data-status"), refusal.get_attribute("data-code")) == ("409", "ALREADY_VOTED")
    assert refusal.locator(".head").inner_text() == "Refused: 409 ALREADY_VOTED"
    assert refusal.locator(".message").inner_text().strip()
    assert "change your vote" in refusal.locator(".todo").inner_text()
    assert "one vote per voter and poll" in refusal.locator(".rule").inner_text()
    assert refusal.locator(".head").evaluate(size) >= success_size >= 16
    assert refusal.is_visible() and refusal.bounding_box()["height"] > 40
    runner.screenshot(path=ARTIFACTS / "refusal-409.png")
    # a write of the admin group without it: 403, and the token to get
    runner = run(page, "voting", slug_of("voting", "PUT /voting/polls/{pollId}"))
    refusal = runner.locator(".output > .refusal")
    assert (refusal.get_attribute("data-status"), refusal.get_attribute("data-code")) == ("403", "FORBIDDEN")
    assert "make token USER=alice GROUPS=admin" in refusal.locator(".todo").inner_text()
    # something that is not a token in the box: 401, and the persona's token to get
    page.fill("#token", "not-a-token")
    runner.locator("button.go").click()
    refusal = runner.locator(".output > .refusal[data-status='401']")
    refusal.wait_for()
    assert "not a JWT" in refusal.locator(".message").inner_text()
    assert "make token USER=alice" in refusal.locator(".todo .signin-hint").inner_text()


def run_demo(box) -> None:
    """Press the demonstration's button and wait for what the consumer derived (20 s at most, as the page waits)."""
    box.locator("button.go").click()
    box.locator(".output .derived, .output .refusal").first.wait_for(timeout=30_000)


def seed_state(api) -> tuple[str, str, bool]:
    """What the demonstrations change of alice's example data: her vote, SKU-COFFEE's price, her `isActive`."""
    vote = api.call("GET", f"/voting/polls/{voting_seed.POLL_ID}/votes/me", user="alice").json()["candidate"]
    price = api.call("GET", "/cart/prices/SKU-COFFEE", user="alice").json()["price"]
    active = api.call("GET", "/connected-car/customers/alice", user="alice").json()["isActive"]
    return vote, price, active


@pytest.fixture
def seed_restored(api) -> Iterator[None]:
    """Whatever a demonstration left, the example data as the other tests expect it afterwards."""
    yield
    alice_vin = next(vin for user, vin, _ in car_seed.REGISTRATIONS if user == "alice")
    vote, price, active = seed_state(api)
    if vote != "Streams":
        api.call("PUT", f"/voting/polls/{voting_seed.POLL_ID}/votes/me", user="alice", json={"candidate": "Streams"})
    if Decimal(price) != cart_seed.PRICES["SKU-COFFEE"]:
        api.call("PUT", "/cart/prices/SKU-COFFEE", user="root", groups=("admin",),
                 json={"price": str(cart_seed.PRICES["SKU-COFFEE"]), "currency": "USD"})
    if not active:
        api.call("PUT", f"/connected-car/customers/alice/registrations/{alice_vin}", user="alice",
                 json={"statusCode": "active"})
    converge(api, voting_seed.POLL_ID, voting_seed.expected_totals(), timeout=10.0)
    eventually(lambda: api.call("GET", "/connected-car/customers/alice", user="alice").json()["isActive"],
               timeout=10.0)


PERSONAS = sorted({domain["persona"] for domain in MODEL["domains"] if domain["streams"]})


def test_every_stream_demonstration_changes_what_its_consumer_derives_twice_in_a_row_as_its_persona(
        browser, runtime, api, seed_restored):
    """Each demonstration reads what is stored and writes another value, so it works the second run as the first
    (the same price again streams nothing, a second ballot is a 409); two runs put the example data back."""
    assert seed_state(api) == ("Streams", str(cart_seed.PRICES["SKU-COFFEE"]), True)
    context, page, errors = open_page(browser, runtime, width=1280)
    try:
        for persona in PERSONAS:
            sign_in(page, api, persona)  # with the admin group: a price is reference data
            for domain in [d for d in MODEL["domains"] if d["streams"] and d["persona"] == persona]:
                section = view(page, domain["name"])
                for demo in domain["streams"]:
                    box = section.locator(f".demo[data-demo='{demo['name']}']")
                    assert box.locator("textarea").count() == 0 and "Each run reads" in box.inner_text()
                    for attempt in (1, 2):
                        run_demo(box)
                        where = (domain["name"], demo["name"], attempt)
                        refused = box.locator(".output .refusal")
                        assert refused.count() == 0, (where, refused.all_inner_texts())
                        assert box.locator(".output .write .status").get_attribute("data-status") in ("200", "201")
                        assert box.locator(".output .derived.changed").count() == 1, where
                        assert layout_faults(box) == [], where
                        written = json.loads(box.locator(".output .write pre.request").inner_text().split("\n\n", 1)[1])
                        derived = json.loads(box.locator(".output .derived .answer").inner_text())
                        if domain["name"] == "cart":  # the newest notification is of the price just set
                            assert Decimal(derived["items"][0]["newPrice"]) == Decimal(written["price"]), where
                        elif domain["name"] == "connected_car":
                            assert derived["isActive"] is (written["statusCode"] == "active"), where
                        else:  # the ballot moved between totals: the counted votes are the seed's
                            assert derived["totalVotes"] == sum(voting_seed.expected_totals().values()), where
                            assert derived["totals"][written["candidate"]] >= 1, where
                        box.screenshot(path=ARTIFACTS / f"stream-{domain['name']}-{attempt}.png")
    finally:
        context.close()
    assert [e for e in errors if "Failed to load resource" not in e] == []
    # two runs put everything back: alice votes Streams, SKU-COFFEE costs 12.50, alice is active
    converge(api, voting_seed.POLL_ID, voting_seed.expected_totals())
    assert seed_state(api) == ("Streams", str(cart_seed.PRICES["SKU-COFFEE"]), True)


# --- CORS: a page on another origin calls the API --------------------------------------------------------------

DENIED_ORIGIN = "http://cors-denied.test"
# What the page on the other origin runs: a simple GET, a GET with a token (a preflight first: Authorization is not a
# CORS-safelisted header), and a refusal of API Gateway's own (401, no token). Each answer as the page can read it.
CALLS = """async ([api, token]) => {
  const read = async (path, headers) => {
    try {
      const answer = await fetch(api + path, {headers});
      return {status: answer.status, body: await answer.text(), timing: answer.headers.get("Server-Timing")};
    } catch (error) { return {error: String(error)}; }
  };
  return {health: await read("/health", {}),
          persons: await read("/contacts/persons?limit=1", {Authorization: "Bearer " + token}),
          refused: await read("/contacts/persons?limit=1", {})};
}"""


@pytest.fixture(scope="module")
def other_origin() -> Iterator[int]:
    """A static page on another loopback port, for the browser to load as CORS_TEST_ORIGIN or DENIED_ORIGIN."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>another origin</title><p>a page that is not the API"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_page_on_an_allowed_origin_can_call_the_api_and_one_on_another_origin_cannot(browser, runtime, api,
                                                                                      other_origin):
    from tests.e2e.conftest import CORS_TEST_ORIGIN

    # Given both origins' names resolved to the page's loopback server, port included, by Chromium itself: the
    # origins are http://cors-allowed.test and http://cors-denied.test, as on the internet, and stay loopback
    hosts = [origin.removeprefix("http://") for origin in (CORS_TEST_ORIGIN, DENIED_ORIGIN)]
    rules = ",".join(f"MAP {host} 127.0.0.1:{other_origin}" for host in hosts)
    seen = {}
    chromium = browser.browser_type.launch(executable_path=CHROMIUM,
                                           args=[*CHROMIUM_ARGS, f"--host-resolver-rules={rules}"])
    try:
        for origin in (CORS_TEST_ORIGIN, DENIED_ORIGIN):
            page = chromium.new_page()
            page.goto(origin + "/")
            assert page.evaluate("location.origin") == origin
            seen[origin] = page.evaluate(CALLS, [runtime.url, api.token("alice")])
            page.close()
    finally:
        chromium.close()
    # Then the allowed page reads the answers, a preflighted one and the gateway's own refusal included
    allowed = seen[CORS_TEST_ORIGIN]
    assert (allowed["health"]["status"], json.loads(allowed["health"]["body"])) == (200, {"status": "ok"})
    assert allowed["persons"]["status"] == 200 and len(json.loads(allowed["persons"]["body"])["items"]) == 1
    assert allowed["persons"]["timing"].startswith("ddb;")  # an exposed header: the cost of the call
    assert allowed["refused"]["status"] == 401 and json.loads(allowed["refused"]["body"])["error"]["code"] == (
        "UNAUTHORIZED")
    # and the other page reads none: the browser refuses each answer (fetch fails) for want of its origin
    assert all("Failed to fetch" in answer.get("error", "") for answer in seen[DENIED_ORIGIN].values()), seen
