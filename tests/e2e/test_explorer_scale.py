"""The explorer's what-if, in Chromium against the shared runtime: a rate typed into a domain's scale view brings that
model's rows at that rate from GET /explorer/scale/{model} (the page computes nothing), and the route through the
local API Gateway: public, its input refused as every route refuses it. That the rows are `make scale`'s at that rate:
tests/unit/test_scale.py."""

from __future__ import annotations

import pytest

from tests.e2e.test_explorer import ARTIFACTS, CHROMIUM, DOMAINS, REQUIRED, browser, page, view  # noqa: F401 (fixtures)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None and not REQUIRED,
    reason="Chromium is not installed: `apt-get install chromium` to run the explorer's browser tests",
)


def shown_rows(section) -> list[list[str]]:
    return [row.locator("td").all_inner_texts() for row in section.locator("table.scale tr[data-throttles]").all()]


def expected_cells(row: dict) -> list[str]:
    """The cells the page draws for a row of the route's answer (explorer.html `scaleTable`)."""
    throttles = ("yes (one item over)" if row["even_with_split"] else "yes (a key of many items over)") \
        if row["throttles"] else "no"
    return [row["claim"], row["design"] + (f" ({row['note']})" if row["note"] else ""), row["rate_per_s"],
            row["hottest_key"], row["hottest_key_rcu"], row["hottest_key_wcu"], row["max_rate_per_s"], throttles,
            row["monthly_usd"], row["provisioned_monthly_usd"], row["seed_figure"]]


def test_a_rate_typed_in_the_scale_view_redraws_its_rows_as_the_api_answers_them(page, api):
    # Given the voting view at the seed's 10,000 votes a second: the unsharded counter throttles
    section = view(page, "voting")
    rate = section.locator("input.scale-rate")
    assert rate.input_value() == "10000" and "votes a second" in section.inner_text()
    seed = DOMAINS["voting"]["scale"]["rows"]
    assert [cells[2] for cells in shown_rows(section)] == ["10,000"] * len(seed)
    assert shown_rows(section)[0][7] == "yes (one item over)"
    # When the reader types 2,000 and leaves the field
    rate.fill("2000")
    rate.press("Tab")
    # Then the rows are the route's at 2,000 votes a second: the favourite's one counter no longer throttles
    section.locator("h3", has_text="At 2,000 votes a second").wait_for()
    answer = api.session.get(f"{api.url}/explorer/scale/voting", params={"rate": 2000}, timeout=30).json()
    assert shown_rows(section) == [expected_cells(row) for row in answer["rows"]]
    assert shown_rows(section)[0][7] == "no" and "0.2× the seed's 10,000" in section.inner_text()
    section.locator("h3", has_text="At 2,000 votes a second").evaluate("h => h.scrollIntoView()")
    page.screenshot(path=ARTIFACTS / "scale-what-if-voting.png")
    # A rate the route refuses: its message, and the rows stay
    rate.fill("0")
    rate.press("Tab")
    section.locator(".scale-status.warn", has_text="invalid input: query.rate").wait_for()
    assert shown_rows(section) == [expected_cells(row) for row in answer["rows"]]
    # Back to the seed's rate: the rows `make scale` wrote, which the page showed first
    section.locator("button", has_text="the seed's rate").click()
    section.locator("h3", has_text="At the seed's scale").wait_for()
    section.locator(".scale-status", has_text="the seed's rate").wait_for()
    assert shown_rows(section) == [expected_cells(row) for row in seed]


def test_the_what_if_route_is_public_and_refuses_what_every_route_refuses(api):
    answer = api.call("GET", "/explorer/scale/order-entry?rate=1200000", user=None)  # no token: public, like /explorer
    assert answer.status_code == 200
    body = answer.json()
    assert (body["rate_per_s"], body["seed_rate_per_s"]) == (1_200_000, 600_000)
    assert [row["rate_per_s"] for row in body["rows"]] == ["1,200,000", "1,200,000"]
    refused = api.call("GET", "/explorer/scale/order-entry?rate=lots", user=None)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "VALIDATION_FAILED"
    unknown = api.call("GET", "/explorer/scale/orders?rate=5", user=None)
    assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "MODEL_NOT_FOUND"
