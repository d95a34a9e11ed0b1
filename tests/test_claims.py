"""testbeds.claims: the paper's statements turned into rules, checked on hand-built curves and tables,
and `banditree claims` on a small real figures run."""
import csv
import math

import numpy as np
import pytest

from testbeds import claims as C
from testbeds.cli import main
from testbeds.results import METRICS, TestbedResult

H = 10_000
T = np.arange(1, H + 1, dtype=np.float64)


def result_of(curves: dict) -> TestbedResult:
    """A TestbedResult whose curves are given per label ({label: {metric: (H,) array}}), the rest zero."""
    labels = list(curves)
    arrays = {m: np.zeros((len(labels), H)) for m in METRICS}
    for p, label in enumerate(labels):
        for metric, values in curves[label].items():
            arrays[metric][p] = values
    return TestbedResult(labels=labels, specs=labels, n_tasks=10, curves=arrays, diagnostics=[{}] * len(labels),
                         config={})


def steps_at(values: dict) -> np.ndarray:
    """A step curve taking values[c] from checkpoint c on (values at 1000, 2000, 5000, 10000)."""
    out = np.zeros(H)
    for c in sorted(values):
        out[c - 1:] = values[c]
    return out


def test_linear_regret_and_flat_optimal_share_is_a_plateau():
    # regret 0.13 t: per play 0.13 over 1000-2000 and over 5000-10000, ratio 1.00; O flat at 61 < UCB's 95
    r = result_of({"UCB": {"optimal_pct": np.full(H, 95.0)},
                   "no r": {"regret": 0.13 * T, "optimal_pct": np.full(H, 61.0)}})
    claim = C.plateau_linear(r, "no r", [1000, 2000, 5000, 10_000])
    assert claim.holds and "ratio 1.00" in claim.values and "0.130 over 1000-2000" in claim.values


def test_logarithmic_regret_is_not_linear():
    # regret 100 ln t: per play 100 ln 2 / 1000 = 0.0693 over 1000-2000 and 100 ln 2 / 5000 = 0.0139 over
    # 5000-10000: ratio exactly 0.20, below the 0.5 that counts as linear
    r = result_of({"UCB": {"optimal_pct": np.full(H, 95.0)},
                   "log": {"regret": 100 * np.log(T), "optimal_pct": np.full(H, 61.0)}})
    claim = C.plateau_linear(r, "log", [1000, 2000, 5000, 10_000])
    assert not claim.holds and "ratio 0.20" in claim.values and "0.069 over 1000-2000" in claim.values


def test_still_rising_share_is_no_plateau():
    r = result_of({"UCB": {"optimal_pct": np.full(H, 95.0)},
                   "rising": {"regret": 0.13 * T, "optimal_pct": steps_at({1000: 50, 2000: 60, 5000: 70, 10_000: 75})}})
    assert not C.plateau_linear(r, "rising", [1000, 2000, 5000, 10_000]).holds  # O moved 5 points


def test_slack_ratio_after_the_episode_start():
    # pseudo-regret per play 0.1 up to play 256, then 2.0: (2.0 * 50) / (0.1 * 50) = x20.00 >= 1.5;
    # the twin keeps 0.1 per play: x1.00
    per_play = np.where(T <= 256, 0.1, 2.0)
    r = result_of({"ep": {"pseudo_regret": np.cumsum(per_play)}, "twin": {"pseudo_regret": 0.1 * T}})
    claim = C.slack(r, "ep", "twin")
    assert claim.holds and "x20.00" in claim.values and "twin x1.00" in claim.values
    assert not C.slack(r, "twin", None).holds


def test_catch_up_and_significant_regret_gap():
    # O gap to UCB: 40, 10, 1, 0.5 points -> below 2 at the end: catches up.  Regret gap 100 with
    # standard errors 1 and 1: 2 sqrt(2) = 2.83 < 100: significant.  With se 60 each, 2 sqrt(7200) =
    # 169.7 > 100: not significant.
    ucb = {"regret": 10 * np.log(T), "regret_se": np.ones(H), "optimal_pct": np.full(H, 90.0)}
    mi = {"regret": 10 * np.log(T) + 100, "regret_se": np.ones(H),
          "optimal_pct": steps_at({1000: 50, 2000: 80, 5000: 89, 10_000: 89.5})}
    catch, gap = C.catch_up_gap(result_of({"UCB": ucb, "MI": mi}), "MI", [1000, 2000, 5000, 10_000])
    assert catch.holds and gap.holds and "2 se 2.8" in gap.values
    noisy = dict(mi, regret_se=np.full(H, 60.0))
    ucb_noisy = dict(ucb, regret_se=np.full(H, 60.0))
    _, gap = C.catch_up_gap(result_of({"UCB": ucb_noisy, "MI": noisy}), "MI", [1000, 2000, 5000, 10_000])
    assert not gap.holds and "2 se 169.7" in gap.values
    # 50 -> 40 -> 30 -> 20 points behind: neither below 2 nor a quarter of the first gap (12.5)
    slow = dict(mi, optimal_pct=steps_at({1000: 40, 2000: 50, 5000: 60, 10_000: 70}))
    assert not C.catch_up_gap(result_of({"UCB": ucb, "MI": slow}), "MI", [1000, 2000, 5000, 10_000])[0].holds


def paper_seven(**regret_slopes):
    curves = {}
    for label in C.PAPER_SEVEN:
        slope = regret_slopes.get(label, 0.05)
        curves[label] = {"regret": slope * T, "optimal_pct": np.full(H, 90.0), "pseudo_regret": slope * T}
    return curves


def test_worst_regret_needs_both_iucb_curves_above_every_other():
    r = result_of(paper_seven(**{C.IUCB: 0.3, C.IUCB_EP: 0.4, C.MI_EP: 0.2}))
    claim = C.figure_claims(r)[0]
    assert claim.statement == "F1" and claim.holds and "vs Modified I-UCB (episodic) 200.0" in claim.values
    r = result_of(paper_seven(**{C.IUCB: 0.3, C.IUCB_EP: 0.4, C.MI_EP: 0.35}))
    assert not C.figure_claims(r)[0].holds  # I-UCB (0.3 t) is below Modified I-UCB (episodic) (0.35 t)


def test_rising_share_must_close_the_gap_at_every_checkpoint():
    base = paper_seven()
    base[C.UCB]["optimal_pct"] = steps_at({1000: 80, 2000: 86, 5000: 92, 10_000: 94})
    base[C.IUCB]["optimal_pct"] = steps_at({1000: 2, 2000: 65, 5000: 86, 10_000: 93})  # gaps 78, 21, 6, 1
    assert C.rises_to_ucb(result_of(base), C.IUCB, [1000, 2000, 5000, 10_000]).holds
    base[C.IUCB]["optimal_pct"] = steps_at({1000: 2, 2000: 65, 5000: 60, 10_000: 93})  # gap 21 -> 32
    assert not C.rises_to_ucb(result_of(base), C.IUCB, [1000, 2000, 5000, 10_000]).holds


def cell(mi, c, playouts, wins, games):
    from testbeds.ratings import rate

    r = rate(wins, 0, games - wins)
    return {"mi": mi, "uct": f"ucb1:c={c:g}", "c": c, "playouts": playouts, "games": games, "wins": wins, "draws": 0,
            "losses": games - wins, "win_rate": r.rate, "low": r.low, "high": r.high}


def test_nogo_table_rules():
    # 100 games: 70 wins gives the Wilson interval [0.604, 0.781], above 0.5; 55 wins [0.452, 0.644]
    rows = [cell("mi", c, 1000, 70, 100) for c in (0.1, 0.5)] + [cell("mi", c, 3000, 60, 100) for c in (0.1, 0.5)] \
        + [cell("mi", c, 5000, 55, 100) for c in (0.1, 0.5)]
    t3, t4 = C.table_claims(rows, "nogo")
    assert (t3.statement, t3.holds) == ("T3", True) and "cells above 0.5: 2" in t3.values
    assert t3.subject == "mi, 1000 playouts" and "C=0.1: 0.700 [0.604, 0.781]" in t3.values
    assert (t4.statement, t4.holds) == ("T4", True) and "1000: 0.700, 3000: 0.600, 5000: 0.550" in t4.values
    rows[1] = cell("mi", 0.5, 1000, 55, 100)  # one cell at 1000 no longer clearly above 0.5
    assert not C.table_claims(rows, "nogo")[0].holds
    # a second UCT template (final=max) is a separate table, named with its UCT
    rows += [dict(r, uct=r["uct"].replace("ucb1:", "ucb1:final=max,")) for r in rows]
    subjects = [c.subject for c in C.table_claims(rows, "nogo")]
    assert subjects == ["mi vs ucb1, 1000 playouts", "mi vs ucb1", "mi vs ucb1:final=max, 1000 playouts",
                        "mi vs ucb1:final=max"]


def test_go_table_rules():
    # 50 games, 27 wins: interval [0.404, 0.670] contains 0.5 (level); means 0.54 > 0.5 > 0.48
    rows = [cell("mi", c, 1000, 27, 50) for c in (0.1, 0.5)] + [cell("mi", c, 3000, 25, 50) for c in (0.1, 0.5)] \
        + [cell("mi", c, 5000, 24, 50) for c in (0.1, 0.5)]
    claims = C.table_claims(rows, "go")
    assert [c.statement for c in claims] == ["T1", "T1", "T1", "T2"]
    assert all(c.holds for c in claims)
    rows[0] = cell("mi", 0.1, 1000, 45, 50)  # 0.9: interval above 0.5 and the column mean 0.72: not level
    assert not C.table_claims(rows, "go")[0].holds
    with pytest.raises(ValueError, match="game must be 'go' or 'nogo'"):
        C.table_claims(rows, "chess")


@pytest.mark.slow  # (a figures run of nine policies: 50 s on a fresh clone)
def test_claims_command_on_a_small_figures_run(tmp_path, capsys):
    # a real (small) figures run with the readings of r: 20 tasks, 2000 plays -> checkpoints 1000, 2000
    figures = tmp_path / "figures"
    assert main(["figures", "--tasks", "20", "--horizon", "2000", "--r-sweep", "--workers", "1", "--out",
                 str(figures), "--no-progress"]) == 0
    table = tmp_path / "nogo"
    table.mkdir()
    rows = [cell("miucb:episodic=true", 0.5, p, w, 100) for p, w in ((1000, 70), (3000, 60))]
    with open(table / "table.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    out = tmp_path / "claims"
    assert main(["claims", "--figures", str(figures), "--nogo-tables", str(table), "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} >= {"figure_claims.csv", "figure_claims.md", "reading_claims.csv",
                                                "table_claims.csv", "fig1_regret.png", "summary.csv"}
    with open(out / "figure_claims.csv") as f:
        found = list(csv.DictReader(f))
    assert [r["statement"] for r in found] == ["F1", "F2", "F2", "F3", "F3", "F3", "F4", "F4", "F5", "F5", "F5", "F5"]
    # "no r" is greedy once every arm is tried, so its known-horizon and episodic curves coincide
    # (testbeds/figures.py): the two F4 rows carry the same numbers
    assert found[6]["values"] == found[7]["values"]
    # the Markdown table holds the same cells as the CSV
    md = (out / "figure_claims.md").read_text()
    for r in found:
        assert f"| {r['statement']} | {r['subject']} | {r['measure']} | {r['values']} | {r['holds']} |" in md
    with open(out / "reading_claims.csv") as f:
        readings = list(csv.DictReader(f))
    summary = [r for r in readings if r["statement"] == "all"]
    assert [r["subject"] for r in summary] == [f"r={x}" for x in ("none", "sqrt(T/t)", "T/t", "sqrt(T)/t", "n/t")]
    for row in summary:  # a reading's summary holds exactly when each of its checks does
        own = [r for r in readings if r["statement"] != "all" and r["subject"].startswith(row["subject"] + ":")]
        assert len(own) == row["values"].count(";") + 1
        assert row["holds"] == ("yes" if all(r["holds"] == "yes" for r in own) else "no")
    with open(out / "table_claims.csv") as f:
        assert [r["holds"] for r in csv.DictReader(f)] == ["yes", "yes"]
    assert main(["claims", "--nogo-tables", str(tmp_path / "missing"), "--out", str(out)]) == 2
    assert "--nogo-tables" in capsys.readouterr().err


def test_cost_table_from_a_tables_database(tmp_path):
    # two cells of 1000 playouts with games of 1 s and 3 s, one of 3000 with a 10 s game:
    # 1000: mean of the cells' seconds per game (1 + 3) / 2 = 2.00; 1000 games per cell cost
    # (1 + 3) * 1000 s = 1.1 core-hours; all: (1 + 3 + 10) * 1000 / 3600 = 3.9
    from testbeds.store import GameRow, ResultStore
    from testbeds.tables import cell_costs

    db = tmp_path / "t.sqlite"
    with ResultStore(db, header={"study": "tables", "game": "nogo", "game_options": {}, "seed": 0}) as store:
        for c, playouts, seconds in ((0.2, 1000, 1.0), (0.5, 1000, 3.0), (0.5, 3000, 10.0)):
            run = store.run_id({"a": "mi", "b": f"ucb1:c={c}", "playouts": playouts},
                               {"mi": "mi", "uct": f"ucb1:c={c:g}", "c": c, "playouts": playouts})
            store.add_game(run, GameRow(game_index=0, seed=1, first="a", second="b", a_first=True, winner=0,
                                        score_a=1.0, n_moves=10, seconds=seconds))
    rows = cell_costs(db)
    assert [(r["c"], r["playouts"], r["seconds_per_game"]) for r in rows] == [(0.2, 1000, 1.0), (0.5, 1000, 3.0),
                                                                           (0.5, 3000, 10.0)]
    md = C.cost_markdown([dict(r, database="t.sqlite") for r in rows])
    assert "| t.sqlite | 1000 | 2 | 2 | 2.00 | 0.00 | 1.1 |" in md
    assert "| t.sqlite | all | 3 | 3 | | 0.00 | 3.9 |" in md
    out = tmp_path / "cost"
    assert main(["claims", "--cost", str(db), "--out", str(out)]) == 0
    assert C.cost_markdown(C.read_cost_csv(out / "cost.csv")) == (out / "cost.md").read_text()
