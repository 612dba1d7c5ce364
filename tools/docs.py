"""`make docs`: the entity, access-pattern and rules tables of docs/<domain>.md, rendered from its domain.toml.

Each table is generated between its two markers:

    <!-- entities: generated from functions/<domain>/domain.toml by `make docs` -->
    (the entity chart's table: `[entities]`)
    <!-- /entities -->

    <!-- access-patterns: generated from functions/<domain>/domain.toml by `make docs` -->
    (the access-pattern table: `[[patterns]]`, `[columns]`)
    <!-- /access-patterns -->

    <!-- rules: generated from functions/<domain>/domain.toml by `make docs` -->
    (the "Rules and errors" table: `[[rules]]`, each rule with where it is enforced, its refusal and its tests)
    <!-- /rules -->

And every figure of what a call costs that a page quotes (any docs/*.md), from what `make cost` measured
(bench/cost.py, stored in docs/cost-figures.json), between an inline pair of markers naming the call and the field:

    a change costs <!-- cost: cart PUT /cart/carts/{cartId}/lines/{sku} wcu -->7<!-- /cost --> WRU

(fields: requests, items, answered, rcu, wcu; the seeds-only figures).

And each domain page's "At the seed's scale" table, from what `make scale` computed (bench/scale/, stored in
functions/platform/scale-figures.json), between
`<!-- scale: <page> generated from functions/platform/scale-figures.json by `make docs` -->` and
`<!-- /scale -->`.

`python -m tools.docs` rewrites every marked table from its domain's catalog and every marked figure from the
measured figures; `python -m tools.docs --check` changes nothing and exits 1 when a page differs from them (or a
catalog has no marked table of either kind, or a marker names a call that was not measured). tests/unit/test_docs.py
makes the same check. Anything else on a page (an entity chart's diagram, the prose) is written by hand.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from functions.shared.catalog import EntityTable, Rule, markdown_table, rules_table
from functions.shared.domain import Domain, load, names

ROOT = Path(__file__).resolve().parents[1]


def catalog_of(domain: str) -> Domain:
    """The domain's declaration (functions/<domain>/domain.toml)."""
    return load(domain)


def table_of(catalog: Domain) -> str:
    """The access-pattern table."""
    return markdown_table(catalog.patterns, catalog.columns)


def entities_of(catalog: Domain) -> str:
    """The entity chart's table."""
    entities = catalog.entities
    if not isinstance(entities, EntityTable):
        raise TypeError(f"functions/{catalog.name}/domain.toml: its [entities] must be an entity table")
    return entities.markdown()


def rules_of(catalog: Domain) -> str:
    """The "Rules and errors" table."""
    rules = catalog.rules
    if not (rules and all(isinstance(rule, Rule) for rule in rules)):
        raise TypeError(f"functions/{catalog.name}/domain.toml must list [[rules]]")
    return rules_table(rules)


@dataclass(frozen=True)
class Block:
    """One kind of generated table: its markers and what renders it from a catalog."""

    kind: str  # the marker's word: <!-- {kind}: generated from … --> … <!-- /{kind} -->
    what: str  # for messages
    table: Callable[[Domain], str]

    def start(self, domain: str) -> str:
        return f"<!-- {self.kind}: generated from functions/{domain}/domain.toml by `make docs` -->"

    @property
    def end(self) -> str:
        return f"<!-- /{self.kind} -->"

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(
            rf"^<!-- {self.kind}: generated from functions/(?P<domain>\w+)/domain\.toml by `make docs` -->\n"
            rf"(?P<body>.*?)^<!-- /{self.kind} -->$",
            re.MULTILINE | re.DOTALL,
        )

    def marked(self, text: str) -> dict[str, str]:
        """domain -> the text between its markers (a blank line, the table, a blank line)."""
        return {match["domain"]: match["body"] for match in self.pattern.finditer(text)}

    def render(self, text: str, load: Callable[[str], Domain] = catalog_of) -> str:
        """The page with every table of this kind rendered again from its catalog."""
        return self.pattern.sub(
            lambda match: f"{self.start(match['domain'])}\n\n{self.table(load(match['domain']))}\n{self.end}", text
        )


ENTITIES = Block("entities", "entity table", entities_of)
ACCESS_PATTERNS = Block("access-patterns", "access-pattern table", table_of)
RULES = Block("rules", "rules table", rules_of)
BLOCKS = (ENTITIES, ACCESS_PATTERNS, RULES)

# The access-pattern block by its first names (tests and the template's test use them).
START = ACCESS_PATTERNS.start("{domain}")
END = ACCESS_PATTERNS.end
BLOCK = ACCESS_PATTERNS.pattern


def marked_tables(text: str) -> dict[str, str]:
    """domain -> the text between its access-pattern markers (a blank line, the table, a blank line)."""
    return ACCESS_PATTERNS.marked(text)


def marked_rules(text: str) -> dict[str, str]:
    """domain -> the text between its rules markers (a blank line, the table, a blank line)."""
    return RULES.marked(text)


def marked_entities(text: str) -> dict[str, str]:
    """domain -> the text between its entity markers (a blank line, the table, a blank line)."""
    return ENTITIES.marked(text)


def render(text: str, load: Callable[[str], Domain] = catalog_of) -> str:
    """The page with every marked table, of either kind, rendered again from its catalog."""
    for block in BLOCKS:
        text = block.render(text, load)
    return text


# A measured figure quoted in prose: `<!-- cost: <domain> <METHOD> <route> <field> -->value<!-- /cost -->`.
COST = re.compile(r"<!-- cost: (?P<domain>[\w-]+) (?P<call>[A-Z]+ \S+) (?P<field>requests|items|answered|rcu|wcu) -->"
                  r"(?P<value>[^<]*)<!-- /cost -->")
FIGURES = ROOT / "docs" / "cost-figures.json"


def measured(path: Path = FIGURES) -> dict[str, dict[str, dict[str, float]]]:
    """{domain: {"METHOD /route": {field: figure}}} as the last `make cost` wrote them."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def render_costs(text: str, figures: dict[str, dict[str, dict[str, float]]]) -> tuple[str, list[str]]:
    """The page with every marked figure set to its measurement, and the markers naming a call never measured."""
    unknown: list[str] = []

    def figure(match: re.Match[str]) -> str:
        value = figures.get(match["domain"], {}).get(match["call"], {}).get(match["field"])
        if value is None:
            unknown.append(f"{match['domain']} {match['call']} {match['field']}")
            return match[0]
        return match[0].replace(f"-->{match['value']}<!--", f"-->{value:g}<!--", 1)

    return COST.sub(figure, text), unknown


# A domain page's "At the seed's scale" table, from what `make scale` computed (bench/scale/, stored in
# functions/platform/scale-figures.json): `<!-- scale: <page> ... -->` … `<!-- /scale -->`, <page> the page's file name.
SCALE = re.compile(r"^<!-- scale: (?P<page>[\w-]+) generated from functions/platform/scale-figures\.json "
                   r"by `make docs` -->\n(?P<body>.*?)^<!-- /scale -->$", re.MULTILINE | re.DOTALL)
SCALE_FIGURES = ROOT / "functions" / "platform" / "scale-figures.json"
SCALE_COLUMNS = ("design", "rate/s", "hottest key", "its RCU/s", "its WCU/s", "limit reached at /s", "partitions",
                 "throttles", "$/month on-demand", "$/month provisioned", "the seed's figure")


def scale_figures(path: Path = SCALE_FIGURES) -> dict[str, dict]:
    """{page: {"rows": [...], ...}} as the last `make scale` wrote them."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def scale_table(figures: dict) -> str:
    """The rows of one page as a table, each claim once above its rows, and the cart's break-even."""
    lines: list[str] = []
    claims = list(dict.fromkeys(row["claim"] for row in figures["rows"]))
    for claim in claims:
        lines += [f"**{claim}**", "", "| " + " | ".join(SCALE_COLUMNS) + " |",
                  "|" + "|".join("---" for _ in SCALE_COLUMNS) + "|"]
        for row in (r for r in figures["rows"] if r["claim"] == claim):
            design = row["design"] + (f" ({row['note']})" if row["note"] else "")
            cells = [design, row["rate_per_s"], f"`{row['hottest_key']}`", row["hottest_key_rcu"],
                     row["hottest_key_wcu"], row["max_rate_per_s"], str(row["partitions"]),
                     throttles_cell(row), row["monthly_usd"], row["provisioned_monthly_usd"], row["seed_figure"]]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
        lines.append("")
        sums = [r for r in figures["rows"] if r["claim"] == claim and r.get("arithmetic")]
        if sums:
            lines += ["The sums behind each row (functions/platform/scale/model.py's rules):", ""]
            lines += [f"- {r['design']}: {r['arithmetic']}." for r in sums]
            lines.append("")
    if even := figures.get("break_even"):
        for mode, label in (("provisioned", "provisioned"), ("on_demand", "on-demand")):
            lines.append(
                f"- {label}: ours costs ${even['extra_per_month_' + mode]} a month more than the seed's one-item cart "
                f"at its rate; the seed's price job costs ${even['job_run_' + mode]} a run, so ours pays for itself "
                f"when the job would have to run more than {even['jobs_per_month_' + mode]} times a month (every "
                f"{even['minutes_between_jobs_' + mode]} minutes: notifications fresher than that), or, with a daily "
                f"job, below {even['rate_for_daily_job_' + mode]} reads + writes a second.")
        lines.append("")
    return "\n".join(lines)


def throttles_cell(row: dict) -> str:
    """A verdict: a split for heat is never counted as holding; the cell says whether one item or many is over."""
    if not row["throttles"]:
        return "no"
    return "**yes** (one item over)" if row["even_with_split"] else "**yes** (a key of many items over)"


NOT_MODELLED = ("No workload of this domain is modelled at its seed's scale yet: add one to bench/scale/workloads.py "
                "and run `make scale`.\n\n")


def render_scale(text: str, figures: dict[str, dict], page_name: str | None = None) -> tuple[str, list[str]]:
    """The page with its scale table rendered, and the pages a marker names that `make scale` has no rows for. Given
    `page_name` (the page's own file name), a marker naming that page with no rows (a new domain) says so instead."""
    unknown: list[str] = []

    def table(match: re.Match[str]) -> str:
        page = figures.get(match["page"])
        if page is None and match["page"] == page_name:
            return f"{match[0].split(chr(10), 1)[0]}\n{NOT_MODELLED}<!-- /scale -->"
        if page is None:
            unknown.append(match["page"])
            return match[0]
        start = match[0].split("\n", 1)[0]
        return f"{start}\n{scale_table(page)}<!-- /scale -->"

    return SCALE.sub(table, text), unknown


def domains_with_catalogs(root: Path = ROOT) -> list[str]:
    """The domains whose domain.toml declares access patterns (every one but the platform)."""
    return [name for name in names(root / "functions") if load(root / "functions" / name / "domain.toml").patterns]


def doc_of(domain: str, root: Path = ROOT) -> Path:
    return root / "docs" / f"{domain.replace('_', '-')}.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make docs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a table is not its catalog")
    args = parser.parse_args(argv)
    problems = [*_catalog_pages(check=args.check), *_cost_figures(check=args.check), *_scale_tables(check=args.check)]
    for problem in problems:
        print(f"error: {problem}" if not args.check else problem, file=sys.stderr)
    if args.check and problems:
        print("run `make docs`", file=sys.stderr)
    return 1 if problems else 0


def _catalog_pages(*, check: bool) -> list[str]:
    """Each domain page's tables from its catalog: rewritten, or (`check`) what differs."""
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
        if check:
            problems.extend(
                f"{doc.relative_to(ROOT)}: its {block.what} differs from functions/{domain}/domain.toml"
                for block in BLOCKS
                if block.render(text) != text
            )
        else:
            doc.write_text(new, encoding="utf-8")
            print(f"rewrote {doc.relative_to(ROOT)}")
    return problems


def _cost_figures(*, check: bool) -> list[str]:
    """The costs every docs page quotes, from what `make cost` measured: rewritten, or (`check`) what differs."""
    problems: list[str] = []
    figures = measured()
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = page.read_text(encoding="utf-8")
        new, unknown = render_costs(text, figures)
        name = page.relative_to(ROOT)
        problems.extend(f"{name}: a cost marker names a call `make cost` did not measure: {u}" for u in unknown)
        if new == text:
            continue
        if check:
            problems.append(f"{name}: a quoted cost differs from {FIGURES.relative_to(ROOT)}")
        else:
            page.write_text(new, encoding="utf-8")
            print(f"rewrote {name}")
    return problems


def _scale_tables(*, check: bool) -> list[str]:
    """Each domain page's "At the seed's scale" table, from what `make scale` computed: rewritten, or (`check`) what
    differs."""
    problems: list[str] = []
    scale = scale_figures()
    for domain in domains_with_catalogs():
        page = doc_of(domain)
        text = page.read_text(encoding="utf-8") if page.is_file() else ""
        name = page.relative_to(ROOT)
        if not SCALE.search(text):
            problems.append(f"{name}: no \"At the seed's scale\" table marked <!-- scale: {page.stem} generated from "
                            "functions/platform/scale-figures.json by `make docs` -->")
            continue
        new, unknown = render_scale(text, scale, page.stem)
        problems.extend(f"{name}: a scale marker names a page `make scale` has no rows for: {u}" for u in unknown)
        if new == text:
            continue
        if check:
            problems.append(f"{name}: its scale table differs from {SCALE_FIGURES.relative_to(ROOT)}")
        else:
            page.write_text(new, encoding="utf-8")
            print(f"rewrote {name}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
