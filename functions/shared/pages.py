"""The DynamoDB side of a list: a page of a Query and the loop that fills it. A repository's paged read is
`read_page(query, parse, limit=..., start_key=...)`; what a page's position looks like to a client (a signed cursor
bound to its request) is the HTTP side's business (functions/shared/cursors.py), not this module's."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

# A FilterExpression may leave a page short; we keep reading, but never more than this many round trips.
_MAX_ROUNDS = 10


StartKey = dict[str, Any] | None


Item = TypeVar("Item")


@dataclass
class Page(Generic[Item]):
    """A page of a read: its items (raw items, or what a repository made of them) and where the next page starts."""

    items: list[Item]
    last_key: dict[str, Any] | None = None


def listed_under(page: Page, first_page: bool, exists: Callable[[], bool], missing: Exception) -> Page:
    """A list read from an index (or a partition) that does not hold its parent's own item: an empty first page costs
    one existence read of the parent (`exists`), so an unknown parent raises `missing` and a known one with nothing
    listed is an empty list. Non-empty and later pages cost nothing more."""
    if first_page and not page.items and not exists():
        raise missing
    return page


def query_page(
    query: Callable[..., Mapping[str, Any]], *, limit: int, start_key: dict[str, Any] | None,
    range_end: tuple[str, Any] | None = None, parent_first: bool = False, **kwargs: Any,
) -> Page[dict[str, Any]]:
    """Up to `limit` items of one Query, resuming at `start_key`.

    `parent_first`: the read starts at its item collection's parent item (the seed's "a parent and its children in
    one Query"). The first page (no `start_key`) asks for one item more, so that it holds the parent and `limit`
    children: DynamoDB's Limit is "the maximum number of items to evaluate", the parent included
    (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html). Later pages resume past the
    parent and hold children only.

    With a FilterExpression DynamoDB applies Limit before the filter, so a page can come back short while
    more items remain; we read on from LastEvaluatedKey (asking only for what is missing) a bounded number
    of times. The returned `last_key` is exactly where the next page must start.

    `range_end`, (sort key, value), is the key condition's last value in the direction read, for a table's own sort
    key (unique in its partition, so no other item can follow one that holds it). DynamoDB returns LastEvaluatedKey
    whenever Limit stops a page, even on the range's last item: a LastEvaluatedKey there ends the range instead of
    costing one more Query, in this request or in the client's next one, that can only come back empty.
    """
    if parent_first and start_key is None:
        limit += 1
    items: list[dict[str, Any]] = []
    last_key = start_key
    for _ in range(_MAX_ROUNDS):
        request = dict(kwargs, Limit=limit - len(items))
        if last_key:
            request["ExclusiveStartKey"] = last_key
        response = query(**request)
        items.extend(response.get("Items", []))
        last_key = response.get("LastEvaluatedKey")
        if last_key and range_end is not None and last_key.get(range_end[0]) == range_end[1]:
            last_key = None
        if not last_key or len(items) >= limit:
            break
    return Page(items=items, last_key=last_key)


def read_page(query: Callable[..., Mapping[str, Any]], parse: Callable[[dict[str, Any]], Item],
              **options: Any) -> Page[Item]:
    """`query_page` (its `limit`, `start_key`, `range_end`, `parent_first` and the Query's parameters in `options`),
    each item read into what `parse` makes of it: a repository's paged read is this call with its table's `query`
    and its item parser (`from_item`, a model's constructor)."""
    page = query_page(query, **options)
    return Page(items=[parse(item) for item in page.items], last_key=page.last_key)
