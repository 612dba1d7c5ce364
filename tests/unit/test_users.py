"""Users' pure rules: email normalization, the marker key, user ids that can never be a marker, what a retry is."""

from __future__ import annotations

from datetime import date

import pytest
from pydantic import ValidationError

from functions.users.models import EmailChangeIn, SignUpIn, User, normalize_email
from functions.users.schema import EMAIL_MARKER_PREFIX, email_marker_key
from functions.users.service import is_retry_of

BOB = User(user_id="bob", email="bob@gmail.com", join_date=date(2011, 11, 15))


@pytest.mark.parametrize("given, normalized", [
    ("bob@gmail.com", "bob@gmail.com"),
    ("  Bob@GMail.COM\t", "bob@gmail.com"),
    ("FRED+news@Yahoo.com", "fred+news@yahoo.com"),
])
def test_emails_are_trimmed_and_lower_cased(given, normalized):
    assert normalize_email(given) == normalized
    assert EmailChangeIn(email=given).email == normalized


@pytest.mark.parametrize("bad", ["", "bob", "bob@", "@gmail.com", "bob@gmail", "b ob@gmail.com", "bob@gm/ail.com",
                                 "a@b@c.com", "x" * 250 + "@b.com", 42])
def test_what_is_not_an_email_is_refused(bad):
    with pytest.raises(ValidationError):
        EmailChangeIn(email=bad)


def test_the_marker_key_is_the_prefixed_normalized_email():
    assert email_marker_key("bob@gmail.com") == {"UserId": "EMAIL#bob@gmail.com"}


@pytest.mark.parametrize("user_id", ["EMAIL#bob@gmail.com", "a#b", "", "x" * 129, "has space", "sl/ash"])
def test_a_user_id_can_never_be_a_marker_key(user_id):
    with pytest.raises(ValidationError):
        SignUpIn(user_id=user_id, email="x@y.com")
    assert EMAIL_MARKER_PREFIX.endswith("#")


def test_a_retry_asks_for_the_same_email_and_join_date_if_it_names_one():
    assert is_retry_of(BOB, SignUpIn(user_id="bob", email="Bob@gmail.com"))
    assert is_retry_of(BOB, SignUpIn(user_id="bob", email="bob@gmail.com", join_date="2011-11-15"))
    assert not is_retry_of(BOB, SignUpIn(user_id="bob", email="bob@gmail.com", join_date="2011-11-16"))
    assert not is_retry_of(BOB, SignUpIn(user_id="bob", email="robert@gmail.com"))
