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


def test_the_developer_guides_own_examples():
    # https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html
    assert read_units([3500], consistent=True) == 1  # "reading a 3,500-byte item ... same ... as a 4 KB item"
    assert read_units([8 * 1024], consistent=True) == 2 and read_units([8 * 1024]) == 1  # "8 KB ... 2 ... 1"
    assert read_units([round(40.8 * 1024)], consistent=True) == 11  # "combined size is 40.8 KB ... 44 KB"
    assert read_units([64] * 1500, consistent=True) == 24  # "1500 items of 64 bytes each ... 96 KB"
    assert write_units(round(1.6 * 1024)) == 2  # "an item of 1.6 KB, DynamoDB rounds the item size up to 2 KB"
    assert write_units(500) == 1  # "writing a 500-byte item consumes the same throughput as writing a 1 KB item"
    assert write_units(500) + write_units(3584) == 5  # BatchWriteItem "500-byte and 3.5 KB ... 5 KB (1 KB + 4 KB)"


def test_reading_or_deleting_nothing_still_costs_the_minimum():
    assert read_units([]) == 0.5 and read_units([], consistent=True) == 1  # a Query that finds nothing
    assert write_units(0) == 1  # a delete of a missing item: "consume 1 write capacity unit"
