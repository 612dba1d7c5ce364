"""functions/shared/catalog.py `load`: a domain's catalog.toml read into the objects its catalog.py names (issue 31).
The rendered tables are held to the docs by tests/unit/test_docs.py; here, what the loader reads and refuses."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from functions.shared.catalog import AccessPattern, Catalog, EntityTable, Rule, StreamDemo, columns, load

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/catalog.toml"))

EVERYTHING = '''\
persona = "bob"

[entities]
columns = ["entity", "PK"]
rows = [["Item", "`id`"]]

[columns]
who = false
key_condition = "key condition / write"

[[patterns]]
name = "get"
route = """\\
    `GET /x/{id}` \\
    → 200"""
source = "Item"
key_condition = 'GetItem `sk = "A#"`'
repository_method = "`get`"
tests = "`test_get`"

[examples]
id = "1"
# a comment beside an entry
day = "@today"

[[streams]]
name = "demo"
write = "get"
read = "get"
what = "watch"
params = {id = "1"}
body = {price = 13.25, tags = ["a"]}

[[rules]]
rule = "one"
enforced_by = "a condition"
refusal = "409 `X`"
tests = ["tests/functional/test_x_api.py::test_one"]
'''


def catalog_at(tmp_path: Path, text: str) -> Catalog:
    (tmp_path / "catalog.toml").write_text(text, encoding="utf-8")
    return load(tmp_path / "catalog.py")


def test_every_table_of_the_file_is_read_into_its_objects_in_order(tmp_path):
    assert catalog_at(tmp_path, EVERYTHING) == Catalog(
        entities=EntityTable(columns=("entity", "PK"), rows=(("Item", "`id`"),)),
        columns=columns(who=False, key_condition="key condition / write"),
        patterns=(AccessPattern(name="get", route="`GET /x/{id}` → 200", who=None, source="Item",
                                key_condition='GetItem `sk = "A#"`', repository_method="`get`", tests="`test_get`"),),
        rules=(Rule(rule="one", enforced_by="a condition", refusal="409 `X`",
                    tests=("tests/functional/test_x_api.py::test_one",)),),
        examples={"id": "1", "day": "@today"},
        streams=(StreamDemo(name="demo", write="get", read="get", what="watch", params={"id": "1"},
                            body={"price": 13.25, "tags": ["a"]}),),
        persona="bob",
    )


@pytest.fixture
def smallest(tmp_path) -> Catalog:
    return catalog_at(tmp_path, '[entities]\ncolumns = ["PK"]\nrows = []\n\n[[patterns]]\nname = "n"\nroute = "r"\n'
                                'source = "s"\nkey_condition = "k"\nrepository_method = "m"\ntests = "t"\n')


def test_only_entities_and_patterns_are_required_the_rest_is_what_the_consumers_defaulted_to(smallest):
    assert smallest.columns == columns() and smallest.patterns[0].who is None
    assert (smallest.rules, smallest.examples, smallest.streams, smallest.persona) == ((), {}, (), "alice")


@pytest.mark.parametrize("text, named", [
    ("[entity]\ncolumns = []\n", "unknown keys ['entity']"),
    ('[entities]\ncolumns = ["PK"]\nrows = [["a", "b"]]\n[[patterns]]\n', "2 cells for 1 columns"),
    ('[entities]\ncolumns = ["PK"]\nrows = []\n[[patterns]]\nname = "n"\nwhoo = "x"\n', "unexpected keyword"),
    ('[[patterns]]\nname = "n"\n', "KeyError 'entities'"),
])
def test_a_misspelled_or_missing_key_is_an_error_naming_the_file(tmp_path, text, named):
    with pytest.raises(ValueError, match="catalog.toml") as refused:
        catalog_at(tmp_path, text)
    assert named in str(refused.value)


@pytest.mark.parametrize("domain", DOMAINS)
def test_a_domains_catalog_module_is_its_toml(domain):
    module = importlib.import_module(f"functions.{domain}.catalog")
    catalog = load(module.__file__)
    assert catalog == (module.ENTITIES, module.COLUMNS, module.PATTERNS, module.RULES, module.EXAMPLES,
                       module.STREAMS, module.PERSONA)
    assert (module.__doc__ or "").startswith(domain.replace("_", " ").capitalize() + ":")  # the Workbench's title


def test_every_domain_with_a_catalog_module_has_its_toml():
    modules = sorted(p.parent.name for p in (ROOT / "functions").glob("*/catalog.py") if p.parent.name != "shared")
    assert modules == DOMAINS and len(DOMAINS) >= 13
