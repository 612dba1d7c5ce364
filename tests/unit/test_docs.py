"""Docs that cannot drift: every domain declares its entities and access patterns once, in
functions/<domain>/domain.toml (loaded by functions/shared/domain.py), and the entity chart's table and the access-pattern table of
docs/<domain>.md are rendered from it (`make docs`, tools/docs.py).

- each table between the page's markers is exactly the one rendered from the catalog, and no access-pattern table of
  a page is outside them;
- every entity table has a partition-key column;
- every pattern of a catalog names routes, code and tests that exist:
  - route: every backticked `METHOD /path` (or a backticked method followed by a backticked path) must be a route the
    domain's functions serve (`{param}` and `<param>` alike; a query string is ignored; `…/` abbreviations are skipped);
  - repository method: every backticked name (`put_dealer`, `ParkedRecords.park`) must be a function or method
    defined under functions/;
  - tests: every backticked test (`test_x`, `test_x…` as a prefix, `test_x_*` as a pattern, or a `tests/…py` file)
    must exist under tests/;
- every page's "Rules and errors" table is the one rendered from the catalog's `RULES`, and no other table of rules
  is on the page; every rule names at least one test, each a node id (`tests/…py::test_x`, `::Class::test_x`, a
  parametrized id by its function's name) whose file holds that function (found by parsing the file, no pytest run),
  and every error code its refusal names is one the code under functions/ raises.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from functions.shared.catalog import AccessPattern, EntityTable, Rule
from tools import docs as docs_tool

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name not in {"architecture.md", "local-runtime.md"})
METHODS = {"GET", "PUT", "POST", "DELETE", "PATCH"}
TICKS = re.compile(r"`([^`]+)`")


def access_pattern_rows(doc: Path) -> Iterator[dict[str, str]]:
    header: list[str] | None = None
    for line in doc.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip()[1:-1])]  # `\|` is a literal pipe
        if header is None:
            header = cells if cells[0] == "access pattern" else []
        elif header and not set(line) <= set("|-: "):
            yield dict(zip(header, cells))


def domain_of(doc: Path) -> str:
    return doc.stem.replace("-", "_")


def catalog_rows(doc: Path) -> Iterator[dict[str, str]]:
    """The rows of the page's table as its catalog declares them: {header: cell}, `|` unescaped."""
    catalog = docs_tool.catalog_of(domain_of(doc))
    for pattern in catalog.patterns:
        assert isinstance(pattern, AccessPattern)
        yield {header: getattr(pattern, field) or "" for header, field in catalog.columns}


def served_routes() -> set[tuple[str, str]]:
    from functions.platform.api import every_domain

    app = every_domain()  # every domain's router, as /docs describes them

    routes = app._static_routes + app._dynamic_routes  # Powertools' route table (pinned version)
    return {(route.method, _shape(route.path)) for route in routes}


def _shape(path: str) -> str:
    return re.sub(r"[<{][^>}]+[>}]", "{}", path.split("?", 1)[0])


def defined_names(root: Path) -> set[str]:
    """`name` for every function and method under root, and `Class.method` for methods."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.update({item.name, f"{node.name}.{item.name}"})
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
    return names


def test_there_are_domain_docs_with_access_pattern_tables():
    assert {doc.name for doc in DOCS} >= {"contacts.md", "connected-car.md", "voting.md"}
    assert all(list(access_pattern_rows(doc)) for doc in DOCS)


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_docs_table_is_the_one_rendered_from_its_catalog(doc):
    text = doc.read_text(encoding="utf-8")
    domain = domain_of(doc)
    marked = docs_tool.marked_tables(text)
    assert list(marked) == [domain], f"{doc.name}: one table marked {docs_tool.START.format(domain=domain)}"
    tables = sum(line.startswith("| access pattern |") for line in text.splitlines())
    assert tables == 1, f"{doc.name}: every access-pattern table is generated, between the markers"
    expected = "\n" + docs_tool.table_of(docs_tool.catalog_of(domain)) + "\n"
    assert marked[domain] == expected, f"{doc.name} differs from functions/{domain}/domain.toml: run `make docs`"
    assert docs_tool.render(text) == text


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_entity_table_is_the_one_rendered_from_its_catalog(doc):
    text = doc.read_text(encoding="utf-8")
    domain = domain_of(doc)
    marked = docs_tool.marked_entities(text)
    assert list(marked) == [domain], f"{doc.name}: one table marked {docs_tool.ENTITIES.start(domain)}"
    expected = "\n" + docs_tool.entities_of(docs_tool.catalog_of(domain)) + "\n"
    assert marked[domain] == expected, (
        f"{doc.name}'s entity table differs from functions/{domain}/domain.toml: run `make docs`"
    )
    assert text.index(docs_tool.ENTITIES.start(domain)) < text.index(docs_tool.START.format(domain=domain))


# A header naming the partition key: "partition key", "PK" or "`UserId` (PK)" (not "GSI1PK": an index's key).
PARTITION_KEY = re.compile(r"partition key|\bPK\b", re.IGNORECASE)


@pytest.mark.parametrize("domain", docs_tool.domains_with_catalogs())
def test_every_entity_table_has_a_partition_key_column(domain):
    entities = docs_tool.catalog_of(domain).entities
    assert entities is not None, f"functions/{domain}/domain.toml: no [entities]"
    assert isinstance(entities, EntityTable)
    assert entities.rows, f"functions/{domain}/domain.toml: [entities] lists the entities"
    assert any(PARTITION_KEY.search(header) for header in entities.columns), (
        f"functions/{domain}/domain.toml: no [entities] column names the partition key: {entities.columns}"
    )


def test_an_entity_row_has_one_cell_a_column_and_renders_as_the_docs_write_it():
    with pytest.raises(ValueError):
        EntityTable(columns=("entity", "PK"), rows=(("Item",),))
    table = EntityTable(columns=("entity", "PK", "other attributes"), rows=(("Item", "`A|B`", ""),))
    assert table.markdown() == "| entity | PK | other attributes |\n|---|---|---|\n| Item | `A\\|B` | |\n"


def test_every_catalog_has_its_docs_page():
    assert [docs_tool.doc_of(domain).name for domain in docs_tool.domains_with_catalogs()] == [doc.name for doc in DOCS]
    assert docs_tool.main(["--check"]) == 0


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_route_method_and_test_a_table_names_exists(doc):
    routes = served_routes()
    code = defined_names(ROOT / "functions")
    tests = {name for name in defined_names(ROOT / "tests") if name.startswith("test_")}
    missing: list[str] = []
    for row in catalog_rows(doc):
        pattern = row["access pattern"]
        assert {"route", "repository method", "tests"} <= row.keys(), f"{doc.name}: columns route, repository method, tests"
        methods: list[str] = []
        for token in TICKS.findall(row["route"]):
            method, _, path = token.partition(" ")
            if method in METHODS and not path:
                methods.append(method)
                continue
            if method in METHODS and path.startswith("/"):
                methods, path = [method], path
            elif token.startswith("/"):
                path = token
            else:
                continue
            for verb in methods:
                if (verb, _shape(path)) not in routes:
                    missing.append(f"{pattern}: route {verb} {path}")
        for token in TICKS.findall(row["repository method"]):
            if re.fullmatch(r"[A-Za-z_]\w*(\.\w+)?", token) and token not in code:
                missing.append(f"{pattern}: code {token}")
        for token in TICKS.findall(row["tests"]):
            if token.startswith("tests/"):
                if not (ROOT / token).is_file():
                    missing.append(f"{pattern}: test file {token}")
            elif token.startswith("test_"):
                wanted = token.rstrip("…")
                if token.endswith("…"):
                    found = any(name.startswith(wanted) for name in tests)
                elif "*" in token:
                    found = bool(fnmatch.filter(tests, token))
                else:
                    found = token in tests
                if not found:
                    missing.append(f"{pattern}: test {token}")
    assert missing == [], f"{doc.name} names what does not exist:\n" + "\n".join(missing)


def test_every_quoted_cost_is_the_one_make_cost_measured():
    # The figures a page quotes between `<!-- cost: ... -->` markers are those of docs/cost-figures.json, which
    # bench/cost.py writes from what it measured through the local API; each names a measured call.
    figures = docs_tool.measured()
    quoted = 0
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        rendered, unknown = docs_tool.render_costs(text, figures)
        assert not unknown, f"{page.name}: markers name calls `make cost` did not measure: {unknown}"
        assert rendered == text, f"{page.name}: a quoted cost differs from the measurement; run `make docs`"
        quoted += len(docs_tool.COST.findall(text))
    assert quoted > 0


def test_a_cost_marker_renders_its_figure_and_names_an_unmeasured_call():
    figures = {"cart": {"PUT /cart/carts/{cartId}/lines/{sku}": {"wcu": 7.0, "rcu": 0.5}}}
    text = ("a change costs <!-- cost: cart PUT /cart/carts/{cartId}/lines/{sku} wcu -->8<!-- /cost --> WRU and "
            "<!-- cost: cart PUT /cart/carts/{cartId}/lines/{sku} rcu --><!-- /cost --> RRU; "
            "<!-- cost: cart GET /nowhere rcu -->1<!-- /cost -->")
    rendered, unknown = docs_tool.render_costs(text, figures)
    assert rendered == ("a change costs <!-- cost: cart PUT /cart/carts/{cartId}/lines/{sku} wcu -->7<!-- /cost --> "
                        "WRU and <!-- cost: cart PUT /cart/carts/{cartId}/lines/{sku} rcu -->0.5<!-- /cost --> RRU; "
                        "<!-- cost: cart GET /nowhere rcu -->1<!-- /cost -->")
    assert unknown == ["cart GET /nowhere rcu"]


def _tests_in(path: Path) -> set[str]:
    """`name` of every test function in a test file and `Class::name` of every test method, from its syntax tree."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.ClassDef):
            found.update(f"{node.name}::{item.name}" for item in node.body
                         if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return found


def missing_tests(node_ids: tuple[str, ...], root: Path = ROOT) -> list[str]:
    """The node ids that name no test: no file, or no such function in it (`test_x[id]` is `test_x`)."""
    missing = []
    for node_id in node_ids:
        path, _, name = node_id.partition("::")
        file = root / path
        name = name.split("[", 1)[0]
        if not (path.startswith("tests/") and file.is_file() and name.split("::")[-1].startswith("test_")
                and name in _tests_in(file)):
            missing.append(node_id)
    return missing


def error_codes_in_code(root: Path = ROOT / "functions") -> tuple[set[str], set[str]]:
    """Every string constant under functions/ that reads like an error code (`CART_FULL`), and the endings of codes
    built in f-strings (`f"{kind}_NOT_FOUND"`: `_NOT_FOUND`)."""
    codes: set[str] = set()
    endings: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and ERROR_CODE.fullmatch(node.value):
                codes.add(node.value)
            elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[-1], ast.Constant):
                tail = str(node.values[-1].value)
                if re.fullmatch(r"(?:_[A-Z0-9]+)+", tail):
                    endings.add(tail)
    return codes, endings


ERROR_CODE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|FORBIDDEN|UNAUTHORIZED|THROTTLED")


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.name)
def test_every_rules_table_is_the_one_rendered_from_its_catalog(doc):
    text = doc.read_text(encoding="utf-8")
    domain = domain_of(doc)
    marked = docs_tool.marked_rules(text)
    assert list(marked) == [domain], f"{doc.name}: one table marked {docs_tool.RULES.start(domain)}"
    expected = "\n" + docs_tool.rules_of(docs_tool.catalog_of(domain)) + "\n"
    assert marked[domain] == expected, f"{doc.name}'s rules differ from functions/{domain}/domain.toml: run `make docs`"
    # A rule stated by hand anywhere else on the page is a rule the catalog lacks: no other rules table, and nothing
    # tabled in the "Rules and errors" section outside the markers.
    headers = [line for line in text.splitlines() if re.match(r"\|\s*rule\s*\|", line)]
    assert len(headers) == 1, f"{doc.name}: a rules table outside the markers: {headers}"
    section = text.split("## Rules and errors", 1)[1].split("\n## ", 1)[0]
    outside = docs_tool.RULES.pattern.sub("", section)
    assert not [line for line in outside.splitlines() if line.startswith("|")], (
        f"{doc.name}: a table in \"Rules and errors\" outside the generated one: move its rows into RULES"
    )


@pytest.mark.parametrize("domain", docs_tool.domains_with_catalogs())
def test_every_rule_names_tests_that_exist_and_codes_the_code_raises(domain):
    rules = docs_tool.catalog_of(domain).rules
    codes, endings = error_codes_in_code()
    problems = []
    for rule in rules:
        assert isinstance(rule, Rule)
        if not rule.tests:
            problems.append(f"{rule.rule}: names no test")
        problems += [f"{rule.rule}: no test {node_id}" for node_id in missing_tests(rule.tests)]
        problems += [f"{rule.rule}: no code raises {code}" for code in TICKS.findall(rule.refusal)
                     if ERROR_CODE.fullmatch(code) and code not in codes and not code.endswith(tuple(endings))]
    assert problems == [], f"functions/{domain}/domain.toml [[rules]]:\n" + "\n".join(problems)


def test_the_drift_check_catches_a_missing_test_file_function_and_parametrized_id(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('x', [1])\ndef test_one(x):\n    assert x\n\n"
        "class TestGroup:\n    def test_two(self):\n        assert True\n"
    )
    ids = ("tests/test_a.py::test_one[1]", "tests/test_a.py::TestGroup::test_two", "tests/test_a.py::test_gone",
           "tests/test_b.py::test_one", "tests/test_a.py::helper")
    assert missing_tests(ids, tmp_path) == list(ids[2:])
