"""Silent surprises a new user met (issue 15, item 12): each is now refused, or said, in one line."""
import pytest

from testbeds.cli import main
from testbeds.commands.tables import default_out
from testbeds.runner import run_testbed
from testbeds.testbed import GaussianTestbed
from treepolicies import make_player, search
from treepolicies.games import make_game


@pytest.mark.parametrize("spec, floor", [("iucb:horizon=3", "horizon=3"), ("miucb:horizon=4", "horizon=4")])
def test_a_spec_horizon_shorter_than_the_run_is_refused(spec, floor):
    # iucb:horizon=3 with --horizon 5 used to run the policy past its own horizon without a word
    with pytest.raises(ValueError, match=rf"^policy '{spec}' has {floor}, shorter than the 5 "
                                         r"plays per task \(--horizon\)"):
        run_testbed([spec], GaussianTestbed(2, 3, seed=0), 5, progress=False)


def test_a_spec_horizon_at_least_the_run_is_kept():
    # a longer known horizon than the plays run is a meaningful experiment (stopped early): kept
    result = run_testbed(["iucb:horizon=8", "iucb"], GaussianTestbed(2, 3, seed=0), 5, progress=False)
    assert result.specs == ["iucb:horizon=8,episodic=false", "iucb:horizon=5,episodic=false"]


def test_testbed_command_names_the_horizon_conflict(tmp_path, capsys):
    assert main(["testbed", "--policy", "iucb:horizon=3", "--horizon", "5", "--tasks", "2", "--arms", "2",
                 "--workers", "1", "--no-progress", "--no-plots", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "horizon=3, shorter than the 5 plays per task (--horizon)" in err


def test_a_node_policy_horizon_below_the_playouts_is_refused():
    with pytest.raises(ValueError, match=r"has horizon=3, fewer than the 10 iterations \(playouts\) per move"):
        search(make_game("nim", stones=5), "iucb:horizon=3", iterations=10)
    with pytest.raises(ValueError, match=r"has horizon=3, fewer than the 10 iterations"):
        make_player("iucb:horizon=3", playouts=10)
    assert make_player("iucb:horizon=10", playouts=10).policy.spec == "iucb:horizon=10,episodic=false"


def test_the_default_tables_folder_is_not_named_twice():
    # results/nogo9_tables.sqlite used to give results/nogo9_tables_tables
    assert default_out("results/nogo9_tables.sqlite") == "results/nogo9_tables"
    assert default_out("runs/a.sqlite") == "runs/a_tables"
    assert default_out("x_tables/a.sqlite") == "x_tables/a_tables"


def test_tables_of_another_grid_are_not_replaced_silently(tmp_path, capsys, monkeypatch):
    base = ["tables", "--game", "nogo", "--size", "5", "--playouts", "4", "--games", "1", "--workers", "1",
            "--no-progress", "--db", str(tmp_path / "t.sqlite")]
    assert main(base + ["--c", "0.5"]) == 0
    out = tmp_path / "t_tables"  # the default folder beside t.sqlite
    first = (out / "table.csv").read_text()
    assert "ucb1:c=0.5" in first
    capsys.readouterr()
    assert main(base + ["--c", "0.5"]) == 0  # the same grid again (a resume) rewrites it silently
    assert (out / "table.csv").read_text() == first
    import testbeds.tables

    played = []
    monkeypatch.setattr(testbeds.tables, "run_tables", lambda *a, **k: played.append(a))
    capsys.readouterr()
    assert main(base + ["--c", "1"]) == 2  # another grid: refused before any game, the tables kept
    err = capsys.readouterr().err
    assert err == (f"banditree tables: error: {out} holds the tables of another grid; pass --overwrite to replace "
                   f"them with this grid's or choose another --out (the games of both grids stay in "
                   f"{tmp_path / 't.sqlite'})\n")
    assert played == [] and (out / "table.csv").read_text() == first
    monkeypatch.undo()
    assert main(base + ["--c", "1", "--overwrite"]) == 0
    assert "ucb1:c=1" in (out / "table.csv").read_text() and "ucb1:c=0.5" not in (out / "table.csv").read_text()
