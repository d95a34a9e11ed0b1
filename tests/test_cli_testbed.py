"""``banditree testbed`` and ``banditree figures``: files written, refusal to overwrite, clear errors."""
import json

import numpy as np
import pytest

from testbeds.cli import main
from testbeds.commands._common import output_folder
from testbeds.results import read_results


def test_testbed_command_writes_a_results_folder(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["testbed", "--env", "bernoulli", "--tasks", "6", "--arms", "3", "--horizon", "40", "--seed", "3",
            "--policy", "ucb1", "--policy", "thompson", "--workers", "1", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    for name in ("curves.npz", "summary.csv", "manifest.json", "regret.png", "regret.pdf",
                 "optimal_action.png", "optimal_action.pdf"):
        assert (out / name).is_file(), name
    result = read_results(out)
    assert result.labels == ["ucb1", "thompson"] and result.horizon == 40 and result.n_tasks == 6
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["testbed"]["env"] == "bernoulli" and manifest["config"]["seed"] == 3
    # the same configuration through the library gives the same numbers
    from testbeds.runner import run_testbed
    from testbeds.testbed import BernoulliTestbed

    direct = run_testbed(["ucb1", "thompson"], BernoulliTestbed(6, 3, seed=3), 40, seed=3, progress=False)
    np.testing.assert_array_equal(direct.curves["regret"], result.curves["regret"])

    # a second run into the same folder is refused (exit 2, one line), unless --overwrite
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("banditree testbed: error:") and "--overwrite" in err and "\n" not in err
    assert main(args + ["--overwrite", "--no-plots"]) == 0


@pytest.mark.parametrize("extra, message", [
    (["--tasks", "0"], "--tasks must be an integer in 1..10000000, got 0"),
    (["--arms", "-2"], "--arms must be an integer in 1..100000, got -2"),
    (["--horizon", "0"], "--horizon must be an integer in 1..10000000, got 0"),
    (["--policy", "ucb9"], "unknown policy 'ucb9'"),
    (["--policy", "miucb:r=fast"], "r must be one of"),
    (["--policy", "klucb:famly=gaussian"], "unknown parameter 'famly' for policy 'klucb'"),
    (["--reward-sd", "0"], "--reward-sd must be a number > 0 and <= 1000000, got 0"),
])
def test_bad_input_is_one_clear_line(tmp_path, capsys, extra, message):
    code = main(["testbed", "--tasks", "2", "--arms", "2", "--horizon", "5", "--workers", "1", "--no-progress",
                 "--out", str(tmp_path / "x")] + extra)
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("banditree testbed: error:") and message in err and "\n" not in err


def test_figures_command_at_a_tiny_size(tmp_path, capsys):
    out = tmp_path / "fig"
    assert main(["figures", "--out", str(out), "--tasks", "3", "--arms", "5", "--horizon", "30",
                 "--workers", "1", "--r-sweep", "--no-progress"]) == 0
    for stem in ("fig1_regret", "fig2_optimal_action", "fig_r_sweep"):
        for ext in ("png", "pdf"):
            assert (out / f"{stem}.{ext}").stat().st_size > 0
    result = read_results(out)
    assert result.labels[:9] == ["UCB", "I-UCB", "I-UCB (episodic)", "Modified I-UCB (no r)",
                                 "Modified I-UCB (no r, episodic)", "Modified I-UCB", "Modified I-UCB (episodic)",
                                 "KL-UCB", "Thompson sampling"]
    assert len(result.labels) == 9 + 6  # the sweep adds T/t, sqrt(T)/t and n/t, known horizon and episodic
    assert result.specs[1] == "iucb:horizon=30,episodic=false"
    assert main(["figures", "--out", str(out), "--tasks", "3", "--horizon", "30", "--no-progress"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["figures", "--tasks", "0", "--out", str(tmp_path / "y")]) == 2
    assert "--tasks must be an integer in 1..10000000, got 0" in capsys.readouterr().err


def test_help_of_both_commands(capsys):
    for command in ("testbed", "figures"):
        with pytest.raises(SystemExit) as info:
            main([command, "--help"])
        assert info.value.code == 0
    assert "thompson:prior=gaussian" in capsys.readouterr().out


def test_default_output_folder_is_never_an_existing_results_folder(tmp_path):
    base = tmp_path / "figures"
    assert output_folder(None, str(base)) == base
    base.mkdir()
    assert output_folder(None, str(base)) == base  # empty: fine
    (base / "manifest.json").write_text("{}")
    assert output_folder(None, str(base)) == tmp_path / "figures-1"
    assert output_folder(str(base), "ignored") == base  # an explicit --out is refused later, not renamed


@pytest.mark.parametrize("command", [
    ["testbed", "--tasks", "2", "--arms", "3", "--horizon", "5", "--workers", "1", "--no-progress", "--out"],
    ["figures", "--tasks", "2", "--arms", "3", "--horizon", "5", "--workers", "1", "--no-progress", "--out"],
    ["tables", "--game", "nogo", "--size", "5", "--c", "0.5", "--playouts", "10", "--games", "2", "--workers", "1",
     "--no-progress", "--db", "DB", "--out"],
])
def test_an_unwritable_out_folder_is_refused_before_any_computing(tmp_path, capsys, monkeypatch, command):
    # issue 15, item 5: a path under a regular file cannot be a folder; the command must say so
    # (naming --out) at once, instead of after the whole run, and must have run nothing.
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    calls = []
    import testbeds.runner
    import testbeds.tables
    monkeypatch.setattr(testbeds.runner, "run_testbed", lambda *a, **k: calls.append(a))
    monkeypatch.setattr(testbeds.tables, "run_tables", lambda *a, **k: calls.append(a))
    command = [str(tmp_path / "db.sqlite") if c == "DB" else c for c in command]
    rc = main(command + [str(blocker / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and "--out" in err and "cannot be written" in err
    assert calls == []
