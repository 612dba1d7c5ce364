"""The platform function (GET /health, GET /docs and Swagger UI's files): it serves the description `make docs`
generated, importing no domain, and that description is every domain's routes as their routers describe them now."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from functions.platform import api as platform
from functions.platform import docs
from functions.platform.docs import SCRIPT_PATH, STYLES_PATH
from tests.support.events import rest_event
from tools import openapi

ROOT = Path(__file__).resolve().parents[2]

# In a fresh interpreter, as a cold Lambda environment: every public route through the resolver, then which modules of
# the domains (functions.<domain>.*) the process loaded.
PROBE = """
import json, sys
import functions.platform.api as platform
from tests.support.events import rest_event
answers = {path: platform.app.resolve(rest_event("GET", path, resource=path.split("?")[0], claims=None), None)
           for path in ("/health", "/docs", "/docs?format=json", "/docs/swagger-ui.js", "/docs/swagger-ui.css")}
loaded = sorted({name.split(".")[1] for name in sys.modules if name.startswith("functions.")})
domains = sorted({path.split("/")[1] for path in json.loads(answers["/docs?format=json"]["body"])["paths"]})
print(json.dumps({"loaded": loaded, "statuses": {p: a["statusCode"] for p, a in answers.items()}, "domains": domains}))
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
    assert set(seen["statuses"].values()) == {200}
    packages = sorted(path.parent.name.replace("_", "-") for path in (ROOT / "functions").glob("*/api.py")
                      if path.parent.name != "platform")
    assert seen["domains"] == packages


def test_the_generated_description_is_what_the_routers_describe_now():
    # `make docs` rewrites functions/platform/openapi.json; a route changed without it fails here
    assert docs.SPEC_FILE.read_text(encoding="utf-8") == openapi.generate(), "run `make docs`"
    assert openapi.main(["--check"]) == 0


def test_the_page_is_small_and_links_swagger_uis_files_under_the_stages_base_path():
    page = get("/docs")
    assert page["statusCode"] == 200 and page["headers"]["Content-Type"] == "text/html"
    body = page["body"]
    assert f"src='/dev{SCRIPT_PATH}?v=" in body and f"href='/dev{STYLES_PATH}?v=" in body
    assert "persistAuthorization: true" in body
    # the description inline, and little else: Swagger UI's 1.7 MB are not in it
    assert len(body) < len(docs.SPEC_FILE.read_bytes()) + 5_000
    spec = json.loads(get("/docs?format=json")["body"])
    assert spec["servers"] == [{"url": "/dev"}]  # "Try it out" calls the stage, as enable_swagger's did
    assert json.loads(get("/docs?format=json", custom_domain=True)["body"])["servers"] == [{"url": "/"}]
    assert f"src='{SCRIPT_PATH}?v=" in get("/docs", custom_domain=True)["body"]


@pytest.mark.parametrize(("path", "content_type", "cache_control"), [
    ("/docs", "text/html", "no-cache"),
    ("/docs?format=json", "application/json", "no-cache"),
    (SCRIPT_PATH, "text/javascript; charset=utf-8", "public, max-age=86400"),
    (STYLES_PATH, "text/css; charset=utf-8", "public, max-age=86400"),
])
def test_each_answer_is_cacheable_and_revalidates_to_an_empty_304(path, content_type, cache_control):
    first = get(path)
    assert (first["statusCode"], first["headers"]["Content-Type"]) == (200, content_type)
    assert first["headers"]["Cache-Control"] == cache_control
    etag = first["headers"]["ETag"]
    again = get(path, **{"If-None-Match": f'"other", {etag}'})
    assert (again["statusCode"], again["body"], again["headers"]["ETag"]) == (304, "", etag)
    assert get(path, **{"If-None-Match": '"other"'})["statusCode"] == 200


def test_swagger_uis_files_are_the_ones_powertools_would_inline():
    import aws_lambda_powertools.event_handler as event_handler

    bundled = Path(event_handler.__file__).parent / "openapi" / "swagger_ui"
    assert get(SCRIPT_PATH)["body"] == (bundled / "swagger-ui-bundle.min.js").read_text(encoding="utf-8")
    assert get(STYLES_PATH)["body"] == (bundled / "swagger-ui.min.css").read_text(encoding="utf-8")


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
