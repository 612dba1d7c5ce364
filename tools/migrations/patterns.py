"""Patterns, ADR 0111: the featured repos move from one item (`FEATURED`, `FEATURED`) to FEATURED_REPLICAS replicas
(`FEATURED#<r>`, `FEATURED`).

In place: the old item's content is written to each replica (a PutItem each, conditioned on the replica's absence: a
`PUT /patterns/featured` meanwhile wrote every replica and deleted the old item in one transaction, and wins), then
the old item is deleted. Until then a read that finds no replica falls back to the old item. Every other item is in
the new layout already. The Patterns table has no stream.
"""

from __future__ import annotations

from typing import Any

from functions.patterns.schema import FEATURED_KEY, FEATURED_REPLICAS, PATTERNS_TABLE, featured_key
from tools.migrations import Migration


def replicated(item: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The old singleton as its replicas; [] for every other item."""
    if {"PK": item.get("PK"), "SK": item.get("SK")} != FEATURED_KEY:
        return []
    return [(PATTERNS_TABLE.construct_id, {**item, **featured_key(r)}) for r in range(FEATURED_REPLICAS)]


MIGRATIONS = [
    Migration(name="patterns: featured replicas", table=PATTERNS_TABLE.construct_id, old=PATTERNS_TABLE,
              transform=replicated, in_place=True),
]
