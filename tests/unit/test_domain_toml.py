"""functions/shared/domain.py `load`: a domain's domain.toml read into its routes, patterns (with the actions they
need), entities, rules and the explorer's data. The rendered tables are held to the docs by tests/unit/test_docs.py,
the grants to the template by tests/infra/test_stack.py's snapshots and to the code by the functional suite; here,
what the loader reads and refuses."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from functions.shared.catalog import AccessPattern, EntityTable, Rule, StreamDemo, columns
from functions.shared.domain import Access, Domain, TableGrant, load, names
from functions.shared.routes import Route

ROOT = Path(__file__).resolve().parents[2]

EVERYTHING = '''\
tag = "x"
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
actions = { ItemTable = ["GetItem"] }

[patterns.handlers.get_item]
route = "GET /x/{id}"
responses = { 404 = "404 NOT_FOUND" }

[[patterns]]
name = "list"
route = "`GET /x`"
source = "Item, ByKind"
key_condition = "Query"
repository_method = "`items`"
tests = "`test_list`"
actions = { ItemTable = ["Query", "GetItem"], "ItemTable/ByKind" = ["Query"] }

[patterns.handlers.items]
route = "GET /x"
paged = true

[[patterns]]
name = "count"
route = "stream"
source = "Stats"
key_condition = "UpdateItem"
repository_method = "`count`"
tests = "`test_count`"

[handlers.health]
route = "GET /x/health"
public = true
in_schema = false

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


def domain_at(tmp_path: Path, text: str, folder: str = "x") -> Domain:
    (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / folder / "domain.toml").write_text(text, encoding="utf-8")
    return load(tmp_path / folder / "api.py")


def test_every_table_of_the_file_is_read_into_its_objects_in_order(tmp_path):
    domain = domain_at(tmp_path, EVERYTHING)
    assert (domain.name, domain.tag, domain.persona) == ("x", "x", "bob")
    assert domain.entities == EntityTable(columns=("entity", "PK"), rows=(("Item", "`id`"),))
    assert domain.columns == columns(who=False, key_condition="key condition / write")
    assert domain.patterns[0] == AccessPattern(name="get", route="`GET /x/{id}` → 200", who=None, source="Item",
                                               key_condition='GetItem `sk = "A#"`', repository_method="`get`",
                                               tests="`test_get`")
    assert [p.name for p in domain.patterns] == ["get", "list", "count"]
    assert domain.rules == (Rule(rule="one", enforced_by="a condition", refusal="409 `X`",
                                 tests=("tests/functional/test_x_api.py::test_one",)),)
    assert domain.examples == {"id": "1", "day": "@today"}
    assert domain.streams == (StreamDemo(name="demo", write="get", read="get", what="watch", params={"id": "1"},
                                         body={"price": 13.25, "tags": ["a"]}),)


def test_the_handlers_are_the_routes_in_declaration_order_each_under_its_pattern(tmp_path):
    domain = domain_at(tmp_path, EVERYTHING)
    assert list(domain.routes) == [
        Route("GET", "/x/{id}", responses={404: "404 NOT_FOUND"}, name="get_item"),
        Route("GET", "/x", paged=True, name="items"),
        Route("GET", "/x/health", public=True, in_schema=False, name="health"),
    ]
    assert domain.routes.tag == "x"
    assert domain.handlers == {"get": ("get_item",), "list": ("items",), "count": ()}


def test_route_order_puts_the_named_handlers_first(tmp_path):
    domain = domain_at(tmp_path, EVERYTHING.replace('tag = "x"', 'tag = "x"\nroute_order = ["health", "items"]'))
    assert [route.name for route in domain.routes] == ["health", "items", "get_item"]


def test_the_grants_are_the_union_of_the_patterns_actions_and_a_pattern_without_actions_adds_none(tmp_path):
    domain = domain_at(tmp_path, EVERYTHING)
    assert domain.access["list"] == (Access("ItemTable", ("Query", "GetItem")),
                                     Access("ItemTable", ("Query",), "ByKind"))
    assert domain.access["count"] == ()
    assert domain.grants() == (TableGrant("ItemTable", ("GetItem", "Query"), ("ByKind",)),)


def test_only_the_tag_is_required_the_rest_is_what_the_consumers_defaulted_to(tmp_path):
    domain = domain_at(tmp_path, 'tag = "y"\n')
    assert (domain.entities, domain.patterns, domain.rules, domain.examples, domain.streams, domain.persona) == (
        None, (), (), {}, (), "alice")
    assert domain.columns == columns() and len(domain.routes) == 0 and domain.grants() == ()


@pytest.mark.parametrize("text, named", [
    ('tag = "x"\n[entity]\ncolumns = []\n', "unknown keys ['entity']"),
    ('[entities]\ncolumns = ["PK"]\nrows = []\n', 'no `tag = "..."`'),
    ('tag = "x"\n[entities]\ncolumns = ["PK"]\nrows = [["a", "b"]]\n', "2 cells for 1 columns"),
    ('tag = "x"\n[[patterns]]\nname = "n"\nwhoo = "x"\n', "unknown keys ['whoo']"),
    ('tag = "x"\n[[patterns]]\nname = "n"\nroute = "r"\nsource = "s"\nkey_condition = "k"\nrepository_method = "m"\n'
     'tests = "t"\nactions = { T = ["GetItems"] }\n', "must list DynamoDB actions"),
    ('tag = "x"\n[[patterns]]\nname = "n"\nroute = "r"\nsource = "s"\nkey_condition = "k"\nrepository_method = "m"\n'
     'tests = "t"\nactions = { "T/I" = ["GetItem"] }\n', "is only queried"),
    ('tag = "x"\n[handlers.a]\nroute = "GET /a"\nmethod = "GET"\n', "unknown keys ['method']"),
    ('tag = "x"\n[handlers.a]\ngroup = "admin"\n', 'needs `route = "METHOD /path"`'),
    ('tag = "x"\n[handlers.a]\nroute = "GET /a"\n[handlers.b]\nroute = "GET /a"\n', "are both GET /a"),
    ('tag = "x"\nroute_order = ["b"]\n[handlers.a]\nroute = "GET /a"\n', "route_order names no handler ['b']"),
])
def test_a_misspelled_or_missing_key_is_an_error_naming_the_file(tmp_path, text, named):
    with pytest.raises(ValueError, match="domain.toml") as refused:
        domain_at(tmp_path, text)
    assert named in str(refused.value)


@pytest.mark.parametrize("domain", names())
def test_every_domain_loads_and_its_api_serves_exactly_its_handlers(domain):
    declared = load(domain)
    assert load(f"functions/{domain}/api.py") is declared  # read once, by name or by a module's file
    api = importlib.import_module(f"functions.{domain}.api")
    assert api.router.routes is declared.routes and len(declared.routes) > 0
    api.router.check_every_route_served()  # each declared handler is one of api.py's


def test_every_domain_package_has_its_domain_toml_and_no_other_declaration():
    packages = sorted(p.parent.name for p in (ROOT / "functions").glob("*/__init__.py") if p.parent.name != "shared")
    assert names() == packages and len(packages) >= 14
    leftovers = [p for p in (ROOT / "functions").glob("*/*") if p.name in {"routes.toml", "catalog.toml", "routes.py",
                                                                           "catalog.py"} and p.parent.name != "shared"]
    assert leftovers == []


@pytest.mark.parametrize("name", [n for n in names() if load(n).patterns])
def test_every_route_of_a_domain_with_patterns_is_served_under_one(name):
    """A route's DynamoDB actions are its pattern's (tests/functional/test_pattern_actions.py checks them): a
    handler declared outside every pattern would be checked by nothing but the function's union of grants."""
    domain = load(name)
    under = [handler for handlers in domain.handlers.values() for handler in handlers]
    assert sorted(route.name for route in domain.routes if route.name not in under) == []
    assert len(under) == len(set(under))
