"""Catalog's pure logic: sort keys of the hierarchy, stored items as models, JSON DynamoDB can store."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from functions.catalog.models import (
    Actor,
    Album,
    Track,
    check_json,
    plain_json,
    stored_json,
)
from functions.catalog.repository import product_item
from functions.catalog.schema import (
    child_type,
    children_prefix,
    parent_type,
    parse_type,
)


def test_children_sort_after_their_parent_and_share_its_prefix():
    assert parent_type("album") == "album"
    assert child_type("track", "1") == "album:track#1" and child_type("actor", "luke") == "movie:actor#luke"
    assert children_prefix("track") == "album:track#"
    assert sorted([child_type("track", "1"), parent_type("album"), "book", parent_type("movie")]) == [
        "album", "album:track#1", "book", "movie"]
    assert parse_type("album") == ("album", None)
    assert parse_type("album:track#12") == ("track", "12")


def test_a_stored_item_becomes_the_model_its_sort_key_names():
    track = product_item({"ProductID": "2", "type": "album:track#1", "title": "Track 1", "length": "1:30"})
    assert isinstance(track, Track) and (track.product_id, track.child_id, track.kind) == ("2", "1", "track")
    assert isinstance(product_item({"ProductID": "3", "type": "movie:actor#2", "name": "Some Actress"}), Actor)
    album = product_item({"ProductID": "2", "type": "album", "title": "Some Album", "label": "Harvest"})
    assert isinstance(album, Album) and album.label == "Harvest"


@pytest.mark.parametrize("value", [
    {"a": [1, 2.5, True, None, "s", {"b": {}}]}, 10 ** 40, 1e-129, -(10 ** 37), 0, 0.0, 12345678901234567890123456789012345678,
])
def test_json_dynamodb_stores_is_accepted(value):
    check_json(value)


@pytest.mark.parametrize(("value", "why"), [
    (float("nan"), "finite"), (float("inf"), "finite"), (1e200, "magnitude"), (1e-140, "magnitude"),
    (1e126, "magnitude"), (9999999999999999 * 10 ** 110, "magnitude"), ({"": 1}, "non-empty"), ({"a": [{"": 1}]}, "non-empty"), ({"a": {1, 2}}, "not a JSON value"),
])
def test_json_dynamodb_would_refuse_is_refused(value, why):
    with pytest.raises(ValueError, match=why):
        check_json(value)


def test_more_than_38_significant_digits_are_refused_naming_where():
    # DynamoDB holds 38 significant digits: 10**40 is one digit, 10**40 + 1 is 41
    check_json(10 ** 40)
    assert plain_json(stored_json(10 ** 40)) == 10 ** 40
    with pytest.raises(ValueError, match=r"^a\.0\.b: numbers have at most 38 significant digits"):
        check_json({"a": [{"b": 10 ** 40 + 1}]})


@pytest.mark.parametrize("value", [9.999999999999998e125, -9.999999999999998e125, 9999999999999998 * 10 ** 110, 1e-130])
def test_the_extreme_numbers_are_accepted_and_so_is_their_answer(value):
    # Compared with the decimal that is stored: 9.999999999999998e125 is stored as 9999999999999998E+110 and read back
    # as that integer, a hair above the float's binary value (which refused it as an answer: a 502)
    check_json({"deep": [value]})
    check_json(plain_json(stored_json({"deep": [value]})))


@pytest.mark.parametrize("value", [int("9" * 38) * 10 ** 88, 10 ** 126, -(10 ** 126), 9.99e-131])
def test_numbers_just_past_dynamodbs_range_are_refused(value):
    with pytest.raises(ValueError, match="magnitude"):
        check_json({"deep": [value]})


def test_the_description_states_the_json_rules_check_json_enforces():
    from functions.shared.openapi import DYNAMODB_NUMBER_MAX, DYNAMODB_NUMBER_MIN

    check_json(DYNAMODB_NUMBER_MAX)
    check_json(-DYNAMODB_NUMBER_MIN)
    with pytest.raises(ValueError, match="magnitude"):
        check_json(math.nextafter(DYNAMODB_NUMBER_MAX, math.inf))
    with pytest.raises(ValueError, match="magnitude"):
        check_json(math.nextafter(DYNAMODB_NUMBER_MIN, 0))


def test_nesting_is_bounded():
    nested: list = []
    for _ in range(15):
        nested = [nested]
    check_json(nested)  # 16 levels
    with pytest.raises(ValueError, match="nested"):
        check_json([nested])


def test_numbers_are_stored_as_exact_decimals_and_read_back_as_json_numbers():
    stored = stored_json({"n": 2.5, "i": 10 ** 40, "big": 12345678901234567890123456789012345678, "flag": True,
                          "l": [1.0]})
    assert stored == {"n": Decimal("2.5"), "i": Decimal("1E+40"), "flag": True, "l": [Decimal(1)],
                      "big": Decimal(12345678901234567890123456789012345678)}
    assert plain_json(stored) == {"n": 2.5, "i": 10 ** 40, "big": 12345678901234567890123456789012345678,
                                  "flag": True, "l": [1]}
