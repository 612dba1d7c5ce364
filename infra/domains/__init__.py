"""One module per domain, each with a function of the module's name that builds its `ApiDomain`.

`discover()` finds them, so a new domain (`make new-domain NAME=…`) needs no registration anywhere: its module here
is enough. The platform domain (GET /health, the OpenAPI docs of every route) comes last.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

LAST = ("platform",)


def discover() -> tuple[Callable[..., Any], ...]:
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    ordered = [n for n in names if n not in LAST] + [n for n in LAST if n in names]
    return tuple(getattr(importlib.import_module(f"{__name__}.{name}"), name) for name in ordered)
