"""An engine that dies while it chooses a move (GNU Go 3.8 segfaults in rare positions): the player
restarts it on the replayed game with another seed (treepolicies.interop.gtp_client.RESTARTS times
a move); if it dies again, it passes for the engine (on_crash=pass) or says in one line how the
engine ended (on_crash=stop).

The engine here is a stand-in written for the test (no GNU Go needed): a GTP engine that kills
itself with SIGSEGV on ``genmove`` while a crash budget (a file) lasts, and logs every command.
"""
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from bandits.rng import Stream
from treepolicies.games.go import Go
from treepolicies.interop.gtp_client import RESTARTS, GnuGoPlayer, GtpEngineEnded, GtpEngineError
from treepolicies.players import make_player

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FAKE = textwrap.dedent("""\
    #!{python}
    # a GTP engine: answers every command with '=', genmove with the first point not played yet
    # (columns A-J without I, rows 1-9; a test plays a few moves on 9x9), or $FAKE_GTP_ANSWER;
    # dies by SIGSEGV on genmove while the number in $FAKE_GTP_DIR/budget is above 0
    import os, signal, sys
    d = os.environ["FAKE_GTP_DIR"]
    log = open(os.path.join(d, "log"), "a")
    log.write("start\\n"); log.flush()
    played = set()
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        log.write(line); log.flush()
        if cmd[0] == "quit":
            print("=\\n", flush=True); break
        if cmd[0] == "clear_board":
            played.clear()
        if cmd[0] == "play":
            played.add(cmd[2].upper())
        if cmd[0] == "genmove":
            budget = int(open(os.path.join(d, "budget")).read())
            if budget > 0:
                open(os.path.join(d, "budget"), "w").write(str(budget - 1))
                sys.stderr.write("fake: about to crash\\n"); sys.stderr.flush()
                os.kill(os.getpid(), signal.SIGSEGV)
            if os.environ.get("FAKE_GTP_ANSWER"):
                print(os.environ["FAKE_GTP_ANSWER"] + "\\n", flush=True); continue
            move = next(c + str(r) for r in range(1, 10) for c in "ABCDEFGHJ" if c + str(r) not in played)
            played.add(move)
            print("= " + move + "\\n", flush=True); continue
        print("=\\n", flush=True)
    """)


@pytest.fixture
def fake(tmp_path, monkeypatch):
    path = tmp_path / "fake_gtp"
    path.write_text(FAKE.format(python=sys.executable))
    path.chmod(0o755)
    monkeypatch.setenv("FAKE_GTP_DIR", str(tmp_path))
    monkeypatch.delenv("FAKE_GTP_ANSWER", raising=False)

    def make(budget):
        (tmp_path / "budget").write_text(str(budget))
        (tmp_path / "log").write_text("")
        return str(path)
    return make


def _log(path):
    with open(os.path.join(os.path.dirname(path), "log")) as fh:
        return [line.strip() for line in fh]


def _sessions(lines):
    """The commands each engine process got, one list a process."""
    out = []
    for line in lines:
        if line == "start":
            out.append([])
        else:
            out[-1].append(line)
    return out


def test_a_crash_restarts_the_engine_on_the_replayed_game_with_another_seed(fake):
    exe = fake(budget=1)
    g = Go(size=9)
    for code in (g.str_to_move("E5"), g.str_to_move("C3")):
        g.play(code)
    player = GnuGoPlayer(level=1, path=exe)
    try:
        move = player.choose(g.copy(), Stream(4, 0))
    finally:
        player.close()
    # the first engine died on genmove; the second got the whole game again (E5 by black, C3 by
    # white) and answered the first point not played: A1
    assert g.move_to_str(move) == "A1"
    first, second = _sessions(_log(exe))
    assert first[-1] == "genmove b" and second[-2:] == ["genmove b", "quit"]
    for s in (first, second):
        assert [c for c in s if c.startswith("play")] == ["play b E5", "play w C3"]
    seeds = [next(c for c in s if c.startswith("set_random_seed")) for s in (first, second)]
    assert seeds[0] != seeds[1]


def test_a_position_that_crashes_the_engine_is_passed_and_the_game_goes_on(fake, capfd):
    exe = fake(budget=RESTARTS + 1)  # the first engine and every restart die on this move
    g = Go(size=9)
    g.play(g.str_to_move("E5"))
    player = GnuGoPlayer(level=1, path=exe)  # on_crash="pass", the default
    try:
        move = player.choose(g.copy(), Stream(2, 0))
        assert move == g.PASS and player.crashes == 1
        err = capfd.readouterr().err
        assert "ended 2 times while answering 'genmove w' at move 2" in err and "it passes this move" in err
        g.play(move)
        g.play(g.str_to_move("C3"))
        # the budget is spent: a fresh engine gets the game with the pass and answers
        assert g.move_to_str(player.choose(g.copy(), Stream(2, 1))) == "A1"
    finally:
        player.close()
    sessions = _sessions(_log(exe))
    assert len(sessions) == RESTARTS + 2
    assert [c for c in sessions[-1] if c.startswith("play")] == ["play b E5", "play w pass", "play b C3"]


def test_same_stream_same_restart_seeds(fake):
    # same seed, same result: the restarted engine's seed comes from the player's stream
    logs = []
    for _ in range(2):
        exe = fake(budget=RESTARTS + 1)
        player = GnuGoPlayer(level=1, path=exe)
        try:
            assert player.choose(Go(size=9), Stream(9, 3)) == Go(size=9).PASS
        finally:
            player.close()
        logs.append(_log(exe))
    assert logs[0] == logs[1] and len(_sessions(logs[0])) == RESTARTS + 1


def test_on_crash_is_checked(fake):
    with pytest.raises(ValueError, match="on_crash must be one of pass, stop, got 'maybe'"):
        make_player(f"gnugo:level=1,path={fake(budget=0)},on_crash=maybe")


def test_an_engine_that_keeps_dying_is_one_error_saying_how(fake):
    exe = fake(budget=RESTARTS + 1)
    player = GnuGoPlayer(level=1, path=exe, on_crash="stop")
    try:
        with pytest.raises(GtpEngineError) as err:
            player.choose(Go(size=9), Stream(1, 0))
    finally:
        player.close()
    text = str(err.value)
    assert f"ended {RESTARTS + 1} times" in text and "'genmove b'" in text and "move 1 of the game" in text
    assert f"killed by signal {int(signal.SIGSEGV)}" in text and "fake: about to crash" in text
    assert len(_sessions(_log(exe))) == RESTARTS + 1


def test_an_error_answer_is_not_retried(fake, monkeypatch):
    exe = fake(budget=0)
    monkeypatch.setenv("FAKE_GTP_ANSWER", "? cannot do that")
    player = GnuGoPlayer(level=1, path=exe)
    try:
        with pytest.raises(GtpEngineError, match="cannot do that") as err:
            player.choose(Go(size=9), Stream(1, 0))
    finally:
        player.close()
    assert not isinstance(err.value, GtpEngineEnded) and len(_sessions(_log(exe))) == 1


def test_match_against_an_engine_that_keeps_dying_is_one_line_and_keeps_the_games(fake, tmp_path, monkeypatch):
    # a first run plays game 1 (the engine passes every move); then the engine dies RESTARTS + 1
    # times on the first genmove of game 2: the second run says so in one line, game 1 is kept
    exe = fake(budget=0)
    monkeypatch.setenv("FAKE_GTP_ANSWER", "= pass")
    db = tmp_path / "m.sqlite"
    cmd = [sys.executable, "-m", "testbeds.cli", "match", "--game", "go", "--size", "5", "--a", "random",
           "--b", f"gnugo:level=1,path={exe},on_crash=stop", "--playouts", "10", "--games", "1", "--db", str(db),
           "--no-progress"]
    env = dict(os.environ)
    first = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert first.returncode == 0, first.stderr
    (tmp_path / "budget").write_text(str(RESTARTS + 1))
    cmd[cmd.index("--games") + 1] = "2"
    second = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600, env=env)
    assert second.returncode == 1
    lines = [x for x in second.stderr.splitlines() if not x.startswith("banditree: compil")]
    assert len(lines) == 1, second.stderr
    assert f"ended {RESTARTS + 1} times" in lines[0] and "killed by signal" in lines[0], lines[0]
    assert "1 finished game is saved" in lines[0] and "rerun the same command to resume" in lines[0]
    with sqlite3.connect(db) as con:
        assert con.execute("select count(*) from games").fetchone()[0] == 1
