"""`make new-domain NAME=order_entry [SUMMARY="…"]`: a new domain from tools/domain_template/, ready to grow.

It writes the domain's schema, models, repository, service and its domain.toml (functions/<name>/: the access
patterns with their routes and actions, entities and rules), its infrastructure
(infra/domains/<name>.py: ApiDomain finds it, nothing registers it), its example data (seeds/<name>.py), a
functional test and its docs page. The result synthesizes, runs under `make run` and passes its tests before any
access pattern of the model is added: one table of items, put (admin) and get (signed in) by key.

In the template, `__name__` / `__kebab__` in a path and `{{name}}`, `{{kebab}}`, `{{Name}}`, `{{NAME}}`,
`{{Title}}`, `{{title}}`, `{{summary}}` in a file are replaced; the `.tmpl` suffix is dropped.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).resolve().parent / "domain_template"
NAME = re.compile(r"^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$")
TAKEN = {"shared", "platform", "functions", "infra", "local", "seeds", "tests"}


def words(name: str) -> dict[str, str]:
    parts = re.split(r"[_-]", name)
    return {
        "name": "_".join(parts),
        "kebab": "-".join(parts),
        "Name": "".join(p.capitalize() for p in parts),
        "NAME": "_".join(parts).upper(),
        "Title": " ".join(parts).capitalize(),
        "title": " ".join(parts),
    }


def plan(values: dict[str, str], root: Path = ROOT) -> dict[Path, str]:
    """Every file to write (target path -> content)."""
    files = {}
    for source in sorted(TEMPLATE.rglob("*.tmpl")):
        relative = str(source.relative_to(TEMPLATE)).removesuffix(".tmpl")
        relative = relative.replace("__name__", values["name"]).replace("__kebab__", values["kebab"])
        text = source.read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        files[root / relative] = text
    return files


def create(name: str, summary: str, root: Path = ROOT) -> list[Path]:
    if not NAME.match(name) or name.replace("-", "_") in TAKEN:
        raise ValueError(f"{name!r}: use lower case words joined by _ or - (not {', '.join(sorted(TAKEN))})")
    values = {**words(name), "summary": summary}
    files = plan(values, root)
    existing = [path for path in files if path.exists()] + [
        path for path in (root / "functions" / values["name"],) if path.exists()
    ]
    if existing:
        raise FileExistsError(f"domain {values['name']} exists already: {', '.join(map(str, existing))}")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)


def sort_imports(paths: list[Path]) -> None:
    """The template's imports in ruff's order for this name (`functions.<name>` sorts before or after
    `functions.shared` depending on the name): `ruff check --fix --select I001` on the files written."""
    ruff = Path(sys.executable).with_name("ruff")
    if paths and ruff.exists():
        subprocess.run([str(ruff), "check", "--quiet", "--fix", "--select", "I001", *map(str, paths)],  # noqa: S603
                       cwd=ROOT, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make new-domain", description=__doc__.split("\n\n")[0])
    parser.add_argument("name", help="the domain's name, e.g. order_entry")
    parser.add_argument("--summary", default="a new domain", help="one line for its docs page and package")
    args = parser.parse_args(argv)
    try:
        created = create(args.name, args.summary)
    except (ValueError, FileExistsError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    sort_imports([path for path in created if path.suffix == ".py"])
    for path in created:
        print(path.relative_to(ROOT))
    name = words(args.name)["name"]
    print(f"\nnext: make test-functional (tests/functional/test_{name}_api.py), make run, then add its access "
          f"patterns in functions/{name}/: schema.py -> repository.py -> service.py -> domain.toml (the pattern, "
          "its handler's route, the actions it needs) -> api.py, then make docs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
