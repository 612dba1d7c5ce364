"""Decisions a reader can trust: docs/adr/ holds one record per decision (docs/adr/README.md says how to add one).

- every record (`NNNN-kebab-title.md`, all but README.md and template.md) is in the README's index, with its title
  and its status; numbers are unique and contiguous from 0001;
- each record opens with `# NNNN. Title`, has a `Status:` (Accepted, or `Superseded by [NNNN](NNNN-….md)`) and the
  sections Context, Options considered, Decision and Consequences, in that order;
- a superseded record links to an existing, later record, which names it under `Supersedes:`; and the other way round;
- relative links in the README, the changelog and docs/ (records included) lead to files that exist, and every
  `docs/adr/NNNN-….md` a source file or page cites is a record;
- code cites a record or an AWS document, never an issue number or the old notes: no comment or docstring of a Python
  file under functions/, infra/, local/, tools/ or bench/ says `issue <number>` or `PITFALLS`.
"""

from __future__ import annotations

import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ADR = ROOT / "docs" / "adr"
NOT_RECORDS = {"README.md", "template.md"}
NAME = re.compile(r"^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
SECTIONS = ["Context", "Options considered", "Decision", "Consequences"]
STATUS = re.compile(r"^Status: (Accepted|Superseded by \[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\))$", re.M)
SUPERSEDES = re.compile(r"^Supersedes: (.+)$", re.M)
LINKED = re.compile(r"\[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\)")
INDEX_ROW = re.compile(r"^\| (\d{4}) \| \[(.+)\]\((\d{4}-[a-z0-9-]+\.md)\) \| (.+) \|$", re.M)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CITED = re.compile(r"docs/adr/\d{4}-[a-z0-9-]+\.md")
FORBIDDEN = [re.compile(r"\bissues?[\s#-]*\d+", re.I), re.compile(r"PITFALLS")]
SOURCE_DIRS = ("functions", "infra", "local", "tools", "bench")


def records() -> list[Path]:
    return sorted(p for p in ADR.glob("*.md") if p.name not in NOT_RECORDS)


def record(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    name = NAME.match(path.name)
    status = STATUS.search(text)
    supersedes = SUPERSEDES.search(text)
    return {
        "text": text,
        "number": name.group(1) if name else None,
        "heading": text.splitlines()[0] if text else "",
        "status": status.group(1) if status else None,
        "superseded_by": status.group(3) if status and status.group(3) else None,
        "supersedes": [file for _, file in LINKED.findall(supersedes.group(1))] if supersedes else [],
    }


def index() -> dict[str, tuple[str, str, str]]:
    """file name -> (number, title, status) for each row of the README's table."""
    text = (ADR / "README.md").read_text(encoding="utf-8")
    return {file: (number, title, status) for number, title, file, status in INDEX_ROW.findall(text)}


def test_there_are_records_and_a_template():
    assert len(records()) > 1
    assert (ADR / "template.md").is_file()
    template = (ADR / "template.md").read_text(encoding="utf-8")
    assert STATUS.search(template) and all(f"\n## {section}\n" in template for section in SECTIONS)


@pytest.mark.parametrize("path", records(), ids=lambda p: p.name)
def test_a_record_has_its_number_status_and_sections(path):
    rec = record(path)
    assert rec["number"], f"{path.name}: not NNNN-kebab-title.md"
    assert re.fullmatch(rf"# {rec['number']}\. \S.*", rec["heading"]), f"{path.name}: no '# {rec['number']}. Title'"
    assert rec["status"], f"{path.name}: no 'Status: Accepted' or 'Status: Superseded by [NNNN](NNNN-….md)'"
    text = rec["text"]
    places = [text.find(f"\n## {section}\n") for section in SECTIONS]
    missing = [section for section, at in zip(SECTIONS, places, strict=True) if at == -1]
    assert missing == [], f"{path.name}: lacks {', '.join(missing)}"
    assert places == sorted(places), f"{path.name}: sections out of order (want {', '.join(SECTIONS)})"
    assert text.find("\nStatus: ") < places[0], f"{path.name}: the status comes before the sections"
    for section, start, end in zip(SECTIONS, places, [*places[1:], len(text)], strict=True):
        assert text[start + len(section) + 5:end].strip(), f"{path.name}: section {section} is empty"


def test_numbers_are_unique_and_contiguous():
    numbers = [record(p)["number"] for p in records()]
    assert None not in numbers
    assert len(numbers) == len(set(numbers)), "two records share a number"
    assert [int(n) for n in sorted(numbers)] == list(range(1, len(numbers) + 1)), "a number is skipped"


def test_every_record_is_in_the_index_with_its_title_and_status():
    rows = index()
    files = {p.name for p in records()}
    assert set(rows) == files, f"not indexed: {sorted(files - set(rows))}; no such file: {sorted(set(rows) - files)}"
    for path in records():
        rec = record(path)
        number, title, status = rows[path.name]
        assert number == rec["number"], f"{path.name}: indexed as {number}"
        assert f"# {number}. {title}" == rec["heading"], f"{path.name}: the index's title is not the record's"
        assert status == rec["status"], f"{path.name}: indexed as {status!r}, the record says {rec['status']!r}"


def test_a_superseded_record_points_at_an_existing_later_record_that_names_it():
    by_name = {p.name: record(p) for p in records()}
    for name, rec in by_name.items():
        if rec["status"] != "Accepted":
            newer = rec["superseded_by"]
            assert newer in by_name, f"{name}: superseded by {newer}, which does not exist"
            assert rec["status"].startswith(f"Superseded by [{newer[:4]}]"), f"{name}: link text and file disagree"
            assert newer > name, f"{name}: superseded by an earlier record"
            assert name in by_name[newer]["supersedes"], f"{newer} does not say 'Supersedes: [{name[:4]}]({name})'"
        for older in rec["supersedes"]:
            assert older in by_name, f"{name}: supersedes {older}, which does not exist"
            assert by_name[older]["superseded_by"] == name, f"{older}'s status does not say 'Superseded by {name}'"


def _markdown_pages() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md")), *records(),
            ADR / "README.md", ADR / "template.md"]


@pytest.mark.parametrize("page", _markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_to_files_that_exist(page):
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # code blocks
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code
    broken = []
    for url in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", url) or url.startswith("#"):
            continue
        target = url.split("#", 1)[0]
        if target and not (page.parent / target).exists():
            broken.append(url)
    assert broken == [], f"{page.relative_to(ROOT)} links to what does not exist: {broken}"


def _project_files() -> list[Path]:
    """Files git tracks or would track (new, not ignored) that exist in the working tree."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        paths = [ROOT / line for line in out.splitlines()]
    except (OSError, subprocess.CalledProcessError):  # no git: every file outside the usual generated directories
        skip = {".git", ".venv", "node_modules", ".local", ".build", "cdk.out", "__pycache__"}
        paths = [p for p in ROOT.rglob("*") if not skip & set(p.relative_to(ROOT).parts)]
    return sorted(p for p in set(paths) if p.is_file())


def test_every_cited_record_exists():
    missing = []
    for path in _project_files():
        if path.suffix not in {".py", ".md", ".toml", ".tmpl", ".txt", ".json", ".yaml", ".yml", ".cfg", ".ini"} \
                and path.name != "Makefile":
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for cited in set(CITED.findall(text)):
            if not (ROOT / cited).is_file():
                missing.append(f"{path.relative_to(ROOT)}: {cited}")
    assert missing == [], "cited records that do not exist:\n" + "\n".join(sorted(missing))


def test_the_old_diary_is_gone_and_nothing_points_at_it():
    assert not (ROOT / "docs" / "decisions.md").exists()
    pointing = []
    for path in _project_files():
        if path.name == "CHANGELOG.md" or path == Path(__file__) or path.suffix not in {".py", ".md", ".toml", ".tmpl"}:
            continue  # the changelog records that the diary became docs/adr/; this file names it to look for it
        if "docs/decisions.md" in path.read_text(encoding="utf-8", errors="replace"):
            pointing.append(str(path.relative_to(ROOT)))
    assert pointing == [], f"still pointing at docs/decisions.md: {pointing}"


def comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every comment and of every string that is a statement of its own (docstrings included)."""
    found: list[tuple[int, str]] = []
    previous = tokenize.NEWLINE
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found.append((token.start[0], token.string))
        elif token.type == tokenize.STRING and previous in {tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}:
            found.extend((token.start[0] + i, line) for i, line in enumerate(token.string.splitlines()))
        if token.type not in {tokenize.NL, tokenize.COMMENT}:
            previous = token.type
    return found


def test_the_scanner_sees_comments_and_docstrings_but_not_code():
    source = ('"""Module (issue 3)."""\n'
              'X = "issue 4"  # see PITFALLS 5\n'
              'def f():\n'
              '    """Docstring\n    issue 6."""\n'
              '    return "PITFALLS"\n')
    hits = [(line, text) for line, text in comments_and_docstrings(source) if any(p.search(text) for p in FORBIDDEN)]
    assert [line for line, _ in hits] == [1, 2, 5]


def test_code_cites_records_or_aws_documents_never_issue_numbers():
    offences = []
    for path in _project_files():
        relative = path.relative_to(ROOT)
        if path.suffix != ".py" or relative.parts[0] not in SOURCE_DIRS:
            continue
        try:
            found = comments_and_docstrings(path.read_text(encoding="utf-8"))
        except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
            continue  # a file that does not tokenize fails elsewhere (ruff, its own tests)
        offences += [f"{relative}:{line}: {text.strip()}" for line, text in found
                     if any(pattern.search(text) for pattern in FORBIDDEN)]
    assert offences == [], ("cite the decision record (docs/adr/NNNN-….md) or the AWS document by its title, or say "
                            "the reason in words:\n" + "\n".join(offences))
