from datetime import date

import pytest
from pydantic import TypeAdapter, ValidationError

from functions.contacts.repository import day_to_epoch, epoch_to_day, relationship_start
from functions.shared.auth import parse_groups
from functions.shared.models import Day


@pytest.mark.parametrize(("claim", "groups"), [
    (None, set()),
    ("", set()),
    ("admin", {"admin"}),
    ("admin,vehicle", {"admin", "vehicle"}),
    ("[admin vehicle]", {"admin", "vehicle"}),
    (["admin", "vehicle"], {"admin", "vehicle"}),
])
def test_groups_claim_in_every_shape_api_gateway_sends(claim, groups):
    assert parse_groups(claim) == groups


def test_days_are_strict_iso():
    adapter = TypeAdapter(Day)
    assert adapter.validate_python("2005-01-01") == date(2005, 1, 1)
    for bad in ("1/1/2005", "2005-1-1", 1104537600, "2005-02-30", "2005-01-01T00:00:00"):
        with pytest.raises(ValidationError):
            adapter.validate_python(bad)


def test_seed_timestamps_are_midnight_utc_epochs():
    # The seed stores 1/1/2000 as 946684800 and 12/31/2010 as 1293753600.
    assert day_to_epoch(date(2000, 1, 1)) == 946684800
    assert day_to_epoch(date(2010, 12, 31)) == 1293753600
    assert epoch_to_day(946684800) == date(2000, 1, 1)
    assert day_to_epoch(date(1960, 5, 1)) < 0 and epoch_to_day(day_to_epoch(date(1960, 5, 1))) == date(1960, 5, 1)


def test_relationship_start_sorts_by_day_within_a_relationship():
    keys = [relationship_start("Business", date(y, 1, 1)) for y in (1999, 2005, 2011)]
    assert keys == sorted(keys)
    assert "Business#" < keys[0] <= relationship_start("Business", date(2005, 1, 1))
