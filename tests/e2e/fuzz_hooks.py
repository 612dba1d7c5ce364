"""Schemathesis hooks for tests/e2e/test_fuzz.py (loaded by schemathesis.toml, in the fuzzer's process).

Four rules of this API are ones no JSON Schema in an OpenAPI description can state; each is stated in words in the
description, checked by the API (a documented 400) and tested by the functional suite. A *positive* case the fuzzer
draws may break one of them and still be "schema-valid", which the positive-data check would call a valid input
rejected. So a positive case is brought inside the rule before it is sent, the smallest change that does it; negative
cases are sent as drawn.

- A list cursor is valid only if this API signed it for this list and these parameters (functions/shared/pagination.py):
  the description states its shape (`CURSOR_PATTERN`), no schema can state its signature. A positive case goes
  without its made-up cursor (the first page, as valid as any). Forged and foreign well-shaped cursors are tested by
  the functional and e2e suites (INVALID_CURSOR).
- A catalog child's PUT body is a track or an actor (the description's `anyOf`), and the path's `childKind` says which:
  JSON Schema cannot tie a body to a path parameter. A positive case's `childKind` is set to the kind its body is.
- An e-commerce order names each `itemId` once (one DynamoDB item per order line, and a transaction may not touch an
  item twice); `uniqueItems` compares whole lines, not one field of them. A positive case keeps the first line of
  each itemId.
- A period's `endDate` is not before its `startDate` (contacts' links): JSON Schema cannot compare two fields. A
  positive case with the two reversed gets them in order.
"""

from __future__ import annotations

import schemathesis

CURSOR = "cursor"
CATALOG_CHILD = ("PUT", "/catalog/products/{productId}/children/{childKind}/{childId}")
ECOMMERCE_ORDER = ("POST", "/ecommerce/customers/{username}/orders")
# The field only a track or only an actor has (both bodies refuse unknown fields).
CHILD_KIND_BY_FIELD = {"title": "track", "name": "actor"}
PERIOD = ("startDate", "endDate")


@schemathesis.hook
def before_call(context, case, kwargs):
    mode = case.meta.generation.mode if case.meta is not None else None
    if mode is None or not mode.is_positive:
        return
    if case.query and CURSOR in case.query:
        case.query = {name: value for name, value in case.query.items() if name != CURSOR}
    operation = (case.method.upper(), case.operation.path)
    if operation == CATALOG_CHILD and isinstance(case.body, dict) and case.path_parameters:
        kind = next((CHILD_KIND_BY_FIELD[field] for field in case.body if field in CHILD_KIND_BY_FIELD), None)
        if kind is not None:
            case.path_parameters = {**case.path_parameters, "childKind": kind}
    if operation == ECOMMERCE_ORDER and isinstance(case.body, dict) and isinstance(case.body.get("items"), list):
        seen, lines = set(), []
        for line in case.body["items"]:
            key = line.get("itemId") if isinstance(line, dict) else None
            if key is None or key not in seen:
                lines.append(line)
                seen.add(key)
        case.body = {**case.body, "items": lines}
    if isinstance(case.body, dict) and all(isinstance(case.body.get(field), str) for field in PERIOD):
        start, end = (case.body[field] for field in PERIOD)
        if end < start:
            case.body = {**case.body, "startDate": end, "endDate": start}
