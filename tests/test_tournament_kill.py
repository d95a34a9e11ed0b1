"""A real `banditree match --db` process killed with SIGKILL (then one stopped with Ctrl-C) and restarted
ends with exactly the requested games and the results of an uninterrupted run with the same seed.

The interrupted runs ask for far more games (N) than they can play before the signal, so the
signal always lands mid-run however fast the machine or warm the caches; the resumed run then asks
for only a few games more than were stored (M), and the uninterrupted reference plays those M."""
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
N = 200  # games asked of the interrupted runs: about 20 s of play, never finished before the signal
# 5x5 NoGo at 2000 playouts: about 0.1 s a game here
CFG = MatchConfig(game="nogo", a="miucb:episodic=true", b="ucb1:c=0.5", playouts=2000, seed=11,
                  game_options={"size": 5})


def cli(db, workers, games=N):
    return [sys.executable, "-m", "testbeds.cli", "match", "--game", "nogo", "--size", "5", "--a", CFG.a,
            "--b", CFG.b, "--playouts", str(CFG.playouts), "--games", str(games), "--seed", str(CFG.seed),
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


@pytest.mark.slow  # (processes killed and resumed: 10 s)
def test_sigkill_then_ctrl_c_then_resume(tmp_path):
    db = tmp_path / "nogo.sqlite"

    rc, _, _ = interrupt_when(start(db, workers=1), db, 2, signal.SIGKILL)
    assert rc == -signal.SIGKILL
    after_kill = stored(db)
    assert 2 <= after_kill < N

    proc = start(db, workers=2)
    rc, out, err = interrupt_when(proc, db, after_kill + 2, signal.SIGINT)
    assert rc == 130, err
    after_int = stored(db)
    assert err.splitlines()[-1] == (f"banditree match: interrupted; {after_int} finished games are saved in {db}; "
                                    f"rerun the same command to resume") and "Traceback" not in err
    assert after_kill + 2 <= after_int < N

    with ResultStore(db) as s:
        kept = s.games(1)
    assert len(kept) == after_int
    # the resumed run asks for a few games beyond every stored index (the pool may have stored
    # them out of order), so it has missing games to play both below and above the stored ones
    m = max(g.game_index for g in kept) + 3
    ref = run_match(CFG, m, progress=False)  # uninterrupted, in this process
    # what survived equals the uninterrupted games of the same indices
    assert [g.outcome() for g in kept] == [ref.games[g.game_index].outcome() for g in kept]

    done = subprocess.run(cli(db, workers=2, games=m), cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert f"{m - after_int} games played now, {m} in {db}" in done.stdout
    with ResultStore(db) as s:
        final = s.games(1)
    assert [g.outcome() for g in final] == [g.outcome() for g in ref.games]
    r = ref.rating
    assert f"A: {r.wins} wins, {r.draws} draws, {r.losses} losses in {m} games" in done.stdout
