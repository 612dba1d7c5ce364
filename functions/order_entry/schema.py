"""The Order entry table as data (seed 004, "Modeling relational data in DynamoDB"): one adjacency-list table,
two indexes. docs/order-entry.md charts every item.

`OrderEntryTable` (`PK`, `SK`) holds the ten entity types of the HR and order-entry schema and their edges. Every
id is type-prefixed (`EMPLOYEE#…`, `WAREHOUSE#…`, `LOCATION#…`), so two entities never share a key: the seed keys
both locations and warehouses by a name, which collides.

Indexes:
- `GSI1` (`SK` → `Data`), overloaded: an item is in it only when it has `Data` (a sparse index). The table's sort
  key is its partition key, so each edge is found from the other end: employees by name (`NAME#<name>`), by job
  (`JOB#<job>`), by warehouse (`WAREHOUSE#<w>`), hire dates (`HR-CONFIDENTIAL`), a customer's or a rep's orders
  (`CUSTOMER#<c>`, `REP#<r>`), a product's order lines and stock (`PRODUCT#<p>`), reps ranked per quarter
  (`<YYYY>-Q<n>`).
- `GSI2` (`GSI2PK` → `GSI2SK`), write-sharded: order headers only, `ORDERS#<shard>` and `<STATUS>#<date>#<orderId>`;
  "all OPEN orders in a date range" is one Query per shard (functions/order_entry/schema.py computes N).

GSI2's shard count N is computed here from the seed's formula (ItemsPerRCU = 4 KB / AvgItemSize;
PartitionMaxReadRate = 3,000 RCU x ItemsPerRCU; N = MaxRequiredIO / PartitionMaxReadRate, MaxRequiredIO being the
open orders read at once): the CDK puts it in the function's environment, so it lives with the keys, in plain data.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from functions.shared.table_spec import IndexSpec, KeyAttribute, TableSpec

SEPARATOR = "#"
GSI1 = "GSI1"
GSI2 = "GSI2"
TOTAL_WIDTH = 15  # zero-padded cents: string order is numeric order up to 10^13 dollars a quarter
AFTER_ALL = "~"  # sorts after every id character ([A-Za-z0-9_.-]): the top of a date range

ORDER_ENTRY_TABLE = TableSpec(
    "OrderEntryTable",
    partition_key=KeyAttribute("PK"),
    sort_key=KeyAttribute("SK"),
    indexes=(
        IndexSpec(GSI1, KeyAttribute("SK"), KeyAttribute("Data")),
        IndexSpec(GSI2, KeyAttribute("GSI2PK"), KeyAttribute("GSI2SK")),
    ),
)

TABLES = (ORDER_ENTRY_TABLE,)

CONFIDENTIAL = "HR-CONFIDENTIAL"
REFERENCE_KINDS = ("region", "country", "location", "department", "job", "warehouse")
# The kind a reference entity's `parentId` names, as the seed draws them: a country's region, a location's country, a
# warehouse's or department's location. Regions and jobs have no parent.
REFERENCE_PARENTS = {"country": "region", "location": "country", "warehouse": "location", "department": "location"}


def join(*parts: str) -> str:
    return SEPARATOR.join(parts)


# --- keys, one small function each ------------------------------------------------------------------


def entity_key(kind: str, entity_id: str) -> dict[str, str]:
    """A reference entity's own item (region, country, location, department, job, warehouse, product, customer)."""
    key = join(kind.upper(), entity_id)
    return {"PK": key, "SK": key}


def employee_pk(employee_id: str) -> str:
    return join("EMPLOYEE", employee_id)


def name_sk(name: str) -> str:
    return join("NAME", name)


def job_sk(job_id: str) -> str:
    return join("JOB", job_id)


def warehouse_key(warehouse_id: str) -> str:
    return join("WAREHOUSE", warehouse_id)


def job_history_sk(start: str, job_id: str) -> str:
    return join("JH", start, job_id)


def employee_data(name: str, employee_id: str) -> str:
    """An employee edge's GSI1 sort key: employees by name, the id keeping namesakes apart."""
    return join("EMPLOYEE", name, employee_id)


def customer_key(customer_id: str) -> str:
    return join("CUSTOMER", customer_id)


def rep_key(rep_id: str) -> str:
    return join("REP", rep_id)


def customer_data(name: str, customer_id: str) -> str:
    return join("CUSTOMER", name, customer_id)


def order_pk(order_id: str) -> str:
    return join("ORDER", order_id)


def status_sk(status: str, day: str, order_id: str) -> str:
    """`<STATUS>#<YYYY-MM-DD>#<orderId>`: an order's place in GSI1 (customer, rep) and GSI2 (shard)."""
    return join(status, day, order_id)


def status_range(status: str, first: str, last: str) -> tuple[str, str]:
    """The inclusive bounds of a status's orders from day `first` through day `last`."""
    return join(status, first, ""), join(status, last, AFTER_ALL)


def product_key(product_id: str) -> str:
    return join("PRODUCT", product_id)


def order_line_data(day: str, order_id: str) -> str:
    return join("ORDER", day, order_id)


def shard_pk(shard: int) -> str:
    return join("ORDERS", str(shard))


def quarter_of(day: str) -> str:
    """`2026-Q1` for any day of January to March 2026."""
    return f"{day[:4]}-Q{(int(day[5:7]) - 1) // 3 + 1}"


def padded_total(cents: int) -> str:
    return str(cents).zfill(TOTAL_WIDTH)


# --- GSI2's shard count, from the seed's formula ----------------------------------------------------

SHARDS_ENV = "ORDER_ENTRY_ORDER_SHARDS"


@dataclass(frozen=True)
class Workload:
    """The figures N is computed from (the seed's example by default)."""

    orders_in_5_years: int = 3_000_000
    open_share: float = 0.20
    average_order_bytes: int = 250  # an order header (~100 B) and three lines (~50 B each)
    bytes_per_rcu: int = 4_096  # 4 KB: whole items per read unit, 4,096 // 250 = 16 as the seed counts
    rcu_per_partition: int = 3_000
    pad_to: int = 5  # padding: at least one spare shard, rounded up to a multiple of this


SEED_WORKLOAD = Workload()


def items_per_rcu(workload: Workload) -> int:
    return workload.bytes_per_rcu // workload.average_order_bytes


def partition_max_read_rate(workload: Workload) -> int:
    return workload.rcu_per_partition * items_per_rcu(workload)


def required_shards(workload: Workload) -> int:
    """The seed's N, before padding: the open orders over one partition's read rate, rounded up."""
    open_orders = round(workload.orders_in_5_years * workload.open_share)
    return max(1, math.ceil(open_orders / partition_max_read_rate(workload)))


def shard_count(workload: Workload = SEED_WORKLOAD) -> int:
    """N padded for anomalies: one spare shard at least, rounded up to a multiple of `pad_to` (13 → 15)."""
    return math.ceil((required_shards(workload) + 1) / workload.pad_to) * workload.pad_to


def shard_of(order_id: str, shards: int) -> int:
    """The order's shard: a hash of its id, so a retry or a status change lands in the same shard (the seed's
    advice for reads that must find one order again), spread evenly whatever the ids look like."""
    digest = hashlib.sha256(order_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shards
