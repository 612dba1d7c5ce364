"""The model explorer's data (functions/platform/explorer.py) and page: drawn from the catalogs and table specs, every
runnable pattern a served route, nothing loaded from outside the API. The page in a browser: tests/e2e/test_explorer.py."""

from __future__ import annotations

import importlib
import json
import re

import pytest

from functions.platform import explorer
from functions.platform.api import EXPLORER_POLICY, app, every_domain
from tests.support.events import rest_event

MODEL = explorer.model()
DOMAINS = {domain["name"]: domain for domain in MODEL["domains"]}


def shape(path: str) -> str:
    return re.sub(r"[<{][^>}]+[>}]", "{}", path)


def test_every_domain_package_is_on_the_page_with_its_tables_and_every_pattern_of_its_catalog():
    assert list(DOMAINS) == explorer.domain_names() and len(DOMAINS) >= 13
    for name, domain in DOMAINS.items():
        schema = importlib.import_module(f"functions.{name}.schema")
        catalog = importlib.import_module(f"functions.{name}.catalog")
        assert [table["envVar"] for table in domain["tables"]] == [spec.env_var for spec in schema.TABLES]
        for table, spec in zip(domain["tables"], schema.TABLES):
            assert [index["name"] for index in table["indexes"]] == [index.name for index in spec.indexes]
            assert (table["partitionKey"]["name"], table["ttl"], table["stream"]) == (
                spec.partition_key.name, spec.ttl_attribute, spec.stream_view)
        assert [pattern["name"] for pattern in domain["patterns"]] == [p.name for p in catalog.PATTERNS]


def test_every_request_a_pattern_runs_is_a_served_route():
    resolver = every_domain()
    served = {(route.method, shape(route.path)) for route in resolver._static_routes + resolver._dynamic_routes}
    requests = [(name, r) for name, domain in DOMAINS.items() for p in domain["patterns"] for r in p["requests"]]
    assert len(requests) >= 100
    assert [(name, r) for name, r in requests if (r["method"], shape(r["path"])) not in served] == []
    assert all("…" not in r["path"] + r["query"] for _, r in requests)


def test_a_shortened_route_resolves_against_the_pattern_before_it():
    contacts = {p["name"]: p for p in DOMAINS["contacts"]["patterns"]}
    current = next(p for name, p in contacts.items() if name.startswith("…current"))
    assert current["requests"] == [{"method": "GET", "path": "/contacts/persons/{personId}/addresses",
                                    "query": "relationship=Residential&current=true"}]


def test_examples_name_parameters_the_domains_routes_use():
    for name, domain in DOMAINS.items():
        used = set()
        for pattern in domain["patterns"]:
            for request in pattern["requests"]:
                used |= set(re.findall(r"\{(\w+)\}", request["path"]))
                used |= {pair.split("=")[0].strip("[]") for pair in request["query"].split("&") if pair}
        assert set(domain["examples"]) <= used, name


@pytest.mark.parametrize("name", ["cart", "connected_car", "voting"])
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


def test_the_route_serves_the_page_under_a_policy_that_allows_only_this_api():
    reply = app.resolve(rest_event("GET", "/explorer", resource="/explorer", claims=None), None)
    headers = reply.get("multiValueHeaders") or {k: [v] for k, v in reply["headers"].items()}
    assert reply["statusCode"] == 200 and headers["Content-Type"] == ["text/html"]
    assert headers["Content-Security-Policy"] == [EXPLORER_POLICY]
    assert "default-src 'none'" in EXPLORER_POLICY and "connect-src 'self'" in EXPLORER_POLICY
    assert "Blueprints model explorer" in reply["body"]
