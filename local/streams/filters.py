"""Lambda event filtering (`FilterCriteria`) for a DynamoDB stream mapping, applied as Lambda applies it.

"Control which events Lambda sends to your function" (https://docs.aws.amazon.com/lambda/latest/dg/
invocation-eventfiltering.html) and its DynamoDB section ("Using event filtering with a DynamoDB event source",
with-ddb-filtering.html) say:
- a mapping has up to 5 filters (10 with a quota increase), "logically ORed together": a record that satisfies one
  or more is included in the next event; one that satisfies none is discarded — never delivered, never retried,
  never a failure ("Lambda discards the record");
- for a stream, "the streams iterator advances past this record" once the filter has processed it, and with a
  batching window Lambda applies the filter "to each new event to determine whether to add it to the current
  batch": a dropped record takes no room in a batch;
- a pattern is an object whose fields are ANDed; a field holds a list of rules (ORed) or a nested object; the event
  "must contain all the field names included in a filter"; Lambda uses EventBridge's rule syntax: exact strings
  (character by character, no case folding), numbers (compared by their JSON text: 300 and 300.0 differ), null,
  "" (empty), `equals-ignore-case`, `prefix`, `suffix` (both also with `equals-ignore-case`), `anything-but` (a
  value, a list, or a prefix/suffix/equals-ignore-case), `numeric` (=, <, <=, >, >= on JSON numbers), `exists`,
  and `$or` across fields ("Or (multiple fields)"). A field whose value is an array matches when any element does
  (EventBridge, "Matching on arrays").
- DynamoDB images are in their typed form: `{"dynamodb": {"Keys": {"sk": {"S": ["#cart"]}}}}`. A number attribute
  is a string there (`{"N": "101"}`): match it as a string; `numeric` applies to JSON numbers only.

Patterns are checked when the mapping is read, so a pattern Lambda would refuse fails the start (`FilterError`).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

OR = "$or"
_NUMERIC: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_STRING_OPERATORS = ("prefix", "suffix", "equals-ignore-case")
_ABSENT = object()


class FilterError(ValueError):
    """A filter pattern Lambda would refuse when the mapping is created."""


@dataclass(frozen=True)
class FilterCriteria:
    """A mapping's filters (each a `Pattern`, JSON text as in the template); no filters: every record passes."""

    patterns: tuple[str, ...] = ()
    _parsed: tuple[Mapping[str, Any], ...] = field(default=(), init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_parsed", tuple(parse(pattern) for pattern in self.patterns))

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, record: Mapping[str, Any]) -> bool:
        """True when the record is delivered: no filters, or at least one pattern matches it."""
        return not self._parsed or any(matches(pattern, record) for pattern in self._parsed)


def parse(text: str) -> Mapping[str, Any]:
    """A `Pattern` string as a checked pattern object (numbers kept as written: 3.0e2 is not 300.0)."""
    try:
        pattern = json.loads(text, parse_float=Decimal)
    except (TypeError, ValueError) as error:
        raise FilterError(f"a filter pattern must be JSON: {error}") from error
    _check_object(pattern, "pattern")
    return pattern


def matches(pattern: Mapping[str, Any], event: Any) -> bool:
    """Every field of `pattern` matches `event` (AND); `$or` holds alternatives of which one must match."""
    for name, rule in pattern.items():
        if name == OR:
            if not any(matches(alternative, event) for alternative in rule):
                return False
            continue
        value = event.get(name, _ABSENT) if isinstance(event, Mapping) else _ABSENT
        if isinstance(rule, Mapping):
            # A nested pattern: the value is an object (or an array holding one) that matches it. An absent object
            # matches only rules that ask for absence (`exists: false`).
            objects = [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, Mapping)]
            if not any(matches(rule, obj) for obj in objects or [{}]):
                return False
        elif not any(_leaf_matches(one, value) for one in rule):
            return False
    return True


def _leaf_matches(rule: Any, value: Any) -> bool:
    if isinstance(rule, Mapping) and "exists" in rule:
        # "Exists matching only works on leaf nodes": an object is not a leaf, an empty array holds none.
        leaf = value is not _ABSENT and not isinstance(value, Mapping) and value != []
        return leaf is rule["exists"]
    if value is _ABSENT:
        return False
    return any(_value_matches(rule, one) for one in (value if isinstance(value, list) else [value]))


def _value_matches(rule: Any, value: Any) -> bool:
    """One rule against one (non-array) value of the event."""
    if not isinstance(rule, Mapping):
        return _equals(rule, value)
    ((name, operand),) = rule.items()
    if name == "anything-but":
        if isinstance(operand, Mapping):
            return isinstance(value, str) and not _value_matches(operand, value)
        return not any(_equals(one, value) for one in (operand if isinstance(operand, list) else [operand]))
    if name == "numeric":
        return _is_number(value) and all(
            _NUMERIC[operand[i]](Decimal(str(value)), Decimal(str(operand[i + 1]))) for i in range(0, len(operand), 2))
    if not isinstance(value, str):
        return False
    if name == "equals-ignore-case":
        return value.lower() == operand.lower()
    ignore_case = isinstance(operand, Mapping)
    text = operand["equals-ignore-case"] if ignore_case else operand
    subject, text = (value.lower(), text.lower()) if ignore_case else (value, text)
    return subject.startswith(text) if name == "prefix" else subject.endswith(text)


def _equals(literal: Any, value: Any) -> bool:
    if literal is None or isinstance(literal, (str, bool)):
        return type(value) is type(literal) and value == literal
    # Numbers: "Lambda also uses string representation. For example, 300, 300.0, and 3.0e2 are not considered equal."
    return _is_number(value) and _number_text(value) == _number_text(literal)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _number_text(number: Any) -> str:
    return str(number) if isinstance(number, Decimal) else json.dumps(number)


# --- checking a pattern as Lambda does when the mapping is created ---------------------------------------------------


def _check_object(pattern: Any, where: str) -> None:
    if not isinstance(pattern, dict) or not pattern:
        raise FilterError(f"{where}: a pattern is a non-empty JSON object")
    for name, rule in pattern.items():
        at = f"{where}.{name}"
        if name == OR:
            if not isinstance(rule, list) or len(rule) < 2:
                raise FilterError(f"{at}: $or takes a list of at least two patterns")
            for index, alternative in enumerate(rule):
                _check_object(alternative, f"{at}[{index}]")
        elif isinstance(rule, dict):
            _check_object(rule, at)
        elif isinstance(rule, list) and rule:
            for one in rule:
                _check_rule(one, at)
        else:
            raise FilterError(f"{at}: a field's rule is a non-empty list or a nested pattern, not {rule!r}")


def _check_rule(rule: Any, where: str) -> None:
    if rule is None or isinstance(rule, (str, bool, int, Decimal)):
        return
    if not isinstance(rule, dict) or len(rule) != 1:
        raise FilterError(f"{where}: {rule!r} is not a value or a single-operator object")
    ((name, operand),) = rule.items()
    if name == "exists":
        ok = isinstance(operand, bool)
    elif name == "equals-ignore-case":
        ok = isinstance(operand, str)
    elif name in ("prefix", "suffix"):
        ok = isinstance(operand, str) or (
            isinstance(operand, dict) and list(operand) == ["equals-ignore-case"]
            and isinstance(operand["equals-ignore-case"], str))
    elif name == "anything-but":
        values = operand if isinstance(operand, list) else [operand]
        ok = (isinstance(operand, dict) and len(operand) == 1 and next(iter(operand)) in _STRING_OPERATORS
              and isinstance(next(iter(operand.values())), str)) or (
            bool(values) and all(isinstance(v, (str, int, Decimal)) and not isinstance(v, bool) for v in values))
    elif name == "numeric":
        ok = (isinstance(operand, list) and 0 < len(operand) <= 4 and len(operand) % 2 == 0
              and all(op in _NUMERIC for op in operand[::2])
              and all(_is_number(n) for n in operand[1::2]))
    else:
        raise FilterError(f"{where}: unknown operator {name!r}")
    if not ok:
        raise FilterError(f"{where}: invalid operand for {name}: {operand!r}")


def criteria_of(filter_criteria: Any, where: str) -> FilterCriteria:
    """A template's `FilterCriteria` ({"Filters": [{"Pattern": "..."}]}), checked."""
    if not filter_criteria:
        return FilterCriteria()
    filters = filter_criteria.get("Filters") if isinstance(filter_criteria, Mapping) else None
    if not isinstance(filters, Sequence) or isinstance(filters, str) or not all(
            isinstance(f, Mapping) and isinstance(f.get("Pattern"), str) for f in filters):
        raise FilterError(f"{where}: FilterCriteria is {{\"Filters\": [{{\"Pattern\": \"<JSON>\"}}, ...]}}")
    if len(filters) > 10:
        raise FilterError(f"{where}: {len(filters)} filters; Lambda allows 5, and 10 with a quota increase")
    try:
        return FilterCriteria(tuple(f["Pattern"] for f in filters))
    except FilterError as error:
        raise FilterError(f"{where}: {error}") from None
