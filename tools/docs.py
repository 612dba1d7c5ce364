"""`make docs`: the access-pattern tables of docs/<domain>.md, rendered from functions/<domain>/catalog.py.

A table is generated between its two markers:

    <!-- access-patterns: generated from functions/<domain>/catalog.py by `make docs` -->
    (the table)
    <!-- /access-patterns -->

`python -m tools.docs` rewrites every marked table from its domain's catalog (`PATTERNS`, `COLUMNS`);
`python -m tools.docs --check` changes nothing and exits 1 when a page differs from its catalog (or a catalog has no
marked table). tests/unit/test_docs.py makes the same check.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from functions.shared.catalog import markdown_table

ROOT = Path(__file__).resolve().parents[1]
START = "<!-- access-patterns: generated from functions/{domain}/catalog.py by `make docs` -->"
END = "<!-- /access-patterns -->"
BLOCK = re.compile(
    r"^<!-- access-patterns: generated from functions/(?P<domain>\w+)/catalog\.py by `make docs` -->\n"
    r"(?P<body>.*?)^<!-- /access-patterns -->$",
    re.MULTILINE | re.DOTALL,
)


def catalog_of(domain: str) -> ModuleType:
    return importlib.import_module(f"functions.{domain}.catalog")


def table_of(catalog: ModuleType) -> str:
    return markdown_table(catalog.PATTERNS, catalog.COLUMNS)


def marked_tables(text: str) -> dict[str, str]:
    """domain -> the text between its markers (a blank line, the table, a blank line)."""
    return {match["domain"]: match["body"] for match in BLOCK.finditer(text)}


def render(text: str, load: Callable[[str], ModuleType] = catalog_of) -> str:
    """The page with every marked table rendered again from its catalog."""
    return BLOCK.sub(lambda match: f"{START.format(domain=match['domain'])}\n\n{table_of(load(match['domain']))}\n{END}",
                     text)


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
        if domain not in marked_tables(text):
            problems.append(f"{doc.relative_to(ROOT)}: no table marked {START.format(domain=domain)}")
            continue
        new = render(text)
        if new == text:
            continue
        if args.check:
            problems.append(f"{doc.relative_to(ROOT)}: its access-pattern table differs from functions/{domain}/catalog.py")
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
