"""tools/new_domain.py: what `make new-domain` writes, in the shape
docs/adr/0037-domain-infra-file-is-data-apidomain.md describes (here the files it writes, without synth or servers)."""

from __future__ import annotations

import ast

import pytest

from functions.shared.domain import load
from tools import docs, new_domain


def test_a_new_domain_is_its_package_infra_seeds_test_and_docs_with_every_placeholder_filled(tmp_path):
    created = new_domain.create("order_entry", "orders and their lines", root=tmp_path)
    assert sorted(str(p.relative_to(tmp_path)) for p in created) == [
        "docs/order-entry.md",
        "functions/order_entry/__init__.py",
        "functions/order_entry/api.py",
        "functions/order_entry/domain.toml",
        "functions/order_entry/models.py",
        "functions/order_entry/repository.py",
        "functions/order_entry/schema.py",
        "functions/order_entry/service.py",
        "infra/domains/order_entry.py",
        "seeds/order_entry.py",
        "tests/functional/test_order_entry_api.py",
    ]
    for path in created:
        text = path.read_text()
        assert "{{" not in text and "__name__/" not in text, path
        if path.suffix == ".py":
            ast.parse(text)
    infra = (tmp_path / "infra/domains/order_entry.py").read_text()
    declared = load(tmp_path / "functions/order_entry/api.py")
    assert 'def order_entry(' in infra and [(r.name, r.method, r.path, r.group) for r in declared.routes] == [
        ("put_item", "PUT", "/order-entry/items/{itemId}", "admin"),
        ("get_item", "GET", "/order-entry/items/{itemId}", None),
    ]
    # the API function's grants: what the two patterns declare, nothing written in infra/
    assert [(g.table, g.actions, g.indexes) for g in declared.grants()] == [("ItemTable", ("GetItem", "PutItem"), ())]
    assert "Grant(" not in infra
    assert "class OrderEntryRepository" in (tmp_path / "functions/order_entry/repository.py").read_text()
    assert 'env_var="ORDER_ENTRY_ITEM_TABLE_NAME"' in (tmp_path / "functions/order_entry/schema.py").read_text()


def test_a_new_domains_docs_tables_are_the_ones_rendered_from_its_catalog(tmp_path):
    new_domain.create("order_entry", "orders and their lines", root=tmp_path)
    catalog = load(tmp_path / "functions/order_entry/domain.toml")
    page = (tmp_path / "docs/order-entry.md").read_text()
    assert docs.marked_tables(page) == {"order_entry": "\n" + docs.table_of(catalog) + "\n"}
    assert docs.marked_entities(page) == {"order_entry": "\n" + docs.entities_of(catalog) + "\n"}
    assert docs.marked_rules(page) == {"order_entry": "\n" + docs.rules_of(catalog) + "\n"}
    assert all(rule.tests for rule in catalog.rules)
    assert docs.render(page, load=lambda domain: catalog) == page
    assert [p.route for p in catalog.patterns] == [
        "`PUT /order-entry/items/{itemId}` `{name}`",
        "`GET /order-entry/items/{itemId}`",
    ]


def test_it_refuses_a_bad_name_or_an_existing_domain(tmp_path):
    with pytest.raises(ValueError):
        new_domain.create("Orders!", "x", root=tmp_path)
    with pytest.raises(ValueError):
        new_domain.create("shared", "x", root=tmp_path)
    new_domain.create("orders", "x", root=tmp_path)
    with pytest.raises(FileExistsError):
        new_domain.create("orders", "x", root=tmp_path)
