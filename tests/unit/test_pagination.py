from decimal import Decimal

import pytest

from functions.shared.cursors import CursorCodec, binding
from functions.shared.errors import InvalidInputError
from functions.shared.pages import Page, query_page

CODEC = CursorCodec(b"k" * 32)


def test_cursor_round_trips_string_and_number_keys():
    key = {"Id": "a", "Type": "Person", "Score": Decimal("12")}
    cursor = CODEC.encode(key, "r?x=1")
    assert CODEC.decode(cursor, "r?x=1") == key


def test_no_last_key_means_no_cursor():
    assert CODEC.encode(None, "r") is None
    assert CODEC.encode({}, "r") is None


@pytest.mark.parametrize("mutate", [
    lambda c: c[:-1] + ("A" if c[-1] != "A" else "B"),    # signature changed
    lambda c: "x" + c,                                      # body changed
    lambda c: c.split(".")[0],                              # signature missing
    lambda c: "",                                           # empty
])
def test_tampered_cursor_is_refused(mutate):
    cursor = CODEC.encode({"Id": "a"}, "r")
    with pytest.raises(InvalidInputError) as error:
        CODEC.decode(mutate(cursor), "r")
    assert error.value.code == "INVALID_CURSOR"


def test_cursor_of_another_list_or_key_is_refused():
    cursor = CODEC.encode({"Id": "a"}, binding("persons", lastName="Smith"))
    with pytest.raises(InvalidInputError):
        CODEC.decode(cursor, binding("persons", lastName="Wilson"))
    with pytest.raises(InvalidInputError):
        CursorCodec(b"z" * 32).decode(cursor, binding("persons", lastName="Smith"))


def test_binding_is_canonical_and_skips_none():
    assert binding("r", b=2, a=1, c=None) == binding("r", a=1, b=2) == "r?a=1&b=2"


def test_query_page_reads_on_until_the_page_is_full():
    # Given a query whose filter keeps one item in three, served 3 evaluated items at a time
    data = [{"n": i, "keep": i % 3 == 0} for i in range(30)]
    requests = []

    def query(**kwargs):
        requests.append(kwargs)
        start = kwargs.get("ExclusiveStartKey", {"n": -1})["n"] + 1
        window = data[start : start + 3]
        response = {"Items": [d for d in window if d["keep"]][: kwargs["Limit"]]}
        if start + 3 < len(data):
            response["LastEvaluatedKey"] = {"n": window[-1]["n"]}
        return response

    # When a page of 4 is asked for
    page = query_page(query, limit=4, start_key=None)
    # Then it holds the first 4 kept items and resumes right after the last item read
    assert [i["n"] for i in page.items] == [0, 3, 6, 9]
    assert page.last_key == {"n": 11}
    assert all(r["Limit"] <= 4 for r in requests)
    rest = query_page(query, limit=100, start_key=page.last_key)
    assert [i["n"] for i in rest.items] == [12, 15, 18, 21, 24, 27]
    assert isinstance(rest, Page)


def test_a_parent_first_read_asks_for_one_more_on_the_first_page_only():
    # Given an item collection whose parent item is read first, then 5 children
    data = [{"n": 0, "parent": True}] + [{"n": i} for i in range(1, 6)]
    limits = []

    def query(**kwargs):
        limits.append(kwargs["Limit"])
        start = kwargs.get("ExclusiveStartKey", {"n": -1})["n"] + 1
        window = data[start : start + kwargs["Limit"]]
        response = {"Items": window}
        if start + kwargs["Limit"] < len(data):
            response["LastEvaluatedKey"] = {"n": window[-1]["n"]}
        return response

    # When pages of 2 are read from the start, then on from each page's last key
    pages = [query_page(query, limit=2, start_key=None, parent_first=True)]
    while pages[-1].last_key:
        pages.append(query_page(query, limit=2, start_key=pages[-1].last_key, parent_first=True))
    # Then the first page is the parent and 2 children, later pages 2 children, each item once, one Query a page
    assert [[i["n"] for i in page.items] for page in pages] == [[0, 1, 2], [3, 4], [5]]
    assert limits == [3, 2, 2]


@pytest.mark.parametrize("cursor", ["x.\u2603", "\u2603.\u2603", "x.", ".x", "\u2603", "x.\x00", "x" * 3000])
def test_a_cursor_holding_anything_is_refused_as_invalid(cursor):
    with pytest.raises(InvalidInputError) as refused:
        CODEC.decode(cursor, "r")
    assert refused.value.code == "INVALID_CURSOR"
