"""Every number a request can carry is strict: JSON's true and false are no numbers, an integer field takes no
fraction. The request models are found from every domain's routes (the types their handlers take), so a new
route's model is walked without an entry here."""

from __future__ import annotations

import importlib
import typing
from collections.abc import Iterator
from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from functions.platform.domains import domain_names

NUMBERS = (int, float, Decimal)
# What pydantic answers when a value is not of the field's type: a lax field answers True as 1 instead, and an integer
# field in lax mode says "int_from_float" for 1.5; a bound (`ge=1886`) refusing True as 1 is no proof of strictness.
TYPE_ERRORS = {"int_type", "float_type", "decimal_type"}


def _models_in(hint: Any) -> Iterator[type[BaseModel]]:
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        yield hint
    for argument in typing.get_args(hint):
        yield from _models_in(argument)


def request_models() -> dict[str, type[BaseModel]]:
    """Every model a route of a domain takes (its body), and every model nested in one, by name."""
    found: dict[str, type[BaseModel]] = {}
    pending: list[type[BaseModel]] = []
    for name in domain_names():
        app = importlib.import_module(f"functions.{name}.api").app
        for route in app._static_routes + app._dynamic_routes:
            hints = typing.get_type_hints(route.func, include_extras=True)
            pending += [model for param, hint in hints.items() if param != "return" for model in _models_in(hint)]
    while pending:
        model = pending.pop()
        name = f"{model.__module__}.{model.__qualname__}"
        if name in found:
            continue
        found[name] = model
        pending += [nested for field in model.model_fields.values() for nested in _models_in(field.annotation)]
    return found


def _with(hint: Any, number: Any) -> Any:
    """A value of the field's shape holding `number` wherever the shape holds a number, or None if it holds none."""
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin is Annotated:
        return _with(arguments[0], number)
    if hint in NUMBERS:
        return number
    if origin in (list, set, frozenset, tuple):
        inner = _with(arguments[0], number) if arguments else None
        return None if inner is None else [inner]
    if origin is dict:
        inner = _with(arguments[1], number)
        return None if inner is None else {"k": inner}
    for argument in arguments:  # a union: its first numeric arm
        inner = _with(argument, number)
        if inner is not None:
            return inner
    return None


def _integral(hint: Any) -> bool:
    """Whether the number the shape holds is an integer."""
    return hint is int or any(_integral(argument) for argument in typing.get_args(hint))


def _declared(field: Any) -> Any:
    """A model field's type with its constraints (pydantic keeps them apart), as validation applies them."""
    return Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation


def number_fields() -> list[tuple[str, Any]]:
    fields = []
    for model_name, model in sorted(request_models().items()):
        for name, field in model.model_fields.items():
            if _with(field.annotation, 1) is not None:
                fields.append((f"{model_name}.{name}", _declared(field)))
    return fields


def test_the_walk_finds_the_request_models_and_their_numbers():
    models = request_models()
    names = {path.rsplit(".", 1)[-1] for path in models}
    assert {"ReadingBatch", "Reading"} <= names, sorted(names)
    numbers = [path for path, _ in number_fields()]
    assert "functions.measurements.models.Reading.temperature" in numbers
    assert len(numbers) >= 15, numbers


@pytest.mark.parametrize(("path", "hint"), number_fields(), ids=lambda value: value if isinstance(value, str) else "")
def test_a_request_number_takes_no_boolean_and_an_integer_no_fraction(path, hint):
    adapter = TypeAdapter(hint)
    refused = [True, False] + ([1.5] if _integral(hint) else [])
    for number in refused:
        with pytest.raises(ValidationError) as caught:
            adapter.validate_python(_with(hint, number))
        assert {e["type"] for e in caught.value.errors()} <= TYPE_ERRORS, (path, number, caught.value.errors())


def test_the_check_catches_a_lax_number():
    # Given a model whose number is pydantic's plain (lax) float, When walked, Then True gets through: the test above
    # would fail on it
    class Lax(BaseModel):
        value: float

    field = Lax.model_fields["value"]
    assert TypeAdapter(_declared(field)).validate_python(_with(field.annotation, True)) == 1.0
