"""The model explorer's data (functions/platform/explorer.py) and page: drawn from the catalogs and table specs, every
runnable pattern a served route, nothing loaded from outside the API. The page in a browser:
tests/e2e/test_explorer.py."""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import re

import pytest

from functions.platform import explorer
from functions.platform.api import app, every_domain
from functions.shared.domain import load
from tests.support.events import rest_event

MODEL = explorer.model()
DOMAINS = {domain["name"]: domain for domain in MODEL["domains"]}


def test_every_domain_package_is_on_the_page_with_its_tables_and_every_pattern_of_its_catalog():
    assert list(DOMAINS) == explorer.domain_names() and len(DOMAINS) >= 13
    for name, domain in DOMAINS.items():
        schema = importlib.import_module(f"functions.{name}.schema")
        catalog = load(name)
        assert [table["envVar"] for table in domain["tables"]] == [spec.env_var for spec in schema.TABLES]
        for table, spec in zip(domain["tables"], schema.TABLES):
            assert [index["name"] for index in table["indexes"]] == [index.name for index in spec.indexes]
            assert (table["partitionKey"]["name"], table["ttl"], table["stream"]) == (
                spec.partition_key.name, spec.ttl_attribute, spec.stream_view)
        assert [pattern["name"] for pattern in domain["patterns"]] == [p.name for p in catalog.patterns]


def test_every_request_a_pattern_runs_is_an_operation_of_the_description_the_page_reads():
    """The page finds a run's parameters and body in /docs?format=json by its exact path and method."""
    described = json.loads(every_domain().get_openapi_json_schema())["paths"]
    requests = [(name, r) for name, domain in DOMAINS.items() for p in domain["patterns"] for r in p["requests"]]
    assert len(requests) >= 100
    assert [(name, r) for name, r in requests if r["method"].lower() not in described.get(r["path"], {})] == []
    assert all("…" not in r["path"] + r["query"] for _, r in requests)


def test_a_shortened_route_resolves_against_the_pattern_before_it():
    contacts = {p["name"]: p for p in DOMAINS["contacts"]["patterns"]}
    current = next(p for name, p in contacts.items() if name.startswith("…current"))
    assert current["requests"] == [{"method": "GET", "path": "/contacts/persons/{personId}/addresses",
                                    "query": "relationship=Residential&current=true", "group": None}]


def test_each_request_names_the_group_its_route_needs_and_each_domain_the_rules_that_refuse_with_a_code():
    """What a 403 asks of the caller, and the rule a refusal's code names, come from domain.toml."""
    for name, domain in DOMAINS.items():
        routes = {(r.method, r.path): r.group for r in load(name).routes}
        for request in (r for p in domain["patterns"] for r in p["requests"]):
            assert request["group"] == routes[(request["method"], request["path"])], (name, request)
    voting = {p["name"]: p["requests"][0]["group"] for p in DOMAINS["voting"]["patterns"] if p["requests"]}
    assert (voting["create a poll"], voting["vote"]) == ("admin", None)
    refusals = {rule["refusal"].split(" ")[1]: rule["rule"] for rule in DOMAINS["voting"]["rules"]}
    assert refusals["`ALREADY_VOTED`"] == "one vote per voter and poll"
    assert all(re.search(r"`[A-Z_]+`", rule["refusal"]) for d in DOMAINS.values() for rule in d["rules"])


# The page's demonstrations that choose their write from what is stored (`const FRESH_WRITES = {...}`): each key
# `"<domain>/<demo>"`, each route a quoted `"METHOD /path"`.
FRESH_WRITES = re.search(r"^const FRESH_WRITES = \{\n(.*?)^\};", explorer.PAGE.read_text(encoding="utf-8"), re.S | re.M)


def test_every_stream_demonstration_reads_first_on_the_page_through_routes_its_domain_declares():
    """A demonstration that wrote the catalog's fixed body worked once: the same price again streams nothing, a
    second ballot is a 409. Each has a plan on the page (tests/e2e/test_explorer.py runs each twice)."""
    assert FRESH_WRITES, "explorer.html lacks its FRESH_WRITES"
    plans = re.split(r'^  "([a-z_]+)/([^"]+)": \{$', FRESH_WRITES.group(1), flags=re.M)[1:]
    planned = {(plans[i], plans[i + 1]): plans[i + 2] for i in range(0, len(plans), 3)}
    demos = {(name, demo["name"]) for name, domain in DOMAINS.items() for demo in domain["streams"]}
    assert set(planned) == demos
    for (name, _), code in planned.items():
        requests = {f"{r['method']} {r['path']}" for p in DOMAINS[name]["patterns"] for r in p["requests"]}
        used = set(re.findall(r'"((?:GET|PUT|POST|PATCH|DELETE) /[^"]+)"', code))
        assert used and used <= requests, (name, used - requests)


def test_no_rule_of_the_page_breaks_a_word_anywhere():
    """Identifiers wrap after a separator (the page's `breakable` puts a <wbr> there), never inside a word."""
    page = explorer.PAGE.read_text(encoding="utf-8")
    assert not re.search(r"overflow-wrap:\s*anywhere|word-break:\s*break-all", page)
    assert 'function breakable(' in page


def test_examples_name_parameters_or_body_fields_the_domains_routes_use():
    for name, domain in DOMAINS.items():
        used = set()
        for pattern in domain["patterns"]:
            for fields in re.findall(r"`\{([^`]*)\}`", pattern["route"]):  # a body, as the catalog writes it
                used |= set(re.findall(r"\w+", fields))
            for request in pattern["requests"]:
                used |= set(re.findall(r"\{(\w+)\}", request["path"]))
                used |= {pair.split("=")[0].strip("[]") for pair in request["query"].split("&") if pair}
        assert set(domain["examples"]) <= used, name


def test_the_stream_consumers_with_a_demonstration():
    assert sorted(name for name, domain in DOMAINS.items() if domain["streams"]) == ["cart", "connected_car", "voting"]


@pytest.mark.parametrize("name", sorted(name for name, domain in DOMAINS.items() if domain["streams"]))
def test_a_stream_demonstration_writes_with_one_pattern_and_reads_with_another(name):
    patterns = {p["name"]: p for p in DOMAINS[name]["patterns"]}
    assert DOMAINS[name]["streams"]
    for demo in DOMAINS[name]["streams"]:
        write, read = patterns[demo["write"]], patterns[demo["read"]]
        assert write["requests"][0]["method"] in ("POST", "PUT", "PATCH", "DELETE")
        assert read["requests"][0]["method"] == "GET"
        params = set(re.findall(r"\{(\w+)\}", write["requests"][0]["path"] + read["requests"][0]["path"]))
        assert params <= set(demo["params"]) | set(DOMAINS[name]["examples"])


def test_the_page_embeds_the_model_and_loads_nothing_from_elsewhere():
    page = explorer.page()
    embedded = re.search(r'<script id="model" type="application/json">(.*?)</script>', page, re.S).group(1)
    assert json.loads(embedded) == json.loads(json.dumps(MODEL))
    assert "</" not in embedded
    assert not re.search(r"(src|href)=\"(?!data:|#)", page)  # no script, style or image from any address
    assert not re.search(r"https?://", explorer.PAGE.read_text())


def test_the_route_serves_the_page_under_a_policy_that_allows_only_this_api_and_its_own_script():
    reply = app.resolve(rest_event("GET", "/explorer", resource="/explorer", claims=None), None)
    headers = reply.get("multiValueHeaders") or {k: [v] for k, v in reply["headers"].items()}
    assert reply["statusCode"] == 200 and headers["Content-Type"] == ["text/html"]
    (policy,) = headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'" and directives["connect-src"] == "'self'"
    scripts = re.findall(r"<script>(.*?)</script>", reply["body"], re.S)
    digests = {"'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" for s in scripts}
    assert len(scripts) == 1 and set(directives["script-src"].split()) == digests  # no 'unsafe-inline'
    assert "Blueprints model explorer" in reply["body"]


def test_a_string_of_the_model_cannot_end_its_script_element(monkeypatch):
    hostile = {"domains": [{"summary": "</script><script>alert(1)</script><!--"}]}
    monkeypatch.setattr(explorer, "model", lambda: hostile)
    explorer.page.cache_clear()
    try:
        page = explorer.page()
    finally:
        explorer.page.cache_clear()
    embedded = re.search(r'<script id="model" type="application/json">(.*?)</script>', page, re.S).group(1)
    assert "<" not in embedded and json.loads(embedded) == hostile


def test_every_domain_runs_as_a_user_of_its_seed_and_every_pattern_has_its_own_address():
    for name, domain in DOMAINS.items():
        assert domain["persona"] == load(name).persona and re.fullmatch(r"[a-z0-9]+", domain["persona"]), name
        slugs = [pattern["slug"] for pattern in domain["patterns"]]
        assert len(set(slugs)) == len(slugs) and all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", s) for s in slugs), name
    assert DOMAINS["messaging"]["persona"] == "david"  # the seed's David, whose inbox holds 3kf8
    assert [d["slug"] for d in DOMAINS.values()] == [n.replace("_", "-") for n in DOMAINS]


def test_a_range_pattern_is_filled_from_the_example_data():
    """Connected car's timeslots (the coming week) and vehicle events (the past days) both fall in its example range."""
    examples = DOMAINS["connected_car"]["examples"]
    assert (examples["from"], examples["to"]) == ("@today-7", "@today+8")
    (timeslots,) = [p for p in DOMAINS["connected_car"]["patterns"] if p["name"] == "timeslots of a dealer in a range"]
    assert {"from", "to"} <= {pair.split("=")[0].strip("[]") for pair in timeslots["requests"][0]["query"].split("&")}
