"""The OpenAPI description GET /docs serves, generated into functions/platform/openapi.json from every domain's
router, so that the platform function answers /docs without importing the domains (functions/platform/docs.py), and
the Swagger UI page it fills in, functions/platform/swagger.html (`page_template`).

Each operation carries examples from the example data: its path and query parameters the ids of the domain's
`[examples]` in its domain.toml (the seed's), its request body one built from its schema with them (`with_examples`).

`python -m tools.openapi` writes both; `--check` changes nothing and exits 1 when either differs from what the routers
describe or Powertools renders. `make docs` runs both this and tools/docs.py; tests/unit/test_platform.py makes the
same check.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from functools import cache
from typing import Any

from functions.platform import docs
from functions.platform.api import every_domain
from functions.shared.domain import load, path_of


def generate() -> str:
    """The description of every domain's routes, as Powertools' `enable_swagger` described them (title, version,
    description; the server is set per request from the stage's base path), with examples from the example data
    (`with_examples`), one line of JSON."""
    spec = json.loads(every_domain().get_openapi_json_schema(title=docs.TITLE, version=docs.VERSION,
                                                             description=docs.DESCRIPTION))
    spec.pop("servers", None)
    return json.dumps(with_examples(spec), separators=(",", ":"), ensure_ascii=False) + "\n"


def page_template() -> str:
    """Powertools' Swagger UI page with a base URL (so that it links its files rather than inlining them), the marks
    of functions/platform/docs.py where GET /docs puts the description, the script's URL and the styles."""
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html

    return generate_swagger_html(docs.SPEC_MARK, docs.SCRIPT_MARK, docs.STYLES_MARK, "/docs", None,
                                 persist_authorization=True)


def domain_of(path: str) -> str:
    """The domain a route belongs to, from its first segment (`/connected-car/...` → connected_car)."""
    return path.strip("/").split("/", 1)[0].replace("-", "_")


@cache
def examples_of(domain: str) -> dict[str, str]:
    """The domain's example values (functions/<domain>/domain.toml `[examples]`: ids the seed writes, which the
    explorer fills in too); `@today`, `@today+1T09` stay relative: GET /docs resolves them when it serves the
    description."""
    if not path_of(domain).is_file():
        return {}
    return dict(load(domain).examples)


def with_examples(spec: dict[str, Any]) -> dict[str, Any]:
    """Swagger UI fills a parameter's input with its `example` and a request body's editor with its media type's
    `example` (OpenAPI 3.1, Parameter and Media Type objects): the seed's ids, and bodies built from each schema as
    the explorer builds them (`skeleton`), so that "Try it out" calls a route on data that exists."""
    for path, operations in spec.get("paths", {}).items():
        examples = examples_of(domain_of(path))
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") in ("path", "query") and parameter["name"] in examples:
                    schema = resolve(parameter.get("schema", {}), spec)
                    value = _typed(examples[parameter["name"]], schema)
                    if _valid(value, parameter.get("schema", {}), spec):
                        parameter["example"] = value
            media = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if media is not None and "schema" in media:
                body = skeleton(media["schema"], spec, examples)
                if _valid(body, media["schema"], spec):
                    media["example"] = body
    return spec


def _valid(value: Any, schema: dict[str, Any], spec: dict[str, Any]) -> bool:
    """Whether an example is one the description accepts (relative dates taken as a date), so that no example
    contradicts its schema: a client generating cases from the description (the fuzzer) takes examples as valid.
    The few bodies a built value cannot satisfy (a pattern it does not meet) are left to Swagger UI's own."""
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # ships no types (types-jsonschema does)

    text = re.sub(r'"@today([+-]\d+)?', '"2026-01-01', json.dumps(value))
    root = {**schema, "components": spec.get("components", {})}
    return Draft202012Validator(root).is_valid(json.loads(text))


def resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    found = schema or {}
    for _ in range(20):
        ref = found.get("$ref")
        if not ref:
            break
        node: Any = spec
        for part in ref.split("/")[1:]:
            node = (node or {}).get(part)
        found = node or {}
    return found


def _typed(value: Any, schema: dict[str, Any]) -> Any:
    """An example of a numeric parameter as a number (`10`, not `"10"`), as its schema says."""
    kinds = {schema.get("type")} | {option.get("type") for option in schema.get("anyOf", [])}
    if isinstance(value, str) and value.lstrip("-").isdigit() and kinds & {"integer", "number"}:
        return int(value)
    return value


_RELATIVE = re.compile(r"^@today([+-]\d+)?(T.*)?$")


def skeleton(schema: dict[str, Any], spec: dict[str, Any], examples: dict[str, str], name: str = "",
             depth: int = 0) -> Any:
    """A value the schema accepts, as the explorer's page builds one (functions/platform/explorer.html `skeleton`):
    the domain's example for a field of that name, else the schema's example, default or first enum value, else one
    built from its type and constraints; an object gets its required fields."""
    schema = resolve(schema, spec)
    if depth > 6:
        return None
    known = examples.get(name)
    if "enum" in schema:
        return known if known in schema["enum"] else schema["enum"][0]
    if known is not None and schema.get("type") not in ("array", "object"):
        return _typed(known, schema)
    for field in ("example", "default"):
        if field in schema:
            return schema[field]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        usable = [o for o in (resolve(option, spec) for option in options) if o.get("type") != "null"]
        plain = next((o for o in usable if "pattern" not in o), usable[0] if usable else {})
        return skeleton(plain, spec, examples, name, depth + 1)
    return _built(schema, spec, examples, name, depth)


def _built(schema: dict[str, Any], spec: dict[str, Any], examples: dict[str, str], name: str, depth: int) -> Any:
    """A value built from the schema's type and constraints alone."""
    kind = schema.get("type")
    if kind == "object":
        properties = schema.get("properties", {})
        return {field: skeleton(properties.get(field, {}), spec, examples, field, depth + 1)
                for field in schema.get("required", [])}
    if kind == "array":
        count = max(1, schema.get("minItems", 0))
        items = [skeleton(schema.get("items", {}), spec, examples, name, depth + 1) for _ in range(count)]
        return [f"{item}{i + 1}" if isinstance(item, str) and count > 1 else item for i, item in enumerate(items)]
    if kind in ("integer", "number"):
        value = min(max(schema.get("minimum", 1), 1), schema.get("maximum", float("inf")))
        return int(value) if kind == "integer" or value == int(value) else value
    if kind == "boolean":
        return True
    if kind == "string":
        return _text(schema)
    return None


def _text(schema: dict[str, Any]) -> str:
    email = schema.get("format") == "email" or "@" in schema.get("pattern", "")
    text = "someone@example.com" if email else {"date": "@today", "date-time": "@todayT00:00:00Z",
                                                "uuid": "00000000-0000-4000-8000-000000000000"
                                                }.get(schema.get("format", ""), "example")
    if _RELATIVE.match(text):
        return text
    return text.ljust(schema.get("minLength", 0), "x")[: schema.get("maxLength", len(text))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.openapi", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the file is stale")
    args = parser.parse_args(argv)
    stale = 0
    for file, text, source in ((docs.SPEC_FILE, generate(), "the routers' description"),
                               (docs.PAGE_FILE, page_template(), "Powertools' Swagger UI page")):
        current = file.read_text(encoding="utf-8") if file.is_file() else None
        if current == text:
            continue
        if args.check:
            print(f"{file.name} differs from {source}: run `make docs`", file=sys.stderr)
            stale = 1
            continue
        file.write_text(text, encoding="utf-8")
        print(f"rewrote functions/platform/{file.name}")
    return stale


if __name__ == "__main__":
    sys.exit(main())
