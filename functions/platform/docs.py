"""What GET /docs serves: Swagger UI over the OpenAPI description that `make docs` generated into
functions/platform/openapi.json (tools/openapi.py; tests/unit/test_platform.py fails when it drifts), so answering it
imports no domain. Swagger UI's script and styles are Powertools' own copies (the files `enable_swagger` would inline,
1.7 MB), served on their own routes so that a browser caches them: the page is the description and a few lines.

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

import aws_lambda_powertools.event_handler as event_handler
from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html
from aws_lambda_powertools.shared.version import VERSION as POWERTOOLS_VERSION

SPEC_FILE = Path(__file__).with_name("openapi.json")
TITLE, VERSION = "Blueprints API", "1.0.0"
DESCRIPTION = (
    "Classic DynamoDB data models as one serverless backend. Every route but /health, /docs and /explorer needs "
    "`Authorization: Bearer <Cognito ID token>` (Authorize, then paste the token `make token` prints); writes to "
    "reference data need the `admin` group. Errors answer `{\"error\": {\"code\", \"message\", \"details\"?}}`: "
    "each operation lists its statuses and codes."
)
# Swagger UI's own files, below /docs (infra/domains/platform.py declares their routes for API Gateway), and each
# one's file in Powertools' package and content type.
SCRIPT_PATH, STYLES_PATH = "/docs/swagger-ui.js", "/docs/swagger-ui.css"
ASSETS = {SCRIPT_PATH: ("swagger-ui-bundle.min.js", "text/javascript; charset=utf-8"),
          STYLES_PATH: ("swagger-ui.min.css", "text/css; charset=utf-8")}
_SWAGGER_UI = Path(event_handler.__file__).parent / "openapi" / "swagger_ui"
# The page and the description change with a deployment: a browser revalidates them (304 while the ETag holds).
# Swagger UI's files change only with the Powertools version, which their URLs carry (`?v=`): cached for a day.
REVALIDATE, A_DAY = "no-cache", "public, max-age=86400"


# An example relative to the day it is served (tools/openapi.py keeps the catalogs' `@today+1T09` as they are): the
# seeds write timeslots and readings from today, so a fixed date in the file would stop matching them.
_RELATIVE = re.compile(r'"@today([+-]\d+)?(T[^"]*)?"')


def _today() -> date:
    return datetime.now(UTC).date()


def description(base_path: str) -> str:
    """The generated description, its server the stage's base path ("/dev" on API Gateway's own URL, "" behind a
    custom domain or locally), as Powertools' `enable_swagger` sets it, so "Try it out" calls this API; examples
    relative to today resolved."""
    return _description(base_path, _today())


@cache
def _description(base_path: str, today: date) -> str:
    spec = json.loads(SPEC_FILE.read_text(encoding="utf-8"))
    spec["servers"] = [{"url": base_path or "/"}]
    text = json.dumps(spec, separators=(",", ":"), ensure_ascii=False)
    return _RELATIVE.sub(lambda m: f'"{today + timedelta(days=int(m[1] or 0))}{m[2] or ""}"', text)


def page(base_path: str) -> str:
    """Powertools' Swagger UI page with the description inline (one request for both) and the script and styles
    linked; `persist_authorization`: a token given to Authorize survives a reload."""
    return _page(base_path, _today())


@cache
def _page(base_path: str, today: date) -> str:
    return generate_swagger_html(
        _description(base_path, today).replace("</", "<\\/"),  # as enable_swagger: no `</script>` inside the script
        f"{base_path}{SCRIPT_PATH}?v={POWERTOOLS_VERSION}",
        f"{base_path}{STYLES_PATH}?v={POWERTOOLS_VERSION}",
        f"{base_path}/docs",  # a base URL: link the files rather than inline them
        None,
        persist_authorization=True,
    )


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
