"""The Patterns table as data (seed 003, The DynamoDB Book's "Patterns" and "Other"): one table, three GSIs.

`PatternsTable` (`PK`, `SK`) holds every entity, each in the item collection its reads need:
- a repo's issues (`ISSUE#<0000007>`) sort before the repo item (`REPO#<owner>#<repo>`) and its stars
  (`STAR#<user>`) after it: "assembling different collections" is a Query on one side of the repo item;
- an organization (`ORG#<org>`) sorts after its users (`#USER#<username>`): "sorting with multiple entity types",
  so the seed's Query (`SK <= ORG#<org>`, descending) reads the org item first, then its users;
- stores by country (`STORE#<country>`) with `<state>#<city>#<zip>#<storeId>` sort keys: "composite sort keys
  for hierarchy";
- a customer's orders (`CUSTOMER#<id>`, `ORDER#<orderId>`);
- one singleton, the featured repos, application-wide: FEATURED_REPLICAS copies (`FEATURED#<r>`, `FEATURED`), all
  written in one transaction; a read takes one of them at random, so no key takes every read
  (docs/adr/0111-featured-singleton-replicas.md computes the count).

Indexes:
- `GSI1` (`GSI1PK`, `GSI1SK`), overloaded: issues by last update (`REPO#…`, `ISSUE#<updatedAt>#<number>`: the sort
  key changes, the table key never does) and the seed's `OrderStatusDateGSI` (`CUSTOMER#…`,
  `ORDER#<STATUS>#<orderedAt>#<orderId>`: a composite sort key led by an enum);
- `GSI2` (`GSI2PK`, `GSI2SK`), sparse: only open issues (`REPO#…#OPEN`) and organization admins (`ORG#…#ADMINS`)
  carry its keys, so each is a global filter answered by a Query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

SEPARATOR = "#"
GSI1 = "GSI1"
GSI2 = "GSI2"
ISSUE_NUMBER_WIDTH = 7  # zero-padded, so the tenth issue sorts after the ninth

PATTERNS_TABLE = TableSpec(
    "PatternsTable",
    partition_key=KeyAttribute("PK"),
    sort_key=KeyAttribute("SK"),
    indexes=(
        IndexSpec(GSI1, KeyAttribute("GSI1PK"), KeyAttribute("GSI1SK")),
        IndexSpec(GSI2, KeyAttribute("GSI2PK"), KeyAttribute("GSI2SK")),
    ),
)

TABLES = (PATTERNS_TABLE,)


def join(*parts: str) -> str:
    return SEPARATOR.join(parts)


# --- keys, one small function each ------------------------------------------------------------------


def repo_pk(owner: str, repo: str) -> str:
    return join("REPO", owner, repo)


def repo_sk(owner: str, repo: str) -> str:
    return join("REPO", owner, repo)


def issue_number(number: int) -> str:
    """Zero-padded, so that string order is numeric order ("0000010" after "0000009")."""
    return str(number).zfill(ISSUE_NUMBER_WIDTH)


def issue_sk(number: int) -> str:
    return join("ISSUE", issue_number(number))


def issue_updated_sk(updated_at: str, number: int) -> str:
    return join("ISSUE", updated_at, issue_number(number))


def open_issues_pk(owner: str, repo: str) -> str:
    return join("REPO", owner, repo, "OPEN")


def star_sk(username: str) -> str:
    return join("STAR", username)


def org_pk(org: str) -> str:
    return join("ORG", org)


def org_sk(org: str) -> str:
    return join("ORG", org)


def user_sk(username: str) -> str:
    """`#` sorts before every letter: the users sit below their org's item (`ORG#…`), as the seed's query needs."""
    return SEPARATOR + join("USER", username)


def org_admins_pk(org: str) -> str:
    return join("ORG", org, "ADMINS")


def store_pk(country: str) -> str:
    return join("STORE", country)


def store_prefix(*levels: str) -> str:
    """`state#`, `state#city#`, `state#city#zip#`: the trailing separator keeps `WA#Sea` from matching `WA#Seattle`."""
    return "".join(f"{level}{SEPARATOR}" for level in levels)


def store_sk(state: str, city: str, zip_code: str, store_id: str) -> str:
    return store_prefix(state, city, zip_code) + store_id


# Before ADR 0111 the singleton was this one item. A read falls back to it while a replica is missing (a stage not yet
# migrated, tools/migrations/patterns.py); a write deletes it in the same transaction as it writes the replicas.
FEATURED_KEY = {"PK": "FEATURED", "SK": "FEATURED"}
KEY_RCU = 3_000  # read units a second one partition key value takes


@dataclass(frozen=True)
class FeaturedLoad:
    """The figures the replica count is computed from."""

    reads_per_s: int = 10_000  # the stated peak (bench/scale/workloads.py)
    units_per_read: float = 0.5  # GetItem, eventually consistent, of an item under 4 KB (10 refs of <= 129 B)
    target_utilisation: float = 0.5  # headroom for the random pick's uneven spread and bursts


FEATURED_LOAD = FeaturedLoad()


def featured_replica_count(load: FeaturedLoad = FEATURED_LOAD) -> int:
    """R = peak read units / (one key's 3,000 RCU x target utilisation), rounded up: 5,000 / 1,500 -> 4."""
    return max(1, math.ceil(load.reads_per_s * load.units_per_read / (KEY_RCU * load.target_utilisation)))


FEATURED_REPLICAS = featured_replica_count()


def featured_key(replica: int) -> dict[str, str]:
    """One replica of the featured repos: its own partition key."""
    return {"PK": join("FEATURED", str(replica)), "SK": "FEATURED"}


def customer_pk(customer: str) -> str:
    return join("CUSTOMER", customer)


def order_sk(order_id: str) -> str:
    return join("ORDER", order_id)


def order_status_prefix(status: str) -> str:
    return join("ORDER", status) + SEPARATOR


def order_status_sk(status: str, ordered_at: str, order_id: str) -> str:
    return order_status_prefix(status) + join(ordered_at, order_id)
