"""What GET /docs serves: Swagger UI over the OpenAPI description that `make docs` generated into
functions/platform/openapi.json (tools/openapi.py; tests/unit/test_platform.py fails when it drifts), so answering it
imports no domain. Swagger UI's script and styles are Powertools' own copies (the files `enable_swagger` would inline,
1.7 MB). The script (1.5 MB) is served on its own route so that a browser caches it; the styles (177 KB, 26 KB
gzipped) are inline in the page. Linked, they were a second request at the same moment as the script's, which found
the one warm environment busy and started another: a cold start in the first load of the page (docs/adr/0103).

Nothing here compresses: API Gateway does, for a client that accepts gzip (the RestApi's MinimumCompressionSize,
infra/constructs/rest_api.py; "Payload compression for REST APIs" in the API Gateway developer guide). A body the
function gzipped itself would leave API Gateway as base64 text unless its type were declared a binary media type.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import aws_lambda_powertools.event_handler as event_handler
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.shared.version import VERSION as POWERTOOLS_VERSION

from functions.shared.domain import load

SPEC_FILE = Path(__file__).with_name("openapi.json")
# Powertools' Swagger UI page (`generate_swagger_html`, as `enable_swagger` renders it) with a mark in each place that
# `page` fills, written beside the description by `make docs` (tools/openapi.py `page_template`): serving the page
# then imports neither Swagger UI's module nor the OAuth2 models it loads, 0.2 s of the function's cold start.
PAGE_FILE = Path(__file__).with_name("swagger.html")
SPEC_MARK, SCRIPT_MARK, STYLES_MARK = "@@description@@", "@@script-url@@", "@@styles-url@@"
TITLE, VERSION = "Blueprints API", "1.0.0"
DESCRIPTION = (
    "Classic DynamoDB data models as one serverless backend. Every route but /health, /docs and /explorer needs "
    "`Authorization: Bearer <Cognito ID token>` (Authorize, then paste the token `make token` prints); writes to "
    "reference data need the `admin` group. Errors answer `{\"error\": {\"code\", \"message\", \"details\"?}}`: "
    "each operation lists its statuses and codes."
)
# Swagger UI's script, below /docs (functions/platform/domain.toml), with its file in Powertools' package and its
# content type; the styles' file, inlined.
SCRIPT_PATH = load(__file__).routes["swagger_ui_script"].path
ASSETS = {SCRIPT_PATH: ("swagger-ui-bundle.min.js", "text/javascript; charset=utf-8")}
STYLES_FILE = "swagger-ui.min.css"
_SWAGGER_UI = Path(event_handler.__file__).parent / "openapi" / "swagger_ui"
# The page and the description change with a deployment: a browser revalidates them (304 while the ETag holds).
# Swagger UI's script changes only with the Powertools version, which its URL carries (`?v=`): cached for a day.
REVALIDATE, A_DAY = "no-cache", "public, max-age=86400"


# An example relative to the day it is served (tools/openapi.py keeps the catalogs' `@today+1T09` as they are): the
# seeds write timeslots and readings from today, so a fixed date in the file would stop matching them.
_RELATIVE = re.compile(r'"@today([+-]\d+)?(T[^"]*)?"')


def _today() -> date:
    return datetime.now(UTC).date()


def description(base_path: str, domain: str | None = None) -> str:
    """The generated description, its server the stage's base path ("/dev" on API Gateway's own URL, "" behind a
    custom domain or locally), as Powertools' `enable_swagger` sets it, so "Try it out" calls this API; examples
    relative to today resolved. `domain`: only that domain's routes and the schemas they use."""
    return _description(base_path, _today(), domain)


@cache
def _description(base_path: str, today: date, domain: str | None = None) -> str:
    spec = json.loads(SPEC_FILE.read_text(encoding="utf-8"))
    spec["servers"] = [{"url": base_path or "/"}]
    if domain is not None:
        spec = _only(spec, domain)
    text = json.dumps(spec, separators=(",", ":"), ensure_ascii=False)
    return _RELATIVE.sub(lambda m: f'"{today + timedelta(days=int(m[1] or 0))}{m[2] or ""}"', text)


@cache
def domains() -> tuple[str, ...]:
    """The domains of the description, as its paths name them (`connected-car`)."""
    paths = json.loads(SPEC_FILE.read_text(encoding="utf-8"))["paths"]
    return tuple(sorted({path.strip("/").split("/", 1)[0] for path in paths}))


def _only(spec: dict[str, Any], domain: str) -> dict[str, Any]:
    """The description of one domain's routes, with the component schemas they reach."""
    spec["paths"] = {p: ops for p, ops in spec["paths"].items() if p.strip("/").split("/", 1)[0] == domain}
    schemas = spec.get("components", {}).get("schemas", {})
    needed: set[str] = set()
    pending = _refs(spec["paths"])
    while pending:
        name = pending.pop()
        if name not in needed:
            needed.add(name)
            pending |= _refs(schemas.get(name, {}))
    if schemas:
        spec["components"]["schemas"] = {name: schema for name, schema in schemas.items() if name in needed}
    return spec


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(value) for value in node))
    return set()


def page(base_path: str, domain: str | None = None) -> str:
    """Powertools' Swagger UI page with one domain's description and the styles inline (one request for all three;
    the first domain when none is asked for, `all` for every route) and the script linked; `persist_authorization`: a
    token given to Authorize survives a reload. Swagger UI builds the whole description before it shows any
    operation: the 130 routes of every domain take it several seconds, one domain's a fraction of that."""
    chosen = domain if domain in domains() or domain == ALL else domains()[0]
    return _page(base_path, _today(), chosen)


ALL = "all"


@cache
def _page(base_path: str, today: date, domain: str) -> str:
    html = PAGE_FILE.read_text(encoding="utf-8")
    link = f"<link rel='stylesheet' type='text/css' href='{STYLES_MARK}'>"
    if html.count(link) != 1 or html.count(SCRIPT_MARK) != 1 or html.count(SPEC_MARK) != 1:
        raise RuntimeError(f"{PAGE_FILE.name} is not Powertools' page with its marks: run `make docs`")
    html = html.replace(link, f"<style>{_styles()}</style>")
    html = html.replace(SCRIPT_MARK, f"{base_path}{SCRIPT_PATH}?v={POWERTOOLS_VERSION}")
    links = " · ".join(
        f"<b>{name}</b>" if name == domain else f"<a href='{base_path}/docs?domain={name}'>{name}</a>"
        for name in (*domains(), ALL)
    )
    nav = (f"<nav id='domains' style='font:14px sans-serif;padding:8px 20px;border-bottom:1px solid #ddd'>"
           f"routes of {links}</nav>\n    <div id=\"swagger-ui\">")
    if html.count('<div id="swagger-ui">') != 1:
        raise RuntimeError("Powertools' Swagger UI page changed: place the domain links anew")
    html = html.replace('<div id="swagger-ui">', nav)
    # last, so that no mark is looked for inside it; as enable_swagger: no `</script>` inside the script
    description = _description(base_path, today, None if domain == ALL else domain).replace("</", "<\\/")
    return html.replace(SPEC_MARK, description)


@cache
def _styles() -> str:
    styles = (_SWAGGER_UI / STYLES_FILE).read_text(encoding="utf-8")
    if "</style" in styles.lower():  # it would end the page's <style> element early
        raise RuntimeError(f"Powertools' {STYLES_FILE} closes a <style> element: link it instead")
    return styles


@cache
def asset(path: str) -> tuple[str, str]:
    """(body, content type) of one of Swagger UI's files."""
    name, content_type = ASSETS[path]
    return (_SWAGGER_UI / name).read_text(encoding="utf-8"), content_type


@cache
def _etag(body: str) -> str:
    return '"' + hashlib.sha256(body.encode()).hexdigest()[:32] + '"'


def cacheable(body: str, content_type: str, cache_control: str, if_none_match: str | None) -> Response[str]:
    """The body with its ETag and caching rule, or 304 Not Modified with neither body nor type when the client
    already holds it (RFC 9110 §13.1.2: If-None-Match is a list of entity tags, or `*`)."""
    etag = _etag(body)
    headers = {"ETag": etag, "Cache-Control": cache_control}
    held = {tag.strip().removeprefix("W/") for tag in (if_none_match or "").split(",")}
    if etag in held or "*" in held:
        return Response(status_code=304, body="", headers=headers)
    return Response(status_code=200, content_type=content_type, body=body, headers=headers)
