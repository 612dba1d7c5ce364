"""`make bench`: figures, not tests. `python -m bench [SECTION ...]` runs the sections named (all by default), in
this order; `--help` lists them. Each section is a module of bench/ over the shared bench/runtime.py.

1. Read cost against table size (bench/contacts.py): items DynamoDB reads to answer "where did Bob work on
   2005-01-01", ours (ContactPersonIndex) and the seed's (ContactTypeIndex + FilterExpression), as other people's
   links grow.
2. Throughput of the same question through the local runtime over HTTP (moto + worker processes).
3. Voting on the local runtime (bench/voting.py), a skewed workload (one candidate takes 80%): votes accepted per
   second through the API, how long the results take to reach the exact totals, and the stream records the
   aggregator applies per DynamoDB item write (from its own counters on the shard checkpoints).
4.-5. The workshop's cost slides with our data (bench/workshop.py): an inbox page's index items and read units;
   writes per reading of the binned time series.
6.-7. The cart (bench/cart.py): one price change through the SKU index against the seed's daily scan, and the
   seed's monthly estimate recomputed at on-demand prices.
8. Order entry (bench/order_entry.py): pattern 5 (OPEN orders in a date range) over GSI2 with N = 1 and N = 15
   shards, 50,000 orders each: latency through the local API, Query requests, items read, the hottest partition's share.
9. Load (bench/load.py): every domain's main routes (a write, then a main read, in turn) with 8 concurrent clients
   for 5 s each on one local runtime under the prod stage's limits: requests/s, p50/p99, errors by status, 429s;
   every acknowledged write read back through the API (none missing, none twice, none unacknowledged); then the dev
   stage's limits on a second front end: no 429 below them, 429s above them. A failed check exits non-zero.
   Alone: `.venv/bin/python -m bench load`.
10. Cold start (bench/coldstart.py): import CPU of each function's handler against boto3 + a DynamoDB resource, per
   function, beside three reference rows without domain code (Powertools' resolver; with a pydantic model; with
   Powertools' validation: the floor), with a verdict against 1.3x the floor (exits non-zero when one is over).
11. Cost tables and scale audit (bench/cost.py, alone: `make cost`): every GET route and each domain's main writes,
   their DynamoDB bill with the seeds only and with +20,000 unrelated items per domain; the seeds' figures beside ours.
12. `make run`'s start (bench/startup.py): seconds to `ready`, three starts in a row, with the runtime's phases.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from bench import cart, coldstart, contacts, cost, load, order_entry, runtime, startup, voting, workshop

# name -> the section's entry point, in the order `make bench` runs them.
SECTIONS: dict[str, Callable[[], None]] = {
    "read-cost": contacts.read_cost,
    "http": contacts.http_throughput,
    "voting": voting.run,
    "workshop": workshop.run,
    "cart": cart.run,
    "order-entry": order_entry.run,
    "load": load.run,
    "coldstart": coldstart.run,
    "cost": cost.run,
    "startup": startup.run,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Figures, not tests: the bench sections.")
    parser.add_argument("sections", nargs="*", metavar="SECTION",
                        help=f"sections to run, in the bench's order (default: all): {', '.join(SECTIONS)}")
    chosen = set(parser.parse_args(argv).sections) or set(SECTIONS)
    if unknown := chosen - set(SECTIONS):
        parser.error(f"no such section: {', '.join(sorted(unknown))} (sections: {', '.join(SECTIONS)})")
    runtime.configure()
    # Sections 9-11 are checks as well as figures: each failed check is kept and reported at the end, so that one
    # failing section does not hide the figures of the sections after it.
    failed = []
    for name, section in SECTIONS.items():
        if name not in chosen:
            continue
        try:
            section()
        except SystemExit as stop:
            if stop.code not in (None, 0):
                print(f"bench: {stop.code}", file=sys.stderr)
                failed.append(name)
    if failed:
        raise SystemExit(f"bench: failed checks in {', '.join(failed)}")


if __name__ == "__main__":
    main()
