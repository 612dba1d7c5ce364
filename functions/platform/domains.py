"""The domains of the API: every package of functions/ but shared and platform, found rather than listed, so a new
domain needs no entry (its router in /docs, its model on /explorer)."""

from __future__ import annotations

import pkgutil

import functions

NOT_DOMAINS = ("shared", "platform")


def domain_names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(functions.__path__) if m.ispkg and m.name not in NOT_DOMAINS)
