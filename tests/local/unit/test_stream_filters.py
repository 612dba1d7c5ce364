"""Lambda event filtering (local/streams/filters.py) on the AWS documentation's own examples: "Control which events
Lambda sends to your function" (its comparison operators table and examples), "Using event filtering with a DynamoDB
event source", and EventBridge's array matching, which Lambda's filter syntax follows."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.streams.filters import FilterCriteria, FilterError, criteria_of


def passes(pattern: dict[str, Any], event: dict[str, Any]) -> bool:
    return FilterCriteria((json.dumps(pattern),)).matches(event)


# The DynamoDB section's example record (table key CustomerName, attributes AccountManager and PaymentTerms).
CUSTOMER = {
    "eventID": "1",
    "eventVersion": "1.0",
    "dynamodb": {
        "ApproximateCreationDateTime": "1678831218.0",
        "Keys": {"CustomerName": {"S": "AnyCompany Industries"}},
        "NewImage": {
            "AccountManager": {"S": "Pat Candella"},
            "PaymentTerms": {"S": "60 days"},
            "CustomerName": {"S": "AnyCompany Industries"},
        },
        "SequenceNumber": "111",
        "SizeBytes": 26,
        "StreamViewType": "NEW_IMAGE",
    },
}


def customer(**image: str) -> dict[str, Any]:
    record = json.loads(json.dumps(CUSTOMER))
    record["dynamodb"]["NewImage"].update({name: {"S": value} for name, value in image.items()})
    return record


def test_the_dynamodb_examples_match_keys_and_attributes_in_their_typed_form() -> None:
    # "Filtering with table keys"
    assert passes({"dynamodb": {"Keys": {"CustomerName": {"S": ["AnyCompany Industries"]}}}}, CUSTOMER)
    assert not passes({"dynamodb": {"Keys": {"CustomerName": {"S": ["Example Corp"]}}}}, CUSTOMER)
    assert not passes({"dynamodb": {"Keys": {"CustomerName": ["AnyCompany Industries"]}}}, CUSTOMER)  # untyped
    # "Filtering with table attributes": AccountManager is "Pat Candella" or "Shirley Rodriguez"
    managers = {"dynamodb": {"NewImage": {"AccountManager": {"S": ["Pat Candella", "Shirley Rodriguez"]}}}}
    assert passes(managers, CUSTOMER)
    assert passes(managers, customer(AccountManager="Shirley Rodriguez"))
    assert not passes(managers, customer(AccountManager="Diego Ramirez"))
    # "Filtering with Boolean expressions": fields are ANDed
    both = {"dynamodb": {"NewImage": {"AccountManager": {"S": ["Pat Candella"]}, "PaymentTerms": {"S": ["60 days"]}}}}
    assert passes(both, CUSTOMER)
    assert not passes(both, customer(PaymentTerms="30 days"))
    # "Using the Exists operator": exists works on leaves, so on the typed value, not on the attribute's object
    assert passes({"dynamodb": {"NewImage": {"AccountManager": {"S": [{"exists": True}]}}}}, CUSTOMER)
    assert not passes({"dynamodb": {"NewImage": {"AccountManager": [{"exists": True}]}}}, CUSTOMER)
    assert passes({"dynamodb": {"NewImage": {"Discount": {"N": [{"exists": False}]}}}}, CUSTOMER)
    assert not passes({"dynamodb": {"NewImage": {"PaymentTerms": {"S": [{"exists": False}]}}}}, CUSTOMER)


def test_the_general_examples_match_metadata_and_nested_data_properties() -> None:
    kinesis = {"partitionKey": "1", "data": {"City": "Seattle", "State": "WA", "Temperature": 46, "Month": "December"}}
    los_angeles = {"partitionKey": "1", "data": {**kinesis["data"], "City": "Los Angeles", "Location": "Los Angeles"}}
    pattern = {"partitionKey": ["1"], "data": {"Location": ["Los Angeles"]}}
    assert passes(pattern, los_angeles)
    assert not passes(pattern, kinesis)  # "the event must contain all the field names included in a filter"
    assert not passes(pattern, {**los_angeles, "partitionKey": "2"})
    warm = {"data": {"Temperature": [{"numeric": [">", 50, "<=", 60]}]}}
    assert [passes(warm, {"data": {"Temperature": t}}) for t in (50, 50.5, 60, 61)] == [False, True, True, False]
    # The console example: "process only the records where field a is equal to 1 or 2"
    assert [passes({"a": [1, 2]}, {"a": a}) for a in (1, 2, 3, "1")] == [True, True, False, False]


# The comparison operators table: (rule, values that match, values that do not; None in a list = the field absent)
ABSENT = object()


@pytest.mark.parametrize(("name", "rule", "matching", "other"), [
    ("Null", {"UserID": [None]}, [None], ["", "u-1", ABSENT]),
    ("Empty", {"LastName": [""]}, [""], [None, "Doe", ABSENT]),
    ("Equals", {"Name": ["Alice"]}, ["Alice"], ["alice", "Alice ", ABSENT]),
    ("Equals (ignore case)", {"Name": [{"equals-ignore-case": "alice"}]}, ["Alice", "ALICE"], ["Alicia", ABSENT]),
    ("Or", {"PaymentType": ["Credit", "Debit"]}, ["Credit", "Debit"], ["Cash", ABSENT]),
    ("Not", {"Weather": [{"anything-but": ["Raining"]}]}, ["Sunny", 7], ["Raining", ABSENT]),
    ("Numeric (equals)", {"Price": [{"numeric": ["=", 100]}]}, [100, 100.0], [101, "100", ABSENT]),
    ("Numeric (range)", {"Price": [{"numeric": [">", 10, "<=", 20]}]}, [11, 20], [10, 21, "15", True, ABSENT]),
    ("Exists", {"ProductName": [{"exists": True}]}, ["x", "", None], [ABSENT, {"nested": "x"}]),
    ("Does not exist", {"ProductName": [{"exists": False}]}, [ABSENT], ["x", None]),
    ("Begins with", {"Region": [{"prefix": "us-"}]}, ["us-east-1"], ["eu-west-1", "US-east-1", ABSENT]),
    ("Ends with", {"FileName": [{"suffix": ".png"}]}, ["photo.png"], ["photo.jpg", "photo.PNG", ABSENT]),
])
def test_each_comparison_operator_of_the_table(name: str, rule: dict[str, Any], matching: list[Any],
                                               other: list[Any]) -> None:
    (field,) = rule

    def event(value: Any) -> dict[str, Any]:
        return {} if value is ABSENT else {field: value}

    assert [passes(rule, event(v)) for v in matching] == [True] * len(matching), name
    assert [passes(rule, event(v)) for v in other] == [False] * len(other), name


def test_and_across_fields_and_or_across_fields() -> None:
    both = {"Location": ["New York"], "Day": ["Monday"]}
    assert passes(both, {"Location": "New York", "Day": "Monday"})
    assert not passes(both, {"Location": "New York", "Day": "Tuesday"})
    either = {"$or": [{"Location": ["New York"]}, {"Day": ["Monday"]}]}
    assert passes(either, {"Location": "New York", "Day": "Tuesday"})
    assert passes(either, {"Location": "Boston", "Day": "Monday"})
    assert not passes(either, {"Location": "Boston", "Day": "Tuesday"})


def test_numbers_compare_by_their_text_and_prefix_suffix_anything_but_have_their_variants() -> None:
    # "300, 300.0, and 3.0e2 are not considered equal"
    assert [passes({"n": [300]}, {"n": n}) for n in (300, 300.0)] == [True, False]
    assert FilterCriteria(('{"n": [3.0e2]}',)).matches({"n": 300.0}) is False
    assert FilterCriteria(('{"n": [300.0]}',)).matches({"n": 300.0}) is True
    assert passes({"s": [{"prefix": {"equals-ignore-case": "EVENTB"}}]}, {"s": "EventBridge"})
    assert passes({"f": [{"suffix": {"equals-ignore-case": ".PNG"}}]}, {"f": "a.png"})
    assert passes({"r": [{"anything-but": {"prefix": "us-"}}]}, {"r": "eu-west-1"})
    assert not passes({"r": [{"anything-but": {"prefix": "us-"}}]}, {"r": "us-east-1"})
    assert not passes({"s": [{"anything-but": "initializing"}]}, {"s": "initializing"})
    assert passes({"s": [{"anything-but": {"equals-ignore-case": "initializing"}}]}, {"s": "running"})
    assert not passes({"s": [{"anything-but": {"equals-ignore-case": "initializing"}}]}, {"s": "INITIALIZING"})
    assert passes({"b": [True]}, {"b": True}) and not passes({"b": [True]}, {"b": 1})


def test_an_array_matches_when_any_element_does() -> None:
    pattern = {"resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f"]}
    event = {"resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-02ebd4584a2ebd341",
                           "arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f"]}
    assert passes(pattern, event)
    assert not passes(pattern, {"resources": event["resources"][:1]})
    assert not passes({"resources": [{"exists": True}]}, {"resources": []})
    assert passes({"items": {"kind": ["b"]}}, {"items": [{"kind": "a"}, {"kind": "b"}]})


def test_a_record_passes_when_any_filter_of_the_criteria_matches() -> None:
    criteria = FilterCriteria(('{"eventName": ["INSERT"]}', '{"dynamodb": {"Keys": {"sk": {"S": ["#cart"]}}}}'))
    assert criteria.matches({"eventName": "INSERT", "dynamodb": {"Keys": {"sk": {"S": "LINE#A"}}}})
    assert criteria.matches({"eventName": "REMOVE", "dynamodb": {"Keys": {"sk": {"S": "#cart"}}}})
    assert not criteria.matches({"eventName": "REMOVE", "dynamodb": {"Keys": {"sk": {"S": "LINE#A"}}}})
    assert FilterCriteria().matches({"anything": "at all"})  # no filters: every record


@pytest.mark.parametrize(("pattern", "message"), [
    ("not json", "must be JSON"),
    ("[]", "non-empty JSON object"),
    ('{"a": "x"}', "non-empty list or a nested pattern"),
    ('{"a": []}', "non-empty list or a nested pattern"),
    ('{"a": [{"wildcard": "x*"}]}', "unknown operator 'wildcard'"),
    ('{"a": [{"prefix": 1}]}', "invalid operand for prefix"),
    ('{"a": [{"numeric": [">", "10"]}]}', "invalid operand for numeric"),
    ('{"a": [{"numeric": ["!=", 1]}]}', "invalid operand for numeric"),
    ('{"a": [{"exists": "yes"}]}', "invalid operand for exists"),
    ('{"a": [{"prefix": "x", "suffix": "y"}]}', "single-operator object"),
    ('{"$or": [{"a": ["x"]}]}', "at least two patterns"),
])
def test_a_pattern_lambda_would_refuse_is_refused(pattern: str, message: str) -> None:
    with pytest.raises(FilterError, match=message):
        FilterCriteria((pattern,))


def test_a_templates_filter_criteria_is_read_and_checked() -> None:
    criteria = criteria_of({"Filters": [{"Pattern": '{"eventName": ["REMOVE"]}'}]}, "M.FilterCriteria")
    assert criteria.patterns == ('{"eventName": ["REMOVE"]}',) and criteria
    assert not criteria_of(None, "M") and not criteria_of({}, "M")
    with pytest.raises(FilterError, match="M.FilterCriteria"):
        criteria_of({"Filters": [{"Pattern": {"eventName": ["REMOVE"]}}]}, "M.FilterCriteria")
    with pytest.raises(FilterError, match="11 filters"):
        criteria_of({"Filters": [{"Pattern": '{"a": ["x"]}'}] * 11}, "M")
