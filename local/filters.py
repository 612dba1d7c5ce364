"""Lambda event filtering (`FilterCriteria`), as an event source mapping applies it to records.

Why here: a consumer's filter decides which records it ever sees, so a pattern that is wrong (or
right) must behave locally as it does in AWS. The syntax is the subset of EventBridge patterns that
Lambda documents: exact values (strings, numbers, `null`, `""`), `prefix`, `suffix`,
`equals-ignore-case`, `anything-but`, `numeric`, `exists`, nested keys and `$or`. A key with a list
matches when the record's value (or any element of an array value) matches one of the list's rules;
the keys of a pattern must all match; the filters of a mapping are ORed.

As in AWS, `numeric` only matches JSON numbers: DynamoDB's `{"N": "5"}` is a string in the record
and never matches a numeric rule (compare it as a string, or filter on e.g. `SizeBytes`).
Operators Lambda does not accept (`wildcard`, `cidr`, ...) are rejected, as
CreateEventSourceMapping rejects them, instead of silently matching nothing.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

Pattern = Mapping[str, Any]

_STRING_OPERATORS = ("prefix", "suffix", "equals-ignore-case")
_NUMERIC_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "=": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_MISSING = object()


class FilterError(ValueError):
    """A filter pattern Lambda would reject."""


def parse_filters(filters: Sequence[Mapping[str, Any]] | None) -> tuple[Pattern, ...]:
    """`FilterCriteria.Filters` (each `{"Pattern": "<json>"}`) as validated pattern objects."""
    patterns = []
    for index, entry in enumerate(filters or ()):
        text = entry.get("Pattern") if isinstance(entry, Mapping) else None
        if not isinstance(text, str):
            raise FilterError(f"Filters[{index}]: Pattern must be a JSON string, got {text!r}")
        try:
            pattern = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FilterError(f"Filters[{index}]: Pattern is not JSON: {exc}") from exc
        _validate_object(pattern, f"Filters[{index}].Pattern")
        patterns.append(pattern)
    return tuple(patterns)


def matches_any(patterns: Sequence[Pattern], record: Mapping[str, Any]) -> bool:
    """Whether a mapping with these filters delivers `record` (no filters: every record)."""
    return not patterns or any(_match_object(pattern, record) for pattern in patterns)


# validation ------------------------------------------------------------------------------------


def _validate_object(pattern: Any, where: str) -> None:
    if not isinstance(pattern, Mapping) or not pattern:
        raise FilterError(f"{where}: expected a non-empty JSON object, got {pattern!r}")
    for key, rule in pattern.items():
        if key == "$or":
            if not isinstance(rule, list) or len(rule) < 2:
                raise FilterError(f"{where}.$or: expected a list of at least two patterns")
            for index, alternative in enumerate(rule):
                _validate_object(alternative, f"{where}.$or[{index}]")
        elif isinstance(rule, Mapping):
            _validate_object(rule, f"{where}.{key}")
        elif isinstance(rule, list) and rule:
            for matcher in rule:
                _validate_matcher(matcher, f"{where}.{key}")
        else:
            raise FilterError(f"{where}.{key}: expected an object or a non-empty list of rules")


def _validate_matcher(matcher: Any, where: str) -> None:
    if matcher is None or isinstance(matcher, (str, bool, int, float)):
        return
    if not isinstance(matcher, Mapping) or len(matcher) != 1:
        raise FilterError(f"{where}: unsupported rule {matcher!r}")
    ((name, argument),) = matcher.items()
    if name in _STRING_OPERATORS:
        _validate_string_operand(name, argument, where)
    elif name == "anything-but":
        _validate_anything_but(argument, where)
    elif name == "numeric":
        _validate_numeric(argument, where)
    elif name == "exists":
        if not isinstance(argument, bool):
            raise FilterError(f"{where}: exists takes true or false, got {argument!r}")
    else:
        raise FilterError(f"{where}: operator {name!r} is not supported by Lambda event filtering")


def _validate_string_operand(name: str, argument: Any, where: str) -> None:
    if isinstance(argument, str):
        return
    if (
        name in ("prefix", "suffix")
        and isinstance(argument, Mapping)
        and list(argument) == ["equals-ignore-case"]
        and isinstance(argument["equals-ignore-case"], str)
    ):
        return
    raise FilterError(f"{where}: {name} takes a string, got {argument!r}")


def _validate_anything_but(argument: Any, where: str) -> None:
    if isinstance(argument, Mapping):
        if len(argument) != 1 or next(iter(argument)) not in _STRING_OPERATORS:
            raise FilterError(f"{where}: unsupported anything-but rule {argument!r}")
        name, operand = next(iter(argument.items()))
        _validate_string_operand(name, operand, where)
        return
    values = argument if isinstance(argument, list) else [argument]
    if not values or not all(isinstance(v, (str, int, float)) for v in values):
        raise FilterError(f"{where}: anything-but takes strings or numbers, got {argument!r}")


def _validate_numeric(argument: Any, where: str) -> None:
    valid = isinstance(argument, list) and len(argument) in (2, 4)
    if valid:
        pairs = list(zip(argument[::2], argument[1::2], strict=True))
        valid = all(op in _NUMERIC_OPERATORS and _is_number(value) for op, value in pairs) and (
            len(pairs) == 1 or "=" not in argument[::2]
        )
    if not valid:
        raise FilterError(f"{where}: numeric takes [op, n] or [op, n, op, n], got {argument!r}")


# matching --------------------------------------------------------------------------------------


def _match_object(pattern: Pattern, value: Any) -> bool:
    fields = value if isinstance(value, Mapping) else {}
    for key, rule in pattern.items():
        if key == "$or":
            if not any(_match_object(alternative, value) for alternative in rule):
                return False
        elif isinstance(rule, Mapping):
            if not _match_nested(rule, fields.get(key, _MISSING)):
                return False
        elif not _match_leaf(rule, fields.get(key, _MISSING)):
            return False
    return True


def _match_nested(pattern: Pattern, value: Any) -> bool:
    """A nested pattern; an array of objects matches when any element does."""
    if isinstance(value, list):
        return any(_match_object(pattern, element) for element in value)
    return _match_object(pattern, value if value is not _MISSING else {})


def _match_leaf(rules: Sequence[Any], value: Any) -> bool:
    present = value is not _MISSING
    candidates = value if isinstance(value, list) else [value]
    for rule in rules:
        if isinstance(rule, Mapping) and "exists" in rule:
            # `exists` looks at leaves only: an object-valued field does not "exist" for it.
            is_leaf = present and not isinstance(value, Mapping)
            if rule["exists"] is is_leaf:
                return True
        elif present and any(_match_value(rule, candidate) for candidate in candidates):
            return True
    return False


def _match_value(rule: Any, value: Any) -> bool:
    if isinstance(rule, Mapping):
        ((name, argument),) = rule.items()
        if name == "anything-but":
            return _match_anything_but(argument, value)
        if name == "numeric":
            return _is_number(value) and _match_numeric(argument, value)
        return _match_string_operator(name, argument, value)
    if rule is None or isinstance(rule, (str, bool)):
        return type(value) is type(rule) and value == rule
    return _is_number(value) and float(value) == float(rule)


def _match_string_operator(name: str, argument: Any, value: Any) -> bool:
    if not isinstance(value, str):
        return False
    if isinstance(argument, Mapping):  # {"prefix": {"equals-ignore-case": "x"}}
        argument, value = argument["equals-ignore-case"].casefold(), value.casefold()
    if name == "prefix":
        return bool(value.startswith(argument))
    if name == "suffix":
        return bool(value.endswith(argument))
    return bool(value.casefold() == argument.casefold())


def _match_anything_but(argument: Any, value: Any) -> bool:
    if isinstance(argument, Mapping):
        ((name, operand),) = argument.items()
        return isinstance(value, str) and not _match_string_operator(name, operand, value)
    if not isinstance(value, str) and not _is_number(value):
        return False
    excluded = argument if isinstance(argument, list) else [argument]
    return not any(_match_value(item, value) for item in excluded)


def _match_numeric(argument: Sequence[Any], value: float) -> bool:
    pairs = zip(argument[::2], argument[1::2], strict=True)
    return all(_NUMERIC_OPERATORS[op](float(value), float(bound)) for op, bound in pairs)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


__all__ = ["FilterError", "Pattern", "matches_any", "parse_filters"]
