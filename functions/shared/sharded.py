"""A write-sharded index read as one list: every partition of `<value>#<n>` queried, the answers merged by the sort
key, with an opaque cursor (the last sort key returned). Used where one index key would take more than a partition's
1,000 WCU a second (docs/adr/0109-active-customers-sharded-and-projected.md, 0110-contact-type-index-sharded.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import ConditionBase, Key

from functions.shared.pages import Page

AFTER = "after"  # a merged list's cursor key: the sort key of the last item it returned


def resume_after(start_key: dict[str, Any] | None, sort_attribute: str) -> str | None:
    """Where a merged list resumes: its own cursor's `after`, or the sort key of a LastEvaluatedKey from the single
    index it replaced (a cursor given before the upgrade keeps working)."""
    if not start_key:
        return None
    value = start_key.get(AFTER, start_key.get(sort_attribute))
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class ShardedIndex:
    """An index whose partition key is write-sharded: read every partition, merge by the sort key."""

    name: str
    partition_attribute: str
    partitions: Sequence[str]
    sort_attribute: str


def merged_shards(table: Any, index: ShardedIndex, *, limit: int, after: str | None) -> Page:
    """Up to `limit` items of every partition of a sharded index, in sort key order (unique across them): one Query per
    partition (`partition = p AND sort > :after`, at most `limit` items each), merged. A Query that stopped early
    (Limit or 1 MB) bounds what is known: nothing past its last item is returned until the next page. A page costs at
    most len(partitions) x limit items read."""
    candidates: list[dict[str, Any]] = []
    bound: str | None = None
    sort_attribute = index.sort_attribute
    for partition in index.partitions:
        key: ConditionBase = Key(index.partition_attribute).eq(partition)
        if after is not None:
            key = key & Key(sort_attribute).gt(after)
        response = table.query(IndexName=index.name, KeyConditionExpression=key, Limit=limit)
        items = response.get("Items", [])
        candidates += items
        if "LastEvaluatedKey" in response and items:
            last = str(items[-1][sort_attribute])
            bound = last if bound is None else min(bound, last)
    candidates.sort(key=lambda item: str(item[sort_attribute]))
    known = [item for item in candidates if bound is None or str(item[sort_attribute]) <= bound]
    page = known[:limit]
    more = len(candidates) > len(page) or bound is not None
    return Page(items=page, last_key={AFTER: str(page[-1][sort_attribute])} if more and page else None)
