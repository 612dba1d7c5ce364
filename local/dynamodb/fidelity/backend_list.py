"""moto's server lists its package directory once, not on every request.

moto: its server finds the backend a request's host names with `moto.backends.list_of_moto_modules()`, which lists
moto's package directory (a listdir, then a stat per entry) every time it is called: on every request. The list never
changes while a process runs. This is a cost of the local endpoint, not a difference in an answer: every request of
the local runtime paid it.

DynamoDB: nothing differs in DynamoDB's answers, so there is no AWS behaviour to cite: this correction is about
the local endpoint's own cost only (moto's time per request, which no AWS document describes).

Correction: the list is read once, when the correction is applied, and `list_of_moto_modules` answers it from then on.
"""

from __future__ import annotations

from local.dynamodb.fidelity._patching import Patches

_patches = Patches()


def apply() -> None:
    if _patches.applied:
        return
    from moto import backends

    modules = tuple(backends.list_of_moto_modules())
    _patches.replace(backends, "list_of_moto_modules", lambda: modules)


def revert() -> None:
    _patches.restore()


def applied() -> bool:
    return _patches.in_place
