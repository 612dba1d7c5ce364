"""Building blocks of every domain's API models: camelCase on the wire, strict calendar days."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Generic, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    WithJsonSchema,
)
from pydantic.alias_generators import to_camel

_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")

# A calendar day (YYYY-MM-DD, year 0001-9999, 29 February in leap years only) as a regular expression: a parameter
# declared with it is refused by validation exactly when the OpenAPI description says it is invalid, and the
# description says it. No look-arounds: pydantic's Rust regex engine has none.
_YEAR = r"(?:[1-9]\d{3}|0[1-9]\d{2}|00[1-9]\d|000[1-9])"
_MONTH_DAY = r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
_LEAP = r"(?:0[48]|[2468][048]|[13579][26])"
_LEAP_DAY = rf"(?:\d\d{_LEAP}|{_LEAP}00)-02-29"
_DAY = rf"(?:{_YEAR}-{_MONTH_DAY}|{_LEAP_DAY})"
DAY_PATTERN = rf"^{_DAY}$"
HOUR_PATTERN = rf"^{_DAY}T(?:[01]\d|2[0-3])$"  # YYYY-MM-DDTHH
DAY_OR_HOUR_PATTERN = rf"^{_DAY}(?:T(?:[01]\d|2[0-3]))?$"
# An ISO-8601 day, or a time to the minute, second or fraction, with an optional offset (Z or ±HH:MM): the forms
# `datetime.fromisoformat` reads, and nothing it refuses (hour 24, minute 60, offset ±24:00).
_OFFSET = r"(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)"
MOMENT_PATTERN = rf"^{_DAY}(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{{1,6}})?)?{_OFFSET}?)?$"

# The shared patterns in words, for a refusal's message: a client is told the format with an example, not a regular
# expression of hundreds of characters (functions/shared/http.py `validation_details`).
PATTERN_FORMATS = {
    DAY_PATTERN: "expected a date YYYY-MM-DD, e.g. 2026-01-31",
    HOUR_PATTERN: "expected an hour YYYY-MM-DDTHH, e.g. 2026-01-31T09",
    DAY_OR_HOUR_PATTERN: "expected a date YYYY-MM-DD or an hour YYYY-MM-DDTHH, e.g. 2026-01-31 or 2026-01-31T09",
    MOMENT_PATTERN: "expected an ISO-8601 date or time, e.g. 2026-01-31 or 2026-01-31T09:30:00Z",
}


def parse_day(value: Any) -> date:
    """Only `YYYY-MM-DD` strings: pydantic alone would also take epoch numbers and datetimes."""
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not _ISO_DAY.match(value):
        raise ValueError(PATTERN_FORMATS[DAY_PATTERN])
    return date.fromisoformat(value)


Day = Annotated[date, BeforeValidator(parse_day)]


def _date_time_text(value: Any) -> Any:
    """A date-time as the description's `format: date-time` says: a string that starts with a day. pydantic alone
    would also take epoch numbers (`0` is 1970) and digit strings."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _ISO_DAY.match(value[:10]) or len(value) < 11:
        raise ValueError("must be an ISO-8601 date-time, like 2026-01-31T09:30:00Z")
    return value


DateTime = Annotated[datetime, BeforeValidator(_date_time_text)]


def _whole_number(value: Any) -> Any:
    """JSON Schema's integer: 1944.0 is one (the OpenAPI description says `integer`), "1944" and true are not."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# The two number types of every request model (tests/unit/test_strict_numbers.py walks them all): JSON's true and
# false are never numbers (pydantic's lax mode reads them as 1 and 0, so a reading of `"temperature": true` was stored
# as 1.0), and neither is a string of digits.
# An integer: strict, but, as JSON Schema says, 1944.0 is 1944 (1944.5 is refused). `Annotated[JsonInt, Field(ge=...)]`.
JsonInt = Annotated[int, BeforeValidator(_whole_number), Strict()]
# A number: strict (an integer is a number, as in JSON Schema: 3 is 3.0), finite (Python's json reads NaN and
# Infinity, which JSON does not have). `Annotated[JsonNumber, Field(ge=..., le=...)]`.
JsonNumber = Annotated[float, Strict(), Field(allow_inf_nan=False)]


def rounded(decimals: int) -> Any:
    """A float kept to `decimals` places, as stored and answered: any JSON number in the declared bounds is valid, and
    5e-324 (which DynamoDB's 38-digit numbers cannot hold: an Underflow, a 502) is 0. Use after a JsonNumber:
    `Annotated[JsonNumber, Field(ge=..., le=...), rounded(6)]`."""
    return AfterValidator(lambda value: round(value, decimals) + 0.0)


# Amounts as JSON strings, 0..1000000 with at most two decimals and no leading zeros; POSITIVE_: 0.01 and up.
_MAX_AMOUNT = r"1000000(?:\.0{1,2})?"
MONEY_PATTERN = rf"^(?:(?:0|[1-9]\d{{0,5}})(?:\.\d{{1,2}})?|{_MAX_AMOUNT})$"
POSITIVE_MONEY_PATTERN = rf"^(?:[1-9]\d{{0,5}}(?:\.\d{{1,2}})?|0\.(?:[1-9]\d?|0[1-9])|{_MAX_AMOUNT})$"
_CENT = Decimal("0.01")
_MAX_CENTS = Decimal(10) ** 20  # far above any bound, far below what quantize to the cent can hold (28 digits)


def money_rules(*, positive: bool) -> tuple[Any, ...]:
    """An amount of money in cents, as `Annotated[Decimal, *money_rules(positive=...)]`: exact as a JSON string
    ("12.30", at most two decimals), rounded to the cent (half up) as a JSON number, which is binary and cannot be
    exact. The schema states both: a string matching the pattern, or a number that rounds into the bounds
    (`positive`: at least 0.005, which rounds to 0.01), so 5e-324 is schema-invalid where it is refused."""

    pattern = POSITIVE_MONEY_PATTERN if positive else MONEY_PATTERN

    def before(value: Any) -> Any:
        if isinstance(value, str):
            if not re.match(pattern, value):
                raise ValueError("a string amount is digits with at most two decimals, like 12.30")
            return Decimal(value)
        if isinstance(value, int | float) and not isinstance(value, bool):
            amount = Decimal(repr(value))
            if amount.copy_abs() > _MAX_CENTS:  # quantize would overflow the context (InvalidOperation, a 502):
                return amount  # the bound refuses it
            return amount.quantize(_CENT, rounding=ROUND_HALF_UP)
        return value  # pydantic refuses it

    low = Decimal("0.01") if positive else Decimal(0)
    schema = {"anyOf": [
        {"type": "string", "pattern": pattern},
        {"type": "number", "minimum": 0.005 if positive else 0, "maximum": 1_000_000},
    ]}
    return BeforeValidator(before), Field(ge=low, le=Decimal(1_000_000)), WithJsonSchema(schema)


# White space spelled out: Unicode's White_Space property (unicode.org/Public/UCD/latest/ucd/PropList.txt), which is
# what pydantic's `strip_whitespace` removes and what `\s` matches in its (Rust) patterns. `\s` itself means another
# set elsewhere: JSON Schema's ECMAScript regexes add U+FEFF and leave out U+0085 (ECMA-262, "WhiteSpace"), Python's
# `str.strip()` adds U+001C..U+001F. A pattern written with this class means the same to the description's readers
# (clients, fuzzers) and to the validation behind it; WHITE_SPACE_CHARS is the same set for `str.strip`.
WHITE_SPACE = r"\t-\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
WHITE_SPACE_CHARS = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)


def stripped_rules(min_length: int, max_length: int) -> tuple[Any, ...]:
    """Text stripped of surrounding whitespace, then at least `min_length` characters long, and at most `max_length`
    as sent (the description's maxLength is of the text as sent: "\r" and 500 more characters must not be valid here
    and schema-invalid there). The schema states the minimum with a pattern (as many characters from the first
    non-space to the last), so "   " is invalid in the OpenAPI description as it is refused by validation.

    A field or an alias spells it `Annotated[str, *stripped_rules(1, 200)]`: mypy reads the type as `str` (it cannot
    evaluate a type returned by a call), pydantic reads the rules."""
    visible = f"[^{WHITE_SPACE}]"
    between = rf"[\s\S]{{{min_length - 2},}}{visible}" if min_length > 1 else ""

    def as_sent(value: Any) -> Any:
        if isinstance(value, str) and len(value) > max_length:
            raise ValueError(f"at most {max_length} characters")
        return value

    schema: dict[str, Any] = {"maxLength": max_length}
    if min_length > 0:
        schema["pattern"] = rf"{visible}{between}"
    return (
        StringConstraints(strip_whitespace=True, min_length=min_length, max_length=max_length),
        BeforeValidator(as_sent),  # after the constraints in this list: it runs first, on the text as sent
        Field(json_schema_extra=schema),
    )


def stripped(min_length: int, max_length: int) -> Any:
    """`Annotated[str, *stripped_rules(min_length, max_length)]` as a value, for a type built at run time
    (`TypeAdapter(stripped(1, 10))`)."""
    return Annotated[str, *stripped_rules(min_length, max_length)]


def normalized_rules(normalize: Callable[[str], str], pattern: str, max_length: int) -> tuple[Any, ...]:
    """Text `normalize`d (e.g. trimmed and lower-cased) before it must match `pattern`, no longer than `max_length`
    as sent, as `Annotated[str, *normalized_rules(...)]`. The schema states the same of the text as sent: `pattern`
    with surrounding whitespace allowed (pydantic leaves a pattern behind a BeforeValidator out of the schema, so it
    is given explicitly)."""
    inner = pattern.removeprefix("^").removesuffix("$")
    space = f"[{WHITE_SPACE}]*"

    def before(value: Any) -> Any:
        if not isinstance(value, str):
            return value  # pydantic refuses it
        if len(value) > max_length:
            raise ValueError(f"at most {max_length} characters")
        return normalize(value)

    return (
        BeforeValidator(before), StringConstraints(max_length=max_length, pattern=pattern),
        Field(json_schema_extra={"pattern": rf"^{space}(?:{inner}){space}$", "maxLength": max_length}),
    )


class ApiModel(BaseModel):
    """camelCase aliases, unknown fields refused (a typo is a 400, not a silently ignored field)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


Item = TypeVar("Item")


class PageOf(ApiModel, Generic[Item]):
    """One page of a list: its items, and `nextCursor`, the cursor of the next page (null: the list ends).
    A domain names its page of each kind: `class TimeslotPage(PageOf[Timeslot]): ...`."""

    items: list[Item]
    next_cursor: str | None = None


def dump(model: BaseModel) -> dict[str, Any]:
    """A model as the API sends it: camelCase, JSON types."""
    return model.model_dump(by_alias=True, mode="json")


Stored = TypeVar("Stored", bound=BaseModel)


def from_item(model: type[Stored], item: Mapping[str, Any]) -> Stored:
    """A stored item as its model, validated by pydantic. For tables whose attribute names are the models' camelCase
    aliases: the attributes the model does not show (index keys, counters, version numbers) are left out."""
    names = {field.alias or name for name, field in model.model_fields.items()}
    return model.model_validate({name: _number(value) for name, value in item.items() if name in names})


def _number(value: Any) -> Any:
    """boto3 reads every Number as a Decimal; the models (strict where input must be) take int or float."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def to_item(model: BaseModel, **extra: Any) -> dict[str, Any]:
    """A model as a stored item: its camelCase fields (JSON types: times as ISO-8601 strings), plus `extra`
    attributes it does not show (index keys); None values are left out rather than stored."""
    return {**model.model_dump(by_alias=True, mode="json", exclude_none=True), **extra}
