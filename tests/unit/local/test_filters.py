"""Lambda event filtering on stream records: the operators Lambda documents, and what it rejects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.filters import FilterError, matches_any, parse_filters

RECORD: dict[str, Any] = {
    "eventID": "e1",
    "eventName": "INSERT",
    "eventVersion": "1.1",
    "eventSource": "aws:dynamodb",
    "awsRegion": "us-east-1",
    "dynamodb": {
        "ApproximateCreationDateTime": 1700000000.0,
        "Keys": {"PK": {"S": "CUSTOMER#42"}},
        "NewImage": {
            "PK": {"S": "CUSTOMER#42"},
            "status": {"S": "Active"},
            "count": {"N": "5"},
            "tags": {"L": [{"S": "a"}, {"S": "b"}]},
            "empty": {"S": ""},
            "nothing": {"NULL": True},
        },
        "SequenceNumber": "100",
        "SizeBytes": 120,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    },
    "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/t/stream/x",
}


def matches(*patterns: dict[str, Any], record: dict[str, Any] = RECORD) -> bool:
    filters = [{"Pattern": json.dumps(pattern)} for pattern in patterns]
    return matches_any(parse_filters(filters), record)


def image(rule: dict[str, Any]) -> dict[str, Any]:
    return {"dynamodb": {"NewImage": rule}}


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ({"eventName": ["INSERT"]}, True),
        ({"eventName": ["MODIFY", "REMOVE"]}, False),
        ({"eventName": ["INSERT"], "awsRegion": ["eu-west-1"]}, False),  # keys are ANDed
        (image({"status": {"S": ["Active"]}}), True),
        (image({"status": {"S": ["active"]}}), False),  # exact match is case-sensitive
        (image({"status": {"S": [{"equals-ignore-case": "ACTIVE"}]}}), True),
        ({"dynamodb": {"Keys": {"PK": {"S": [{"prefix": "CUSTOMER#"}]}}}}, True),
        ({"dynamodb": {"Keys": {"PK": {"S": [{"prefix": "VEHICLE#"}]}}}}, False),
        ({"dynamodb": {"Keys": {"PK": {"S": [{"prefix": {"equals-ignore-case": "cust"}}]}}}}, True),
        ({"dynamodb": {"Keys": {"PK": {"S": [{"suffix": "#42"}]}}}}, True),
        (image({"status": {"S": [{"anything-but": ["Inactive", "Deleted"]}]}}), True),
        (image({"status": {"S": [{"anything-but": "Active"}]}}), False),
        (image({"status": {"S": [{"anything-but": {"prefix": "Act"}}]}}), False),
        (image({"status": {"S": [{"anything-but": {"prefix": "In"}}]}}), True),
        (image({"status": {"S": [{"exists": True}]}}), True),
        (image({"missing": {"S": [{"exists": True}]}}), False),
        (image({"missing": {"S": [{"exists": False}]}}), True),
        (image({"status": {"S": [{"exists": False}]}}), False),
        (image({"empty": {"S": [""]}}), True),
        (image({"nothing": {"NULL": [True]}}), True),
        (image({"tags": {"L": {"S": ["b"]}}}), True),  # any element of an array
        (image({"tags": {"L": {"S": ["c"]}}}), False),
        ({"dynamodb": {"SizeBytes": [{"numeric": [">", 100, "<=", 120]}]}}, True),
        ({"dynamodb": {"SizeBytes": [{"numeric": [">", 120]}]}}, False),
        ({"dynamodb": {"SizeBytes": [{"numeric": ["=", 120]}]}}, True),
        ({"dynamodb": {"SizeBytes": [120]}}, True),
        # DynamoDB numbers are strings in the record: numeric rules never match them (as in AWS)
        (image({"count": {"N": [{"numeric": [">", 1]}]}}), False),
        (image({"count": {"N": ["5"]}}), True),
        ({"$or": [{"eventName": ["REMOVE"]}, image({"status": {"S": ["Active"]}})]}, True),
        ({"$or": [{"eventName": ["REMOVE"]}, image({"status": {"S": ["Gone"]}})]}, False),
        ({"userIdentity": {"type": ["Service"]}}, False),  # absent field
    ],
)
def test_single_pattern(pattern: dict[str, Any], expected: bool) -> None:
    assert matches(pattern) is expected


def test_filters_are_ored_and_no_filters_match_everything() -> None:
    assert matches({"eventName": ["REMOVE"]}, {"eventName": ["INSERT"]})
    assert not matches({"eventName": ["REMOVE"]}, {"eventName": ["MODIFY"]})
    assert matches_any((), RECORD)


def test_ttl_deletions_can_be_selected_by_user_identity() -> None:
    ttl_delete = {
        **RECORD,
        "eventName": "REMOVE",
        "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
    }
    pattern = {"userIdentity": {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}}
    assert matches(pattern, record=ttl_delete)
    assert not matches(pattern, record={**RECORD, "eventName": "REMOVE"})


def test_type_of_an_exact_value_matters() -> None:
    assert not matches(image({"count": {"N": [5]}}))  # "5" is not 5
    assert not matches({"dynamodb": {"SizeBytes": ["120"]}})
    assert not matches(image({"nothing": {"NULL": [1]}}))  # true is not 1


@pytest.mark.parametrize(
    "pattern",
    [
        "not json",
        json.dumps([1, 2]),
        json.dumps({}),
        json.dumps({"eventName": "INSERT"}),  # a leaf must be a list
        json.dumps({"eventName": []}),
        json.dumps({"eventName": [{"wildcard": "IN*"}]}),
        json.dumps({"eventName": [{"prefix": 1}]}),
        json.dumps({"dynamodb": {"SizeBytes": [{"numeric": [">", "1"]}]}}),
        json.dumps({"dynamodb": {"SizeBytes": [{"numeric": ["~", 1]}]}}),
        json.dumps({"dynamodb": {"SizeBytes": [{"numeric": ["=", 1, "<", 2]}]}}),
        json.dumps({"dynamodb": {"Keys": [{"exists": "yes"}]}}),
        json.dumps({"$or": [{"eventName": ["INSERT"]}]}),
    ],
)
def test_patterns_lambda_rejects_are_errors(pattern: str) -> None:
    with pytest.raises(FilterError):
        parse_filters([{"Pattern": pattern}])


def test_a_filter_without_a_pattern_string_is_an_error() -> None:
    with pytest.raises(FilterError, match=r"Filters\[0\]"):
        parse_filters([{"Pattern": {"eventName": ["INSERT"]}}])
