"""What a Lambda execution environment keeps between the requests it serves, in one registry.

An environment serves one request at a time and keeps module state from one to the next ("Lambda execution
environment lifecycle", Lambda Developer Guide): clients, settings and services are built on first use and reused.
`per_container` marks such a factory; `reset()` forgets every one of them at once, as a new environment would
(the tests, between two moto accounts). Route handlers receive their service through Powertools' `Depends`, so a
test replaces it with `app.dependency_overrides`, not by patching a module
(docs/adr/0097-dependencies-through-powertools-depends.md).

Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Protocol, TypeVar

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class PerContainer(Protocol[T_co]):
    def __call__(self) -> T_co: ...

    def cache_clear(self) -> None: ...


_FACTORIES: list[PerContainer[object]] = []


def per_container(factory: Callable[[], T]) -> PerContainer[T]:
    """`factory`, built once per execution environment: the first call builds, later calls return the same object.
    The returned function keeps `functools.cache`'s `cache_clear`."""
    cached = cache(factory)
    _FACTORIES.append(cached)
    return cached


def reset() -> None:
    """Forget everything every `per_container` factory built."""
    for factory in _FACTORIES:
        factory.cache_clear()
