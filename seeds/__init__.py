"""Example data loaded into the local tables at start: every module of this package (one per domain, found, not
registered: `make new-domain` adds one) has `load(env)`, which receives the functions' resolved environment (table
names...) instead of hard-coding the physical names generated per run."""

from __future__ import annotations

import importlib
import logging
import pkgutil
import time
from collections.abc import Mapping
from typing import Any

log = logging.getLogger("seeds")

SEED_MODULES: tuple[str, ...] = tuple(sorted(f"{__name__}.{module.name}" for module in pkgutil.iter_modules(__path__)))


def load_all(env: Mapping[str, str], modules: tuple[str, ...] = SEED_MODULES, *, transport: Any = None) -> list[str]:
    """Run every seed module's `load(env)`; returns the modules that ran. A module not written yet is skipped with a
    warning; an import error inside one, a module without `load`, or a failing `load` is an error. `transport`
    (local.aws.InProcessTransport) carries the seeds' requests while they load, when the endpoint is in this process."""
    from functions.shared import ddb  # late, like the seed modules: it builds boto3 objects

    # Seeds write through the functions' cached resource: one cached by an earlier runtime of this process (tests,
    # benchmarks) would still point at that runtime's stopped endpoint.
    ddb.resource.cache_clear()
    if transport is None:
        return _load(env, modules)
    client = transport.attach(ddb.resource().meta.client)
    try:
        return _load(env, modules)
    finally:
        transport.detach(client)


def _load(env: Mapping[str, str], modules: tuple[str, ...]) -> list[str]:
    loaded = []
    for name in modules:
        started = time.monotonic()
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (name == exc.name or name.startswith(exc.name + ".")):
                raise
            log.warning("seed module %s not found: skipped", name)
            continue
        if not callable(getattr(module, "load", None)):
            raise TypeError(f"seed module {name} has no load(env) function")
        module.load(env)
        loaded.append(name)
        log.info("seeded %s in %.2fs", name, time.monotonic() - started)
    return loaded
