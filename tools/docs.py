"""`make docs`: the entity and access-pattern tables of docs/<domain>.md, rendered from functions/<domain>/catalog.py.

Each table is generated between its two markers:

    <!-- entities: generated from functions/<domain>/catalog.py by `make docs` -->
    (the entity chart's table: `ENTITIES`)
    <!-- /entities -->

    <!-- access-patterns: generated from functions/<domain>/catalog.py by `make docs` -->
    (the access-pattern table: `PATTERNS`, `COLUMNS`)
    <!-- /access-patterns -->

`python -m tools.docs` rewrites every marked table from its domain's catalog; `python -m tools.docs --check` changes
nothing and exits 1 when a page differs from its catalog (or a catalog has no marked table of either kind).
tests/unit/test_docs.py makes the same check. Anything else on a page (an entity chart's diagram, the prose) is
written by hand.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from functions.shared.catalog import EntityTable, markdown_table

ROOT = Path(__file__).resolve().parents[1]


def catalog_of(domain: str) -> ModuleType:
    return importlib.import_module(f"functions.{domain}.catalog")


def table_of(catalog: ModuleType) -> str:
    """The access-pattern table."""
    return markdown_table(catalog.PATTERNS, catalog.COLUMNS)


def entities_of(catalog: ModuleType) -> str:
    """The entity chart's table."""
    entities = catalog.ENTITIES
    assert isinstance(entities, EntityTable), f"{catalog.__name__}.ENTITIES is an EntityTable"
    return entities.markdown()


@dataclass(frozen=True)
class Block:
    """One kind of generated table: its markers and what renders it from a catalog."""

    kind: str  # the marker's word: <!-- {kind}: generated from … --> … <!-- /{kind} -->
    what: str  # for messages
    table: Callable[[ModuleType], str]

    def start(self, domain: str) -> str:
        return f"<!-- {self.kind}: generated from functions/{domain}/catalog.py by `make docs` -->"

    @property
    def end(self) -> str:
        return f"<!-- /{self.kind} -->"

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(
            rf"^<!-- {self.kind}: generated from functions/(?P<domain>\w+)/catalog\.py by `make docs` -->\n"
            rf"(?P<body>.*?)^<!-- /{self.kind} -->$",
            re.MULTILINE | re.DOTALL,
        )

    def marked(self, text: str) -> dict[str, str]:
        """domain -> the text between its markers (a blank line, the table, a blank line)."""
        return {match["domain"]: match["body"] for match in self.pattern.finditer(text)}

    def render(self, text: str, load: Callable[[str], ModuleType] = catalog_of) -> str:
        """The page with every table of this kind rendered again from its catalog."""
        return self.pattern.sub(
            lambda match: f"{self.start(match['domain'])}\n\n{self.table(load(match['domain']))}\n{self.end}", text
        )


ENTITIES = Block("entities", "entity table", entities_of)
ACCESS_PATTERNS = Block("access-patterns", "access-pattern table", table_of)
BLOCKS = (ENTITIES, ACCESS_PATTERNS)

# The access-pattern block by its first names (tests and the template's test use them).
START = ACCESS_PATTERNS.start("{domain}")
END = ACCESS_PATTERNS.end
BLOCK = ACCESS_PATTERNS.pattern


def marked_tables(text: str) -> dict[str, str]:
    """domain -> the text between its access-pattern markers (a blank line, the table, a blank line)."""
    return ACCESS_PATTERNS.marked(text)


def marked_entities(text: str) -> dict[str, str]:
    """domain -> the text between its entity markers (a blank line, the table, a blank line)."""
    return ENTITIES.marked(text)


def render(text: str, load: Callable[[str], ModuleType] = catalog_of) -> str:
    """The page with every marked table, of either kind, rendered again from its catalog."""
    for block in BLOCKS:
        text = block.render(text, load)
    return text


def domains_with_catalogs(root: Path = ROOT) -> list[str]:
    return sorted(path.parent.name for path in (root / "functions").glob("*/catalog.py") if path.parent.name != "shared")


def doc_of(domain: str, root: Path = ROOT) -> Path:
    return root / "docs" / f"{domain.replace('_', '-')}.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make docs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a table is not its catalog")
    args = parser.parse_args(argv)
    problems: list[str] = []
    for domain in domains_with_catalogs():
        doc = doc_of(domain)
        text = doc.read_text(encoding="utf-8") if doc.is_file() else ""
        unmarked = [block for block in BLOCKS if domain not in block.marked(text)]
        for block in unmarked:
            problems.append(f"{doc.relative_to(ROOT)}: no {block.what} marked {block.start(domain)}")
        if unmarked:
            continue
        new = render(text)
        if new == text:
            continue
        if args.check:
            problems.extend(
                f"{doc.relative_to(ROOT)}: its {block.what} differs from functions/{domain}/catalog.py"
                for block in BLOCKS
                if block.render(text) != text
            )
        else:
            doc.write_text(new, encoding="utf-8")
            print(f"rewrote {doc.relative_to(ROOT)}")
    for problem in problems:
        print(f"error: {problem}" if not args.check else problem, file=sys.stderr)
    if args.check and problems:
        print("run `make docs`", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
