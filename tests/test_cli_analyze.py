"""``banditree analyze``: the files hold the search of the requested position; bad input is one line."""
import json
import os

import numpy as np
import pytest

from testbeds.cli import main
from treepolicies import make_game, search
from treepolicies.interop.sgf import load_sgf_file, write_sgf
from treepolicies.viz import principal_variation


def test_analyze_connect4_writes_the_search_of_the_position(tmp_path, capsys):
    out = tmp_path / "c4"
    rc = main(["analyze", "--game", "connect4", "--moves", "3 3 2", "--player", "ucb1:c=1", "--playouts", "500",
               "--seed", "4", "--out", str(out), "--no-progress"])
    assert rc == 0
    assert sorted(os.listdir(out)) == sorted(["root.png", "root.pdf", "tree.png", "tree.pdf", "growth.png",
                                              "growth.pdf", "tree.json", "tree.dot", "search.json"])
    game = make_game("connect4")
    for m in (3, 3, 2):
        game.play(m)
    ref = search(game, "ucb1:c=1", iterations=500, seed=4, early_stop=False)
    doc = json.load(open(out / "search.json"))
    assert doc["position"] == str(game)
    by_move = {row["move"]: row["visits"] for row in doc["root"]}
    assert by_move == {str(m): int(v) for m, v in zip(ref.moves, ref.visits)}
    assert doc["record"]["pv"] == [str(m) for m in principal_variation(ref)][:10]
    assert doc["record"]["move"] == str(ref.move) and doc["record"]["iterations"] == 500
    assert doc["growth"]["iterations"][-1] == 500 and doc["growth"]["visits"][-1] == [int(v) for v in ref.visits]
    tree = json.load(open(out / "tree.json"))
    assert tree["root"]["visits"] == 500 and tree["pv"] == doc["record"]["pv"] + tree["pv"][10:]
    assert f"move {ref.move} (visits" in capsys.readouterr().out


def test_analyze_go_from_an_sgf_position(tmp_path):
    g = make_game("go", size=7)
    for v in ("D4", "C3", "E3", "pass"):
        g.play(g.str_to_move(v))
    sgf = tmp_path / "g.sgf"
    sgf.write_text(write_sgf(g))
    out = tmp_path / "an"
    assert main(["analyze", "--game", "go", "--sgf", str(sgf), "--move", "2", "--playouts", "300",
                 "--out", str(out), "--no-progress"]) == 0
    doc = json.load(open(out / "search.json"))
    position = load_sgf_file(str(sgf), move_number=2)
    assert doc["position"] == str(position)
    ref = search(position, "ucb1", iterations=300, seed=0, early_stop=False)
    assert sum(r["visits"] for r in doc["root"]) == 300
    assert {r["move"]: r["visits"] for r in doc["root"]} == {position.move_to_str(m): int(v)
                                                             for m, v in zip(ref.moves, ref.visits)}


@pytest.mark.parametrize("argv, message", [
    (["--game", "go", "--moves", "E5 E5"], "--moves: move 2 ('E5') is illegal in this position"),
    (["--game", "go", "--moves", "Z1"], "--moves: move 1 ('Z1')"),
    (["--game", "go", "--move", "3"], "--move needs --sgf FILE"),
    (["--game", "connect4", "--sgf", "x.sgf"], "--sgf is for go and nogo"),
    (["--game", "go", "--sgf", "missing.sgf"], "--sgf missing.sgf:"),
    (["--game", "go", "--playouts", "0"], "--playouts must be an integer in 1..1000000000, got 0"),
    (["--game", "go", "--player", "random"], "player 'random' is not an MCTS player"),
    (["--game", "go", "--player", "ucb9"], "unknown player 'ucb9'"),
    (["--game", "tictactoe", "--moves", "0 3 1 4 2"], "--moves: the game is over"),
])
def test_bad_input_is_one_line_naming_the_flag(tmp_path, capsys, argv, message):
    out = tmp_path / "never"
    assert main(["analyze", *argv, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("banditree analyze: error: ") and err.count("\n") == 1 and message in err, err
    assert not out.exists()


def test_unwritable_or_taken_out_is_refused_before_searching(tmp_path, capsys, monkeypatch):
    import treepolicies.viz.analysis as analysis

    monkeypatch.setattr(analysis, "analyze_position", lambda *a, **k: pytest.fail("searched"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["analyze", "--game", "go", "--out", str(blocker / "sub"), "--no-progress"]) == 2
    assert "--out" in capsys.readouterr().err
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "tree.json").write_text("{}")
    assert main(["analyze", "--game", "go", "--out", str(taken), "--no-progress"]) == 2
    assert "already holds results (tree.json)" in capsys.readouterr().err
