"""The platform function (GET /health, GET /docs and Swagger UI's script): it serves the description `make docs`
generated, importing no domain, and that description is every domain's routes as their routers describe them now."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from functions.platform import api as platform
from functions.platform import docs
from functions.platform.docs import SCRIPT_PATH, STYLES_FILE
from tests.support.events import rest_event
from tools import openapi

ROOT = Path(__file__).resolve().parents[2]
SWAGGER_UI = Path(docs.event_handler.__file__).parent / "openapi" / "swagger_ui"  # Powertools' copies

# In a fresh interpreter, as a cold Lambda environment: every public route through the resolver, then which modules of
# the domains (functions.<domain>.*) the process loaded.
PROBE = """
import json, sys
import functions.platform.api as platform
from tests.support.events import rest_event
answers = {path: platform.app.resolve(rest_event("GET", path, resource=path.split("?")[0], claims=None), None)
           for path in ("/health", "/docs", "/docs?format=json", "/docs/swagger-ui.js")}
loaded = sorted({name.split(".")[1] for name in sys.modules if name.startswith("functions.")})
heavy = sorted(name for name in ("boto3", "aws_lambda_powertools.event_handler.openapi.swagger_ui",
                                 "aws_lambda_powertools.utilities.idempotency") if name in sys.modules)
domains = sorted({path.split("/")[1] for path in json.loads(answers["/docs?format=json"]["body"])["paths"]})
print(json.dumps({"loaded": loaded, "heavy": heavy, "statuses": {p: a["statusCode"] for p, a in answers.items()},
                  "domains": domains}))
"""


def get(path: str, *, custom_domain: bool = False, **headers: str) -> dict:
    """An answer to a call on API Gateway's own URL (https://<id>.execute-api…/dev/docs), or through a custom domain
    whose base path mapping drops the stage (requestContext.path is then the path as the client sent it)."""
    event = rest_event("GET", path, resource=path.split("?")[0], claims=None)
    if custom_domain:
        event["requestContext"]["path"] = event["path"]
    event["headers"] = {**event["headers"], **headers}
    event["multiValueHeaders"] = {name: [value] for name, value in event["headers"].items()}
    answer = platform.app.resolve(event, None)
    # as API Gateway merges them: multiValueHeaders over headers
    answer["headers"] = {**(answer.get("headers") or {}),
                         **{k: ",".join(v) for k, v in (answer.get("multiValueHeaders") or {}).items()}}
    return answer


def test_every_public_route_is_served_without_importing_a_domain_and_docs_describes_every_domain():
    run = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["loaded"] == ["platform", "shared"]
    # nor what the platform never uses: boto3 (no AWS call), idempotency (no write), Swagger UI's module (the page is
    # pre-rendered): the three were half of its cold start
    assert seen["heavy"] == []
    assert set(seen["statuses"].values()) == {200}
    packages = sorted(path.parent.name.replace("_", "-") for path in (ROOT / "functions").glob("*/api.py")
                      if path.parent.name != "platform")
    assert seen["domains"] == packages


def test_the_generated_description_is_what_the_routers_describe_now():
    # `make docs` rewrites functions/platform/openapi.json; a route changed without it fails here
    assert docs.SPEC_FILE.read_text(encoding="utf-8") == openapi.generate(), "run `make docs`"
    assert openapi.main(["--check"]) == 0


def test_the_pre_rendered_page_is_what_powertools_renders_now():
    # functions/platform/swagger.html, also written by `make docs`: a Powertools upgrade that changes it fails here
    assert docs.PAGE_FILE.read_text(encoding="utf-8") == openapi.page_template(), "run `make docs`"


def test_the_page_holds_the_styles_and_links_swagger_uis_script_under_the_stages_base_path():
    page = get("/docs")
    assert page["statusCode"] == 200 and page["headers"]["Content-Type"] == "text/html"
    body = page["body"]
    assert f"src='/dev{SCRIPT_PATH}?v=" in body and "<link" not in body
    assert "persistAuthorization: true" in body
    # the description and the styles inline, and little else: Swagger UI's 1.5 MB script is not in it
    styles = (SWAGGER_UI / STYLES_FILE).read_text(encoding="utf-8")
    assert body.count(f"<style>{styles}</style>") == 1
    assert len(body) < len(docs.SPEC_FILE.read_bytes()) + len(styles) + 5_000
    spec = json.loads(get("/docs?format=json")["body"])
    assert spec["servers"] == [{"url": "/dev"}]  # "Try it out" calls the stage, as enable_swagger's did
    assert json.loads(get("/docs?format=json", custom_domain=True)["body"])["servers"] == [{"url": "/"}]
    assert f"src='{SCRIPT_PATH}?v=" in get("/docs", custom_domain=True)["body"]


@pytest.mark.parametrize(("path", "content_type", "cache_control"), [
    ("/docs", "text/html", "no-cache"),
    ("/docs?format=json", "application/json", "no-cache"),
    (SCRIPT_PATH, "text/javascript; charset=utf-8", "public, max-age=86400"),
])
def test_each_answer_is_cacheable_and_revalidates_to_an_empty_304(path, content_type, cache_control):
    first = get(path)
    assert (first["statusCode"], first["headers"]["Content-Type"]) == (200, content_type)
    assert first["headers"]["Cache-Control"] == cache_control
    etag = first["headers"]["ETag"]
    again = get(path, **{"If-None-Match": f'"other", {etag}'})
    assert (again["statusCode"], again["body"], again["headers"]["ETag"]) == (304, "", etag)
    assert get(path, **{"If-None-Match": '"other"'})["statusCode"] == 200


def test_swagger_uis_script_is_the_one_powertools_would_inline():
    assert get(SCRIPT_PATH)["body"] == (SWAGGER_UI / "swagger-ui-bundle.min.js").read_text(encoding="utf-8")


CORS_PROBE = """
import json
import functions.platform.api as platform
from tests.support.events import rest_event
out = {}
for origin in ("https://a.example", "https://b.example", "https://evil.example"):
    event = rest_event("GET", "/health", resource="/health", claims=None)
    event["headers"]["Origin"] = origin
    event["multiValueHeaders"] = {k: [v] for k, v in event["headers"].items()}
    answer = platform.app.resolve(event, None)
    headers = {**answer.get("headers", {}), **{k: v[0] for k, v in (answer.get("multiValueHeaders") or {}).items()}}
    out[origin] = {k: v for k, v in headers.items() if k.startswith("Access-Control-")}
print(json.dumps(out))
"""


def test_an_allowed_origin_gets_the_cors_headers_and_another_none():
    # Given the functions' environment as infra gives it for `-c corsOrigins=https://a.example,https://b.example`
    env = {"PATH": "/usr/bin:/bin", "CORS_ALLOWED_ORIGINS": "https://a.example,https://b.example",
           "POWERTOOLS_METRICS_NAMESPACE": "Blueprints", "POWERTOOLS_SERVICE_NAME": "platform"}
    run = subprocess.run([sys.executable, "-c", CORS_PROBE], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=env)
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    for origin in ("https://a.example", "https://b.example"):
        assert seen[origin]["Access-Control-Allow-Origin"] == origin
        assert "Server-Timing" in seen[origin]["Access-Control-Expose-Headers"]
    assert seen["https://evil.example"] == {}
