"""`banditree tables` on a tiny grid (5x5 NoGo, a few playouts): well-formed CSV, Markdown and figures,
resume, refusal of another configuration."""
import csv

import pytest

from testbeds.cli import main
from testbeds.store import ResultStore
from testbeds.tables import CSV_COLUMNS, uct_spec

MI = ("miucb:episodic=true", "miucb:episodic=true,final=max")
CS = ("0.3", "1")
PLAYOUTS = ("8", "24")
GAMES = 2


def tables(db, out, *extra):
    return main(["tables", "--game", "nogo", "--size", "5", "--c", ",".join(CS), "--playouts", ",".join(PLAYOUTS),
                 "--games", str(GAMES), "--mi", MI[0], "--mi", MI[1], "--db", str(db), "--out", str(out),
                 "--workers", "1", "--no-progress", *extra])


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tables")
    assert tables(tmp / "t.sqlite", tmp / "out") == 0
    return tmp


def test_csv_is_the_grid(grid):
    with open(grid / "out" / "table.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    cells = {(r["mi"], r["c"], r["playouts"]) for r in rows}
    assert cells == {(m, c, p) for m in MI for c in CS for p in PLAYOUTS}  # 8 distinct cells
    assert len(rows) == 8
    with ResultStore(grid / "t.sqlite") as store:
        by_cell = {(run.tags["mi"], f"{run.tags['c']:g}", str(run.tags["playouts"])): run for run in store.runs()}
        for r in rows:
            run = by_cell[(r["mi"], r["c"], r["playouts"])]
            assert run.config["b"] == r["uct"] == uct_spec("ucb1", float(r["c"]))
            assert run.config["a"] == r["mi"] and run.config["game_options"] == {"size": 5}
            w, d, l = store.counts(run.run_id)
            assert (int(r["wins"]), int(r["draws"]), int(r["losses"])) == (w, d, l)
            assert int(r["games"]) == GAMES == w + d + l
            assert int(r["capped"]) == 0  # NoGo has no move cap
            assert float(r["win_rate"]) == pytest.approx((w + d / 2) / GAMES)
            assert float(r["low"]) <= float(r["win_rate"]) <= float(r["high"])


def test_markdown_has_one_table_per_variant(grid):
    text = (grid / "out" / "table.md").read_text()
    for mi in MI:
        assert f"## Mi-UCT `{mi}` against UCT `ucb1:c=C`" in text
    assert text.count("| C \\ playouts | 8 | 24 |") == 2
    assert text.count("|---|---|---|") == 2
    rows = [line for line in text.splitlines() if line.startswith("| 0.3 |") or line.startswith("| 1 |")]
    assert len(rows) == 4
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == 3
        for cell in cells[1:]:  # "0.500 [0.095, 0.905]"
            rate, interval = cell.split(" [")
            low, high = interval.rstrip("]").split(", ")
            assert 0 <= float(low) <= float(rate) <= float(high) <= 1


def test_figures_are_png_and_pdf(grid):
    png = (grid / "out" / "heatmap.png").read_bytes()
    pdf = (grid / "out" / "heatmap.pdf").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000
    assert pdf[:5] == b"%PDF-" and b"%%EOF" in pdf[-64:]


def test_rerun_resumes_and_other_seed_is_refused(grid, capsys):
    with ResultStore(grid / "t.sqlite") as store:
        before = [(run.run_id, [g.outcome() for g in store.games(run.run_id)]) for run in store.runs()]
    assert tables(grid / "t.sqlite", grid / "out2") == 0  # nothing to play: same games, same table
    with ResultStore(grid / "t.sqlite") as store:
        after = [(run.run_id, [g.outcome() for g in store.games(run.run_id)]) for run in store.runs()]
    assert after == before
    assert (grid / "out2" / "table.csv").read_text() == (grid / "out" / "table.csv").read_text()
    capsys.readouterr()
    assert tables(grid / "t.sqlite", grid / "out3", "--seed", "1") == 2
    err = capsys.readouterr().err
    assert "banditree tables: error:" in err and "different configuration" in err and "seed" in err


def test_bad_arguments_are_one_line_errors(tmp_path, capsys):
    assert main(["tables", "--game", "nogo", "--games", "0", "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "--games must be an integer in 1..100000, got 0" in capsys.readouterr().err
    assert main(["tables", "--game", "nogo", "--komi", "6.5", "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "--komi applies to --game go only" in capsys.readouterr().err
    assert main(["tables", "--game", "nogo", "--uct", "ucb1:c=2", "--db", str(tmp_path / "x.sqlite")]) == 2
    assert "uct must not set c itself" in capsys.readouterr().err
    assert not (tmp_path / "x.sqlite").exists()


def test_uct_spec():
    assert uct_spec("ucb1", 0.5) == "ucb1:c=0.5"
    assert uct_spec("ucb1:final=max", 1.0) == "ucb1:final=max,c=1"
    with pytest.raises(ValueError, match="c must be a finite number >= 0"):
        uct_spec("ucb1", -1)


def test_cells_group_by_variant_and_uct_template():
    from testbeds.ratings import rate
    from testbeds.tables import Cell, group_cells, markdown_tables

    r = rate(1, 0, 1)
    cells = [Cell("miucb:episodic=true", "ucb1:c=0.5", 0.5, 10, r),
             Cell("miucb:episodic=true", "ucb1:final=max,c=0.5", 0.5, 10, r),
             Cell("miucb:episodic=true,final=max", "ucb1:final=max,c=0.5", 0.5, 10, r)]
    assert [c.uct_template for c in cells] == ["ucb1", "ucb1:final=max", "ucb1:final=max"]
    groups = group_cells(cells)
    assert list(groups) == ["Mi-UCT miucb:episodic=true vs UCT ucb1",
                            "Mi-UCT miucb:episodic=true vs UCT ucb1:final=max",
                            "Mi-UCT miucb:episodic=true,final=max vs UCT ucb1:final=max"]
    text = markdown_tables(cells)
    assert "against UCT `ucb1:c=C`" in text and text.count("against UCT `ucb1:final=max,c=C`") == 2
    assert list(group_cells(cells[:1])) == ["Mi-UCT miucb:episodic=true"]


@pytest.mark.parametrize("extra, message", [
    (["--mi", "foo"], "mi spec 'foo': unknown player 'foo'"),
    (["--mi", "miucb:episodic=true", "--mi", "ucb1:node_cap=1"], "node_cap must be an integer in 1000..1000000000, got 1"),
    (["--uct", "klucb:bogus=1"], "uct spec 'klucb:bogus=1,c=0.1'"),
    (["--seed", "-1"], "--seed must be an integer in 0..9223372036854775807, got -1"),
    (["--size", "3"], "--size must be an integer in 5..19, got 3"),
    (["--workers", "0"], "--workers must be an integer in 1..1024, got 0"),
    (["--scheduler", "foo"], "--scheduler must be an address like tcp://HOST:PORT"),
])
def test_bad_specs_and_options_are_refused_before_the_database_exists(tmp_path, capsys, extra, message):
    # once, `--mi foo` created the database with 18 runs of spec "foo" and only then failed
    db = tmp_path / "sub" / "x.sqlite"
    assert main(["tables", "--game", "nogo", "--games", "1", "--db", str(db), "--no-progress", *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("banditree tables: error: ") and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "sub").exists()  # no database, no lock file, not even its folder


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self"), reason="needs Linux /proc")
def test_a_database_path_that_cannot_be_created_is_a_clear_error(capsys, tmp_path):
    # (--out elsewhere: the default, /proc/x_tables, would be refused first, as --out)
    assert main(["tables", "--game", "nogo", "--games", "1", "--db", "/proc/x.sqlite", "--no-progress",
                 "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("banditree tables: error: cannot create results database at /proc/x.sqlite (--db): ")
    assert err.count("\n") == 1
