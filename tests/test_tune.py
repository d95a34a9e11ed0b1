"""banditree tune: the successive-halving schedule, a planted difference, resume after a kill, bad flags."""
import csv
import json

import pytest

from testbeds.cli import main
from testbeds.store import ResultStore
from testbeds.tune import TuneSpec, expand_grid, min_budget, parse_grid, run_tune, schedule


def test_schedule_is_the_documented_formula():
    # R = ceil(log2 6) = 3 rounds; n_r = ceil(6 / 2^r) = 6, 3, 2; g_r = 2 floor(B / (2 R n_r))
    assert schedule(6, 1000) == [(6, 2 * (1000 // 36)), (3, 2 * (1000 // 18)), (2, 2 * (1000 // 12))]
    assert schedule(6, 1000) == [(6, 54), (3, 110), (2, 166)]
    assert schedule(5, 300) == [(5, 20), (3, 32), (2, 50)]
    assert schedule(1, 11) == [(1, 10)]  # one candidate: one round, an even count
    # round robin: per pair, P_r = n_r (n_r - 1) / 2 pairs: 6 then 1
    assert schedule(4, 600, round_robin=True) == [(4, 50), (2, 300)]
    assert min_budget(6) == 36 and min_budget(4, True) == 24
    assert schedule(6, 36)[0] == (6, 2)
    with pytest.raises(ValueError, match=r"--budget must be at least 36 for 6 candidates .* got 35"):
        schedule(6, 35)


def test_grid_expands_to_the_cartesian_product_of_any_spec_parameter():
    cands = expand_grid("ucb1:c={c},rave=true,rave_k={k}", parse_grid(["c=0.5,1", "k=10,100,1000"]))
    assert [c.spec for c in cands[:4]] == ["ucb1:c=0.5,rave=true,rave_k=10", "ucb1:c=0.5,rave=true,rave_k=100",
                                          "ucb1:c=0.5,rave=true,rave_k=1000", "ucb1:c=1,rave=true,rave_k=10"]
    assert len(cands) == 6 and cands[5].label == "c=1,k=1000"
    TuneSpec(game="tictactoe", template="ucb1:c={c},rave=true,rave_k={k}", grid=parse_grid(["c=0.5,1", "k=10,100"]),
             reference="ucb1", playouts=10, budget=100).check_players()


def _planted(reference, budget):
    return TuneSpec(game="connect4", template="ucb1:c={c}", grid={"c": ("50", "0.5")}, reference=reference,
                    playouts=300, budget=budget, seed=0)


@pytest.mark.parametrize("reference", ["ucb1:c=1.4", None], ids=["against-reference", "round-robin"])
def test_planted_difference_is_ranked_correctly(reference):
    result = run_tune(_planted(reference, 80), progress=False)
    best, other = result["standings"]
    assert best.candidate.spec == "ucb1:c=0.5" and other.candidate.spec == "ucb1:c=50"
    assert best.dropped_after is None and other.dropped_after == 0
    assert best.score > other.score
    if reference is None:  # a round robin: the two play each other, their records mirror
        assert (best.wins, best.draws, best.losses) == (other.losses, other.draws, other.wins)
        assert best.games == 80 and best.score > 0.5


def _spec():
    return TuneSpec(game="connect4", template="ucb1:c={c}", grid={"c": ("0.5", "1.4", "50")},
                    reference="ucb1:c=1.4", playouts=50, budget=120, seed=3)


def _summary(result):
    return [(s.rank, s.candidate.spec, s.wins, s.draws, s.losses, s.dropped_after) for s in result["standings"]], \
        result["rounds"]


def _rows(db):
    with ResultStore(db) as store:
        return sorted((json.dumps(r.config, sort_keys=True), g.outcome()) for r in store.runs()
                      for g in store.games(r.run_id))


@pytest.mark.slow  # (a tuning killed and resumed in processes: 12 s)
def test_a_killed_tuning_resumes_to_identical_results(tmp_path):
    spec = _spec()
    assert spec.schedule() == [(3, 20), (2, 30)]  # 60 games in round 0, 60 in round 1
    whole = run_tune(spec, tmp_path / "whole.sqlite", progress=False)
    assert whole["played"] == 120

    seen = []

    def kill(_rid, _row):
        seen.append(1)
        if len(seen) == 75:  # inside round 1
            raise KeyboardInterrupt

    db = tmp_path / "killed.sqlite"
    with pytest.raises(KeyboardInterrupt):
        run_tune(spec, db, progress=False, on_game=kill)
    assert len(_rows(db)) == 75
    resumed = run_tune(spec, db, progress=False)
    assert resumed["played"] == 45
    assert _summary(resumed) == _summary(whole)
    assert _rows(db) == _rows(tmp_path / "whole.sqlite")
    again = run_tune(spec, db, progress=False)
    assert again["played"] == 0 and _summary(again) == _summary(whole)


def test_tune_command_writes_the_table_plot_and_names_the_best(tmp_path, capsys):
    out = tmp_path / "out"
    db = tmp_path / "t.sqlite"
    argv = ["tune", "--game", "connect4", "--player", "ucb1:c={c}", "--grid", "c=50,0.5", "--against",
            "ucb1:c=1.4", "--playouts", "300", "--budget", "80", "--db", str(db), "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "best: ucb1:c=0.5 (c=0.5) scores " in text and "against ucb1:c=1.4 over 40 games; Elo " in text
    assert sorted(p.name for p in out.iterdir()) == ["score.pdf", "score.png", "table.csv", "table.md", "tune.json"]
    rows = list(csv.DictReader(open(out / "table.csv")))
    assert [(r["rank"], r["c"], r["spec"], r["round_out"], r["games"]) for r in rows] == \
        [("1", "0.5", "ucb1:c=0.5", "best", "40"), ("2", "50", "ucb1:c=50", "0", "40")]
    assert float(rows[0]["low"]) <= float(rows[0]["score"]) <= float(rows[0]["high"])
    doc = json.loads((out / "tune.json").read_text())
    assert doc["standings"][0]["spec"] == "ucb1:c=0.5" and doc["rounds"][0]["games_each"] == 40
    assert "| 1 | `ucb1:c=0.5` | best | 40 |" in (out / "table.md").read_text()
    assert main(argv) == 0  # resumed from the database: nothing left to play, the same table
    assert "0 games played now" in capsys.readouterr().out
    assert list(csv.DictReader(open(out / "table.csv"))) == rows
    other = argv[:argv.index("--db")] + ["--seed", "1", "--out", str(out), "--no-progress"]
    assert main(other) == 2
    assert "holds the results of another tuning; pass --overwrite" in capsys.readouterr().err


BASE = ["tune", "--game", "tictactoe", "--player", "ucb1:c={c}", "--grid", "c=0.5,1", "--against", "random",
        "--playouts", "10", "--no-progress"]


@pytest.mark.parametrize("change, message", [
    ({"--budget": "0"}, "--budget must be an integer in 2..10000000, got 0"),
    ({"--budget": "3"}, "--budget must be at least 4 for 2 candidates (2 games per candidate in each of 1 rounds), got 3"),
    ({"--playouts": "0"}, "--playouts must be an integer in 1..1000000000, got 0"),
    ({"--workers": "0"}, "--workers must be an integer in 1..1024, got 0"),
    ({"--grid": "c"}, "--grid must be KEY=V1,V2,... (e.g. c=0.3,0.5,1), got 'c'"),
    ({"--grid": "k=1,2"}, "--player 'ucb1:c={c}' has no placeholder {k} for --grid k"),
    ({"--grid": "c=1,1"}, "--grid c: values must not repeat"),
    ({"--player": "ucb1:c={c},rave_k={k}"}, "placeholder {k} has no --grid k=..."),
    ({"--player": "ucb9:c={c}"}, "--player 'ucb9:c=0.5': unknown player 'ucb9'"),
    ({"--against": "ucb9"}, "--against 'ucb9': unknown player 'ucb9'"),
    ({"--grid": "c=-1,1"}, "--player 'ucb1:c=-1'"),
    ({"--round-robin": None}, "give exactly one of --against SPEC and --round-robin"),
    ({"--game": "chess"}, "unknown game 'chess'"),
])
def test_bad_flags_are_one_line_and_create_nothing(tmp_path, capsys, change, message):
    argv = list(BASE) + ["--db", str(tmp_path / "sub" / "t.sqlite"), "--out", str(tmp_path / "sub" / "out")]
    for flag, value in change.items():
        if flag in argv and value is not None:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag] + ([value] if value is not None else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("banditree tune: error: ") and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "sub").exists()


def test_unwritable_out_is_refused_before_any_game(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    argv = list(BASE) + ["--db", str(tmp_path / "t.sqlite"), "--out", str(tmp_path / "file" / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "cannot be written" in err and err.count("\n") == 1
    assert not (tmp_path / "t.sqlite").exists()
