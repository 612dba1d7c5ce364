"""GET /explorer: every domain's model, access patterns and their cost, one domain per view (`#/<domain>`).

The page is a single HTML document with its script and styles inline (functions/platform/explorer.html): no build
step, nothing fetched from the internet. What it shows comes from the code the backend runs, embedded in the page
as JSON when it is served:
- the tables of each domain from its `functions/<domain>/schema.py` `TABLES` (the same `TableSpec`s the CDK builds
  the tables from): keys, every index with its keys and projection, TTL, stream;
- the entity table, the access patterns, the example path parameters, the stream demonstrations and the rules that
  refuse with an error code from its `functions/<domain>/domain.toml` (the data docs/<domain>.md is generated from);
  each request with the group its route needs (the handler's `group` in the same file);
- its load at the seed's scale from `scale-figures.json`, which `make scale` writes (the docs' "At the seed's
  scale" tables come from the same file).
The page then calls the API itself: the OpenAPI description (/docs?format=json) for each route's parameters and
body, and the routes, with the token pasted in its sign-in box.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import re
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from functions.platform.domains import domain_names
from functions.shared.catalog import AccessPattern, StreamDemo, http_routes
from functions.shared.cost import EXPLAIN_REQUEST_HEADER, EXPLAIN_RESPONSE_HEADER, explaining_allowed
from functions.shared.domain import load
from functions.shared.schema import IDEMPOTENCY_TABLE, PARKED_TABLE
from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

PAGE = Path(__file__).with_name("explorer.html")
# Each domain's partition load at its seed's rates, as `make scale` (bench/scale/) last computed it.
SCALE = Path(__file__).with_name("scale-figures.json")
MODEL_MARK = "/*MODEL*/null"


def _key(key: KeyAttribute | None) -> dict[str, str] | None:
    return None if key is None else {"name": key.name, "type": key.type}


def _index(index: IndexSpec) -> dict[str, Any]:
    projection = index.projection if isinstance(index.projection, str) else list(index.projection)
    return {"name": index.name, "partitionKey": _key(index.partition_key), "sortKey": _key(index.sort_key),
            "projection": projection}


def table(spec: TableSpec) -> dict[str, Any]:
    return {
        "name": spec.construct_id.removesuffix("Table"),
        "envVar": spec.env_var,
        "partitionKey": _key(spec.partition_key),
        "sortKey": _key(spec.sort_key),
        "indexes": [_index(index) for index in spec.indexes],
        "ttl": spec.ttl_attribute,
        "stream": spec.stream_view,
    }


def slug(name: str) -> str:
    """A pattern's name as part of its URL (`#/voting/results-of-a-poll`): lower case, words joined by `-`."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def pattern(access: AccessPattern, previous: list[dict[str, str]]) -> dict[str, Any]:
    """A pattern with the requests its route names, each resolved to a method and a full path (a `…/x` path is the
    previous pattern's path up to its `/x`)."""
    requests = []
    for method, path in http_routes(access.route):
        if path.startswith("…"):
            if not previous:
                continue
            base = previous[0]["path"]
            tail = path[1:].split("?", 1)
            first = "/" + tail[0].strip("/").split("/")[0]
            cut = base.rfind(first)
            path = (base[:cut] if cut >= 0 else base) + path[1:]
            method = method or previous[0]["method"]
        if method is None:
            continue
        path, _, query = path.partition("?")
        requests.append({"method": method, "path": path.replace("…", ""), "query": query.replace("…", "")})
    return {
        "name": access.name,
        "slug": slug(access.name),
        "route": access.route,
        "who": access.who,
        "source": access.source,
        "keyCondition": access.key_condition,
        "repositoryMethod": access.repository_method,
        "tests": access.tests,
        "bookPattern": access.book_pattern,
        "requests": requests,
    }


def domain(name: str) -> dict[str, Any]:
    package = importlib.import_module(f"functions.{name}")
    schema = importlib.import_module(f"functions.{name}.schema")
    catalog = load(name)
    patterns: list[dict[str, Any]] = []
    previous: list[dict[str, str]] = []
    routes = {(r.method, r.path): r for r in catalog.routes}
    for access in catalog.patterns:
        patterns.append(pattern(access, previous))
        previous = patterns[-1]["requests"] or previous
        for request in patterns[-1]["requests"]:  # the group a caller needs: what a 403 asks of them
            declared = routes.get((request["method"], request["path"]))
            request["group"] = declared.group if declared is not None else None
        if not patterns[-1]["who"] and patterns[-1]["requests"]:  # a page without a "who" column: from the route
            first = patterns[-1]["requests"][0]
            declared = routes.get((first["method"], first["path"]))
            if declared is not None:
                patterns[-1]["who"] = (f"the {declared.group} group" if declared.group else
                                       "anyone" if declared.public else "any signed-in user")
    entities = catalog.entities
    demos: tuple[StreamDemo, ...] = catalog.streams
    runnable = {p["name"] for p in patterns if p["requests"]}
    for demo in demos:
        if not {demo.write, demo.read} <= runnable:
            raise ValueError(f"functions/{name}/domain.toml: {demo.name!r} names a pattern with no route to run")
    return {
        "name": name,
        "slug": name.replace("_", "-"),
        "title": name.replace("_", " ").capitalize(),
        "summary": (package.__doc__ or "").strip(),
        # the seed's user: the page runs the patterns with that user's token, as the example data expects
        "persona": catalog.persona,
        "tables": [table(spec) for spec in schema.TABLES],
        "entities": None if entities is None else {"columns": list(entities.columns),
                                                    "rows": [list(row) for row in entities.rows]},
        "patterns": patterns,
        "examples": dict(catalog.examples),
        # its NoSQL Workbench model in the repository (`make workbench`, tools/workbench.py)
        "workbench": f"docs/workbench/{name}.json",
        "streams": [{**asdict(demo), "params": dict(demo.params)} for demo in demos],
        # the "Rules and errors" rows that refuse with a code: a refusal on the page names its rule
        "rules": [{"rule": rule.rule, "enforcedBy": rule.enforced_by, "refusal": rule.refusal}
                  for rule in catalog.rules if re.search(r"`[A-Z][A-Z_]+`", rule.refusal)],
        "scale": scale().get(name.replace("_", "-")),
    }


@cache
def scale() -> dict[str, Any]:
    """{page slug: {"rows": [...]}} from functions/platform/scale-figures.json (none when it is absent)."""
    return json.loads(SCALE.read_text(encoding="utf-8")) if SCALE.is_file() else {}


@cache
def model() -> dict[str, Any]:
    return {
        "domains": [domain(name) for name in domain_names()],
        "shared": [table(IDEMPOTENCY_TABLE), table(PARKED_TABLE)],
        "explain": {"allowed": explaining_allowed(), "request": EXPLAIN_REQUEST_HEADER,
                    "response": EXPLAIN_RESPONSE_HEADER},
    }


@cache
def page() -> str:
    """The page with the model in it. Every `<` of the JSON is written as the JSON escape `\\u003c`, so no string
    of it can end the script element or open a comment in it."""
    data = json.dumps(model(), ensure_ascii=True).replace("<", "\\u003c")
    text = PAGE.read_text(encoding="utf-8")
    if MODEL_MARK not in text:
        raise ValueError(f"{PAGE.name} lacks {MODEL_MARK}")
    return text.replace(MODEL_MARK, data)


@cache
def script_hashes() -> str:
    """The page's executable scripts as CSP sources (`'sha256-…'`): the policy allows them and no other script."""
    scripts = re.findall(r"<script>(.*?)</script>", PAGE.read_text(encoding="utf-8"), re.S)
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts)
