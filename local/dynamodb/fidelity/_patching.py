"""The attributes of moto a correction replaced, kept so that the correction can be taken off again: the canaries
(tests/local/unit/test_moto_canaries.py) run moto as released, then put every correction back."""

from __future__ import annotations

from typing import Any

_ABSENT = object()  # the attribute was inherited (a class) or missing: taking the correction off deletes it again


class Patches:
    """One correction's replacements, undone in the reverse order."""

    def __init__(self) -> None:
        self._replaced: list[tuple[Any, str, Any, Any]] = []

    @property
    def applied(self) -> bool:
        return bool(self._replaced)

    @property
    def in_place(self) -> bool:
        """Applied, and every replacement still in force: where it was put, or wrapped by a later correction."""
        return self.applied and all(_reaches(vars(owner).get(name), value) for owner, name, _, value in self._replaced)

    def replace(self, owner: Any, name: str, value: Any) -> None:
        """Set `owner.name` (a class's or a module's attribute) to `value`, remembering what it was."""
        self._replaced.append((owner, name, vars(owner).get(name, _ABSENT), value))
        setattr(owner, name, value)

    def restore(self) -> None:
        while self._replaced:
            owner, name, original, value = self._replaced.pop()
            if vars(owner).get(name, _ABSENT) is not value:
                raise RuntimeError(f"{getattr(owner, '__name__', owner)}.{name} was replaced again after this "
                                   "correction: take the corrections off in the reverse order of apply()")
            if original is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


def _reaches(current: Any, value: Any) -> bool:
    """Whether `current` is `value` or wraps it (functools.wraps' `__wrapped__`, one correction around another)."""
    while current is not None:
        if current is value:
            return True
        current = getattr(current, "__wrapped__", None)
    return False
