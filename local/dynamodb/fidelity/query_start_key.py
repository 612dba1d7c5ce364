"""A Query's ExclusiveStartKey outside its sort key condition is refused.

moto: a Query whose ExclusiveStartKey has a sort key that does not satisfy the sort key condition answers from that
position, mostly an empty page. A caller whose range moved under its cursor (a lower bound clamped to now minus a
retention) passes locally and fails on AWS.

DynamoDB: the DynamoDB API Reference, "Query": ExclusiveStartKey is "the primary key of the first item that this
operation will evaluate", the LastEvaluatedKey of the previous page, so of the range asked for. A start key outside
that range is refused with a ValidationException, "The provided starting key does not match the range key predicate"
(DynamoDB's answer; dynalite, which mirrors DynamoDB's validation, tests the same message).

Correction: before moto's Query, each sort key condition is checked against the start key's value for that attribute
(string and number keys; a binary one, a start key without the attribute, or a shape this does not know is left to
moto); outside it, the Query is refused with moto's MockValidationException and that message.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto.dynamodb.models.table import Table

    _patches.replace(Table, "query", _start_key_checked(Table.query))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


def _start_key_checked(query: Any) -> Any:
    signature = inspect.signature(query)

    @functools.wraps(query)
    def checked(*args: Any, **kwargs: Any) -> Any:
        asked = signature.bind(*args, **kwargs).arguments
        _check_start_key(asked.get("exclusive_start_key"), asked.get("range_key_conditions") or [])
        return query(*args, **kwargs)

    return checked


_COMPARISONS = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}  # moto passes either form


def _check_start_key(start: dict[str, Any] | None, range_conditions: list[Any]) -> None:
    """Refuse a start key whose sort key lies outside the sort key condition, as DynamoDB does."""
    from moto.dynamodb.exceptions import MockValidationException
    from moto.dynamodb.models.dynamo_type import DynamoType

    if not start:
        return
    for name, comparison, values in range_conditions:
        if not isinstance(start.get(name), dict) or not ({"S", "N"} & set(start[name])):
            continue  # a start key without the attribute, or a binary one (compared as bytes): moto's own answer
        try:
            value, bounds = DynamoType(start[name]).cast_value, [v.cast_value for v in values]
            inside = _inside(_COMPARISONS.get(comparison, comparison.upper()), value, bounds)
        except (KeyError, IndexError, TypeError, ArithmeticError):  # a shape or type this does not know: moto decides
            continue
        if not inside:
            raise MockValidationException("The provided starting key does not match the range key predicate")


def _inside(comparison: str, value: Any, bounds: list[Any]) -> bool:
    """Whether `value` satisfies the sort key condition; KeyError for a comparison this does not know."""
    if comparison == "EQ":
        return value == bounds[0]
    if comparison == "LT":
        return value < bounds[0]
    if comparison == "LE":
        return value <= bounds[0]
    if comparison == "GT":
        return value > bounds[0]
    if comparison == "GE":
        return value >= bounds[0]
    if comparison == "BETWEEN":
        return bounds[0] <= value <= bounds[1]
    if comparison == "BEGINS_WITH":
        return isinstance(value, str) and value.startswith(bounds[0])
    raise KeyError(comparison)
