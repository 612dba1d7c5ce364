"""DynamoDB's size and capacity rules, checked against the developer guide's own figures."""

from decimal import Decimal

from boto3.dynamodb.types import Binary

from functions.shared.capacity import item_size, read_units, value_size, write_units


def test_strings_and_names_count_their_utf8_bytes():
    assert item_size({"Id": "abc"}) == 2 + 3
    assert item_size({"é": "ü"}) == 2 + 2


def test_numbers_count_one_byte_per_two_significant_digits_plus_one():
    assert value_size(Decimal("1")) == 2
    assert value_size(Decimal("12345")) == 4  # 3 + 1
    assert value_size(Decimal("1000000")) == 2  # trailing zeroes trimmed
    assert value_size(Decimal("0.0012")) == 2  # leading zeroes trimmed
    assert value_size(30) == 2


def test_lists_and_maps_cost_three_bytes_and_one_per_element():
    assert value_size([]) == 3
    assert value_size({}) == 3
    assert value_size(["a", "bc"]) == 3 + (1 + 1) + (2 + 1)
    assert value_size({"k": "v"}) == 3 + (1 + 1 + 1)


def test_null_boolean_binary_and_sets():
    assert value_size(None) == 1
    assert value_size(True) == 1
    assert value_size(Binary(b"\x00\x01\x02")) == 3
    assert value_size({"a", "bb"}) == 3


def test_the_seed_inbox_arithmetic():
    # 50 items of 256 KB, eventually consistent: 1,600 RCU; 50 items of 128 B: 1 RCU (one 4 KB unit, halved: 0.5)
    assert read_units([256 * 1024] * 50) == 1600
    assert read_units([128] * 50) == 1
    assert read_units([128] * 50, consistent=True) == 2
    assert read_units([10]) == 0.5


def test_write_units_round_up_to_the_kilobyte():
    assert write_units(1) == 1
    assert write_units(1024) == 1
    assert write_units(1025) == 2
