"""Example data loaded into the local tables when the runtime starts.

Why modules with `load(env)`: each domain owns its example data; it receives the functions'
resolved environment (table names, ...) instead of hard-coding physical names, which are
generated per run. The process's boto3 already points at the local endpoint when `load` runs.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping

log = logging.getLogger("local.seeds")

SEED_MODULES: tuple[str, ...] = ("local.seeds.contacts", "local.seeds.connected_car", "local.seeds.voting")


def load_all(env: Mapping[str, str], modules: tuple[str, ...] = SEED_MODULES) -> list[str]:
    """Run every seed module's `load(env)`; returns the modules that ran.

    A module that does not exist (yet) is skipped with a warning; an import error *inside* a
    module that does exist, or a failing `load`, is a real error and propagates.
    """
    from functions.shared import ddb  # late, like the seed modules: it builds boto3 objects

    # Seeds run in this process and write through the functions' cached resource: one cached by an earlier
    # runtime of this process (tests, benchmarks) would still point at that runtime's stopped endpoint.
    ddb.resource.cache_clear()
    loaded = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
                log.warning("seed module %s not found: skipped", name)
                continue
            raise
        load = getattr(module, "load", None)
        if not callable(load):
            raise TypeError(f"seed module {name} has no load(env) function")
        load(env)
        loaded.append(name)
        log.info("seeded %s", name)
    return loaded
