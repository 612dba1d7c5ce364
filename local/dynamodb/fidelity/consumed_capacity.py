"""ConsumedCapacity as DynamoDB counts it.

moto: whatever an action read or wrote, its ConsumedCapacity is a constant (0.5 or 1 unit), and a Query or Scan
applies its FilterExpression while reading, so nothing tells what the read evaluated before the filter.

DynamoDB: the units follow the sizes of the items (the DynamoDB Developer Guide, "DynamoDB read and write operations":
a read unit is 4 KB strongly consistent, a write unit 1 KB, ...), and a Query or Scan is billed by the items it
evaluated, the filter saving nothing (the Developer Guide, "Filter expressions for Query operations"). The full rules,
each with the page it comes from, are in local/dynamodb/capacity.py, which computes them.

Correction: every DynamoDB action runs through `moto_capacity.around`, which, when the request asks for
ReturnConsumedCapacity, replaces moto's figure by the one computed from the items before and after the action. Query
and Scan run moto's own read without the FilterExpression and the ProjectionExpression, report the items it evaluated
(`moto_capacity.evaluated`, as the table or index stores them), then apply the filter and the projection as moto
applies them, so the answer is unchanged. A Scan with the legacy ScanFilter is left to moto, which filters while it
reads.
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
    from moto.dynamodb.responses import DynamoHandler

    _patches.replace(DynamoHandler, "call_action", _counted(DynamoHandler.call_action))
    _patches.replace(Table, "query", _measured_query(Table.query))
    _patches.replace(Table, "scan", _measured_scan(Table.scan))


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place


def _counted(call_action: Any) -> Any:
    from local.dynamodb import capacity as moto_capacity

    @functools.wraps(call_action)
    def counted(self: Any) -> Any:
        return moto_capacity.around(self, lambda: call_action(self))

    return counted


def _measured_query(query: Any) -> Any:
    """moto's query without the filter and the projection: the items it evaluated, as the index holds them, are what
    the read costs; then the filter and the projection, applied as moto applies them."""
    signature = inspect.signature(query)

    @functools.wraps(query)
    def measured(*args: Any, **kwargs: Any) -> Any:
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        asked = call.arguments
        filter_expression, projection = asked["filter_expression"], asked["projection_expressions"]
        asked["filter_expression"] = asked["projection_expressions"] = None
        results, scanned, last = query(*call.args, **call.kwargs)
        return _filtered(asked, results, filter_expression, projection), scanned, last

    return measured


def _measured_scan(scan: Any) -> Any:
    signature = inspect.signature(scan)

    @functools.wraps(scan)
    def measured(*args: Any, **kwargs: Any) -> Any:
        call = signature.bind(*args, **kwargs)
        call.apply_defaults()
        asked = call.arguments
        if asked["filters"]:  # the legacy ScanFilter: moto filters while it reads
            return scan(*call.args, **call.kwargs)
        filter_expression, projection = asked["filter_expression"], asked["projection_expression"]
        asked["filter_expression"] = asked["projection_expression"] = None
        results, count, last = scan(*call.args, **call.kwargs)
        return _filtered(asked, results, filter_expression, projection), count, last

    return measured


def _filtered(asked: Any, results: list[Any], filter_expression: Any, projection: Any) -> list[Any]:
    """Report the items a read evaluated (`asked`: its arguments), then filter and project them."""
    from local.dynamodb import capacity as moto_capacity

    moto_capacity.evaluated(asked["self"], asked["index_name"], results, asked["consistent_read"])
    if filter_expression is not None:
        results = [item for item in results if filter_expression.expr(item)]
    if projection:
        results = [item.project(projection) for item in results]
    return results
