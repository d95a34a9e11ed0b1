"""A real `banditree match --db` process killed with SIGKILL (then one stopped with Ctrl-C) and restarted
ends with exactly the requested games and the results of an uninterrupted run with the same seed."""
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from testbeds.store import ResultStore
from testbeds.tournament import MatchConfig, run_match

ROOT = Path(__file__).resolve().parents[1]
N = 24
# 5x5 NoGo at 2000 playouts: about 0.1 s a game here, slow enough to be caught mid-run
CFG = MatchConfig(game="nogo", a="miucb:episodic=true", b="ucb1:c=0.5", playouts=2000, seed=11,
                  game_options={"size": 5})


def cli(db, workers):
    return [sys.executable, "-m", "testbeds.cli", "match", "--game", "nogo", "--size", "5", "--a", CFG.a,
            "--b", CFG.b, "--playouts", str(CFG.playouts), "--games", str(N), "--seed", str(CFG.seed),
            "--db", str(db), "--workers", str(workers), "--no-progress"]


def stored(db) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:  # not created yet
        return 0


def start(db, workers):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # own session: the signal goes to the client and its pool workers, as a terminal would do
    return subprocess.Popen(cli(db, workers), cwd=ROOT, env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def interrupt_when(proc, db, at_least, sig, timeout=300):
    deadline = time.monotonic() + timeout
    while stored(db) < at_least:
        if proc.poll() is not None:
            pytest.fail(f"the run ended before it could be interrupted: {proc.communicate()}")
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("no games stored in time")
        time.sleep(0.005)
    os.killpg(proc.pid, sig)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def test_sigkill_then_ctrl_c_then_resume(tmp_path):
    db = tmp_path / "nogo.sqlite"
    ref = run_match(CFG, N, progress=False)  # uninterrupted, in this process

    rc, _, _ = interrupt_when(start(db, workers=1), db, 2, signal.SIGKILL)
    assert rc == -signal.SIGKILL
    after_kill = stored(db)
    assert 2 <= after_kill < N

    proc = start(db, workers=2)
    rc, out, err = interrupt_when(proc, db, after_kill + 2, signal.SIGINT)
    assert rc == 130, err
    assert "interrupted; finished work is saved" in err and "Traceback" not in err
    after_int = stored(db)
    assert after_kill + 2 <= after_int < N

    with ResultStore(db) as s:  # what survived equals the uninterrupted games of the same indices
        kept = s.games(1)
    assert [g.outcome() for g in kept] == [ref.games[g.game_index].outcome() for g in kept]

    done = subprocess.run(cli(db, workers=2), cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert f"{N - after_int} games played now, {N} in {db}" in done.stdout
    with ResultStore(db) as s:
        final = s.games(1)
    assert [g.outcome() for g in final] == [g.outcome() for g in ref.games]
    r = ref.rating
    assert f"A: {r.wins} wins, {r.draws} draws, {r.losses} losses in {N} games" in done.stdout
