"""Results folder (curves.npz without pickle, summary.csv, manifest.json) and the plots made from it."""
import csv
import json

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import testbeds  # noqa: E402
from testbeds import plots  # noqa: E402
from testbeds.results import SUMMARY_COLUMNS, checkpoints, read_results, write_results  # noqa: E402
from testbeds.runner import run_testbed  # noqa: E402
from testbeds.testbed import GaussianTestbed  # noqa: E402


@pytest.fixture(scope="module")
def result():
    tb = GaussianTestbed(5, 4, seed=2)
    return run_testbed(["ucb1", "thompson:prior=gaussian"], tb, 120, seed=1, progress=False)


def test_checkpoints():
    # 1, 2, 5 per decade, below the horizon, then the horizon itself
    assert checkpoints(1) == [1]
    assert checkpoints(7) == [1, 2, 5, 7]
    assert checkpoints(120) == [1, 2, 5, 10, 20, 50, 100, 120]
    assert checkpoints(10_000) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000]


def test_round_trip_without_pickle(result, tmp_path):
    write_results(result, tmp_path / "run")
    with np.load(tmp_path / "run" / "curves.npz", allow_pickle=False) as data:
        assert list(data["labels"]) == ["ucb1", "thompson:prior=gaussian"]
        np.testing.assert_array_equal(data["step"], np.arange(1, 121))
        for name in SUMMARY_COLUMNS[2:]:
            assert data[name].shape == (2, 120) and data[name].dtype == np.float64
            np.testing.assert_array_equal(data[name], result.curves[name])
    loaded = read_results(tmp_path / "run")
    assert loaded.labels == result.labels and loaded.specs == result.specs and loaded.n_tasks == 5
    for name in result.curves:
        np.testing.assert_array_equal(loaded.curves[name], result.curves[name])


def test_summary_csv_has_the_exact_columns_and_every_checkpoint(result, tmp_path):
    write_results(result, tmp_path)
    with open(tmp_path / "summary.csv", newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == ("policy", "step", "regret", "regret_se", "pseudo_regret",
                                            "pseudo_regret_se", "optimal_pct", "optimal_pct_se", "avg_reward",
                                            "avg_reward_se")
        rows = list(reader)
    assert len(rows) == 2 * len(checkpoints(120))
    last = [r for r in rows if r["policy"] == "ucb1" and r["step"] == "120"]
    assert len(last) == 1
    assert float(last[0]["regret"]) == result.curves["regret"][0, 119]  # repr() keeps every digit
    assert float(last[0]["optimal_pct_se"]) == result.curves["optimal_pct_se"][0, 119]


def test_manifest_records_config_seed_and_version(result, tmp_path):
    write_results(result, tmp_path, extra={"command": "test"})
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["versions"]["banditree"] == testbeds.__version__
    assert manifest["config"]["seed"] == 1 and manifest["config"]["horizon"] == 120
    assert manifest["config"]["testbed"] == {"env": "gaussian", "n_tasks": 5, "n_arms": 4, "seed": 2,
                                             "mean_sd": 1.0, "reward_sd": 1.0}
    assert [p["spec"] for p in manifest["config"]["policies"]] == result.specs
    assert manifest["command"] == "test"


def test_existing_results_are_never_overwritten_silently(result, tmp_path):
    write_results(result, tmp_path)
    before = (tmp_path / "summary.csv").read_bytes()
    with pytest.raises(FileExistsError, match="already holds results.*--overwrite"):
        write_results(result, tmp_path)
    assert (tmp_path / "summary.csv").read_bytes() == before
    write_results(result, tmp_path, overwrite=True)
    with pytest.raises(FileNotFoundError, match="not a results folder"):
        read_results(tmp_path / "nothing")


def test_plots_draw_one_line_and_one_band_per_policy(result):
    fig = plots.regret_figure(result)
    linear, log = fig.axes[:2]
    assert linear.get_xscale() == "linear" and log.get_xscale() == "log"
    assert len(linear.get_lines()) == 2 and len(linear.collections) == 2  # curve + 95% band each
    y = linear.get_lines()[0].get_ydata()
    np.testing.assert_array_equal(y, result.curves["regret"][0])
    band = linear.collections[0].get_paths()[0].vertices[:, 1]
    top = result.curves["regret"][0] + plots.Z95 * result.curves["regret_se"][0]
    assert np.isclose(band.max(), top.max())
    fig2 = plots.optimal_action_figure(result, labels=["ucb1"], names={"ucb1": "UCB"})
    assert [t.get_text() for t in fig2.legends[0].get_texts()] == ["UCB"]
    with pytest.raises(ValueError, match="no policy 'x'"):
        plots.regret_figure(result, labels=["x"])
