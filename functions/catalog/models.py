"""Catalog API models. Products' stored attributes keep the seed's names (`datePublished`, `ISBN`, ...), which are
also the wire names; `productId`, `kind` and `childId` are read from the keys, never stored twice.

A document's `attributes` and the children appended to it are free JSON (the seed's "JSON data types"), checked
here so that DynamoDB cannot refuse what we accept: nesting depth, numbers within DynamoDB's range, no empty keys.
"""

from __future__ import annotations

import math
from decimal import Context, Decimal
from typing import Annotated, Any, Literal

from aws_lambda_powertools.event_handler.openapi.params import Path
from pydantic import (
    AfterValidator,
    Field,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from functions.catalog.schema import DOCUMENT_LISTS
from functions.shared.errors import InvalidInputError
from functions.shared.models import ApiModel, PageOf, stripped_rules
from functions.shared.openapi import DYNAMODB_JSON_REF, DYNAMODB_NUMBER_MAX, DYNAMODB_NUMBER_MIN

ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"  # no ":" or "#": ids are parts of the sort key
MAX_JSON_DEPTH = 16  # DynamoDB allows 32 levels of nesting in an item; a child sits 3 levels down
MAX_DIGITS = 38  # DynamoDB numbers: 38 significant digits, magnitude 1E-130 .. 9.99E+125
# The bounds the description states (DynamoDBJson), as the decimals JSON spells them: inside DynamoDB's own 1E-130 ..
# 9.9999999999999999999999999999999999999E+125, and compared with the decimal that is stored, not a float's binary
# value (9.999999999999998e125 is stored as 9999999999999998E+110, a hair above the float it was read as).
NUMBER_MAX = Decimal(repr(DYNAMODB_NUMBER_MAX))
NUMBER_MIN = Decimal(repr(DYNAMODB_NUMBER_MIN))
_NUMBERS = Context(prec=MAX_DIGITS)  # a number of at most 38 significant digits, normalized (no rounding left to do)

Text = Annotated[str, *stripped_rules(1, 200)]
Kind = Literal["book", "album", "movie"]
ChildKind = Literal["track", "actor"]

# The path parameters of the routes (api.py): what each must match, named once beside its pattern.
ProductIdPath = Annotated[str, Path(pattern=ID_PATTERN)]
ChildIdPath = Annotated[str, Path(pattern=ID_PATTERN)]
ChildKindPath = Annotated[ChildKind, Path(description="track (of an album) or actor (of a movie)")]


# --- products as items -------------------------------------------------------------------------

class BookIn(ApiModel):
    kind: Literal["book"]
    title: Text
    author: Text | None = None
    genre: Text | None = None
    publisher: Text | None = None
    date_published: Text | None = None
    isbn: Text | None = Field(None, alias="ISBN")


class AlbumIn(ApiModel):
    kind: Literal["album"]
    title: Text
    artist: Text | None = None
    genre: Text | None = None
    label: Text | None = None
    studio: Text | None = None
    released: Text | None = None
    producer: Text | None = None


class MovieIn(ApiModel):
    kind: Literal["movie"]
    title: Text
    genre: Text | None = None
    writer: Text | None = None
    producer: Text | None = None


ProductIn = Annotated[BookIn | AlbumIn | MovieIn, Field(discriminator="kind")]


class TrackIn(ApiModel):
    title: Text
    length: Text | None = None
    music: Text | None = None
    vocals: Text | None = None


class ActorIn(ApiModel):
    name: Text
    character: Text | None = None
    image: Text | None = None


CHILD_INPUTS: dict[str, type[ApiModel]] = {"track": TrackIn, "actor": ActorIn}
# What a child's PUT body may be, as the description states it: a track or an actor. Which of the two the path's
# `childKind` allows is a rule JSON Schema cannot tie to a path parameter; `child_input` checks it (400).
CHILD_BODY_SCHEMA: dict[str, Any] = {
    "anyOf": [model.model_json_schema(by_alias=True) for model in CHILD_INPUTS.values()]}


class _Keys(ApiModel):
    product_id: str
    type: str


class Book(BookIn, _Keys):
    pass


class Album(AlbumIn, _Keys):
    pass


class Movie(MovieIn, _Keys):
    pass


class Track(TrackIn, _Keys):
    kind: Literal["track"] = "track"
    child_id: str


class Actor(ActorIn, _Keys):
    kind: Literal["actor"] = "actor"
    child_id: str


Child = Annotated[Track | Actor, Field(discriminator="kind")]
ProductItem = Annotated[Book | Album | Movie | Track | Actor, Field(discriminator="kind")]
ITEM_MODELS: dict[str, type[ApiModel]] = {"book": Book, "album": Album, "movie": Movie, "track": Track, "actor": Actor}


class ProductPage(PageOf[ProductItem]):
    """A product's item collection, parent first (its sort key is a prefix of its children's): the first page holds
    the parent and `limit` children, later pages `limit` children."""


class ChildPage(PageOf[Child]):
    pass


def child_input(child_kind: str, body: Any) -> TrackIn | ActorIn:
    """The body of a child's PUT, validated as the child kind the path names (400 otherwise)."""
    try:
        return CHILD_INPUTS[child_kind].model_validate(body)  # type: ignore[return-value]
    except ValidationError as error:
        details = [
            {"field": ".".join(["body", *map(str, e.get("loc", ()))]), "message": e.get("msg", "invalid")}
            for e in error.errors()
        ]
        raise InvalidInputError(
            f"invalid {child_kind}: " + ", ".join(d["field"] for d in details), details=details
        ) from error


# --- products as documents ---------------------------------------------------------------------

def check_number(value: float, where: str = "") -> None:
    """A number DynamoDB holds exactly as it is stored (`stored_json`: the decimal spelling of the JSON number):
    "Numbers can have up to 38 digits of precision", positive from 1E-130 to
    9.9999999999999999999999999999999999999E+125, negative in the mirror range (DynamoDB Developer Guide, "Supported
    data types and naming rules"). The same check holds the answer read back, so what was accepted is always
    answered. More digits are refused, not rounded: an answer shows the value sent."""
    at = f"{where}: " if where else ""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{at}numbers must be finite")
    number = Decimal(value) if isinstance(value, int) else Decimal(str(value))
    if number and not NUMBER_MIN <= number.copy_abs() <= NUMBER_MAX:  # copy_abs: abs() rounds to 28 digits
        raise ValueError(f"{at}numbers must be 0 or have a magnitude within 1E-130..9.99E+125 (DynamoDB's)")
    if len(str(int("".join(map(str, number.as_tuple().digits)))).rstrip("0") or "0") > MAX_DIGITS:
        raise ValueError(f"{at}numbers have at most {MAX_DIGITS} significant digits (DynamoDB's)")


def check_json(value: Any, depth: int = 1, where: str = "") -> None:
    """A JSON value DynamoDB stores as it is: maps (M) and lists (L) nested at most MAX_JSON_DEPTH deep. A refusal
    names where in the value it is (`tracks.0.length`), the field being the one the value is."""
    if depth > MAX_JSON_DEPTH:
        raise ValueError(f"{where or 'the value'}: nested more than {MAX_JSON_DEPTH} levels deep")
    if value is None or isinstance(value, bool | str):
        return
    if isinstance(value, int | float):
        check_number(value, where)
    elif isinstance(value, list):
        for index, element in enumerate(value):
            check_json(element, depth + 1, f"{where}.{index}" if where else str(index))
    elif isinstance(value, dict):
        for key, element in value.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"{where or 'the value'}: object keys must be non-empty strings")
            check_json(element, depth + 1, f"{where}.{key}" if where else key)
    else:
        raise ValueError(f"not a JSON value: {type(value).__name__}")  # noqa: TRY004 (pydantic reports ValueError as a 400)


def json_object(value: dict[str, Any]) -> dict[str, Any]:
    """The object as DynamoDB will hold it (numbers as decimals), so an answer shows what is stored."""
    check_json(value)
    return plain_json(stored_json(value))


# Keys are DynamoDB map keys, never empty, and numbers are DynamoDB's, at every level: the description states both
# (DynamoDBJson, functions/shared/openapi.py), check_json enforces them with the nesting depth.
_JSON_OBJECT: dict[str, Any] = {
    "type": "object", "propertyNames": {"minLength": 1}, "additionalProperties": {"$ref": DYNAMODB_JSON_REF},
}
# Not null: an append (list_append(if_not_exists(...))) to a stored NULL is a ValidationException in DynamoDB.
_LIST_OF_OBJECTS = {"type": "array", "items": {**_JSON_OBJECT}}
# A document's `attributes`: an album's `tracks` and a movie's `actors` are lists of objects (DOCUMENT_LISTS).
DocumentAttributes = Annotated[dict[str, Any], WithJsonSchema({
    **_JSON_OBJECT, "properties": {name: _LIST_OF_OBJECTS for name in DOCUMENT_LISTS.values()},
}), AfterValidator(json_object)]
NonEmptyJsonObject = Annotated[dict[str, Any], WithJsonSchema({**_JSON_OBJECT, "minProperties": 1}),
                               AfterValidator(json_object), Field(min_length=1)]


class DocumentIn(ApiModel):
    """A whole product as one document: the seed's top-level attributes and its nested `attributes` map, where an
    album's `tracks` and a movie's `actors` are lists of objects."""

    kind: Kind
    title: Text
    author: Text | None = None
    artist: Text | None = None
    genre: Text | None = None
    writer: Text | None = None
    publisher: Text | None = None
    date_published: Text | None = None
    isbn: Text | None = Field(None, alias="ISBN")
    attributes: DocumentAttributes = Field(default_factory=dict)

    @model_validator(mode="after")
    def _children_are_lists_of_objects(self) -> DocumentIn:
        for child_kind, name in DOCUMENT_LISTS.items():
            if name not in self.attributes:
                continue
            children = self.attributes[name]
            if not (isinstance(children, list) and all(isinstance(c, dict) for c in children)):
                raise ValueError(f"attributes.{name} must be a list of objects ({child_kind}s)")
        return self


class Document(DocumentIn):
    product_id: str


class DocumentChildIn(ApiModel):
    """A child to append to a document's list: a track to an album's `tracks`, an actor to a movie's `actors`."""

    kind: ChildKind
    child: NonEmptyJsonObject


class DocumentChild(DocumentChildIn):
    product_id: str
    list: str  # where it went: `attributes.tracks` or `attributes.actors`


def plain_json(value: Any) -> Any:
    """A stored value as JSON types: boto3 reads every number, at any depth, as a Decimal."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [plain_json(v) for v in value]
    if isinstance(value, dict):
        return {k: plain_json(v) for k, v in value.items()}
    return value


def stored_json(value: Any) -> Any:
    """A JSON value as boto3 writes it: numbers as normalized Decimals (boto3 refuses floats, and an int such as 10**40,
    one significant digit, only as 1E+40)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _NUMBERS.normalize(Decimal(str(value)))
    if isinstance(value, list):
        return [stored_json(v) for v in value]
    if isinstance(value, dict):
        return {k: stored_json(v) for k, v in value.items()}
    return value
