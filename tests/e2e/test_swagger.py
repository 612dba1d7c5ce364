"""Swagger UI (GET /docs) in a real browser, as a new user meets it: Debian's Chromium driven by Playwright against
the shared runtime (see test_explorer.py for the browser setup). It opens on one domain's routes, each path
parameter showing an id the seed wrote and filled in by "Try it out", so the first call finds data.

The time from navigation to the operations list is printed (a figure to read, not a timed assertion: the machine
is shared). Screenshots go to .artifacts/swagger/.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from functions.platform import docs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parents[2] / ".artifacts" / "swagger"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: `apt-get install chromium`")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def operations_of(domain: str) -> list[tuple[str, str, dict]]:
    spec = json.loads(docs.description("", domain))
    return [(method, path, op) for path, ops in spec["paths"].items() for method, op in ops.items()]


def open_docs(browser, url: str) -> tuple[object, float]:
    """A fresh browser (no cache) on the page; the seconds until the first operation is visible."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    started = time.monotonic()
    page.goto(url, wait_until="commit")
    page.wait_for_selector(".opblock-summary", state="visible", timeout=60_000)
    return page, time.monotonic() - started


def test_docs_opens_on_one_domain_with_every_domain_linked(browser, runtime):
    page, seconds = open_docs(browser, f"{runtime.url}/docs")
    first = docs.domains()[0]
    print(f"\nSwagger UI: operations of {first} visible {seconds:.2f} s after navigation")
    assert page.locator(".opblock").count() == len(operations_of(first))
    links = page.locator("nav#domains a").all_inner_texts()
    assert links == [name for name in docs.domains() if name != first] + [docs.ALL]
    page.context.close()


def test_a_path_parameter_shows_a_seeded_id_and_try_it_out_fills_it(browser, runtime, api):
    # Given the voting domain's page and the poll its seed created
    page, seconds = open_docs(browser, f"{runtime.url}/docs?domain=voting")
    print(f"\nSwagger UI: operations of voting visible {seconds:.2f} s after navigation")
    method, path, operation = next(o for o in operations_of("voting") if o[:2] == ("get", "/voting/polls/{pollId}"))
    example = next(p["example"] for p in operation["parameters"] if p["name"] == "pollId")
    assert api.call("GET", f"/voting/polls/{example}").status_code == 200
    block = page.locator(f"#operations-{operation['tags'][0]}-{operation['operationId']}")
    # When the operation is opened and "Try it out" pressed
    block.locator(".opblock-summary").click()
    row = block.locator("tr[data-param-name=pollId]")
    assert f"Example : {example}" in row.inner_text()
    block.locator(".try-out__btn").click()
    # Then the seeded id is in the input, ready to Execute
    assert row.locator("input").input_value() == example
    page.screenshot(path=ARTIFACTS / "voting.png")
    page.context.close()


def test_a_request_body_example_is_the_one_the_description_holds(browser, runtime):
    page, _ = open_docs(browser, f"{runtime.url}/docs?domain=connected-car")
    method, path, operation = next(o for o in operations_of("connected-car")
                                   if o[:2] == ("post", "/connected-car/appointments"))
    body = operation["requestBody"]["content"]["application/json"]["example"]
    assert body["dealerId"] and not body["serviceDateHour"].startswith("@")  # resolved to a date when served
    block = page.locator(f"#operations-{operation['tags'][0]}-{operation['operationId']}")
    block.locator(".opblock-summary").click()
    block.locator(".try-out__btn").click()
    shown = json.loads(block.locator("textarea.body-param__text").input_value())
    assert shown == body
    page.context.close()
