"""One set of white space for every pattern of a request model (functions/shared/models.py WHITE_SPACE): `\\s` means
three sets (pydantic's Rust regexes and strip, JSON Schema's ECMAScript, Python's `str.strip`), so a description
written with `\\s` refused what the validation accepted or the reverse ("é\\x85…@…" was schema-valid and refused)."""

from __future__ import annotations

import re

import pytest
from pydantic import TypeAdapter, ValidationError

from functions.ecommerce.models import Email as EcommerceEmail
from functions.shared.models import WHITE_SPACE, WHITE_SPACE_CHARS, stripped
from functions.users.models import Email as UsersEmail

# The characters one of the three calls white space, and one that none does.
CANDIDATES = sorted({chr(c) for c in range(0x110000) if chr(c).isspace()} | {"\ufeff", "\x1e", "x"})


def test_the_class_and_the_characters_are_one_set_and_the_one_pydantic_strips():
    in_class = {c for c in CANDIDATES if re.fullmatch(f"[{WHITE_SPACE}]", c)}
    assert in_class == set(WHITE_SPACE_CHARS)
    text = TypeAdapter(stripped(1, 10))
    for character in CANDIDATES:
        try:
            text.validate_python(character)
            kept = True
        except ValidationError:
            kept = False
        assert kept == (character not in WHITE_SPACE_CHARS), hex(ord(character))


@pytest.mark.parametrize("model", [UsersEmail, EcommerceEmail])
@pytest.mark.parametrize("character", CANDIDATES, ids=lambda c: hex(ord(c)))
def test_an_email_is_valid_where_its_described_pattern_says_so(model, character):
    # Given the description's pattern, read as a client's (ECMAScript-like) engine would: the class is explicit,
    # so Python's `re` reads it the same way
    adapter = TypeAdapter(model)
    pattern = adapter.json_schema()["pattern"]
    for sent in (f"a{character}b@example.com", f"{character}ab@example.com{character}"):
        described = re.fullmatch(pattern, sent) is not None
        try:
            adapter.validate_python(sent)
            accepted = True
        except ValidationError:
            accepted = False
        assert accepted == described, (hex(ord(character)), sent)


def test_no_pattern_of_the_description_says_white_space_with_backslash_s():
    # functions/platform/openapi.json is the generated description (tests/unit/test_platform.py holds it to the code)
    import json
    from pathlib import Path

    spec = json.loads((Path(__file__).resolve().parents[2] / "functions/platform/openapi.json").read_text())
    patterns: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            patterns.extend(v for k, v in node.items() if k == "pattern" and isinstance(v, str))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert patterns
    assert [p for p in patterns if re.search(r"\\[sS]", p.replace(r"[\s\S]", ""))] == []
