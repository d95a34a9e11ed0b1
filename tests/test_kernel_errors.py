"""A node policy whose kernel raises inside the tree search stops the search with one line naming the
policy and its error (issue 24, item 13): numba cannot pass the exception through a compiled caller
(it printed "Exception ignored" thousands of times and the search went on with a default arm), so
bandits.compiling.kernel_errors catches it and the executors stop."""
import os
import sqlite3
import subprocess
import sys

import numpy as np
import pytest

from treepolicies import make_game, search

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PLUGIN = os.path.join(HERE, "plugin_raising.py")


@pytest.fixture(scope="module", autouse=True)
def _plugin():
    import bandits

    bandits.load_plugin(PLUGIN)


WORDS = "node policy 't_raises' raised ValueError: t_raises: a bug in select in one of its kernels during the search"


@pytest.mark.parametrize("kw", [dict(), dict(compiled=False), dict(rave=True, prior="heuristic"),
                                dict(transpositions=True), dict(threads=2, parallel="tree"),
                                dict(threads=2, parallel="leaf"),
                                dict(evaluator=lambda s, m, c: (np.ones(m.shape), np.full(len(s), 0.5)))])
def test_a_raising_select_stops_every_executor_in_one_line(kw, capfd):
    with pytest.raises(ValueError) as err:
        search(make_game("tictactoe"), "t_raises", iterations=200, seed=0, **kw)
    assert str(err.value).startswith(WORDS) and "\n" not in str(err.value)
    assert "Exception ignored" not in capfd.readouterr().err  # (nothing printed: the error is the message)


def test_a_raising_root_policy_is_named_too():
    with pytest.raises(ValueError, match="or root policy 't_raises' raised ValueError"):
        search(make_game("connect4"), "ucb1", iterations=100, seed=0, root_policy="t_raises")


def test_match_with_a_raising_plugin_exits_non_zero_and_stores_nothing(tmp_path):
    db = tmp_path / "m.sqlite"
    proc = subprocess.run([sys.executable, "-m", "testbeds.cli", "match", "--plugin", PLUGIN, "--game", "tictactoe",
                           "--a", "t_raises", "--b", "random", "--playouts", "50", "--games", "2", "--db", str(db),
                           "--no-progress"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert proc.returncode != 0
    lines = [x for x in proc.stderr.splitlines() if not x.startswith("banditree: compil")]
    assert len(lines) == 1 and "t_raises" in lines[0] and "a bug in select" in lines[0], proc.stderr
    if db.exists():
        with sqlite3.connect(db) as con:
            tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
            for t in tables:
                if t == "games":
                    assert con.execute("select count(*) from games").fetchone()[0] == 0


def test_gtp_genmove_with_a_raising_policy_answers_an_error():
    from treepolicies.interop.gtp import GtpEngine
    import io

    e = GtpEngine(game="nogo", size=5, player="t_raises", playouts=50)
    out = io.StringIO()
    e.run(io.BytesIO(b"genmove b\nquit\n"), out)
    reply = out.getvalue().split("\n\n")[0]
    assert reply.startswith("? ") and "t_raises" in reply and "a bug in select" in reply
