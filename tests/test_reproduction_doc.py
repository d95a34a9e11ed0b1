"""docs/reproduction.md: its commands parse, its tables are the files beside it, its files are small.

The document quotes generated tables after a marker line ``<!-- from: reproduction/.../X.md -->``;
the quoted table must be the file's table line for line, and each file must be what its CSV
renders to (so the CSV, the Markdown file and the document cannot drift apart).
"""
from __future__ import annotations

import csv
import re
import shlex
from pathlib import Path

import pytest

from testbeds import claims as C
from testbeds.cli import build_parser
from testbeds.ratings import rate
from testbeds.tables import Cell, markdown_tables

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reproduction.md"
FOLDER = ROOT / "docs" / "reproduction"
MARKER = re.compile(r"^<!-- from: (\S+) -->$", re.MULTILINE)


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def commands(text: str) -> list[str]:
    """Every ``banditree ...`` command of the document's ```bash blocks (continuation lines joined)."""
    found = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("banditree "):
                found.append(line)
    return found


def table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def test_the_readme_links_the_report_at_the_top():
    head = "\n".join((ROOT / "README.md").read_text().splitlines()[:12])
    assert "docs/reproduction.md" in head


def test_every_command_of_the_document_parses():
    found = commands(doc_text())
    assert {c.split()[1] for c in found} >= {"figures", "tables", "claims"}
    parser = build_parser()
    for command in found:
        args = parser.parse_args(shlex.split(command)[1:])  # argparse exits (fails the test) on a bad one
        assert args.func is not None, command


def test_quoted_tables_are_the_files_beside_the_document():
    text = doc_text()
    markers = list(MARKER.finditer(text))
    assert len(markers) >= 5
    for marker in markers:
        path = ROOT / "docs" / marker.group(1)
        assert path.is_file(), marker.group(1)
        after = text[marker.end():].lstrip("\n")
        quoted = []
        for line in after.splitlines():
            if not line.startswith("|"):
                break
            quoted.append(line)
        assert quoted, f"no table after {marker.group(0)}"
        assert is_quote_of(quoted, table_lines(path.read_text())), marker.group(1)


def is_quote_of(quoted: list[str], lines: list[str]) -> bool:
    """True when ``quoted`` is a run of consecutive lines of ``lines``, or a table header (two lines
    of ``lines``) followed by such a run: a table quoted whole, one of several, or some of its rows."""
    def run_of(part):
        n = len(part)
        return n == 0 or any(lines[i:i + n] == part for i in range(len(lines) - n + 1))

    if run_of(quoted):
        return True
    header = quoted[:2]
    return len(quoted) > 2 and run_of(header) and run_of(quoted[2:])


def test_is_quote_of():
    lines = ["| a |", "|---|", "| 1 |", "| 2 |", "| 3 |"]
    assert is_quote_of(lines, lines) and is_quote_of(["| a |", "|---|", "| 3 |"], lines)
    assert not is_quote_of(["| a |", "|---|", "| 1 |", "| 3 |"], lines)  # rows skipped
    assert not is_quote_of(["| a |", "|---|", "| 4 |"], lines)


def claims_files() -> list[Path]:
    return sorted(FOLDER.glob("**/*_claims.csv"))


def tables_files() -> list[Path]:
    return sorted(FOLDER.glob("**/table.csv"))


def test_each_claims_markdown_renders_its_csv():
    assert len(claims_files()) >= 3
    for path in claims_files():
        with open(path, newline="") as f:
            claims = [C.Claim(r["statement"], r["subject"], r["measure"], r["values"], r["holds"] == "yes")
                      for r in csv.DictReader(f)]
        assert path.with_suffix(".md").read_text() == C.claims_markdown(claims), path


def test_each_tables_markdown_renders_its_csv():
    assert len(tables_files()) >= 3
    for path in tables_files():
        cells = []
        for r in C.read_table_csv(path):
            cells.append(Cell(r["mi"], r["uct"], r["c"], r["playouts"], rate(r["wins"], r["draws"], r["losses"]),
                              int(r["capped"])))
            assert r["win_rate"] == pytest.approx(cells[-1].rating.rate, abs=1e-6)
        md = path.with_name("table.md").read_text()
        title = md.splitlines()[0][2:] if md.startswith("# ") else ""
        # the CSV is sorted by variant; table.md keeps the order of the --mi flags
        cells.sort(key=lambda cell: md.index(f"Mi-UCT `{cell.mi}` against"))
        assert md == markdown_tables(cells, title), path


def test_the_report_folder_holds_small_figures_and_no_databases():
    files = [p for p in FOLDER.rglob("*") if p.is_file()]
    assert any(p.suffix == ".png" for p in files)
    for p in files:
        assert p.suffix in {".png", ".pdf", ".csv", ".md"}, p
        if p.suffix == ".png":
            assert p.stat().st_size < 300_000, p
