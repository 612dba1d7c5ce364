"""Schemathesis hooks for tests/e2e/test_fuzz.py (loaded by schemathesis.toml, in the fuzzer's process).

Seven rules of this API are ones no JSON Schema in an OpenAPI description can state; each is stated in words in the
description, checked by the API (a documented 400) and tested by the functional suite. A *positive* case the fuzzer
draws may break one of them and still be "schema-valid", which the positive-data check would call a valid input
rejected. So a positive case is brought inside the rule before it is sent, the smallest change that does it; negative
cases are sent as drawn.

- A list cursor is valid only if this API signed it for this list and these parameters (functions/shared/cursors.py):
  the description states its shape (`CURSOR_PATTERN`), no schema can state its signature. A positive case goes
  without its made-up cursor (the first page, as valid as any). Forged and foreign well-shaped cursors are tested by
  the functional and e2e suites (INVALID_CURSOR).
- A catalog child's PUT body is a track or an actor (the description's `anyOf`), and the path's `childKind` says which:
  JSON Schema cannot tie a body to a path parameter. A positive case's `childKind` is set to the kind its body is.
- An order names each product once: an e-commerce order each `itemId`, an order-entry order each `productId` (one
  DynamoDB item per order line, and a transaction may not touch an item twice); `uniqueItems` compares whole lines,
  not one field of them. A positive case keeps the first line of each. Likewise an order-entry inventory move is
  between two different warehouses: a positive case moving to its source gets another destination.
- A period's `endDate` is not before its `startDate` (contacts' links): JSON Schema cannot compare two fields. A
  positive case with the two reversed gets them in order.
- A number in a catalog document's free JSON has at most 38 significant digits (DynamoDB's precision); JSON Schema
  cannot count digits. A positive case's longer integers go as the float of the same magnitude (17 digits at most).
- A range's `from` is not after its `to` (query parameters of measurements, connected car, order entry, patterns; a
  reversed range is a 400 VALIDATION_FAILED naming both). A positive case whose bounds may be reversed (compared as
  numbers, or as instants when both read as ISO-8601, else assumed reversed) gets `to` = `from`, a range of one.
"""

from __future__ import annotations

from datetime import UTC, datetime

import schemathesis

# The operations schemathesis's "Schema validation mismatch" warning may name: those whose refusals of schema-valid data
# depend on what is stored or on the clock, which no description can state (`METHOD /path`: why). The warning counts
# a positive case's 400, 413, 422 (not 401, 403, 404, 409, 429); tests/e2e/test_fuzz.py fails on any operation it
# names that is not here.
REFUSED_BY_STATE_OR_CLOCK: dict[str, str] = {}

CURSOR = "cursor"
CATALOG_CHILD = ("PUT", "/catalog/products/{productId}/children/{childKind}/{childId}")
# The operations whose body's list holds one line per key: (list field, key field).
ONE_LINE_PER = {
    ("POST", "/ecommerce/customers/{username}/orders"): ("items", "itemId"),
    ("POST", "/order-entry/orders"): ("lines", "productId"),
}
INVENTORY_MOVE = ("POST", "/order-entry/inventory-moves")
FREE_JSON = {("PUT", "/catalog/documents/{productId}"), ("POST", "/catalog/documents/{productId}/children")}
MAX_DIGITS = 38


def _within_digits(value):
    """`value` with every integer of more than MAX_DIGITS significant digits as the float nearest it."""
    if isinstance(value, int) and not isinstance(value, bool) and len(str(abs(value)).rstrip("0")) > MAX_DIGITS:
        return float(value)
    if isinstance(value, list):
        return [_within_digits(element) for element in value]
    if isinstance(value, dict):
        return {key: _within_digits(element) for key, element in value.items()}
    return value
# The field only a track or only an actor has (both bodies refuse unknown fields).
CHILD_KIND_BY_FIELD = {"title": "track", "name": "actor"}
PERIOD = ("startDate", "endDate")
RANGE = ("from", "to")


def _bound(value):
    """A range bound as something comparable: a number, an instant (UTC if it names no offset), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    text = str(value)
    if text.isdigit():
        return int(text)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _in_order(first, last) -> bool:
    low, high = _bound(first), _bound(last)
    try:
        return low is not None and high is not None and low <= high
    except TypeError:  # a number and an instant
        return False


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
    if operation in FREE_JSON and isinstance(case.body, dict):
        case.body = _within_digits(case.body)
    if operation in ONE_LINE_PER and isinstance(case.body, dict):
        field, key_field = ONE_LINE_PER[operation]
        if isinstance(case.body.get(field), list):
            seen, lines = set(), []
            for line in case.body[field]:
                key = line.get(key_field) if isinstance(line, dict) else None
                if key is None or key not in seen:
                    lines.append(line)
                    seen.add(key)
            case.body = {**case.body, field: lines}
    if operation == INVENTORY_MOVE and isinstance(case.body, dict):
        source = case.body.get("fromWarehouseId")
        if isinstance(source, str) and source and source == case.body.get("toWarehouseId"):
            case.body = {**case.body, "toWarehouseId": source[:-1] + ("b" if source[-1] == "a" else "a")}
    if case.query and all(field in case.query for field in RANGE) and not _in_order(*(case.query[f] for f in RANGE)):
        case.query = {**case.query, "to": case.query["from"]}
    if isinstance(case.body, dict) and all(isinstance(case.body.get(field), str) for field in PERIOD):
        start, end = (case.body[field] for field in PERIOD)
        if end < start:
            case.body = {**case.body, "startDate": end, "endDate": start}
