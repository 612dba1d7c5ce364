"""The OpenAPI description as a client meets the API: what Powertools generates from the routes, made exact here,
in one place, so a new domain gets it by declaring only its own errors.

Powertools documents 422 and the success code only. Our resolver never answers 422 (functions/shared/http.py turns
validation errors into 400) and answers 400/401/403/409/413/415/429/503 with the error envelope; API Gateway answers
414 for any URL over its limit. So, per operation:
422 goes; the `Error` envelope becomes a schema; every error the kit itself gives is added from what the route
declares (a body, parameters, a required group, an Idempotency-Key header); the route's own domain errors come from
its `responses=` (their description names the codes: "404 PERSON_NOT_FOUND"); a 204 has no body; path parameters are
named as API Gateway names them (`person_id` → `personId`); the summary is the handler's docstring's first line,
the description the rest. A bearer scheme is declared and required by every operation, so Swagger UI's
Authorize takes an ID token (`make token`).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterable, Mapping
from typing import Any

BEARER = "bearer"
SECURITY_SCHEMES: dict[str, Any] = {
    BEARER: {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
             "description": "a Cognito ID token (`make token` prints one for a local user)"},
}
SECURITY: list[dict[str, list[str]]] = [{BEARER: []}]

ERROR_REF = "#/components/schemas/Error"
ERROR_SCHEMA: dict[str, Any] = {
    "title": "Error",
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
                "code": {"type": "string", "description": "stable, machine-readable (e.g. PERSON_NOT_FOUND)"},
                "message": {"type": "string", "description": "for people; may change"},
                "details": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"field": {"type": "string"}, "message": {"type": "string"}},
                    },
                },
            },
        },
    },
}
# Any JSON value DynamoDB stores in a map (M) or a list (L), for routes that take free-form JSON (catalog documents): an
# object's keys are never empty, at any depth (DynamoDB refuses an empty attribute name wherever one appears); a number
# is 0 or has a magnitude within DynamoDB's 1E-130 .. 9.99...E+125. At most 38 significant digits and the nesting depth
# are checked by the API (400) but not stated: JSON Schema has no keyword for either.
DYNAMODB_JSON = "DynamoDBJson"
DYNAMODB_JSON_REF = f"#/components/schemas/{DYNAMODB_JSON}"
DYNAMODB_NUMBER_MAX = 9.999999999999998e125  # the largest float whose shortest spelling stays under 1E+126
DYNAMODB_NUMBER_MIN = 1e-130
DYNAMODB_JSON_SCHEMA: dict[str, Any] = {
    "title": DYNAMODB_JSON,
    "description": "any JSON value DynamoDB stores: object keys never empty; numbers 0 or of magnitude "
                   "1E-130 .. 9.99E+125, with at most 38 significant digits",
    "anyOf": [
        {"type": "null"},
        {"type": "boolean"},
        {"type": "string"},
        {"const": 0},
        {"type": "number", "minimum": DYNAMODB_NUMBER_MIN, "maximum": DYNAMODB_NUMBER_MAX},
        {"type": "number", "minimum": -DYNAMODB_NUMBER_MAX, "maximum": -DYNAMODB_NUMBER_MIN},
        {"type": "array", "items": {"$ref": DYNAMODB_JSON_REF}},
        {"type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": {"$ref": DYNAMODB_JSON_REF}},
    ],
}
# Powertools' own schemas for its 422 answer, which our resolver never gives.
POWERTOOLS_ERROR_SCHEMAS = ("HTTPValidationError", "ValidationError")

# What every authenticated route can answer, whatever it declares (the authorizer, DynamoDB's throttling and outages).
AUTHENTICATED = {
    401: "401 UNAUTHORIZED: no valid bearer token",
    429: "429 THROTTLED: DynamoDB throttled the request; retry with backoff",
    503: "503 SERVICE_UNAVAILABLE: a store is unavailable; retry later",
}
# What API Gateway itself answers for any operation (local/apigateway/restapi.py MAX_URL_CHARS, a DEFAULT_4XX
# gateway response).
GATEWAY = {414: "414 BAD_REQUEST: the URL is over 10,240 characters (API Gateway's limit for a regional API)"}
WITH_BODY = {
    400: "400 VALIDATION_FAILED (details name the fields), MALFORMED_JSON",
    413: "413 PAYLOAD_TOO_LARGE: the body is over 64 KB",
    415: "415 UNSUPPORTED_MEDIA_TYPE: the body is not JSON",
}
WITH_PARAMETERS = {400: "400 VALIDATION_FAILED (details name the fields)"}
# Any operation: a query parameter it does not take (functions/shared/http.py `unknown_query_parameters`).
UNKNOWN_QUERY = {400: "400 VALIDATION_FAILED: a query parameter the operation does not take (details name it)"}
WITH_CURSOR = {400: "400 INVALID_CURSOR: the cursor is not one this list gave for these parameters"}
WITH_IDEMPOTENCY_KEY = {409: "409 IDEMPOTENCY_KEY_REUSED (another body), REQUEST_IN_PROGRESS (retry)"}
IDEMPOTENCY_HEADER = "idempotency-key"


def refine(spec: dict[str, Any], routes: Iterable[Any]) -> dict[str, Any]:
    """`spec` (Powertools' schema as a dict) made exact for the resolver's `routes` (Powertools `Route`s)."""
    by_operation = {route.operation_id: route for route in routes}
    schemas = spec.setdefault("components", {}).setdefault("schemas", {})
    for name in POWERTOOLS_ERROR_SCHEMAS:
        schemas.pop(name, None)
    schemas["Error"] = ERROR_SCHEMA
    if DYNAMODB_JSON_REF in repr(spec):
        schemas[DYNAMODB_JSON] = DYNAMODB_JSON_SCHEMA
    _json_schema_bounds(spec)
    spec["components"]["securitySchemes"] = SECURITY_SCHEMES
    spec["security"] = SECURITY
    spec["paths"] = {
        api_gateway_path(path): {
            method: _operation(op, by_operation.get(op.get("operationId"))) for method, op in ops.items()
        }
        for path, ops in spec.get("paths", {}).items()
    }
    return spec


# pydantic writes a bound it cannot push into the type's own schema (an int behind a BeforeValidator: `JsonInt`) with
# its Python name, which JSON Schema ignores; a fuzzer then sends `year: 0` as valid. Renamed to JSON Schema's words.
_BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def _json_schema_bounds(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") in ("integer", "number"):
            for python, json_schema in _BOUNDS.items():
                if python in node:
                    node[json_schema] = node.pop(python)
        for value in node.values():
            _json_schema_bounds(value)
    elif isinstance(node, list):
        for value in node:
            _json_schema_bounds(value)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def api_gateway_path(path: str) -> str:
    """`/contacts/persons/{person_id}` as API Gateway's resource names it: `/contacts/persons/{personId}`."""
    return re.sub(r"{(\w+)}", lambda m: "{" + camel(m.group(1)) + "}", path)


def _operation(op: dict[str, Any], route: Any) -> dict[str, Any]:
    for parameter in op.get("parameters", []):
        if parameter.get("in") == "path":
            parameter["name"] = camel(parameter["name"])
    responses = op.setdefault("responses", {})
    responses.pop("422", None)
    if route is not None and not any(status.startswith("2") for status in responses):
        responses[str(route.status_code)] = _success(responses)
    for status, response in responses.items():
        if status == "204":
            response.pop("content", None)
    for status, description in _errors(op, route).items():
        responses[str(status)] = {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": ERROR_REF}}},
        }
    op["responses"] = dict(sorted(responses.items()))
    doc = inspect.cleandoc(route.func.__doc__ or "") if route is not None else ""
    if doc:  # without one, Powertools' "GET /path" stays, and tests/unit/test_openapi.py fails on it
        summary, _, description = doc.partition("\n")
        op["summary"] = summary.strip().rstrip(".")
        if description.strip():
            op["description"] = description.strip()
    return op


def _success(responses: Mapping[str, Any]) -> dict[str, Any]:
    """The success a route declaring only errors in `responses=` answers. Powertools then documents no success, but
    gives every response declared without content the handler's return schema: that is the success's content."""
    content = next((r["content"] for r in responses.values() if r.get("content")), None)
    return {"description": "Successful Response", **({"content": content} if content else {})}


def _errors(op: Mapping[str, Any], route: Any) -> dict[int, str]:
    """Every error this operation can answer, each with the codes it carries."""
    errors: dict[int, list[str]] = {}

    def add(kinds: Mapping[int, str]) -> None:
        for status, description in kinds.items():
            errors.setdefault(status, []).append(description)

    add(GATEWAY)
    if op.get("security") != []:
        add(AUTHENTICATED)
    if "requestBody" in op:
        add(WITH_BODY)
    parameters = op.get("parameters", [])
    if any(can_be_invalid(p) for p in parameters) and "requestBody" not in op:
        add(WITH_PARAMETERS)
    names = {p.get("name", "").lower() for p in parameters}
    if "cursor" in names:
        add(WITH_CURSOR)
    if IDEMPOTENCY_HEADER in names:
        add(WITH_IDEMPOTENCY_KEY)
    add(UNKNOWN_QUERY)
    for group in required_groups(route):
        add({403: f"403 FORBIDDEN: needs the '{group}' group"})
    for status, response in sorted((getattr(route, "responses", None) or {}).items()):
        if int(status) >= 400:
            add({int(status): response.get("description", "")})
    return {status: "; ".join(dict.fromkeys(texts)) for status, texts in sorted(errors.items())}


def can_be_invalid(parameter: Mapping[str, Any]) -> bool:
    """Whether some request can fail validation on this parameter: a required query string or header can be missing,
    and any constraint (type, pattern, length, bounds, choices) can be broken. A path parameter is always there, and
    an unconstrained string matches anything: those cannot."""
    if parameter.get("required") and parameter.get("in") != "path":
        return True
    schema = parameter.get("schema", {})
    for kind in schema.get("anyOf", [schema]):
        if kind.get("type") not in ("string", "null") or set(kind) & CONSTRAINTS:
            return True
    return False


CONSTRAINTS = {"pattern", "minLength", "maxLength", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
               "exclusiveMaximum", "format"}


def required_groups(route: Any) -> list[str]:
    """The groups a route's `require_group` middlewares ask for (functions/shared/auth.py)."""
    return [m.required_group for m in getattr(route, "middlewares", None) or () if getattr(m, "required_group", None)]
